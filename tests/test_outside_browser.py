"""Outside text in a real page: every kind of place the app shows it (tests/apps/outside_sinks.py:
alerts, captions, Markdown, button, download and expander labels, a Plotly title, axis title and
legend) draws it as the text itself — no link, image, script or element from the text, no
request leaving the machine, no dialog — for hostile texts drawn by hypothesis."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import urllib.request

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from kernelviz.outside import WORD_JOINER, visible

from _hostile import FRAGMENTS, hostile_text
from conftest import ROOT, SERVER_START_SECONDS, _free_port

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SINKS_APP = ROOT / "tests" / "apps" / "outside_sinks.py"
READY = '[data-testid="stApp"][data-test-script-state="notRunning"]'


def _serve(texts_file, log_file):
    port = _free_port()
    env = {**os.environ, "KERNELVIZ_HOSTILE_TEXTS": str(texts_file), "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", str(SINKS_APP), "--server.headless", "true",
                             "--server.port", str(port), "--server.address", "localhost",
                             "--browser.gatherUsageStats", "false"], cwd=ROOT, env=env, stdout=log_file,
                            stderr=subprocess.STDOUT)
    url = f"http://localhost:{port}"
    deadline = time.time() + SERVER_START_SECONDS
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2):
                return proc, url
        except OSError:
            time.sleep(0.3)
    proc.kill()
    pytest.fail("the sinks app did not start")


def _same_text(drawn: str) -> str:
    """Text as HTML lays it out: runs of spaces as one, none at the ends; the joiners invisible."""
    return re.sub(r"[ \t\n\r]+", " ", drawn.replace(WORD_JOINER, "")).strip()


def _check_page(browser, tmp_path, texts):
    texts_file = tmp_path / "texts.json"
    texts_file.write_text(json.dumps(texts), encoding="utf-8")
    with open(tmp_path / "server.log", "wb") as log:
        proc, url = _serve(texts_file, log)
        context = browser.new_context(viewport={"width": 1440, "height": 1000})
        try:
            page = context.new_page()
            dialogs, outside_requests = [], []
            page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
            page.on("request", lambda r: None if r.url.startswith(("http://localhost", "data:", "blob:"))
                    else outside_requests.append(r.url))
            page.goto(url)
            page.wait_for_selector(READY, timeout=90_000)
            # the last chart is drawn (an empty title is drawn hidden: wait for it to be there, not seen)
            page.wait_for_selector(f".st-key-sink_{len(texts) - 1} .gtitle", state="attached", timeout=60_000)
            for i, text in enumerate(texts):
                box = page.locator(f".st-key-sink_{i}")
                expected = _same_text(visible(text))
                links = box.locator("a[href]:not(.modebar-btn)")
                assert links.count() == 0, (text, links.first.get_attribute("href"))
                for tag in ("img", "script", "iframe", "svg a", "[onerror]", "[onclick]", "[onload]"):
                    assert box.locator(tag).count() == 0, (tag, text)
                if not expected:
                    continue  # nothing to read: Streamlit shows a placeholder for an empty label
                alerts = box.locator('[data-testid="stAlertContentError"]')
                assert _same_text(alerts.inner_text()) == expected, text
                assert _same_text(box.locator('[data-testid="stCaptionContainer"]').inner_text()) == expected
                assert _same_text(box.locator('[data-testid="stButton"] button').inner_text()) == expected
                summary = box.locator('[data-testid="stExpander"] summary').inner_text()
                assert _same_text(summary.replace("keyboard_arrow_right", "", 1)) == expected
                warning = box.locator('[data-testid="stAlertContentWarning"]').inner_text()
                assert _same_text(warning) == _same_text(f"RBF is left out: {visible(text)}")
                assert _same_text(box.locator(".gtitle").text_content()) == expected
                assert _same_text(box.locator(".legendtext").text_content()) == expected
            assert not dialogs and not outside_requests, (dialogs, outside_requests)
        finally:
            context.close()
            proc.terminate()
            proc.wait(timeout=10)


def test_the_known_hostile_fragments_are_drawn_as_text(browser, tmp_path):
    _check_page(browser, tmp_path, list(FRAGMENTS) + ["see https://evil.example/fix now and www.evil.example"])


@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(texts=st.lists(hostile_text.map(lambda t: t[:3000]), min_size=12, max_size=12))
@example(texts=['"'] * 11 + [""])  # CI drew an empty last text: its chart's title is there, empty and hidden
def test_hostile_texts_are_drawn_as_text(browser, tmp_path_factory, texts):
    _check_page(browser, tmp_path_factory.mktemp("sinks"), texts)
