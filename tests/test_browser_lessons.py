"""A lesson in the real app: walked end to end with Next, a figure downloaded as PNG in one click, and a
screenshot of each lesson's key step (``lesson_<name>.png`` in ``screenshot_dir``).

Uses the ``server`` / ``browser`` / ``page`` fixtures of conftest.py, like tests/test_browser.py.
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

import pytest

from kernelviz import lessons
from test_browser import CHART, assert_clean, settle

pytestmark = pytest.mark.browser

#: The step of each lesson that shows its point best (the one the README pictures).
KEY_STEPS = {"rbf-basics": 3, "ckrbf": 6, "rwm": 1, "mcpm": 3, "cksvmnda": 4}
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def heading(name: str, k: int) -> str:
    return f"step {k} of {len(lessons.get(name).steps)}"


def test_the_mcpm_lesson_walks_end_to_end_and_its_figure_downloads_as_png(server, page, tmp_path):
    page.goto(f"{server}/")
    settle(page, "See when a data-dependent kernel beats RBF")
    page.locator('[class*="st-key-start_mcpm"] button').click()
    name = "mcpm"
    for k in range(1, len(lessons.get(name).steps) + 1):
        if k > 1:
            page.get_by_role("button", name="Next").click()
        settle(page, heading(name, k))
        page.wait_for_selector(CHART)
        page.get_by_text("On this page:", exact=False).first.wait_for()
        assert_clean(page)
        assert f"lesson={name}" in page.url and f"step={k}" in page.url
    assert page.get_by_role("button", name="Next").is_disabled()
    # The last step is Decision boundaries, whose page reruns once its live preview is ready. In one
    # of five full suite runs the download never came; the likeliest cause is a click landing while
    # that run replaced the button (not reproduced alone or under load). Click when the page is at rest.
    page.get_by_text("Preparing the live preview").wait_for(state="detached")
    settle(page)
    # made in the background once the figure is drawn: one click saves it (waiting, if need be)
    with page.expect_download(timeout=120_000) as download:
        page.get_by_role("button", name="PNG", exact=True).first.click()
    path = tmp_path / download.value.suggested_filename
    download.value.save_as(path)
    assert path.suffix == ".png" and path.read_bytes()[:8] == PNG_MAGIC
    # and the SVG of the same figure, in one click too
    with page.expect_download(timeout=120_000) as download:
        page.get_by_role("button", name="SVG", exact=True).first.click()
    path = tmp_path / download.value.suggested_filename
    download.value.save_as(path)
    text = path.read_text(encoding="utf-8")
    assert path.suffix == ".svg" and "<svg" in text[:400] and "Decision boundaries at" in text


@pytest.mark.parametrize("name", list(KEY_STEPS))
def test_each_lessons_key_step_is_screenshotted(server, page, screenshot_dir, name):
    k = KEY_STEPS[name]
    page.goto(f"{server}/?lesson={name}&step={k}")
    settle(page, heading(name, k))
    page.wait_for_selector(CHART)
    if lessons.get(name).step(k).explain is not None:
        page.get_by_text("On this page:", exact=False).first.wait_for()
    settle(page)
    assert_clean(page)
    page.set_viewport_size({"width": 1440, "height": 900})
    page.screenshot(path=str(screenshot_dir / f"lesson_{name}.png"))


def test_the_landing_screen_is_screenshotted_on_a_wide_screen(server, page, screenshot_dir):
    page.set_viewport_size({"width": 1920, "height": 1080})
    page.goto(f"{server}/")
    settle(page, "See when a data-dependent kernel beats RBF")
    page.wait_for_selector(CHART)
    settle(page)
    assert_clean(page)
    page.screenshot(path=str(screenshot_dir / "landing.png"))


def test_leave_and_the_browsers_back_return_to_the_page_the_lesson_was_opened_from(server, page):
    def query() -> dict:
        return parse_qs(urlparse(page.url).query)

    page.goto(f"{server}/?view=theory&kernels=rbf,gmm&log_C=1.5")
    settle(page, "Start the lesson")
    before = query()
    page.locator('[class*="st-key-theory_lesson_ckrbf"] button').click()
    settle(page, heading("ckrbf", 1))
    first = query()
    page.get_by_role("button", name="Next").click()
    settle(page, heading("ckrbf", 2))
    page.go_back()
    settle(page, heading("ckrbf", 1))
    assert query() == first
    page.go_back()
    settle(page, "Start the lesson")
    assert_clean(page)
    assert query() == before and page.get_by_text("step 1 of").count() == 0
    page.go_forward()
    settle(page, heading("ckrbf", 1))
    assert query() == first
    page.get_by_role("button", name="Leave").click()
    settle(page, "Start the lesson")
    assert_clean(page)
    assert query() == before


@pytest.mark.parametrize("width, height", [(1024, 700), (1440, 900)])
def test_the_lesson_header_reads_in_full_at_every_width(server, page, width, height):
    """At 1024 px each of Back / Next / Leave had a ninth of the panel and read "B… / N… / L…"."""
    page.set_viewport_size({"width": width, "height": height})
    page.goto(f"{server}/?lesson=rwm&step=2")
    settle(page, heading("rwm", 2))
    for name in ("Back", "Next", "Leave"):
        button = page.get_by_role("button", name=name, exact=True)
        assert button.inner_text().strip() == name
        clipped = button.evaluate("(b) => [...b.querySelectorAll('*')].concat([b]).some("
                                  "(e) => e.scrollWidth > e.clientWidth + 1)")
        assert not clipped, f"{name} is cut at {width} px"
