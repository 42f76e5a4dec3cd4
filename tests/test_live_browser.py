"""Live exploration in the real app, in headless Chromium: the figure previewing γ without a rerun, a heatmap click
opening Decision boundaries at that cell, drawing a point, and cancelling a grid search."""

from __future__ import annotations

import re
import sys
from urllib.parse import parse_qs, urlparse
from pathlib import Path

import pytest

from kernelviz.ui import live

sys.path.insert(0, str(Path(__file__).resolve().parent / "apps"))
import live_drag  # noqa: E402  (a helper beside the test apps, shared with benchmarks/bench_live.py)

pytestmark = pytest.mark.browser

SMALL = "gen_params=n_samples:120&kernels=rbf,ckrbf"


def test_dragging_repaints_every_kernel_panel_of_the_figure_in_place_without_a_rerun_then_commits(server, page):
    page.goto(f"{server}/?view=boundaries&{SMALL}")
    page.locator(live_drag.READY).wait_for()
    page.wait_for_selector(live_drag.IDLE)
    # at the figure's own values the figure is all there is: the canvas shows its fields
    assert all(share > 0.99 for share in live_drag.shows_figure(page)), live_drag.shows_figure(page)
    before = live_drag.panel_pixels(page)
    # its level lines (f = 0, the margins) are painted by the canvas as the preview paints its own: Plotly draws none
    levels = page.locator(".kv-plot").first.evaluate("(root) => root._kvLevels.map((l) => l.paths.flat().length)")
    assert len(levels) == 4 and all(levels), levels  # two panels × (f = 0, margins), each with a line
    assert page.locator(".kv-plot g.contour").count() == 0
    live_drag.watch_draws(page)
    result = live_drag.drag(page, "log_gamma", [13, 14, 15, 16])
    assert result["runs"] == 0, "the drag started a script run"
    assert {field for _, field in result["paints"]} >= {f"log_gamma:{i}" for i in (13, 14, 15, 16)}
    during = live_drag.panel_pixels(page)
    assert len(during) == 2 and all(a != b for a, b in zip(during, before)), "a panel was not repainted"
    assert live_drag.draws(page) == 0, "Plotly drew the figure again during the drag"
    # one picture: the page holds one plot for the view, with each kernel's title once
    assert page.locator(".js-plotly-plot").count() == 1
    assert page.locator(".kv-live").get_attribute("data-state") == "live"
    live_drag.release(page)
    live_drag.title_contains(page, "γ = 10,")  # log γ = 1 committed: the figure itself follows
    page.wait_for_selector(live_drag.IDLE)
    assert re.search(r"log_gamma=1(\.0)?(&|$)", page.url), page.url
    page.locator('.kv-live[data-state="committed"]').wait_for()
    assert all(share > 0.99 for share in live_drag.shows_figure(page)), live_drag.shows_figure(page)


def test_at_the_released_value_the_preview_and_the_figure_agree_pixel_for_pixel_in_sign(server, page):
    """The field painted while dragging and the figure drawn at the release are the same picture:
    the preview's boundary colours match the figure's heatmap on each side of f = 0."""
    page.goto(f"{server}/?view=boundaries&{SMALL}")
    page.locator(live_drag.READY).wait_for()
    page.wait_for_selector(live_drag.IDLE)
    live_drag.drag(page, "log_gamma", [13, 14])
    preview = page.locator(".kv-plot").first.evaluate(SIDES)
    live_drag.release(page)
    live_drag.title_contains(page, "γ = 3.16,")
    page.locator('.kv-live[data-state="committed"]').wait_for()
    page.wait_for_selector(live_drag.IDLE)
    figure = page.locator(".kv-plot").first.evaluate(SIDES)
    assert len(preview) == len(figure) == 2
    for panel_preview, panel_figure in zip(preview, figure):
        tinted = [(a, b) for a, b in zip(panel_preview, panel_figure) if a and b]
        assert len(tinted) > 200 and len({a for a, _ in tinted}) == 2  # both sides, most of the panel
        agree = sum(a == b for a, b in tinted) / len(tinted)
        assert agree >= 0.99, agree


#: For each previewing panel, a 24 × 24 sample of its plot area's side of the boundary as drawn:
#: +1 where the picture is tinted orange (class 1), −1 where blue, 0 where nearly white or a point.
#: The field canvas paints both pictures: the preview's field while it previews, else the figure's own.
SIDES = """(root) => {
  const full = root._fullLayout, live = root._kvLive;
  const field = root.querySelector('.kv-plot-field');
  const ratio = field.width / full.width;
  const context = field.getContext('2d');
  return live.panels.map((panel) => {
    const xa = full[`xaxis${panel.xaxis.slice(1)}`], ya = full[`yaxis${panel.yaxis.slice(1)}`];
    const sides = [];
    for (let j = 0; j < 24; j += 1) {
      for (let i = 0; i < 24; i += 1) {
        const x = Math.round((xa._offset + (i + 0.5) * xa._length / 24) * ratio);
        const y = Math.round((ya._offset + (j + 0.5) * ya._length / 24) * ratio);
        const [r, g, b] = context.getImageData(x, y, 1, 1).data;
        sides.push(r - b > 25 ? 1 : b - r > 25 ? -1 : 0);
      }
    }
    return sides;
  });
}"""


def test_a_committed_gamma_step_stays_committed_while_the_new_lattice_is_prepared(server, page):
    # The default data and kernels: their commit run is long enough for a tick of the status
    # fragment to arrive before the sidebar, which sent the sidebar's old γ back (the step reverted).
    page.goto(f"{server}/?view=boundaries")
    page.locator(live_drag.READY).wait_for()
    page.wait_for_selector(live_drag.IDLE)
    live_drag.commit_gamma_step(page, "γ = 1.78,")
    live_drag.lattice_arrived(page)  # the new lattice came by a rerun
    titles = page.evaluate("() => [...document.querySelectorAll('.gtitle:not(.kv-preview)')].map((t) => t.textContent)")
    assert any("γ = 1.78," in t for t in titles) and not any("γ = 1," in t for t in titles), titles
    assert re.search(r"log_gamma=0\.25(&|$)", page.url), page.url


#: Times (performance.now()) of the page's messages to the server (window.__kvSends), from its opening.
TIME_SENDS = """(() => {
  window.__kvSends = [];
  const Native = window.WebSocket;
  window.WebSocket = function (...args) {
    const socket = new Native(...args);
    const send = socket.send.bind(socket);
    socket.send = (data) => { window.__kvSends.push(performance.now()); return send(data); };
    return socket;
  };
  window.WebSocket.prototype = Native.prototype;
  Object.assign(window.WebSocket, Native);
})()"""


def test_a_committed_step_goes_to_the_server_before_the_preview_paints_it(server, page):
    """Streamlit sends a component's trigger from a timer, which waited behind the animation frame
    that painted the new value in the preview (15–50 ms, then the compositor's commit): a third of
    the way from the key to the request. The request goes first; the preview paints right after."""
    page.add_init_script(TIME_SENDS)
    page.goto(f"{server}/?view=boundaries&{SMALL}")
    page.locator(live_drag.READY).wait_for()
    page.wait_for_selector(live_drag.IDLE)
    page.locator(live_drag.LIVE).evaluate("""(controls) => {
        window.__kvPaints = [];
        new MutationObserver(() => window.__kvPaints.push(performance.now()))
            .observe(controls, {attributes: true, attributeFilter: ['data-paints']}); }""")
    handle = live_drag.slider(page, "log_gamma")
    handle.focus()
    pressed = page.evaluate("() => performance.now()")
    page.keyboard.press("ArrowRight")
    live_drag.title_contains(page, "γ = 1.78,")
    page.wait_for_selector(live_drag.IDLE)
    sent = min(t for t in page.evaluate("() => window.__kvSends") if t > pressed)
    painted = min(t for t in page.evaluate("() => window.__kvPaints") if t > pressed)
    assert sent < painted, (sent - pressed, painted - pressed)


def test_a_committed_gamma_step_draws_the_annotated_figure_once_at_most(server, page):
    """A new figure mounts a new Plotly element, which Streamlit 1.67 drew twice: when mounted,
    and again after its theme and selection effects — each a full Plotly draw (0.2–0.4 s of the
    four-panel figure), half of a committed step's time in the browser. The rerun that brings the
    new value's lattice sends the same figure again: it is not drawn again. A step whose legend
    is as before needs no full draw at all (the fields, lines and points are the canvas's; Plotly
    redraws the titles). And the figure stays where it is: moved by an element before it, it was
    hidden during the run."""
    page.goto(f"{server}/?view=boundaries&{SMALL}")
    page.locator(live_drag.READY).wait_for()
    page.wait_for_selector(live_drag.IDLE)
    live_drag.watch_draws(page)
    live_drag.watch_sizes(page)
    for title in ("γ = 1.78,", "γ = 3.16,"):
        live_drag.commit_gamma_step(page, title)
        live_drag.lattice_arrived(page)
        assert live_drag.draws(page, title) <= 1, f"{title}: {live_drag.draws(page, title)} draws"
    # Never hidden on the way: a hidden chart blinks, and comes back with a second full draw.
    sizes = live_drag.sizes(page)
    assert sizes and all(width > 0 and height > 0 for width, height in sizes), sizes


#: Counts the messages the page receives from the server (window.__kvMessages), from the page's opening.
COUNT_MESSAGES = """(() => {
  window.__kvMessages = 0;
  const Native = window.WebSocket;
  window.WebSocket = function (...args) {
    const socket = new Native(...args);
    socket.addEventListener('message', () => { window.__kvMessages += 1; });
    return socket;
  };
  window.WebSocket.prototype = Native.prototype;
  Object.assign(window.WebSocket, Native);
})()"""


def test_a_committed_gamma_step_reruns_the_views_body_not_the_page(server, page):
    """The view's body is a fragment: a commit sends its elements again, not the sidebar's
    widgets nor the rest of the page (a full run, the R key, does)."""
    page.add_init_script(COUNT_MESSAGES)
    page.goto(f"{server}/?view=boundaries&{SMALL}")
    live_drag.lattice_arrived(page)

    def messages(action) -> int:
        start = page.evaluate("() => window.__kvMessages")
        action()
        page.wait_for_selector(live_drag.IDLE)
        return page.evaluate("() => window.__kvMessages") - start

    commit = messages(lambda: live_drag.commit_gamma_step(page, "γ = 1.78,"))
    live_drag.lattice_arrived(page)

    whole = messages(lambda: live_drag.rerun(page))  # Streamlit's R key: a full run
    # 32 and 61 here; before, a commit was a full run (as many messages or more). The margin is
    # for a tick of the live status line that may fall inside the commit's window.
    assert commit < 0.75 * whole, (commit, whole)
    assert re.search(r"log_gamma=0\.25(&|$)", page.url), page.url  # the link follows all the same


#: Keeps the message count (COUNT_MESSAGES) at each "kv-finished" event: the status line's poll saying
#: that the lattice is finished (kernelviz.components.poll).
COUNT_AT_FINISHED = """(() => {
  window.__kvAtFinished = [];
  document.addEventListener('kv-finished', () => window.__kvAtFinished.push(window.__kvMessages));
})()"""


def test_a_finished_lattice_comes_by_a_run_of_the_views_body_and_then_nothing_polls(server, page):
    """The status line's poll tells the figure, whose trigger reruns the view's body: not the whole
    page (a page rerun from the status line's fragment made the browser forget the sidebar's
    widgets, streamlit/streamlit#11266). Then nothing polls any more."""
    page.add_init_script(COUNT_MESSAGES)
    page.add_init_script(COUNT_AT_FINISHED)
    page.goto(f"{server}/?view=boundaries&{SMALL}")
    live_drag.lattice_arrived(page)
    live_drag.commit_gamma_step(page, "γ = 1.78,")
    page.wait_for_function("() => window.__kvAtFinished.length >= 2")  # the first lattice's, then this one's
    live_drag.lattice_arrived(page)
    arrival = page.evaluate("() => window.__kvMessages - window.__kvAtFinished[1]")
    quiet = page.evaluate("() => window.__kvMessages")
    page.wait_for_timeout(3 * live.POLL_SECONDS * 1000)  # a poll left running would have run by now
    assert page.evaluate("() => window.__kvMessages") == quiet, "something still polls"

    start = page.evaluate("() => window.__kvMessages")
    live_drag.rerun(page)  # Streamlit's R key: a full run
    whole = page.evaluate("() => window.__kvMessages") - start
    assert arrival < 0.75 * whole, (arrival, whole)
    assert page.locator('[data-testid="stException"]').count() == 0


def test_a_heatmap_cell_click_opens_decision_boundaries_at_that_cell(server, page):
    page.goto(f"{server}/?view=grid&{SMALL}&grid_steps=3&cv=2&grid_log_C=-1_3&grid_log_gamma=-2_2")
    page.get_by_role("button", name="Run grid search").click()
    page.wait_for_selector(live_drag.CHART)
    live_drag.title_contains(page, "CV accuracy")
    live_drag.grid_search_finished(page)  # a running search's figure takes no clicks
    # the centre of the cell (log γ = 2, log C = 1) of the first panel, in page pixels
    x, y = page.evaluate("""() => {
        const gd = document.querySelector('.js-plotly-plot');
        const box = gd.getBoundingClientRect();
        const xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis;
        return [box.left + xa._offset + xa.l2p(2), box.top + ya._offset + ya.l2p(1)];
    }""")
    page.mouse.click(x, y)
    live_drag.title_contains(page, "Decision boundaries at γ = 100, C = 10")
    page.wait_for_selector(live_drag.IDLE)


def test_the_grid_legend_leaves_the_axis_titles_readable(server, page):
    """The legend sat 0.1 plot heights below the panels, on top of their "log₁₀ γ" titles."""
    page.goto(f"{server}/?view=grid&gen_params=n_samples:120&grid_steps=3&cv=2")  # the four default kernels
    page.get_by_role("button", name="Run grid search").click()
    live_drag.title_contains(page, "CV accuracy")
    live_drag.grid_search_finished(page)  # the title shows with the first kernel's panel already
    overlaps = page.evaluate("""() => {
        const box = (e) => e.getBoundingClientRect();
        const legend = box(document.querySelector('.js-plotly-plot .legend'));
        return [...document.querySelectorAll('.js-plotly-plot text[class^="x"][class$="title"]')].map(box).filter((t) =>
            t.left < legend.right && legend.left < t.right && t.top < legend.bottom && legend.top < t.bottom).length;
    }""")
    titles = page.locator('.js-plotly-plot text[class^="x"][class$="title"]').count()
    assert titles == 4 and overlaps == 0, (titles, overlaps)


def test_a_drawn_point_appears_on_the_canvas_before_the_server_answers(server, page):
    page.goto(f"{server}/?source=drawn&view=data&points=1_0.5_1~-1_-0.5_-1")
    page.wait_for_selector(live_drag.DRAW_CANVAS)
    page.wait_for_selector(live_drag.IDLE)
    page.get_by_text("2 points drawn").wait_for()
    page.locator(live_drag.DRAW).evaluate("""(draw) => {
        // The server's answer is its caption; not the script-state attribute, which a fast fragment
        // run may never change (React renders "running" and "notRunning" in one batch).
        const app = document.querySelector('[data-testid="stApp"]');
        window.__seen = {};
        new MutationObserver(() => {
            if ([...app.querySelectorAll('[data-testid="stCaptionContainer"]')]
                    .some((c) => c.textContent.includes('3 points drawn')))
                window.__seen.answered ??= performance.now(); })
            .observe(app, {childList: true, subtree: true, characterData: true});
        new MutationObserver(() => { window.__seen.painted ??= performance.now(); })
            .observe(draw, {attributes: true, attributeFilter: ['data-points']}); }""")
    live_drag.click_canvas(page, 0.75, 0.25)
    page.get_by_text("3 points drawn").wait_for()
    page.wait_for_selector(live_drag.IDLE)
    seen = page.evaluate("() => window.__seen")
    assert seen["painted"] < seen["answered"]  # the browser painted the point before the server's answer came
    live_drag.click_canvas(page, 0.25, 0.75)
    page.get_by_text("4 points drawn").wait_for()
    page.wait_for_selector(live_drag.IDLE)
    # the link holds the new points, where the clicks landed (range −3…3: a quarter in is ±1.5)
    points = parse_qs(urlparse(page.url).query)["points"][0].split("~")
    assert len(points) == 4
    (x3, y3, label3), (x4, y4, _) = (map(float, p.split("_")) for p in points[2:])
    assert (x3, y3, label3) == (pytest.approx(1.5, abs=0.05), pytest.approx(1.5, abs=0.05), 1.0), live_drag.CLICKS[-2:]
    assert (x4, y4) == (pytest.approx(-1.5, abs=0.05), pytest.approx(-1.5, abs=0.05)), live_drag.CLICKS[-2:]


def test_cancel_keeps_the_finished_cells_and_the_page_usable(server, page):
    page.goto(f"{server}/?view=grid&gen_params=n_samples:400&kernels=rbf,ckrbf&grid_steps=9&cv=5")
    page.get_by_role("button", name="Run grid search").click()
    cancel = page.get_by_role("button", name="Cancel")
    cancel.wait_for()
    live_drag.title_contains(page, "incomplete")  # cells appear while the search runs
    cancel.click()  # one click: the button is not redrawn by the polling fragment
    page.get_by_text("the search was cancelled", exact=False).first.wait_for()
    page.wait_for_selector(live_drag.IDLE)
    live_drag.title_contains(page, "incomplete")
    assert page.get_by_role("button", name="Run grid search").count() == 1


def test_a_lattice_sent_by_its_id_alone_is_asked_for_whole_when_the_page_lacks_it(server, page):
    """A run sends a lattice the page already has by its id alone; a page that lost it (its module
    loaded again) asks for it, and the next run sends it whole: the preview still works."""
    page.goto(f"{server}/?view=boundaries&{SMALL}")
    page.locator(live_drag.READY).wait_for()
    page.wait_for_selector(live_drag.IDLE)
    page.locator(".kv-plot").first.evaluate("(root) => root._kvForgetLattices()")
    page.locator(live_drag.LIVE).evaluate("""(controls) => {
        window.__kvAsked = false;
        new MutationObserver(() => { if (controls.dataset.ready === 'false') window.__kvAsked = true; })
            .observe(controls, {attributes: true, attributeFilter: ['data-ready']}); }""")
    live_drag.rerun(page)  # a run of the same values: the same lattice, sent by its id alone …
    assert page.evaluate("() => window.__kvAsked")  # … which the page lacks: it asks
    page.locator(live_drag.READY).wait_for()  # and the next run sends it whole
    page.wait_for_selector(live_drag.IDLE)
    live_drag.drag(page, "log_gamma", [13, 14])
    assert all(live_drag.panel_pixels(page))
    live_drag.release(page)


#: Per previewing panel, the share of its plot area's pixels on screen that are near black (each
#: channel under 60), from a screenshot: what a person sees, whatever painted it.
def _dark_shares(page) -> list[float]:
    import io

    from PIL import Image

    boxes = page.locator(".kv-plot").first.evaluate("""(root) => {
        const full = root._fullLayout, box = root.getBoundingClientRect();
        return root._kvLive.panels.map((panel) => {
            const xa = full[`xaxis${panel.xaxis.slice(1)}`], ya = full[`yaxis${panel.yaxis.slice(1)}`];
            return {x: box.left + xa._offset, y: box.top + ya._offset, width: xa._length, height: ya._length};
        });
    }""")
    shares = []
    for box in boxes:
        image = Image.open(io.BytesIO(page.screenshot(clip=box))).convert("RGB")
        pixels = list(image.get_flattened_data())
        shares.append(sum(max(p) < 60 for p in pixels) / len(pixels))
    return shares


@pytest.mark.parametrize("mode", ["dissimilarity", "similarity"])
def test_similarity_panels_mid_drag_are_no_darker_than_after_the_release(server, page, mode):
    """The level curves' preview painted every cell in the plot's background colour, which
    plotly_white names ("white") and the painter read as black: 81 % of the panel went black while
    γ moved. Mid-drag each panel looks as it does once released at that value."""
    page.set_viewport_size({"width": 1440, "height": 900})
    page.goto(f"{server}/?view=similarity&{SMALL}&sim_mode={mode}")
    page.locator(live_drag.READY).wait_for()
    page.wait_for_selector(live_drag.IDLE)
    live_drag.drag(page, "log_gamma", [13, 14])
    assert page.locator(".kv-live").get_attribute("data-state") == "live"
    during = _dark_shares(page)
    live_drag.release(page)
    page.wait_for_url(re.compile(r"log_gamma=0\.5(&|$)"))  # γ = 3.16 committed
    page.locator('.kv-live[data-state="committed"]').wait_for()
    live_drag.settled(page)
    after = _dark_shares(page)
    assert len(during) == len(after) == 2
    for mid, released in zip(during, after):
        assert mid <= released + 0.03, (during, after)


#: Mid-drag: per previewing panel, whether its support vectors are painted, and which of its title's
#: lines show; whether the page's accuracy table shows.
MID_DRAG = """(root) => {
  const live = root._kvLive, marked = root.layout.meta.kv_panels;
  const panels = live.panels.map((panel) => {
    const index = Number(panel.xaxis.slice(1) || 1) - 1;
    const title = root.querySelector(`g.annotation[data-index="${marked.titles[index]}"]`);
    const lines = [...title.querySelectorAll('text > tspan.line')].filter((t) => getComputedStyle(t).visibility !== 'hidden');
    const sv = root._kvLayers.filter((l) => l.group === 'sv' && l.xaxis === panel.xaxis);
    const preview = (root._kvSupport || new Map()).get(`${panel.xaxis}/${panel.yaxis}`);
    return {support: sv.some((l) => l.px && [...l.px].some(Number.isFinite)), count: sv.reduce((n, l) => n + l.x.length, 0),
            preview: preview ? preview.x.length : 0, lines: lines.map((t) => t.textContent)};
  });
  const table = document.querySelector('[data-testid="stDataFrame"]');
  return {panels, table: table ? getComputedStyle(table).visibility : null};
}"""


def test_mid_drag_the_support_vectors_and_scores_are_the_dragged_values_and_the_table_hides(server, page):
    """The preview's picture is the dragged value's, and so are its support vectors, its titles'
    scores and the figure's title's γ: the same as the figure the release draws there. The accuracy table, which only the
    release computes, hides rather than say the old value's numbers."""
    page.goto(f"{server}/?view=boundaries&{SMALL}")
    page.locator(live_drag.READY).wait_for()
    page.wait_for_selector(live_drag.IDLE)
    before = page.locator(".kv-plot").first.evaluate(MID_DRAG)
    assert all(p["support"] and len(p["lines"]) >= 2 for p in before["panels"]), before
    assert before["table"] == "visible"
    live_drag.drag(page, "log_gamma", [13, 14])
    during = page.locator(".kv-plot").first.evaluate(MID_DRAG)
    assert len(during["panels"]) == 2
    for panel in during["panels"]:
        assert not panel["support"] and panel["preview"] > 0, during  # the figure's hidden, the value's drawn
        assert len(panel["lines"]) == 2 and panel["lines"][1].startswith("train "), during  # no fit time
    assert during["table"] == "hidden"
    # and the figure's own title says the dragged γ, marked as the preview's (not the committed figure's)
    title = page.locator(".kv-plot .gtitle").first
    assert "γ = 3.16," in title.text_content() and "kv-preview" in title.get_attribute("class"), title.text_content()
    live_drag.release(page)
    live_drag.title_contains(page, "γ = 3.16,")
    page.locator('.kv-live[data-state="committed"]').wait_for()
    live_drag.settled(page)
    after = page.locator(".kv-plot").first.evaluate(MID_DRAG)
    assert all(p["support"] and len(p["lines"]) >= 2 for p in after["panels"]), after
    for mid, released in zip(during["panels"], after["panels"]):
        assert mid["preview"] == released["count"], (during, after)
        assert mid["lines"][1] == released["lines"][1], (during, after)
    assert after["table"] == "visible"


SENTENCE = """() => { const s = document.querySelector('.st-key-lesson_panel [data-testid="stAlert"]');
  return s ? {visibility: getComputedStyle(s).visibility, text: s.innerText} : null; }"""


def test_mid_drag_a_lessons_computed_sentence_hides_and_comes_back_with_the_released_values(server, page):
    """A lesson's "On this page" sentence is computed from the committed figure's numbers: mid-drag it
    hides in place (nothing below moves) rather than say the old value's numbers."""
    page.goto(f"{server}/?lesson=mcpm&step=2")
    page.locator(live_drag.READY).wait_for()
    page.wait_for_selector(live_drag.IDLE)
    before = page.evaluate(SENTENCE)
    assert before and before["visibility"] == "visible" and "Test accuracy" in before["text"], before
    top = page.locator(".kv-plot").first.evaluate("(r) => r.getBoundingClientRect().top")
    start = int(live_drag.slider(page, "log_gamma").input_value())
    live_drag.drag(page, "log_gamma", [start + 2, start + 4])
    assert page.evaluate(SENTENCE)["visibility"] == "hidden"
    assert page.locator(".kv-plot").first.evaluate("(r) => r.getBoundingClientRect().top") == top
    live_drag.release(page)
    page.locator('.kv-live[data-state="committed"]').wait_for()
    live_drag.settled(page)
    page.wait_for_function(f"() => ({SENTENCE})()?.visibility === 'visible'")
    after = page.evaluate(SENTENCE)
    assert "Test accuracy" in after["text"] and after["text"] != before["text"], (before, after)
