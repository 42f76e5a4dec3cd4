"""Bad input that used to escape (issue 29): each case gives a clear message in the page, keeps
the person's data and settings, and never shows a traceback."""

from __future__ import annotations

import pytest

from kernelviz import state as kvstate
from kernelviz.ui import takeaway

from _charts import figures
from apptest import assert_clean, open_app, unescaped

pytestmark = pytest.mark.app


def errors(at) -> str:
    return " ".join(unescaped(e.value) for e in at.error)


def test_a_link_number_with_digit_separators_or_other_scripts_digits_is_refused_in_the_page():
    at = open_app(dict(view="data", data_seed="1_000", n_components="٣", log_C="１", gen_params="n_samples:40"))
    assert not at.exception
    shown = errors(at)
    for name in ("data_seed", "n_components", "log_C"):
        assert f"link's {name}" in shown and "digits 0-9" in shown, (name, shown)
        assert at.session_state[name] == kvstate.BY_NAME[name].default
    assert at.session_state["gen_params"] == {"n_samples": 40}  # the rest of the link still applies


def infos(at) -> str:
    return " ".join(unescaped(e.value) for e in at.info)


def upload(at, name: str, content: bytes):
    at.file_uploader(key="uploader").set_value((name, content, "text/csv"))
    return at.run()


GOOD_CSV = b"a,b,label\n" + b"".join(f"{i % 7},{(i * 3) % 5},{i % 2}\n".encode() for i in range(40))
UNREADABLE = {"latin-1.csv": "a,b,label\ncafé,1,0\n1,2,1\n".encode("latin-1"),
              "binary.csv": bytes(range(256)) * 4}


@pytest.mark.parametrize("file", list(UNREADABLE))
def test_an_unreadable_first_upload_is_named_and_says_what_to_do_without_contradicting_itself(file):
    at = open_app(dict(source="upload", view="data"))
    upload(at, file, UNREADABLE[file])
    assert not at.exception
    shown = errors(at)
    stem = file.rsplit(".", 1)[0]
    assert f"Could not use '{file}': '{stem}' is" in shown, shown  # its own name, not 'data'
    assert "'data'" not in shown
    # no earlier file: nothing is "kept", and the page does not claim that none was uploaded
    assert "previous" not in shown and "kept" not in shown, shown
    assert "No file uploaded yet" not in infos(at), infos(at)
    assert f"'{file}' could not be used" in infos(at), infos(at)
    assert at.session_state["source"] == "upload"
    at.run()  # the next run (another setting changed): the page still says why there are no data
    assert not at.exception and f"'{file}' could not be used" in infos(at)


def test_an_unreadable_upload_after_a_good_one_says_which_file_the_views_keep():
    at = open_app(dict(source="upload", view="data"))
    upload(at, "good.csv", GOOD_CSV)
    assert_clean(at)
    upload(at, "latin-1.csv", UNREADABLE["latin-1.csv"])
    assert not at.exception
    shown = errors(at)
    assert "Could not use 'latin-1.csv': 'latin-1' is not UTF-8 text" in shown, shown
    assert "The views keep showing 'good.csv'." in shown, shown
    assert not at.info, infos(at)
    assert any("**good**" in m.value for m in at.markdown)


def test_a_comma_table_with_a_quoted_semicolon_in_its_header_is_read():
    table = b'"a;b",c,label\n' + b"".join(f"{i % 7},{(i * 3) % 5},{i % 2}\n".encode() for i in range(40))
    at = open_app(dict(source="upload", view="data"))
    upload(at, "quoted.csv", table)
    assert_clean(at)
    assert at.session_state["_upload"][1] == "quoted.csv"
    (fig,) = figures(at)
    assert fig["layout"]["xaxis"]["title"]["text"] == "a;b", fig["layout"]["xaxis"]["title"]


def test_an_export_whose_browser_cannot_start_is_said_in_words_and_keeps_the_page(monkeypatch, tmp_path):
    fake = tmp_path / "server-only-dir" / "chromium"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("BROWSER_PATH", str(fake))
    from kernelviz import export

    export._EXPORTER.close()  # an export browser an earlier test left warm would draw the figure
    monkeypatch.setattr(takeaway, "_LAUNCH", takeaway._Launch(allowed=True))  # not the warm-up's 30 s
    at = open_app(dict(view="data", generator="blobs", gen_params="n_samples:40", data_seed="7"))
    assert_clean(at)
    before = figures(at)
    # PNG and SVG are made in the background once the figure is drawn (kernelviz.ui.takeaway.ExportJob):
    # wait for the export to end, then the page's next run says why it failed
    for job in at.session_state["_exports"].values():
        try:
            job.wait(120)
        except Exception:  # noqa: BLE001 -- its failure is what the page must word
            pass
        assert job.done and job.error is not None
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    shown = errors(at)
    assert "The figure could not be exported: PNG and SVG export could not start its browser" in shown, shown
    page = " ".join(str(e.value) for kind in ("error", "code", "markdown", "caption", "info", "warning")
                    for e in at.get(kind) if hasattr(e, "value"))
    assert "server-only-dir" not in page and "Traceback" not in page
    assert figures(at) == before
    assert at.session_state["data_seed"] == 7 and at.session_state["generator"] == "blobs"


def test_a_link_saying_draw_as_the_source_control_does_opens_the_drawn_points_and_is_written_drawn():
    at = open_app(dict(source="draw", points="1_0.5_1~-1_-0.5_-1", view="data"))
    assert_clean(at)
    assert at.session_state["source"] == "drawn"
    assert at.session_state["points"].tolist() == [[1.0, 0.5, 1.0], [-1.0, -0.5, -1.0]]
    assert at.query_params["source"] in ("drawn", ["drawn"])  # the link keeps the one name
    assert [e for e in at.get("bidi_component") if e.proto.component_name == "kernelviz.draw"]
