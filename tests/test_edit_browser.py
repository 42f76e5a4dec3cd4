"""Editing the data on a figure, in the real app and headless Chromium (issue 31): a dragged point
follows the pointer and every panel refits during the drag; the point stays where it is dropped and
the link holds it; a click adds a point, a right-click removes one, Undo puts the data back."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "apps"))
import live_drag  # noqa: E402  (a helper beside the test apps, shared with benchmarks/bench_live.py)

pytestmark = pytest.mark.browser

#: Two kernels on few points: the frames come quickly on a loaded machine too.
SMALL = "gen_params=n_samples:80&kernels=rbf,ckrbf"


def figure_state(page) -> dict:
    """What the figure draws now: every field's codes digest, the panels' titles, the canvas points."""
    return page.locator(".kv-plot").first.evaluate("""(root) => ({
        fields: root._kvFields.map((f) => { let h = 0; const z = f.z || f.values || [];
                                            for (const row of z) for (const v of (row.length ? row : [row])) h = (h * 31 + Math.round(1000 * Number(v))) | 0;
                                            return h; }),
        titles: [...root.querySelectorAll('.annotation-text')].map((t) => t.textContent).join('|'),
        points: root._kvLayers.reduce((n, l) => n + (l.px ? [...l.px].filter(Number.isFinite).length : 0), 0),
    })""")


def points_in_link(page) -> list[tuple[float, float, float]]:
    return [tuple(map(float, p.split("_"))) for p in parse_qs(urlparse(page.url).query)["points"][0].split("~")]


def drop_where_it_is(page, end) -> None:
    """Release a dragged point at ``end`` (page pixels): once committed, the data are drawn and the link
    holds the point where it was dropped."""
    page.mouse.up()
    page.wait_for_function("() => Object.keys(window.__kvEdit.settled).length > 0")
    page.wait_for_selector(live_drag.IDLE)
    assert "source=drawn" in page.url
    moved = page.locator(".kv-plot").first.evaluate("""(root, [x, y]) => {
        const box = root.getBoundingClientRect();
        for (const l of root._kvLayers) for (let i = 0; i < (l.px || []).length; i += 1)
            if (Math.hypot(box.left + l.px[i] - x, box.top + l.py[i] - y) < 3) return [Number(l.x[i]), Number(l.y[i])];
        return null; }""", list(end))
    assert moved is not None
    assert any(abs(x - moved[0]) < 0.002 and abs(y - moved[1]) < 0.002 for x, y, _ in points_in_link(page))


def test_a_dragged_point_refits_every_panel_during_the_drag_and_stays_where_it_is_dropped(server, page):
    page.goto(f"{server}/?view=boundaries&{SMALL}")
    page.wait_for_selector(live_drag.IDLE)
    page.locator(".kv-plot[data-drawing=done]").wait_for()
    before = figure_state(page)
    top = page.locator(".kv-plot").first.evaluate("(r) => r.getBoundingClientRect().top")
    result = live_drag.drag_point(page, seconds=3.0, radius=50, release=False)
    # refitted figures came while the point moved, and the panels changed with them
    live_drag.wait_for_refits(page, 2)
    during = figure_state(page)
    assert during["fields"] != before["fields"]
    # nothing above the figure came or went: it did not move under the pointer
    assert page.locator(".kv-plot").first.evaluate("(r) => r.getBoundingClientRect().top") == top
    # the point is under the pointer mid-drag, drawn by the browser (every panel's marker of it)
    shown = page.locator(".kv-plot").first.evaluate("""(root, [x, y]) => {
        const box = root.getBoundingClientRect();
        return root._kvLayers.some((l) => l.px && [...l.px].some((px, i) =>
            Math.hypot(box.left + px - x, box.top + l.py[i] - y) < 3)); }""", list(result["end"]))
    assert shown
    drop_where_it_is(page, result["end"])
    after = figure_state(page)
    assert after["fields"] != before["fields"] and after["titles"]
    # the scores follow: they are the dropped data's, as a new page opened on the link computes them
    scores = re.findall(r"train [\d.]+% · test [\d.]+%", after["titles"])
    assert len(scores) == 2, after["titles"]
    page.goto(page.url)
    page.wait_for_selector(live_drag.IDLE)
    page.locator(".kv-plot[data-drawing=done]").wait_for()
    assert re.findall(r"train [\d.]+% · test [\d.]+%", figure_state(page)["titles"]) == scores


def test_a_click_adds_a_point_a_right_click_removes_one_and_undo_puts_the_data_back(server, page):
    page.goto(f"{server}/?view=partition&{SMALL}")
    page.wait_for_selector(live_drag.IDLE)
    page.locator(".kv-plot[data-drawing=done]").wait_for()
    count = figure_state(page)["points"]
    # a click on empty space (the panel's corner holds no point) adds one of the kind chosen
    page.locator("[data-testid=stButtonGroup] button", has_text="unlabeled").click()
    page.locator('.kv-plot[data-edit-label="0"]').wait_for()  # the figure knows the new kind
    page.wait_for_selector(live_drag.IDLE)
    # the kind's control is under the figure: bring the figure's top back into view before clicking on it
    page.locator(".kv-plot").first.evaluate("(r) => r.scrollIntoView({block: 'start'})")
    box = page.locator(".kv-plot .nsewdrag").first.bounding_box()
    page.mouse.click(box["x"] + 8, box["y"] + 8)
    page.wait_for_function("(n) => { const r = document.querySelector('.kv-plot');"
                           " return r._kvLayers.reduce((k, l) => k + (l.px ? [...l.px].filter(Number.isFinite).length : 0), 0)"
                           " === n + 1; }", arg=count)
    page.wait_for_selector(live_drag.IDLE)
    link = points_in_link(page)
    assert len(link) == 81 and link[-1][2] == 0.0  # appended, unlabeled
    # a right-click on a point removes it
    point = live_drag.data_point(page, 5)
    page.mouse.click(point["x"], point["y"], button="right")
    page.wait_for_function("() => new URLSearchParams(location.search).get('points').split('~').length === 80")
    page.wait_for_selector(live_drag.IDLE)
    assert not any(abs(x - point["dx"]) < 1e-3 and abs(y - point["dy"]) < 1e-3 for x, y, _ in points_in_link(page))
    # Undo twice: the point comes back, then the added one goes (the data were generated: they are again)
    page.get_by_role("button", name="Undo").click()
    page.wait_for_function("() => new URLSearchParams(location.search).get('points').split('~').length === 81")
    page.get_by_role("button", name="Undo").click()
    page.wait_for_function("() => !new URLSearchParams(location.search).has('points')")
    page.wait_for_selector(live_drag.IDLE)
    assert "source=drawn" not in page.url
    page.get_by_role("button", name="Redo").click()
    page.wait_for_function("() => new URLSearchParams(location.search).get('points')?.split('~').length === 81")


def test_editing_is_off_with_a_reason_where_the_figure_cannot_hold_an_edit(server, page):
    page.goto(f"{server}/?view=boundaries&source=sample&sample=heart&kernels=rbf")
    page.wait_for_selector(live_drag.IDLE)
    page.get_by_text("principal components: a point moved").wait_for()
    page.goto(f"{server}/?view=boundaries&{SMALL}&hide=edit")
    page.wait_for_selector(live_drag.IDLE)
    page.get_by_text("switched off by this page's link").wait_for()


def test_a_released_point_spares_plotly_recomputing_its_traces(server, page):
    """A dragged point's frames are coarser than its committed figure; what Plotly is handed (axes,
    legend, the fields' one-cell stand-ins) is the same at both resolutions, so the release redraws
    the canvases and the titles, and Plotly keeps its computed traces (it recomputed every trace:
    ~90 ms of the four-panel figure's release). An interior point, so that the data's span stays;
    at C = 0.1 most support vectors sit at the bound, and their legend entry stays too."""
    page.goto(f"{server}/?view=boundaries&{SMALL}&log_C=-1")
    page.wait_for_selector(live_drag.IDLE)
    page.locator(".kv-plot[data-drawing=done]").wait_for()
    # the point nearest the middle of the first panel's data
    index = page.locator(".kv-plot").first.evaluate("""(root) => {
        const layer = root._kvLayers.find((l) => l.px && l.px.length > 10);
        const xs = [...layer.x].map(Number), ys = [...layer.y].map(Number);
        const [mx, my] = [(Math.min(...xs) + Math.max(...xs)) / 2, (Math.min(...ys) + Math.max(...ys)) / 2];
        let best = 0;
        xs.forEach((x, i) => { if (Math.hypot(x - mx, ys[i] - my) < Math.hypot(xs[best] - mx, ys[best] - my)) best = i; });
        return best; }""")
    # the first edit copies the data: a page run, after which the data are drawn (the link says so)
    live_drag.drag_point(page, seconds=1.0, radius=6, index=index, release=False)
    page.mouse.up()
    page.wait_for_function("() => location.search.includes('source=drawn')")
    page.wait_for_selector(live_drag.IDLE)
    page.locator(".kv-plot[data-drawing=done]").wait_for()
    page.evaluate("() => { window.__kvCalc = document.querySelector('.js-plotly-plot').calcdata; }")
    live_drag.drag_point(page, seconds=1.5, radius=6, index=index)
    page.wait_for_selector(live_drag.IDLE)
    assert page.evaluate("() => document.querySelector('.js-plotly-plot').calcdata === window.__kvCalc")


def _shown_points(page) -> int:
    return figure_state(page)["points"]


def test_twenty_quick_edits_on_a_figure_on_a_busy_machine_all_arrive_in_order(server, page):
    """Issue 31, item 4, on the figure itself (the drawing canvas has its own test): sixteen points
    added and four removed, each as soon as the figure has shown the one before (the server still at
    work on earlier ones), while every core is busy. The link ends with all of them: the added points
    in the order they were made, the removed ones gone."""
    page.goto(f"{server}/?view=partition&{SMALL}")
    page.wait_for_selector(live_drag.IDLE)
    page.locator(".kv-plot[data-drawing=done]").wait_for()
    page.locator(".kv-plot").first.evaluate("(r) => r.scrollIntoView({block: 'start'})")
    box = page.locator(".kv-plot .nsewdrag").first.bounding_box()
    # the first edit copies the generated data (a page run); the twenty come after it
    page.mouse.click(box["x"] + 8, box["y"] + 8)
    page.wait_for_function("() => new URLSearchParams(location.search).get('points')?.split('~').length === 81")
    page.wait_for_selector(live_drag.IDLE)
    page.locator(".kv-plot").first.evaluate("(r) => r.scrollIntoView({block: 'start'})")
    box = page.locator(".kv-plot .nsewdrag").first.bounding_box()
    # the plot area's four corners hold no point of the two moons: four clicks near each, in turn
    corners = [(1, 1), (-1, 1), (-1, -1), (1, -1)]  # (sign of x, sign of y) from the middle, data up
    clicks = []
    for k in range(4):
        for sx, sy in corners:
            inset = 10 + 7 * k
            clicks.append((box["x"] + (box["width"] - inset if sx > 0 else inset),
                           box["y"] + (inset if sy > 0 else box["height"] - inset), (sx, sy)))
    removed = []
    with live_drag.busy_cpu():
        for i, (x, y, _) in enumerate(clicks):
            shown = _shown_points(page)
            page.mouse.click(x, y)
            page.wait_for_function("(n) => { const r = document.querySelector('.kv-plot');"
                                   " return r._kvLayers.reduce((k, l) => k + (l.px ? [...l.px].filter(Number.isFinite)"
                                   ".length : 0), 0) > n; }", arg=shown)
            if i % 4 == 3:  # after each round of corners, a point of the data removed
                point = live_drag.data_point(page, 10 + i)
                removed.append((point["dx"], point["dy"]))
                shown = _shown_points(page)
                page.mouse.click(point["x"], point["y"], button="right")
                page.wait_for_function("(n) => { const r = document.querySelector('.kv-plot');"
                                       " return r._kvLayers.reduce((k, l) => k + (l.px ? [...l.px]"
                                       ".filter(Number.isFinite).length : 0), 0) < n; }", arg=shown)
        page.wait_for_function("() => new URLSearchParams(location.search).get('points').split('~').length === 93")
        page.wait_for_selector(live_drag.IDLE)
    link = points_in_link(page)
    assert len(link) == 81 + 16 - 4
    added = link[-16:]
    mx = (min(x for x, _, _ in link[:-16]) + max(x for x, _, _ in link[:-16])) / 2
    my = (min(y for _, y, _ in link[:-16]) + max(y for _, y, _ in link[:-16])) / 2
    assert [((1 if x > mx else -1), (1 if y > my else -1)) for x, y, _ in added] == [c for _, _, c in clicks]
    assert len({label for _, _, label in added}) == 1  # the kind chosen, every time
    for dx, dy in removed:
        assert not any(abs(x - dx) < 1e-3 and abs(y - dy) < 1e-3 for x, y, _ in link), (dx, dy)


def drawn_shapes(page) -> list:
    """A digest of what the figure draws besides its points: the canvas fields, and the level curves'
    values and the partition's ellipses and centres that Plotly draws (Similarity has no field)."""
    return page.locator(".kv-plot").first.evaluate("""(root) => {
        const digest = (value) => { const text = JSON.stringify(value, (k, v) => (ArrayBuffer.isView(v) ? Array.from(v) : v));
                                    let h = 0; for (let i = 0; i < text.length; i += 1) h = (h * 31 + text.charCodeAt(i)) | 0;
                                    return h; };
        return [...root._kvFields.map((f) => digest(f.z || f.values)),
                ...root.data.filter((t) => t.type === 'contour' || (t.mode || '').includes('lines') || t.name === 'centres')
                    .map((t) => digest([t.z, t.x, t.y]))]; }""")


@pytest.mark.parametrize("view", ["similarity", "partition"])
def test_a_point_dragged_on_similarity_or_partition_reshapes_the_figure_and_stays_where_it_is_dropped(
        server, page, view):
    """Issue 31 item 1 on the two other editable views: the kernels' level curves (Similarity) or the
    partition's regions and ellipses follow the dragged point, and the link holds it where it was dropped."""
    page.goto(f"{server}/?view={view}&{SMALL}")
    page.wait_for_selector(live_drag.IDLE)
    page.locator(".kv-plot[data-drawing=done]").wait_for()
    before = drawn_shapes(page)
    result = live_drag.drag_point(page, seconds=2.0, radius=50, release=False)
    page.wait_for_function("() => Object.keys(window.__kvEdit.painted).length >= 2")
    assert drawn_shapes(page) != before  # refitted frames came while it moved
    drop_where_it_is(page, result["end"])
    assert drawn_shapes(page) != before
