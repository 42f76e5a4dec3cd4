"""Drawing points in the real app, in headless Chromium (issue 19, "Drawing"): Clear keeps γ and C,
Undo undoes a Clear, the summary beside the canvas follows every change, and a click anywhere on
the canvas adds a point where it lands."""

from __future__ import annotations

import sys
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "apps"))
import live_drag  # noqa: E402  (a helper beside the test apps: where the drawing canvas's plot square is)

from kernelviz.state import decode_points  # noqa: E402
from test_browser import settle  # noqa: E402  (the browser tests' one wait for a page at rest)

pytestmark = pytest.mark.browser

FOUR_POINTS = "1_0.5_1~-1_-0.5_-1~1_1_1~-1_-1_-1"
#: A wait that fails a test soon: what it waits for follows a click by a fraction of a second.
SOON_MS = 15_000


def link(page) -> dict[str, str]:
    return {k: v[-1] for k, v in parse_qs(urlparse(page.url).query).items()}


def view(page, button: str, text: str) -> None:
    page.locator('[data-testid="stButtonGroup"] button', has_text=button).first.click()
    settle(page, text)


def button(page, name: str):
    return page.locator('[data-testid="stMainBlockContainer"]').get_by_role("button", name=name, exact=True)


def sidebar_slider(page, label: str) -> str:
    """The value a sidebar slider shows."""
    slider = page.locator('[data-testid="stSidebar"] [data-testid="stSlider"]').filter(has_text=label)
    return slider.locator('[data-testid="stSliderThumbValue"]').inner_text()


def test_clear_after_a_visit_to_similarity_keeps_gamma_and_c(server, page):
    page.goto(f"{server}/?source=drawn&points={FOUR_POINTS}&log_gamma=0.5&log_C=1")
    settle(page, "4 points drawn")
    view(page, "Similarity", "reference")
    view(page, "Data", "4 points drawn")
    assert (sidebar_slider(page, "log₁₀ γ"), sidebar_slider(page, "log₁₀ C")) == ("0.5", "1.0")
    button(page, "Clear").click()
    page.locator(f'{live_drag.DRAW}[data-points="0"]').wait_for(timeout=SOON_MS)
    page.wait_for_function("() => !new URLSearchParams(location.search).get('points')", timeout=SOON_MS)
    settle(page)
    assert (link(page)["log_gamma"], link(page)["log_C"]) == ("0.5", "1")
    assert (sidebar_slider(page, "log₁₀ γ"), sidebar_slider(page, "log₁₀ C")) == ("0.5", "1.0")


def test_the_summary_beside_the_canvas_follows_every_change_and_undo_undoes_clear(server, page):
    page.goto(f"{server}/?source=drawn&points=1_0.5_1~-1_-0.5_-1")
    settle(page, "2 points · 2 features")
    live_drag.click_canvas(page, 0.75, 0.25)
    settle(page, "3 points drawn")
    page.get_by_text("3 points · 2 features").wait_for(timeout=SOON_MS)
    button(page, "Undo").click()
    settle(page, "2 points drawn")
    page.get_by_text("2 points · 2 features").wait_for(timeout=SOON_MS)
    button(page, "Clear").click()
    page.get_by_text("No points drawn yet").wait_for(timeout=SOON_MS)
    settle(page)
    assert live_drag.count_drawn(page) == 0
    button(page, "Undo").click()
    page.get_by_text("2 points · 2 features").wait_for(timeout=SOON_MS)
    settle(page)
    assert live_drag.count_drawn(page) == 2  # the canvas paints the points Clear took
    assert link(page)["points"] == "1_0.5_1~-1_-0.5_-1"


def canvas_to_data(page, x: float, y: float) -> tuple[float, float]:
    """The data coordinates under a page pixel, from where the plot square [−3, 3]² (or the range the
    points have grown it to) lies: the same map as the square's inside, continued past its edges."""
    (left, top), (right, bottom) = live_drag.canvas_point(page, 0, 0), live_drag.canvas_point(page, 1, 1)
    drawn = decode_points(link(page)["points"])
    lo = min(-3.0, float(drawn[:, :2].min()) - 0.5)
    hi = max(3.0, float(drawn[:, :2].max()) + 0.5)
    return lo + (x - left) / (right - left) * (hi - lo), hi - (y - top) / (bottom - top) * (hi - lo)


def test_a_click_anywhere_on_the_canvas_adds_a_point_where_it_lands(server, page):
    page.goto(f"{server}/?source=drawn&points=1_0.5_1~-1_-0.5_-1")
    settle(page, "2 points drawn")
    box = page.locator(live_drag.DRAW_CANVAS).bounding_box()
    (square_left, middle), (square_right, _) = live_drag.canvas_point(page, 0, 0.5), live_drag.canvas_point(page, 1, 0)
    assert square_right + 20 < box["x"] + box["width"], "no room beside the square at this window size"
    clicks = [((square_right + box["x"] + box["width"]) / 2, middle),  # beside the square
              (box["x"] + 4, middle),  # on the axis' tick labels
              ((square_left + square_right) / 2, box["y"] + box["height"] - 4)]  # below the frame
    expected = []
    for n, (x, y) in enumerate(clicks, start=3):
        expected.append(canvas_to_data(page, x, y))
        page.mouse.click(x, y)
        page.locator(f'{live_drag.DRAW}[data-points="{n}"]').wait_for(timeout=SOON_MS)
        settle(page, f"{n} points drawn")
    drawn = decode_points(link(page)["points"])
    assert len(drawn) == 5
    for (x, y, label), (ex, ey) in zip(drawn[2:], expected):
        assert (x, y, label) == (pytest.approx(ex, abs=0.05), pytest.approx(ey, abs=0.05), 1.0)


def test_twenty_quick_clicks_on_a_busy_machine_all_arrive_in_order(server, page):
    """Issue 31: nothing the person does is lost. Twenty clicks, each as soon as the canvas has
    painted the previous one (the server still at work on earlier ones), while every core is busy:
    the link and the caption hold all twenty, in the order they were made."""
    page.goto(f"{server}/?source=drawn&view=data&points=1_0.5_1~-1_-0.5_-1")
    settle(page, "2 points drawn")
    # a 5 × 4 grid of clicks inside the square, away from its edges: the range stays [−3, 3]
    shares = [(0.1 + 0.2 * (i % 5), 0.15 + 0.23 * (i // 5)) for i in range(20)]
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    with live_drag.busy_cpu():
        for n, (fx, fy) in enumerate(shares, start=3):
            try:
                live_drag.click_canvas(page, fx, fy)  # waits for the browser's paint only
            except PlaywrightTimeout:
                pytest.fail(f"click {n - 2} was not painted: {live_drag.drawing_state(page)}")
        try:
            page.get_by_text("22 points drawn").wait_for()
        except PlaywrightTimeout:
            pytest.fail(f"no '22 points drawn' after the clicks: {live_drag.drawing_state(page)}")
        settle(page)
    assert live_drag.count_drawn(page) == 22
    drawn = decode_points(link(page)["points"])
    assert len(drawn) == 22
    expected = [(-3 + 6 * fx, 3 - 6 * fy) for fx, fy in shares]
    for (x, y, label), (ex, ey), click in zip(drawn[2:], expected, live_drag.CLICKS[-20:]):
        assert (x, y, label) == (pytest.approx(ex, abs=0.05), pytest.approx(ey, abs=0.05), 1.0), click


def test_a_click_right_after_undo_is_kept_and_the_undo_too(server, page):
    """A click made before the page has shown Undo's result (the canvas still shows the undone
    point) is the person's next point: it comes after the Undo, and neither is lost. Undo and the
    click in one task of the page: they reach the server in one request, as they do when the person
    is quicker than a busy server."""
    page.goto(f"{server}/?source=drawn&view=data&points=1_0.5_1~-1_-0.5_-1")
    settle(page, "2 points drawn")
    live_drag.click_canvas(page, 0.75, 0.25)  # (1.5, 1.5)
    settle(page, "3 points drawn")
    x, y = live_drag.canvas_point(page, 0.25, 0.75)  # (−1.5, −1.5)
    page.evaluate("""([undo, canvas, x, y]) => {
        undo.click();
        canvas.dispatchEvent(new MouseEvent('click', {clientX: x, clientY: y, bubbles: true}));
    }""", [button(page, "Undo").element_handle(), page.locator(live_drag.DRAW_CANVAS).element_handle(), x, y])
    # the click has reached the link (the canvas's own paint says nothing of the server)
    page.wait_for_function("() => (new URLSearchParams(location.search).get('points') || '').includes('-1.5_-1.5')")
    settle(page)
    drawn = decode_points(link(page)["points"])
    assert len(drawn) == 3, drawn  # 4: the Undo was lost (the click's stale list of four taken)
    assert [tuple(p) for p in drawn[:2]] == [(1, 0.5, 1), (-1, -0.5, -1)]
    assert tuple(drawn[2]) == (pytest.approx(-1.5, abs=0.05), pytest.approx(-1.5, abs=0.05), 1.0)
    page.get_by_text("3 points drawn").wait_for()
    assert live_drag.count_drawn(page) == 3


def test_the_first_point_leaves_the_canvas_where_it_is(server, page):
    """An empty canvas is laid out as the Data view's: the first point changes the note beside it
    into the data's summary, and the canvas stays the same element in the same place. (It moved and
    shrank, a new element, and for the rest of that run the old one stood beside it: two canvases.)"""
    page.goto(f"{server}/?source=drawn&view=data")
    settle(page, "No points drawn yet")
    page.locator(live_drag.DRAW).evaluate("(root) => { root.dataset.first = 'yes'; }")
    before = page.locator(live_drag.DRAW_CANVAS).bounding_box()
    live_drag.click_canvas(page, 0.5, 0.5)
    settle(page, "1 point drawn")
    assert page.get_by_text("No points drawn yet").count() == 0
    assert page.locator(live_drag.DRAW).get_attribute("data-first") == "yes"
    after = page.locator(live_drag.DRAW_CANVAS).bounding_box()
    assert after == pytest.approx(before, abs=1), (before, after)


#: A click on the canvas the page shows at that moment, at a share of its plot square, made in the
#: page itself, once that canvas is laid out (true then): a click by the driver's mouse aims at where
#: the canvas was when it asked, which the canvas may have left by then, and a canvas just mounted
#: has no size yet.
CLICK_SHOWN_CANVAS = """([fx, fy]) => {
    const hosts = [...document.querySelectorAll('*')].filter((e) => e.shadowRoot);
    const canvas = [document, ...hosts.map((h) => h.shadowRoot)]
        .map((root) => root.querySelector('.kv-draw-canvas')).find((c) => c && c.isConnected);
    if (!canvas) return false;
    const box = canvas.getBoundingClientRect(), pad = {left: 44, right: 14, top: 14, bottom: 36};
    const side = Math.min(box.width - pad.left - pad.right, box.height - pad.top - pad.bottom);
    if (side < 100) return false;
    const left = box.left + pad.left + (box.width - pad.left - pad.right - side) / 2;
    canvas.dispatchEvent(new MouseEvent('click', {clientX: left + fx * side, clientY: box.top + pad.top + fy * side,
                                                  bubbles: true}));
    return true;
}"""


def test_quick_clicks_on_an_empty_canvas_survive_its_move_into_the_data_view(server, page):
    """The first point turns the note "No points drawn yet" into the data's summary: clicks made
    while the page catches up all arrive, in order."""
    page.goto(f"{server}/?source=drawn&view=data")
    settle(page, "No points drawn yet")
    shares = [(0.3, 0.3), (0.4, 0.4), (0.5, 0.5), (0.6, 0.6), (0.7, 0.7)]
    for n, share in enumerate(shares, start=1):
        page.wait_for_function(CLICK_SHOWN_CANVAS, arg=list(share))
        page.locator(f'{live_drag.DRAW}[data-points="{n}"]').wait_for()  # the browser's paint only
    page.get_by_text("5 points drawn").wait_for()
    settle(page)
    assert live_drag.count_drawn(page) == 5
    drawn = decode_points(link(page)["points"])
    assert len(drawn) == 5
    for (x, y, label), (fx, fy) in zip(drawn, shares):
        assert (x, y, label) == (pytest.approx(-3 + 6 * fx, abs=0.05), pytest.approx(3 - 6 * fy, abs=0.05), 1.0)
