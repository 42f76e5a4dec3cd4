import pytest

import kernelviz.references as refs

pytestmark = pytest.mark.unit


def test_every_paper_is_cited_with_authors_title_venue_and_year():
    assert set(refs.PAPERS) == {"ckrbf", "rwm", "mcpm", "cksvmnda"}
    for key, paper in refs.PAPERS.items():
        assert paper.key == key
        text = paper.citation()
        for part in (paper.authors, paper.title, paper.venue, str(paper.year)):
            assert part in text
        assert 2000 < paper.year < 2030
