"""Drive a figure's live preview in a real browser: serve a test app, drag a slider, measure.

Shared by ``tests/test_live_preview.py`` and ``benchmarks/bench_live.py`` so that the
test and the benchmark drag and count in the same way.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEMO = Path(__file__).resolve().parent / "live_demo.py"
IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'
#: The live preview's sliders above a figure (kernelviz.components.plot), once its lattice is complete.
LIVE = ".kv-live"
READY = '.kv-live[data-ready="true"]'
#: … and computed at the figure's own values (after a commit, the previous lattice serves until then).
CURRENT = '.kv-live[data-ready="true"][data-current="true"]'
#: Half the width of Chromium's range thumb: the thumb's centre runs from this far inside
#: the track's left end to as far inside its right end.
THUMB_HALF_PX = 8

# Counts script runs (transitions to "running") and, per component paint, the time and the
# field painted; input events on the sliders give the start of each move.
PROBES = """(root) => {
  const probe = {runs: 0, paints: [], inputs: []};
  const app = document.querySelector('[data-testid="stApp"]');
  new MutationObserver(() => {
    if (app.getAttribute('data-test-script-state') === 'running') probe.runs += 1;
  }).observe(app, {attributes: true, attributeFilter: ['data-test-script-state']});
  new MutationObserver(() => {
    probe.paints.push({t: performance.now(), field: root.dataset.field || '', ms: Number(root.dataset.paintMs)});
  }).observe(root, {attributes: true, attributeFilter: ['data-paints']});
  for (const input of root.querySelectorAll('input[type=range]')) {
    input.addEventListener('input', () => probe.inputs.push(performance.now()));
  }
  window.__kvProbe = probe;
}"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def serve(script: Path = DEMO, timeout: float = 90.0):
    """``streamlit run script`` on a free localhost port; yields its URL."""
    port = free_port()
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONPATH": str(ROOT)}
    # The log goes to a file: an unread pipe fills up and freezes the server mid-test.
    with tempfile.TemporaryFile() as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", str(script), "--server.headless", "true", "--server.port",
             str(port), "--server.address", "localhost", "--browser.gatherUsageStats", "false"],
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        url = f"http://localhost:{port}"
        try:
            deadline = time.time() + timeout
            while True:
                try:
                    with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                        if response.status == 200:
                            break
                except OSError:
                    if time.time() > deadline or proc.poll() is not None:
                        log.seek(0)
                        raise RuntimeError(f"streamlit did not start {script.name}:\n"
                                           + log.read().decode(errors="replace"))
                    time.sleep(0.3)
            yield url
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()


def slider(page, axis: str):
    return page.locator(f'{LIVE} .kv-live-control[data-axis="{axis}"] input')


def thumb_point(page, axis: str, index: int) -> tuple[float, float]:
    """Where the slider's thumb stands at ``index`` (page coordinates)."""
    handle = slider(page, axis)
    box = handle.bounding_box()
    top = int(handle.get_attribute("max"))
    track = box["width"] - 2 * THUMB_HALF_PX
    return box["x"] + THUMB_HALF_PX + track * index / top, box["y"] + box["height"] / 2


def drag(page, axis: str, indices: list[int]) -> dict:
    """Press the thumb, move it through ``indices`` and stop before releasing.

    Returns
    -------
    dict
        ``runs`` (script runs started during the drag), ``paints`` (time in s and field of
        every paint), ``inputs`` (time of every input event), ``seconds`` (first input to
        last paint), ``paint_seconds`` (what each paint of every panel cost).
    """
    root = page.locator(LIVE)
    root.evaluate(PROBES)
    start = int(slider(page, axis).input_value())
    page.mouse.move(*thumb_point(page, axis, start))
    page.mouse.down()
    for index in indices:
        page.mouse.move(*thumb_point(page, axis, index))
    # the last frame is painted: a paint after the last input
    page.wait_for_function("() => { const p = window.__kvProbe; return p.inputs.length && p.paints.length"
                           " && p.paints[p.paints.length - 1].t >= p.inputs[p.inputs.length - 1]; }")
    probe = page.evaluate("() => window.__kvProbe")
    paints = [(p["t"] / 1000, p["field"]) for p in probe["paints"]]
    inputs = [t / 1000 for t in probe["inputs"]]
    seconds = (paints[-1][0] - inputs[0]) if paints and inputs else float("nan")
    return {"runs": probe["runs"], "paints": paints, "inputs": inputs, "seconds": seconds,
            "paint_seconds": [p["ms"] / 1000 for p in probe["paints"]]}


# Moves the thumb one lattice value per animation frame, as fast as the page can show them:
# a Playwright mouse move is a round trip to the driver (tens of ms on a busy machine), so a
# real drag measures the driver's pace, not the page's.
FRAME_PACED_DRAG = """(root, [axis, indices]) => new Promise((resolve) => {
  const input = root.querySelector(`.kv-live-control[data-axis="${axis}"] input`);
  const paints = [];
  const observer = new MutationObserver(() => paints.push({t: performance.now(), field: root.dataset.field || '',
                                                          ms: Number(root.dataset.paintMs)}));
  observer.observe(root, {attributes: true, attributeFilter: ['data-paints']});
  let next = 0;
  const start = performance.now();
  const step = () => {
    if (next < indices.length) {
      input.value = String(indices[next++]);
      input.dispatchEvent(new Event('input', {bubbles: true}));
      requestAnimationFrame(step);
    } else {
      requestAnimationFrame(() => requestAnimationFrame(() => {
        observer.disconnect();
        resolve({start, end: performance.now(), paints});
      }));
    }
  };
  requestAnimationFrame(step);
})"""


def frame_paced_drag(page, axis: str, indices: list[int]) -> dict:
    """Input events at one lattice value per animation frame; ``distinct`` redraws per ``seconds``."""
    result = page.locator(LIVE).evaluate(FRAME_PACED_DRAG, [axis, indices])
    fields = [p["field"] for p in result["paints"]]
    distinct = sum(1 for i, field in enumerate(fields) if i == 0 or field != fields[i - 1])
    seconds = (result["paints"][-1]["t"] - result["start"]) / 1000 if fields else float("nan")
    return {"distinct": distinct, "paints": len(fields), "seconds": seconds,
            "paint_seconds": [p["ms"] / 1000 for p in result["paints"]]}


#: Per previewing panel of the figure: a checksum of the live canvas's pixels over its plot area
#: (0 where nothing is painted: the figure itself shows).
PANEL_PIXELS = """(root) => {
  const full = root._fullLayout, live = root._kvLive, canvas = root.querySelector('.kv-plot-field');
  if (!live) return [];
  return live.panels.map((panel) => {
    const xa = full[`xaxis${panel.xaxis.slice(1)}`], ya = full[`yaxis${panel.yaxis.slice(1)}`];
    if (!canvas) return 0;
    const ratio = canvas.width / full.width;
    const data = canvas.getContext('2d').getImageData(Math.round(xa._offset * ratio), Math.round(ya._offset * ratio),
                                                      Math.round(xa._length * ratio), Math.round(ya._length * ratio)).data;
    let sum = 0;
    for (let i = 0; i < data.length; i += 1) sum = (sum * 31 + data[i]) % 1000000007;
    return sum;
  });
}"""


def panel_pixels(page) -> list[int]:
    """A checksum of what the field canvas paints over each previewing panel (0: nothing): the
    figure's own field at its values, the preview's elsewhere."""
    return page.locator(".kv-plot").first.evaluate(PANEL_PIXELS)


#: Per field the canvas paints of the figure (``_kvFields``), the share of its cells (every third
#: row and column, inside the plot area) whose centre on the field canvas has the figure's own
#: colour there (each channel within 2): 1 where the canvas shows the figure's values. The canvas
#: paints a field ``picture.factor`` times finer than its grid, each fine pixel the colour of the
#: figure's values interpolated at its centre (plot/pictures.js, ``finePicture``), and draws it smoothed: the
#: colour expected at a canvas pixel is the blend of the four fine pixels around its centre (a
#: field with a stepped colour scale, classes, keeps its cells).
SHOWS_FIGURE = """(root) => {
  const full = root._fullLayout, canvas = root.querySelector('.kv-plot-field');
  const ratio = canvas.width / full.width, context = canvas.getContext('2d');
  const parse = (text) => { const v = String(text).trim();
    if (v.startsWith('#')) { const h = v.length === 4 ? v.slice(1).split('').map((c) => c + c).join('') : v.slice(1, 7);
                             return [0, 2, 4].map((i) => parseInt(h.slice(i, i + 2), 16)); }
    return v.match(/[\\d.]+/g).slice(0, 3).map(Number); };
  const colourAt = (scale, t) => { const stops = scale.map(([at, c]) => [Number(at), parse(c)]);
    if (t <= stops[0][0]) return stops[0][1];
    for (let k = 1; k < stops.length; k += 1) { const [t1, c1] = stops[k], [t0, c0] = stops[k - 1];
      if (t <= t1) { const u = t1 > t0 ? (t - t0) / (t1 - t0) : 1; return c0.map((v, c) => v + (c1[c] - v) * u); } }
    return stops[stops.length - 1][1]; };
  return root._kvFields.map((field) => {
    const xa = full[`xaxis${field.xaxis.slice(1)}`], ya = full[`yaxis${field.yaxis.slice(1)}`];
    const stepped = field.colorscale.some((s, k) => k > 0 && Number(s[0]) === Number(field.colorscale[k - 1][0]));
    const dx = (field.xs[field.nx - 1] - field.xs[0]) / (field.nx - 1), dy = (field.ys[field.ny - 1] - field.ys[0]) / (field.ny - 1);
    const expected = (X, Y, i, j) => {
      if (stepped) { const at = ((field.ny - 1 - j) * field.nx + i) * 4; return [0, 1, 2].map((c) => field.pixels[at + c]); }
      const f = field.picture.factor, x = xa.p2l((X + 0.5) / ratio - xa._offset), y = ya.p2l((Y + 0.5) / ratio - ya._offset);
      const span = field.zmax > field.zmin ? field.zmax - field.zmin : 1;
      const z = (a, b) => field.z[b * field.nx + a];
      const fine = (u, v) => {  // fine pixel (u, v), v from the bottom: its value's colour
        const clamp = (g, n) => Math.min(Math.max(g, 0), n - 1);
        const gx = clamp(Math.min(Math.max(u, 0), field.nx * f - 1) / f + 0.5 / f - 0.5, field.nx);
        const gy = clamp(Math.min(Math.max(v, 0), field.ny * f - 1) / f + 0.5 / f - 0.5, field.ny);
        const i0 = Math.min(Math.floor(gx), field.nx - 2), j0 = Math.min(Math.floor(gy), field.ny - 2), tx = gx - i0, ty = gy - j0;
        const value = (z(i0, j0) * (1 - tx) + z(i0 + 1, j0) * tx) * (1 - ty) + (z(i0, j0 + 1) * (1 - tx) + z(i0 + 1, j0 + 1) * tx) * ty;
        return colourAt(field.colorscale, Math.min(Math.max((value - field.zmin) / span, 0), 1)).map(Math.round);
      };
      const fu = (x - (field.xs[0] - dx / 2)) / (dx / f) - 0.5, fv = (y - (field.ys[0] - dy / 2)) / (dy / f) - 0.5;
      const u0 = Math.floor(fu), v0 = Math.floor(fv), wu = fu - u0, wv = fv - v0;
      const [a, b, c, d] = [fine(u0, v0), fine(u0 + 1, v0), fine(u0, v0 + 1), fine(u0 + 1, v0 + 1)];
      return [0, 1, 2].map((k) => (a[k] * (1 - wu) + b[k] * wu) * (1 - wv) + (c[k] * (1 - wu) + d[k] * wu) * wv);
    };
    let same = 0, seen = 0;
    for (let j = 1; j < field.ny - 1; j += 3) {
      for (let i = 1; i < field.nx - 1; i += 3) {
        const at = ((field.ny - 1 - j) * field.nx + i) * 4;
        if (field.pixels[at + 3] === 0) continue;
        const px = xa._offset + xa.l2p(field.xs[i]), py = ya._offset + ya.l2p(field.ys[j]);
        if (px < xa._offset || px > xa._offset + xa._length || py < ya._offset || py > ya._offset + ya._length) continue;
        const X = Math.floor(px * ratio), Y = Math.floor(py * ratio);
        const pixel = context.getImageData(X, Y, 1, 1).data;
        const want = expected(X, Y, i, j);
        seen += 1;
        if ([0, 1, 2].every((c) => Math.abs(pixel[c] - want[c]) <= 2)) same += 1;
      }
    }
    return seen ? same / seen : 0;
  });
}"""


def shows_figure(page) -> list[float]:
    """Per field of the figure, the share of its sampled cells the field canvas shows in the figure's own colour."""
    return page.locator(".kv-plot").first.evaluate(SHOWS_FIGURE)


def release(page) -> None:
    page.mouse.up()


def move_latencies(result: dict) -> list[float]:
    """Per input event: seconds until the next paint (the redraw of every panel)."""
    paint_times = [t for t, _ in result["paints"]]
    latencies = []
    for t in result["inputs"]:
        later = [p for p in paint_times if p >= t]
        if later:
            latencies.append(later[0] - t)
    return latencies


# ============================================================================ the app itself

APP = ROOT / "app.py"
ONE_CHART = Path(__file__).resolve().parent / "one_chart.py"
CHART = ".js-plotly-plot .main-svg"


def first_chart_seconds(page, url: str) -> float:
    """Seconds from opening ``url`` to its first Plotly chart on screen."""
    start = time.perf_counter()
    page.goto(url)
    page.wait_for_selector(CHART, state="visible")
    return time.perf_counter() - start


def title_contains(page, text: str) -> None:
    """Wait until a committed figure's title says ``text`` (mid-drag a figure's title says the dragged
    values, marked kv-preview: not the committed figure's)."""
    page.wait_for_function("(text) => [...document.querySelectorAll('.gtitle:not(.kv-preview)')].some((t) => t.textContent.includes(text))",
                           arg=text)


def grid_search_finished(page) -> None:
    """Wait until the page's background grid search has ended (its Cancel button is gone).

    While it runs, the figure already carries its "CV accuracy" title with the kernels finished so
    far, and between two ticks of its polling fragment the page reads as idle: neither tells that
    the search is over.
    """
    page.get_by_role("button", name="Cancel").wait_for(state="detached")
    page.wait_for_selector(IDLE)


#: Records every full Plotly draw of the page's charts as [time, title]: a draw after which the
#: chart's computed data (``gd.calcdata``) is not the one the previous draw left (marked here).
WATCH_DRAWS = """() => {
  window.__kvDraws = [];
  const hook = () => {
    for (const gd of document.querySelectorAll('.js-plotly-plot')) {
      if (gd.__kvWatched || !gd.on) continue;
      gd.__kvWatched = true;
      gd.on('plotly_afterplot', () => {
        if (gd.calcdata && gd.calcdata.__kvSeen) return;  // a pass that recomputed nothing
        if (gd.calcdata) gd.calcdata.__kvSeen = true;
        window.__kvDraws.push([performance.now(), String((gd.layout.title && gd.layout.title.text) || '')]);
      });
    }
  };
  new MutationObserver(hook).observe(document.body, {childList: true, subtree: true});
  hook();
}"""


def watch_draws(page) -> None:
    """From now on, count the full Plotly draws of every chart on the page (see :func:`draws`)."""
    page.evaluate(WATCH_DRAWS)


def draws(page, title: str = "") -> int:
    """How many full Plotly draws since :func:`watch_draws` showed a title containing ``title``."""
    return page.evaluate("(text) => window.__kvDraws.filter(([, t]) => t.includes(text)).length", title)


#: Records every size the page's plot components take, as [width, height].
WATCH_SIZES = """() => {
  window.__kvSizes = [];
  const observer = new ResizeObserver((entries) => {
    for (const entry of entries) window.__kvSizes.push([entry.contentRect.width, entry.contentRect.height]);
  });
  for (const plot of document.querySelectorAll('.kv-plot')) observer.observe(plot);
}"""


def watch_sizes(page) -> None:
    """From now on, record the sizes the page's plot components take (see :func:`sizes`)."""
    page.evaluate(WATCH_SIZES)


def sizes(page) -> list:
    """Every [width, height] a plot component took since :func:`watch_sizes` (its first is its size then)."""
    return page.evaluate("() => window.__kvSizes")


def commit_gamma_step(page, expected_title: str, key: str = "ArrowRight") -> float:
    """Press → (or ``key``) on the γ slider above the app's figure (a one-step commit); seconds until the
    committed figure shows it."""
    handle = slider(page, "log_gamma")
    handle.focus()
    start = time.perf_counter()
    page.keyboard.press(key)
    title_contains(page, expected_title)
    page.wait_for_selector(IDLE)
    return time.perf_counter() - start


#: A figure of the plot component that Plotly has drawn (or that needed no new drawing).
DRAWN = '.kv-plot[data-drawing="done"]'
#: One still being handed to Plotly.
DRAWING = '.kv-plot[data-drawing="busy"]'
#: Streamlit's stand-in for an element whose code (a lazily loaded chunk) has not arrived yet: a
#: fresh browser shows one per widget for up to a second after the first run, and the page's layout
#: shifts when they give way (a button's box is 8 px taller than its skeleton).
SKELETON = '[data-testid="stSkeleton"]'


#: Counts the page's script runs from its opening (``window.__kvRunsStarted`` / ``__kvRunsEnded``):
#: the ``page`` fixture adds it to every page, so that a test can wait for the run its action
#: started (:func:`after_action`) rather than find the page idle from before the action.
COUNT_RUNS = """(() => {
  window.__kvRunsStarted = 0;
  window.__kvRunsEnded = 0;
  let running = false;
  const attach = () => {
    const app = document.querySelector('[data-testid="stApp"]');
    if (!app) return false;
    new MutationObserver(() => {
      const state = app.getAttribute('data-test-script-state');
      if (state === 'running' && !running) { running = true; window.__kvRunsStarted += 1; }
      else if (state !== 'running' && running) { running = false; window.__kvRunsEnded += 1; }
    }).observe(app, {attributes: true, attributeFilter: ['data-test-script-state']});
    return true;
  };
  if (!attach()) {
    new MutationObserver((_, observer) => { if (attach()) observer.disconnect(); })
      .observe(document, {childList: true, subtree: true});
  }
})()"""
#: How long an action is given to start a run before it counts as one that starts none (a click on
#: the view already open; a run so short that the page never showed it running).
RUN_START_MS = 1500


def after_action(page) -> None:
    """After an action: wait for the run it started, if any, then until the page is settled.

    A run counts as the action's when it started after the last call (each call marks the runs
    started so far); an action that starts none is given :data:`RUN_START_MS`.
    """
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    mark = page.evaluate("() => window.__kvRunsMarked ?? 0")
    try:
        page.wait_for_function("(mark) => (window.__kvRunsStarted ?? 0) > mark", arg=mark, timeout=RUN_START_MS)
    except PlaywrightTimeout:
        pass  # the action started no run the page showed
    settled(page)
    page.evaluate("() => { window.__kvRunsMarked = window.__kvRunsStarted ?? 0; }")


def settled(page) -> None:
    """Wait until no script runs, every element of the page is in place and every figure has been drawn."""
    page.wait_for_selector(IDLE)
    page.wait_for_function("(busy) => !document.querySelector(busy)", arg=f"{DRAWING}, {SKELETON}")


def run_once(page, action, timeout: float | None = None) -> bool:
    """Do ``action``, then wait until a script run has started and ended after it; with ``timeout``
    (ms), give up waiting for the run after that long and say whether one ran."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    page.evaluate("""() => {
      const app = document.querySelector('[data-testid="stApp"]');
      window.__kvRunsEnded = 0;
      let running = false;
      new MutationObserver(() => {
        const state = app.getAttribute('data-test-script-state');
        if (state === 'running') running = true;
        else if (running) { running = false; window.__kvRunsEnded += 1; }
      }).observe(app, {attributes: true, attributeFilter: ['data-test-script-state']});
    }""")
    action()
    try:
        page.wait_for_function("() => window.__kvRunsEnded > 0", timeout=timeout)
    except PlaywrightTimeout:
        if timeout is None:
            raise
        return False
    settled(page)
    return True


def rerun(page, tries: int = 5) -> None:
    """A full run of the page by Streamlit's R key (away from any input), and wait until it ends.
    Streamlit ignores the key while a run is under way (one a poll or a finished lattice's signal
    started just then, say): it is pressed again until a run starts."""
    for _ in range(tries):
        page.evaluate("() => document.activeElement && document.activeElement.blur()")
        if run_once(page, lambda: page.keyboard.press("r"), timeout=3000):
            return
    raise AssertionError(f"no run started after {tries} presses of R")


def lattice_arrived(page) -> None:
    """After a committed step: wait for the rerun that brings the new values' finished lattice,
    and for the figure to be drawn (or found the same) after it."""
    page.locator(CURRENT).wait_for()
    settled(page)


#: The drawing component (kernelviz.components.draw; in a shadow root, which Playwright's CSS
#: locators enter and ``document.querySelector`` does not) and its canvas.
DRAW = ".kv-draw"
DRAW_CANVAS = ".kv-draw-canvas"


def count_drawn(page) -> int:
    """How many points the drawing canvas shows."""
    return int(page.locator(DRAW).get_attribute("data-points"))


#: What the page shows of a drawing session, for a test's failure message: whether a run is on,
#: the runs counted, each canvas's point count, the captions, the errors, and the link's view and point count.
DRAWING_STATE = """() => {
  const main = document.querySelector('[data-testid="stMainBlockContainer"]');
  // every match, inside the components' shadow roots too (a v2 component draws in one)
  const deep = (root, selector) => [...root.querySelectorAll(selector)].concat(
    ...[...root.querySelectorAll('*')].filter((e) => e.shadowRoot).map((e) => deep(e.shadowRoot, selector)));
  const texts = (selector) => [...(main ? main.querySelectorAll(selector) : [])].map((e) => e.innerText.slice(0, 120));
  return {script: document.querySelector('[data-testid="stApp"]')?.getAttribute('data-test-script-state'),
          runs_started: window.__kvRunsStarted, runs_ended: window.__kvRunsEnded,
          canvases: deep(document, '.kv-draw').map((e) => e.getAttribute('data-points')),
          captions: texts('[data-testid="stCaptionContainer"]'),
          alerts: texts('[data-testid="stAlert"], [data-testid="stException"]'),
          stale: document.querySelectorAll('[data-stale="true"]').length,
          link_view: new URLSearchParams(location.search).get('view'),
          link_points: (new URLSearchParams(location.search).get('points') || '').split('~').filter(Boolean).length};
}"""


def drawing_state(page) -> str:
    """:data:`DRAWING_STATE` now, as one line (a failure's message says what the page showed)."""
    return repr(page.evaluate(DRAWING_STATE))


def canvas_point(page, fraction_x: float, fraction_y: float) -> tuple[float, float]:
    """Page coordinates of a share of the drawing canvas's plot square (its padding left out)."""
    return tuple(page.locator(DRAW_CANVAS).evaluate("""(canvas, [fx, fy]) => {
        const box = canvas.getBoundingClientRect(), pad = {left: 44, right: 14, top: 14, bottom: 36};
        const side = Math.min(box.width - pad.left - pad.right, box.height - pad.top - pad.bottom);
        const left = box.left + pad.left + (box.width - pad.left - pad.right - side) / 2;
        return [left + fx * side, box.top + pad.top + fy * side];
    }""", [fraction_x, fraction_y]))


def canvas_box(page) -> list[float]:
    """The drawing canvas's box on the page: left, top, width, height."""
    return page.locator(DRAW_CANVAS).evaluate(
        "(canvas) => { const b = canvas.getBoundingClientRect(); return [b.left, b.top, b.width, b.height]; }")


#: Each click of :func:`click_canvas`: where it was aimed, and the canvas's box just before it was aimed and
#: once its point was drawn. A point drawn off its mark (once in about a hundred runs of a loaded machine)
#: puts these in its failure's message: they say whether the canvas moved or changed size under the click.
CLICKS: list[dict] = []


def click_canvas(page, fraction_x: float, fraction_y: float) -> float:
    """Click the drawing canvas at a share of its plot square; seconds until one more point is drawn."""
    before = count_drawn(page)
    box_before = canvas_box(page)
    x, y = canvas_point(page, fraction_x, fraction_y)
    start = time.perf_counter()
    page.mouse.click(x, y)
    page.locator(f'{DRAW}[data-points="{before + 1}"]').wait_for()
    seconds = time.perf_counter() - start
    CLICKS.append({"share": (fraction_x, fraction_y), "at": (x, y), "box_before": box_before,
                   "box_after": canvas_box(page)})
    return seconds


def switch_view(page, button: str, title: str) -> float:
    """Click a view's button; seconds until its chart's title is drawn and the run is over."""
    start = time.perf_counter()
    page.locator('[data-testid="stButtonGroup"] button', has_text=button).first.click()
    title_contains(page, title)
    page.wait_for_selector(IDLE)
    return time.perf_counter() - start


@contextlib.contextmanager
def busy_cpu(processes: int = 2):
    """Keep ``processes`` busy loops running (one per core of the 2-core test machine) while the
    block runs: a loaded machine, on which a script run takes seconds and the person's actions
    come while one runs. Stops them, by their own ids, on the way out."""
    loops = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(processes)]
    try:
        yield
    finally:
        for loop in loops:
            loop.kill()
            loop.wait()


# Times every move of a dragged point sent to Python (data-edit-sent) and every refitted figure drawn
# (data-edit-painted) on the figure `root` (kernelviz/components/plot/edit.js).
EDIT_PROBES = """(root) => {
  const probe = {sent: {}, painted: {}, settled: {}, runs: 0, states: [], up: null};
  // the release as the page got it (the driver's round trip to send it is not the page's time)
  window.addEventListener('pointerup', (event) => { probe.up = event.timeStamp; }, {capture: true, once: true});
  // what the figure said before this probe: a value set again is not a new one
  const before = {'data-edit-sent': root.dataset.editSent, 'data-edit-painted': root.dataset.editPainted,
                  'data-edit-settled': root.dataset.editSettled};
  const app = document.querySelector('[data-testid="stApp"]');
  new MutationObserver(() => {
    const state = app.getAttribute('data-test-script-state');
    probe.states.push([state, performance.now()]);
    if (state === 'running') probe.runs += 1;
  }).observe(app, {attributes: true, attributeFilter: ['data-test-script-state']});
  new MutationObserver((records) => {
    for (const r of records) {
      const value = root.getAttribute(r.attributeName);
      const book = {'data-edit-sent': probe.sent, 'data-edit-painted': probe.painted,
                    'data-edit-settled': probe.settled}[r.attributeName];
      if (value && value !== before[r.attributeName] && !(value in book)) book[value] = performance.now();
    }
  }).observe(root, {attributes: true, attributeFilter: ['data-edit-sent', 'data-edit-painted', 'data-edit-settled']});
  window.__kvEdit = probe;
}"""


def data_point(page, index: int = 3, chart: str = ".kv-plot") -> dict:
    """Where a figure draws a data point: page coordinates ``x``, ``y`` of the ``index``-th marker of its
    first layer of many points, and its data coordinates ``dx``, ``dy``."""
    return page.locator(chart).first.evaluate("""(root, index) => {
        const box = root.getBoundingClientRect();
        const layer = root._kvLayers.find((l) => l.px && l.px.length > index && Number.isFinite(l.px[index]));
        return {x: box.left + layer.px[index], y: box.top + layer.py[index], dx: Number(layer.x[index]),
                dy: Number(layer.y[index]), name: layer.name};
    }""", index)


def drag_point(page, seconds: float = 4.0, radius: float = 60.0, index: int = 3, release: bool = True) -> dict:
    """Press a data point of the page's first figure and move it round a circle of ``radius`` px for
    ``seconds``, a move every two animation frames, then release it (unless ``release`` is False).

    Returns
    -------
    dict
        ``refits``: refitted figures drawn during the drag; ``seconds``: the drag's length;
        ``latencies``: per answered move, seconds from the move's dispatch to its figure drawn;
        ``start`` and ``end``: the point's page coordinates; ``runs``: script runs during the drag;
        ``release``: seconds from the release to the committed figure drawn (None without one).
    """
    import math

    root = page.locator(".kv-plot").first
    root.evaluate(EDIT_PROBES)
    point = data_point(page, index)
    page.mouse.move(point["x"], point["y"])
    page.mouse.down()
    start = time.perf_counter()
    x, y, step = point["x"], point["y"], 0
    while time.perf_counter() - start < seconds:
        step += 1
        angle = step * 0.15
        x = point["x"] + radius * math.sin(angle)
        y = point["y"] + radius * (1 - math.cos(angle)) / 2
        page.mouse.move(x, y)
        # paced by the page's frames (two, ~30 ms): as fast as a hand, never faster than the page draws
        page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
    elapsed = time.perf_counter() - start
    probe = page.evaluate("() => window.__kvEdit")
    released = None
    if release:
        up = page.evaluate("() => performance.now()")
        page.mouse.up()
        page.wait_for_function("() => Object.keys(window.__kvEdit.settled).length > 0")
        settled, got = page.evaluate("() => [window.__kvEdit.settled, window.__kvEdit.up]")
        released = (max(settled.values()) - (got if got is not None else up)) / 1000
    latencies = [(probe["painted"][seq] - sent) / 1000 for seq, sent in probe["sent"].items() if seq in probe["painted"]]
    return {"refits": len(probe["painted"]), "seconds": elapsed, "latencies": latencies, "release": released,
            "start": (point["x"], point["y"]), "end": (x, y), "point": point, "runs": probe["runs"]}


def wait_for_refits(page, count: int) -> None:
    """Wait until ``count`` refitted figures of a dragged point (``drag_point``'s probe) are drawn; a
    timeout says what the figure and the page had sent, answered and drawn by then."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_function("(n) => Object.keys(window.__kvEdit.painted).length >= n", arg=count)
    except PlaywrightTimeout:
        state = page.locator(".kv-plot").first.evaluate("""(root) => ({
            probe: window.__kvEdit, figure: {...root.dataset}, figures: document.querySelectorAll('.kv-plot').length,
            script: document.querySelector('[data-testid="stApp"]').getAttribute('data-test-script-state'),
            errors: [...document.querySelectorAll('[data-testid="stException"], .kv-plot-error')].map((e) => e.textContent)})""")
        raise AssertionError(f"fewer than {count} refitted figures were drawn while the point was held: {state}") from None
