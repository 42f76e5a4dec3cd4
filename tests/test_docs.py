"""The documents in docs/ stay consistent with what cites them.

Code, tests and documents cite formulas as "docs/MATH.md §4.3": every such section must
exist. The papers are cited from one registry (kernelviz/references.py): the README, MATH.md
and PRODUCT.md must name every paper with the registry's authors, title, venue and year.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import kernelviz.references as refs

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parent.parent
CITING = [*sorted((ROOT / "kernelviz").rglob("*.py")), *sorted((ROOT / "tests").glob("*.py")),
          *sorted((ROOT / "benchmarks").glob("*.py")), *sorted((ROOT / "docs").glob("*.md")),
          ROOT / "README.md", ROOT / "app.py"]
SECTION_CITATION = re.compile(r"docs/MATH\.md §(\d+(?:\.\d+)*)")
SECTION_HEADING = re.compile(r"^#{2,4} (\d+(?:\.\d+)*)\.? ", re.MULTILINE)


def _one_line(text: str) -> str:
    """Line breaks and runs of spaces as single spaces: documents wrap long titles."""
    return " ".join(text.split())


def math_sections() -> set[str]:
    return set(SECTION_HEADING.findall((ROOT / "docs" / "MATH.md").read_text(encoding="utf-8")))


def test_math_sections_are_numbered_in_order():
    numbers = SECTION_HEADING.findall((ROOT / "docs" / "MATH.md").read_text(encoding="utf-8"))
    top = [int(n) for n in numbers if "." not in n]
    assert top == list(range(1, len(top) + 1))
    assert len(numbers) == len(set(numbers)), "a section number is used twice"


def test_every_cited_math_section_exists():
    sections = math_sections()
    missing = []
    for path in CITING:
        if not path.exists():
            continue
        for line_number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            for section in SECTION_CITATION.findall(line):
                if section not in sections:
                    missing.append(f"{path.relative_to(ROOT)}:{line_number} cites §{section}")
    assert not missing, "docs/MATH.md has no such section:\n" + "\n".join(missing)


@pytest.mark.parametrize("document", ["README.md", "docs/MATH.md", "docs/PRODUCT.md"])
def test_every_paper_is_cited_as_the_registry_has_it(document):
    text = _one_line((ROOT / document).read_text(encoding="utf-8"))
    for paper in refs.PAPERS.values():
        for part in (paper.authors, paper.title, paper.venue, str(paper.year)):
            assert _one_line(part) in text, f"{document} does not cite {paper.key!r} with {part!r}"


@pytest.mark.parametrize("paper", sorted(refs.PAPERS))
def test_an_article_on_a_full_run_of_todays_code_names_that_run(paper):
    """Each replication article rests on its full report: once that report is a complete run of
    today's code, the article names its code version and its number of cells (the CkRBF article
    quoted the 1,092 cells of earlier code after the run of today's code had replaced them)."""
    import json

    report = ROOT / "docs" / "reproduction" / paper / "full" / "report.json"
    if not report.exists():
        pytest.skip(f"no full report for {paper}")
    run = json.loads(report.read_text())["runs"][0]
    if not run["complete"] or run["code_version"] == "earlier":
        pytest.skip(f"{paper}'s full report is not yet a complete run of today's code")
    article = _one_line((report.parent.parent / "README.md").read_text())
    assert f"`{run['code_version']}`" in article
    assert f"{run['cells_finished']:,} cells" in article, run["cells_finished"]
