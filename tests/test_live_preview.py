"""A figure that is its own live preview, in headless Chromium: dragging repaints every kernel panel
of the figure from the lattice with no script run, releasing commits; where the lattice does not
hold the sliders' values the panels keep the figure's picture, say "updates on release", and the
slider still commits."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "apps"))
import live_drag  # noqa: E402  (a helper beside the test apps, shared with benchmarks/bench_live.py)

pytestmark = pytest.mark.browser

COMMITTED = re.compile(r"script runs: (\d+) · committed: log γ = (\S+), log C = (\S+)")


@pytest.fixture(scope="module")
def demo():
    with live_drag.serve() as url:
        yield url


def status(page) -> tuple[int, float, float]:
    text = page.get_by_text("script runs:").inner_text()
    runs, log_gamma, log_C = COMMITTED.search(text).groups()
    return int(runs), float(log_gamma), float(log_C)


def open_demo(page, url: str, ready: bool = True) -> None:
    page.goto(url)
    page.locator(live_drag.READY if ready else live_drag.LIVE).wait_for()
    page.wait_for_selector(live_drag.IDLE)
    page.locator('.kv-live[data-state="committed"]').wait_for()


def test_dragging_gamma_repaints_every_panel_without_a_rerun_and_commits_on_release(demo, page):
    open_demo(page, demo)
    runs_before, log_gamma, _ = status(page)
    assert log_gamma == 0.0
    start = int(live_drag.slider(page, "log_gamma").input_value())
    assert start == 12  # log γ = 0 on the lattice −3, −2.75, …, 3
    # the figure's own values: the canvas shows the figure's fields (it paints them, and the preview's)
    assert all(share > 0.99 for share in live_drag.shows_figure(page)), live_drag.shows_figure(page)
    before = live_drag.panel_pixels(page)

    # 24 moves: up to the end of the lattice, back down, and up again to index 16 (log γ = 1)
    moves = list(range(13, 25)) + list(range(23, 13, -1)) + [15, 16]
    result = live_drag.drag(page, "log_gamma", moves)
    assert result["runs"] == 0, "the drag started a script run"
    assert status(page)[0] == runs_before
    fields = {field for _, field in result["paints"]}
    assert {f"log_gamma:{i}" for i in range(13, 25)} <= fields, fields
    during = live_drag.panel_pixels(page)
    assert len(during) == 4 and all(a != b for a, b in zip(during, before)), "a panel was not repainted"
    assert max(live_drag.shows_figure(page)) < 0.9  # the preview's fields at log γ = 1, not the figure's at 0
    assert page.locator(".kv-live").get_attribute("data-state") == "live"
    assert "Preview at γ = 10, C = 1" in page.locator(".kv-live-status").inner_text()

    live_drag.release(page)
    page.get_by_text("log γ = 1,").wait_for()
    page.wait_for_selector(live_drag.IDLE)
    runs_after, log_gamma, log_C = status(page)
    assert page.evaluate("() => window.__kvProbe.runs") >= 1, "the run probe never sees a run: it proves nothing"
    assert (log_gamma, log_C) == (1.0, 0.0) and runs_after == runs_before + 1
    # the slider stays where it was released, and the figure of that γ replaces the preview
    assert int(live_drag.slider(page, "log_gamma").input_value()) == 16
    page.locator('.kv-live[data-state="committed"]').wait_for()
    assert all(share > 0.99 for share in live_drag.shows_figure(page)), live_drag.shows_figure(page)


def test_support_vectors_leave_while_the_preview_shows_other_values(demo, page):
    open_demo(page, demo)
    faint = "() => { const p = document.querySelector('.kv-plot'); return p && p.querySelector('.kv-plot-points') !== null; }"
    assert page.evaluate(faint)
    before = page.locator(".kv-plot-points").evaluate("c => c.toDataURL()")
    live_drag.drag(page, "log_C", [9])
    assert page.locator(".kv-plot-points").evaluate("c => c.toDataURL()") != before
    live_drag.drag(page, "log_C", [8])  # back at the figure's own C: as drawn
    page.locator('.kv-live[data-state="committed"]').wait_for()
    assert page.locator(".kv-plot-points").evaluate("c => c.toDataURL()") == before
    live_drag.release(page)


def test_dragging_C_repaints_from_the_C_lattice(demo, page):
    open_demo(page, demo)
    assert int(live_drag.slider(page, "log_C").input_value()) == 8  # log C = 0 on the lattice −2, −1.75, …, 4
    result = live_drag.drag(page, "log_C", [9, 10, 11, 12])
    assert result["runs"] == 0
    assert {f"log_C:{i}" for i in (9, 10, 11, 12)} <= {field for _, field in result["paints"]}
    assert all(live_drag.panel_pixels(page))
    live_drag.release(page)
    page.get_by_text("log γ = 0, log C = 1").wait_for()


def test_after_a_gamma_commit_the_C_lattice_no_longer_applies_and_the_figure_stays(demo, page):
    open_demo(page, demo)
    live_drag.drag(page, "log_gamma", [13, 14])
    live_drag.release(page)
    # the release's rerun has ended (waiting for an idle page alone can pass before it starts)
    page.get_by_text("log γ = 0.5, log C = 0").wait_for()
    page.wait_for_selector(live_drag.IDLE)
    result = live_drag.drag(page, "log_C", [9, 10])
    assert result["runs"] == 0
    # the C lattice was computed at the lattice's γ, not at the figure's: no stale field is shown,
    # the figure's own picture stays under a note
    assert page.locator(".kv-live").get_attribute("data-state") == "preparing"
    assert "Preview at" in page.locator(".kv-live-status").inner_text()
    live_drag.release(page)
    page.get_by_text("log γ = 0.5, log C = 0.5").wait_for()


def test_without_a_lattice_the_figure_stays_and_the_slider_commits_on_release(demo, page):
    open_demo(page, f"{demo}/?lattice=none", ready=False)
    assert page.locator(".kv-live").get_attribute("data-ready") == "false"
    assert "once the preview is prepared" in page.locator(".kv-live-status").inner_text()
    runs_before, _, _ = status(page)
    result = live_drag.drag(page, "log_C", [9, 10])
    assert result["runs"] == 0
    assert page.locator(".kv-live").get_attribute("data-state") == "preparing"
    live_drag.release(page)
    page.get_by_text("log C = 0.5").wait_for()
    assert status(page)[0] == runs_before + 1


def test_similarity_previews_its_level_curves_and_has_no_C_slider(demo, page):
    open_demo(page, f"{demo}/?kind=similarity")
    assert live_drag.slider(page, "log_gamma").is_visible() and not live_drag.slider(page, "log_C").is_visible()
    result = live_drag.drag(page, "log_gamma", [11, 10, 9, 8])
    assert result["runs"] == 0
    assert {f"log_gamma:{i}" for i in (11, 10, 9, 8)} <= {field for _, field in result["paints"]}
    assert all(live_drag.panel_pixels(page))
    live_drag.release(page)
    page.get_by_text("log γ = -1,").wait_for()
