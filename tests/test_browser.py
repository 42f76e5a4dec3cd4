"""The real app in headless Chromium: every view renders, widgets act, links reopen state.

Runs ``streamlit run app.py`` on a free port and drives Debian's Chromium through
Playwright (the ``server``, ``browser`` and ``page`` fixtures live in conftest.py).
Screenshots of every view are saved as ``<view>.png`` in ``screenshot_dir``: a temporary
folder, or docs/screenshots/ when ``make screenshots`` asks for them.
A missing /usr/bin/chromium fails the tests: they exist to catch what AppTest cannot.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from urllib.parse import urlparse

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "apps"))
import live_drag  # noqa: E402  (a helper beside the test apps: where the drawing canvas's plot square is)

pytestmark = pytest.mark.browser

IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'
CHART = ".js-plotly-plot .main-svg"
EXCEPTION = '[data-testid="stException"]'
# view key -> (button text, text that appears once the view has rendered)
VIEWS = {
    "data": ("Data", "Download data (CSV)"),
    "partition": ("Partition", "Mahalanobis units"),
    "similarity": ("Similarity", "reference"),
    "boundaries": ("Decision boundaries", "decision boundary"),
    "kernel": ("Kernel matrix", "Eigenvalue spectrum"),
    "grid": ("Grid search", "Mean 3-fold CV accuracy"),
    "pf": ("P_f (α)", "AUC"),
    "theory": ("Theory", "One idea behind every structured kernel"),
}
# A small grid keeps the grid search and P_f views to a few seconds.
SMALL_GRID = "grid_steps=4&cv=3"


def settle(page, text: str | None = None) -> None:
    """After an action: wait for the expected text, then for the run the action started to finish
    and the charts to draw (:func:`live_drag.after_action`)."""
    if text:
        page.get_by_text(text, exact=False).first.wait_for()
    live_drag.after_action(page)


def assert_clean(page) -> None:
    assert page.locator(EXCEPTION).count() == 0, page.locator(EXCEPTION).first.inner_text()


def boundary_title(page) -> str:
    return page.locator(".js-plotly-plot .gtitle:not(.kv-preview)").first.text_content()


def test_every_view_renders_and_is_screenshotted(server, page, screenshot_dir, tmp_path):
    page.goto(f"{server}/?{SMALL_GRID}")
    settle(page, VIEWS["data"][1])
    for view, (button, expected) in VIEWS.items():
        try:
            check_view(page, view, button, expected, screenshot_dir)
        except Exception:
            failed = tmp_path / f"failed_{view}.png"
            page.screenshot(path=str(failed), full_page=True)
            print(f"screenshot of the failed {view} view: {failed}")
            raise


def check_view(page, view: str, button: str, expected: str, screenshot_dir) -> None:
    page.locator('[data-testid="stButtonGroup"] button', has_text=button).first.click()
    settle(page)
    if view in ("grid", "pf"):
        run = page.get_by_role("button", name="Run grid search")
        if run.count():
            run.first.click()
    settle(page, expected)
    if view != "theory":
        page.wait_for_selector(CHART)
        assert page.locator(CHART).count() >= 1
    else:
        assert page.locator(".katex").count() >= 9
    assert_clean(page)
    assert page.locator('[data-testid="stAlertContentError"]').count() == 0
    page.screenshot(path=str(screenshot_dir / f"{view}.png"), full_page=True)
    assert (screenshot_dir / f"{view}.png").stat().st_size > 0


def test_screenshots_stay_out_of_the_repository_unless_asked_for(screenshot_dir):
    repository = Path(__file__).resolve().parent.parent
    chosen = os.environ.get("KERNELVIZ_SCREENSHOTS", "").strip()
    if chosen:
        # an absolute path replaces the repository part of the join
        assert screenshot_dir.resolve() == (repository / chosen).resolve()
    else:
        assert not screenshot_dir.resolve().is_relative_to(repository.resolve())


def test_gamma_slider_updates_the_decision_boundaries(server, page):
    page.goto(f"{server}/?view=boundaries&kernels=rbf,ckrbf")
    settle(page, "decision boundary")
    before = boundary_title(page)
    assert "γ = 1," in before
    # γ is set by the view's own slider above the panels (the sidebar has none on this view)
    assert page.get_by_role("slider", name="log₁₀ γ").count() == 0
    for title in ("γ = 1.78,", "γ = 3.16,"):
        live_drag.commit_gamma_step(page, title)
    settle(page)
    assert boundary_title(page) != before
    assert "log_gamma=0.5" in page.url
    assert_clean(page)


def test_garbage_upload_shows_an_error_and_keeps_the_data(server, page):
    page.goto(f"{server}/")
    settle(page, VIEWS["data"][1])
    page.get_by_text("upload", exact=True).click()
    settle(page, "Meanwhile the views show the previous data")
    page.locator('input[type="file"]').set_input_files(
        files=[{"name": "garbage.csv", "mimeType": "text/csv", "buffer": os.urandom(200_000)}])
    page.get_by_text("Could not use", exact=False).first.wait_for()
    settle(page)
    assert_clean(page)
    assert page.locator(CHART).count() >= 1  # the previous data are still drawn


def test_a_permalink_reopens_the_same_state(server, browser, page):
    page.goto(f"{server}/?view=similarity&generator=circles&data_seed=3&kernels=rbf,ckrbf")
    settle(page, "reference")
    # γ is set by the view's own slider above the panels: two steps of a quarter decade down
    slider = live_drag.slider(page, "log_gamma")
    slider.focus()
    slider.press("ArrowLeft")
    page.wait_for_function("() => window.location.search.includes('log_gamma=-0.25')")
    settle(page)
    slider.press("ArrowLeft")
    page.wait_for_function("() => window.location.search.includes('log_gamma=-0.5')")
    settle(page)
    link = page.url
    for key in ("view=similarity", "generator=circles", "data_seed=3", "kernels=rbf%2Cckrbf", "log_gamma=-0.5"):
        assert key in link or key.replace("%2C", ",") in link

    other = browser.new_context(viewport={"width": 1440, "height": 1000}).new_page()
    other.set_default_timeout(90_000)
    other.goto(link)
    settle(other, "reference")
    gamma = other.locator(f'{live_drag.LIVE} .kv-live-control[data-axis="log_gamma"] output')
    assert gamma.text_content() == "0.316"  # γ = 10^-0.5, as the titles print it
    selected = other.locator('[data-testid="stButtonGroup"] button[aria-checked="true"], '
                             '[data-testid="stButtonGroup"] button[kind$="Active"]')
    assert "Similarity" in " ".join(selected.all_inner_texts())
    assert other.get_by_text("Two concentric rings", exact=False).count() >= 1
    assert other.url == link
    assert_clean(other)
    other.context.close()


def test_clicking_on_empty_canvas_draws_points(server, page, screenshot_dir):
    page.goto(f"{server}/?source=drawn")
    settle(page, "No points drawn yet")
    clicks = [(0.3, 0.35, "class +1"), (0.38, 0.3, "class +1"), (0.7, 0.65, "class −1"), (0.62, 0.72, "class −1")]
    for i, (fx, fy, label) in enumerate(clicks, start=1):
        page.locator('[data-testid="stButtonGroup"] button', has_text=label).first.click()
        settle(page)
        # measured before every click: where the canvas is now
        page.mouse.click(*live_drag.canvas_point(page, fx, fy))
        settle(page, f"{i} point{'' if i == 1 else 's'} drawn")
    from urllib.parse import parse_qs, urlparse

    from kernelviz.state import decode_points

    drawn = decode_points(parse_qs(urlparse(page.url).query)["points"][0])
    assert drawn[:, 2].tolist() == [1, 1, -1, -1]
    assert drawn[0, 0] < 0 < drawn[2, 0] and drawn[0, 1] > 0 > drawn[2, 1]  # where the clicks landed
    assert_clean(page)
    page.screenshot(path=str(screenshot_dir / "draw.png"), full_page=True)


@pytest.mark.parametrize("preset", ["rwm_fig1", "ckrbf_iris", "mcpm_toy"])
def test_a_preset_button_recreates_a_paper_figure(server, page, preset, screenshot_dir):
    page.goto(f"{server}/?view=theory")
    settle(page, "Recreate the papers' figures")
    index = ["rwm_fig1", "ckrbf_iris", "mcpm_toy"].index(preset)
    page.get_by_role("button", name="Open the figure", exact=True).nth(index).click()
    page.wait_for_selector(CHART)
    settle(page)
    assert "view=" in page.url and "theory" not in page.url
    assert_clean(page)
    assert page.locator('[data-testid="stAlertContentError"]').count() == 0
    page.screenshot(path=str(screenshot_dir / f"preset_{preset}.png"), full_page=True)


def test_the_page_loads_nothing_from_other_hosts_and_has_its_own_tab_icon(server, page):
    """Offline use: every request stays on the app's own server. The tab icon was the text "◎"
    (not an emoji: a link to a missing file); a Material icon would come from Google's CDN."""
    hosts = set()
    page.on("request", lambda request: request.url.startswith("http") and hosts.add(urlparse(request.url).hostname))
    page.goto(f"{server}/?view=boundaries")
    settle(page, "Decision boundaries at")
    assert hosts <= {urlparse(server).hostname}, hosts
    icon = page.evaluate("() => document.querySelector('link[rel*=icon]').href")
    response = page.request.get(icon)
    assert response.ok and response.headers["content-type"].startswith("image/"), (icon, response.status)


#: Pixels per data unit along x and y of every subplot of the page's first plot (plotly.js's axes).
AXIS_SCALES = """() => {
  const full = document.querySelector('.kv-plot')._fullLayout;
  return Object.keys(full._plots).map((id) => {
    const plot = full._plots[id];
    const per = (axis) => axis._length / Math.abs(axis.range[1] - axis.range[0]);
    return [id, per(plot.xaxis), per(plot.yaxis)];
  });
}"""


def test_every_boundary_panel_draws_x_and_y_at_the_same_scale(server, page):
    """A circle stays a circle in each panel: the first panel's y is anchored to its x, the others
    match the first (and carry no scale anchor of their own, which plotly.js would ignore)."""
    page.goto(f"{server}/?view=boundaries")
    settle(page, "decision boundary")
    scales = page.evaluate(AXIS_SCALES)
    assert len(scales) == 4
    for panel, x_scale, y_scale in scales:
        assert abs(x_scale - y_scale) <= 0.01 * x_scale, (panel, x_scale, y_scale)
