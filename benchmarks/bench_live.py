"""Live exploration (issues 9 and 19): the lattice's ready time and the browser's redraw rate while a
figure previews γ in place (one picture per panel: its field, contours, points and support vectors).

1. Lattice ready: for the default view (moons, n = 500, RBF / Mahalanobis RBF / CkRBF / RWM,
   the figure's 70-cell field) the decision lattice over ≥ 25 γ and 25 C values, packed for the browser,
   in ≤ 5 s — from fitted kernels (what the app holds after its first paint); 3 repeats,
   median and spread. CPU time is printed beside the wall time: on a machine shared with
   other work the wall time measures the neighbours too.
2. Dragging in headless Chromium (the demo app tests/apps/live_demo.py, the boundary figure
   with its points and support vectors as its own preview): a mouse drag of
   the γ slider through 24 moves — script reruns during it (= 0) and the time from each move
   to its redraw — then the same 24 moves at one per animation frame: redraws of all four
   panels per second (≥ 30). (A Playwright mouse move is a round trip to the driver, tens
   of ms on a busy machine, so the mouse drag's rate measures the driver, not the page.)
3. Baseline in the same run: the same lattice as Plotly ``frames`` (heatmap + zero contour
   + points per panel), switched with ``Plotly.animate`` as a Plotly slider does, 24 switches.

4. The app itself (``--app``, headless Chromium, 1440 × 900): cold start to the first chart
   against a one-chart Streamlit app (tests/apps/one_chart.py) in the same run (≤ 1.2×);
   dragging γ in Decision boundaries (script runs during the drag = 0); a committed γ step
   (→ or ← on the γ slider above the figure, eight steps) until the figure shows it (≤ 0.3 s); a drawn
   point until it is on the canvas (≤ 0.3 s); a switch between Similarity and Decision boundaries
   on a warm session (≤ 0.5 s). Medians of a few repeats; each server starts fresh.

5. A/B of the committed step (``--against CHECKOUT``): the eight committed γ steps of item 4 on
   this checkout and on another one (e.g. a clone of an earlier commit, run with this checkout's
   Python environment), in alternating rounds; each round's median, and the ratio of the
   medians. On a shared machine whose speed drifts between runs, this is the comparison to
   trust.

6. A dragged point (``--points``, issue 31): in the app's Decision boundaries (moons, n = 300, four
   kernels, 1440 × 900), a data point dragged round a circle for a few seconds, a move every two animation frames:
   refitted figures drawn per second (each the pipeline's every stage on the moved data; ≥ 5/s), the
   time from a move to its figure drawn (median, p95), and the release (the page's pointerup event:
   the driver's round trip to send it is not the page's) until the committed figure is drawn (≤ 0.3 s median). Baseline in the same run: a committed γ step of the same figure, the
   step every frame of the drag repeats with new data. Several drags; each line gives the spread.

Items 2, 4, 5 and 6 measure at 1440 × 900; with ``--projector``, at 1920 × 1080 with the page's
``projector=1`` (issue 29: the budgets hold on a projector too, with its larger panels).

Usage: ``.venv/bin/python benchmarks/bench_live.py [--no-browser] [--app] [--points] [--against CHECKOUT [--rounds N]] [--projector]``.
Prints PASS/FAIL per budget; exits non-zero when one is missed.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "apps"))

from kernelviz import lattice as kvlattice  # noqa: E402
from kernelviz import figures as fg  # noqa: E402
from kernelviz.components import plot  # noqa: E402
from kernelviz.ui import live  # noqa: E402

READY_BUDGET = 5.0
REDRAW_BUDGET = 30.0
COMMIT_BUDGET = 0.3
DRAWN_POINT_BUDGET = 0.3
VIEW_SWITCH_BUDGET = 0.5
COLD_START_RATIO = 1.2
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
#: Committed γ steps from log γ = 1: four up, four back down (key, the committed figure's title).
COMMIT_STEPS = [("ArrowRight", "γ = 17.8,"), ("ArrowRight", "γ = 31.6,"), ("ArrowRight", "γ = 56.2,"),
                ("ArrowRight", "γ = 100,"), ("ArrowLeft", "γ = 56.2,"), ("ArrowLeft", "γ = 31.6,"),
                ("ArrowLeft", "γ = 17.8,"), ("ArrowLeft", "γ = 10,")]
#: 24 moves of the γ thumb from log γ = 0 (index 12): up to the end, back down, up to log γ = 1.
MOVES = list(range(13, 25)) + list(range(23, 13, -1)) + [15, 16]


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def lattice_ready(repeats: int = 3):
    """Wall and CPU seconds of computing and packing the default view's decision lattice, per repeat."""
    kernels, prep, grid = kvlattice.default_inputs(n_samples=500)
    walls, cpus = [], []
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        lattice = kvlattice.Lattice.decision(list(kernels), grid, log_gamma=0.0, log_C=0.0)
        for item in kvlattice.decision_fields(lattice, kernels, prep):
            lattice.add(item)
        axes = {name: fg.panel_axes(i) for i, name in enumerate(kernels)}
        plot.payload({"data": [], "layout": {}}, config={}, selectable=False,
                     live=live.preview_payload(lattice, 0.0, 0.0, axes))
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return walls, cpus, lattice, prep


def plotly_frames_html(lattice: kvlattice.Lattice, prep, path: Path) -> None:
    """The γ lattice as one Plotly figure with a frame per γ (Plotly's JS inlined: no CDN)."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    from kernelviz import figures as fg

    grid, codec = lattice.grid, lattice.codec
    names = lattice.names
    fig = make_subplots(1, len(names), subplot_titles=[fg.kernel_label(n) for n in names])
    X, y = prep.X_view[prep.train], prep.y[prep.train]
    home = int(np.argmin(np.abs(lattice.axes["log_gamma"] - lattice.log_gamma)))

    def field(name, index):
        return np.round(codec.decode(lattice.codes[(name, "log_gamma")][index]), 3)

    for k, name in enumerate(names):
        z = field(name, home)
        fig.add_trace(go.Heatmap(x=grid.xs, y=grid.ys, z=z, zmin=codec.lo, zmax=codec.hi, showscale=False,
                                 colorscale="RdBu"), 1, k + 1)
        fig.add_trace(go.Contour(x=grid.xs, y=grid.ys, z=z, showscale=False, line={"color": "black", "width": 2},
                                 contours={"start": 0, "end": 0, "size": 1, "coloring": "none"}), 1, k + 1)
        fig.add_trace(go.Scatter(x=X[:, 0], y=X[:, 1], mode="markers", marker={"color": y, "size": 5},
                                 showlegend=False), 1, k + 1)
    heat_and_line = [i for k in range(len(names)) for i in (3 * k, 3 * k + 1)]
    fig.frames = [go.Frame(name=str(i), traces=heat_and_line,
                           data=[trace for name in names for trace in (go.Heatmap(z=field(name, i)),
                                                                         go.Contour(z=field(name, i)))])
                  for i in range(len(lattice.axes["log_gamma"]))]
    fig.update_layout(width=1400, height=420, margin={"l": 20, "r": 20, "t": 40, "b": 20})
    path.write_text(fig.to_html(include_plotlyjs=True, full_html=True), encoding="utf-8")


PLOTLY_SWITCHES = """async (frames) => {
  const gd = document.querySelector('.js-plotly-plot');
  const times = [];
  for (const name of frames) {
    const start = performance.now();
    await Plotly.animate(gd, [name], {mode: 'immediate', frame: {duration: 0, redraw: true},
                                      transition: {duration: 0}});
    await new Promise((resolve) => requestAnimationFrame(() => resolve()));
    times.push((performance.now() - start) / 1000);
  }
  return times;
}"""


def browser_figures(lattice, prep) -> dict:
    import live_drag
    from playwright.sync_api import sync_playwright

    out = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport=SCREEN["viewport"])
        page.set_default_timeout(300_000)
        with live_drag.serve() as url:
            page.goto(url)
            page.locator(live_drag.READY).wait_for()
            page.wait_for_selector(live_drag.IDLE)
            result = live_drag.drag(page, "log_gamma", MOVES)
            live_drag.release(page)
            page.get_by_text("log γ = 1,").wait_for()
            page.wait_for_selector(live_drag.IDLE)
            paced = live_drag.frame_paced_drag(page, "log_gamma", MOVES[::-1])
        out["paced"] = paced
        paints = result["paints"]
        distinct = sum(1 for i, (_, field) in enumerate(paints) if i == 0 or field != paints[i - 1][1])
        out["component"] = {"runs": result["runs"], "paints": len(paints), "distinct": distinct,
                            "seconds": result["seconds"], "latencies": live_drag.move_latencies(result),
                            "paint_seconds": result["paint_seconds"] + paced["paint_seconds"]}
        with tempfile.TemporaryDirectory() as tmp:
            html = Path(tmp) / "frames.html"
            plotly_frames_html(lattice, prep, html)
            page.goto(html.as_uri())
            page.wait_for_selector(".js-plotly-plot .main-svg")
            frames = [str(i) for i in MOVES]
            out["plotly"] = page.evaluate(PLOTLY_SWITCHES, frames)
        browser.close()
    return out


def app_figures(repeats: int = 3) -> dict:
    """The app's budgets in headless Chromium (see the module's notes, item 4)."""
    import live_drag
    from playwright.sync_api import sync_playwright

    out = {"cold": [], "one_chart": [], "commit": [], "point": [], "switch": []}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)

        def new_page():
            page = browser.new_page(viewport=SCREEN["viewport"])
            page.set_default_timeout(300_000)
            return page

        for _ in range(repeats):  # cold: a fresh server for each first page, the two apps alternating
            for script, key in ((live_drag.ONE_CHART, "one_chart"), (live_drag.APP, "cold")):
                with live_drag.serve(script) as url:
                    page = new_page()
                    out[key].append(live_drag.first_chart_seconds(page, url))
                    page.close()
        with live_drag.serve(live_drag.APP) as url:
            page = new_page()
            page.goto(f"{url}/?view=boundaries{SCREEN['query']}")
            page.locator(live_drag.READY).wait_for()
            page.wait_for_selector(live_drag.IDLE)
            drag = live_drag.drag(page, "log_gamma", MOVES)
            out["drag_runs"] = drag["runs"]
            live_drag.release(page)  # commits log γ = 1
            live_drag.title_contains(page, "γ = 10,")
            page.wait_for_selector(live_drag.IDLE)
            for key, expected in COMMIT_STEPS:
                out["commit"].append(live_drag.commit_gamma_step(page, expected, key))
            for _ in range(repeats):  # warm: both views seen before
                live_drag.switch_view(page, "Similarity", "reference point")
                out["switch"].append(live_drag.switch_view(page, "Decision boundaries", "Decision boundaries at"))
            page.goto(f"{url}/?source=drawn&view=data&points=1_0.5_1~-1_-0.5_-1{SCREEN['query']}")
            page.wait_for_selector(live_drag.DRAW_CANVAS)
            page.wait_for_selector(live_drag.IDLE)
            for share in (0.3, 0.5, 0.7):
                out["point"].append(live_drag.click_canvas(page, share, 0.4))
                page.wait_for_selector(live_drag.IDLE)
        browser.close()
    return out


POINT_RATE_BUDGET = 5.0

#: The screen the browser figures are measured on: a laptop's, or with ``--projector`` a projector's
#: (1920 × 1080, the page's ``projector=1``: larger panels, markers and lines).
SCREEN = {"viewport": {"width": 1440, "height": 900}, "query": ""}
PROJECTOR = {"viewport": {"width": 1920, "height": 1080}, "query": "&projector=1"}


def point_figures(drags: int = 3, seconds: float = 4.0) -> dict:
    """Dragged points in the app (item 6 of the module's notes); the first edit makes the data drawn,
    so each drag after it is a fragment's run, as every later edit is."""
    import live_drag
    from playwright.sync_api import sync_playwright

    out = {"rates": [], "latencies": [], "release": [], "commit": [], "runs": []}
    with sync_playwright() as p, live_drag.serve(live_drag.APP) as url:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport=SCREEN["viewport"])
        page.set_default_timeout(300_000)
        page.goto(f"{url}/?view=boundaries&log_gamma=1{SCREEN['query']}")  # γ = 10: where COMMIT_STEPS start
        page.locator(live_drag.READY).wait_for()
        page.wait_for_selector(live_drag.IDLE)
        for drag in range(drags + 1):
            result = live_drag.drag_point(page, seconds, index=3 + drag)
            page.wait_for_selector(live_drag.IDLE)
            if drag == 0:
                continue  # the first edit copies the generated data and reruns the page: a one-off
            out["rates"].append(result["refits"] / result["seconds"])
            out["latencies"] += result["latencies"]
            out["release"].append(result["release"])
            out["runs"].append(result["runs"])
        page.locator(live_drag.READY).wait_for()
        for key, expected in COMMIT_STEPS[:4]:
            out["commit"].append(live_drag.commit_gamma_step(page, expected, key))
        browser.close()
    return out


def report_points(figures: dict) -> bool:
    rates, latencies = figures["rates"], sorted(figures["latencies"])
    rate = statistics.median(rates)
    p95 = latencies[int(0.95 * (len(latencies) - 1))]
    print(f"point drag: {rate:.1f} refitted repaints/s (drags {', '.join(f'{r:.1f}' for r in rates)}), move → repaint "
          f"median {1000 * statistics.median(latencies):.0f} ms, p95 {1000 * p95:.0f} ms  "
          f"[{verdict(rate >= POINT_RATE_BUDGET)} ≥ {POINT_RATE_BUDGET:g}/s]")
    release, commit = statistics.median(figures["release"]), statistics.median(figures["commit"])
    print(f"  release → committed figure drawn: median {release:.3f} s (drags "
          f"{', '.join(f'{r:.3f}' for r in figures['release'])})  [{verdict(release <= COMMIT_BUDGET)} ≤ "
          f"{COMMIT_BUDGET:g} s]; baseline, a committed γ step of the same figure: median {commit:.3f} s "
          f"(ratio {release / commit:.2f})")
    print(f"  script runs per drag: {', '.join(map(str, figures['runs']))} (one per refitted frame at most)")
    return rate >= POINT_RATE_BUDGET and release <= COMMIT_BUDGET


def report_app(figures: dict) -> bool:
    def line(label, seconds, budget, unit="s"):
        median = statistics.median(seconds)
        print(f"{label}: median {median:.3f} {unit} (runs {', '.join(f'{x:.3f}' for x in seconds)})  "
              f"[{verdict(median <= budget)} ≤ {budget:g} {unit}]")
        return median <= budget

    cold, one = statistics.median(figures["cold"]), statistics.median(figures["one_chart"])
    ratio = cold / one
    print(f"Cold start to first chart: kernelviz median {cold:.2f} s (runs {', '.join(f'{x:.2f}' for x in figures['cold'])}), "
          f"one-chart app {one:.2f} s (runs {', '.join(f'{x:.2f}' for x in figures['one_chart'])}): "
          f"{ratio:.2f}×  [{verdict(ratio <= COLD_START_RATIO)} ≤ {COLD_START_RATIO:g}×]")
    ok = ratio <= COLD_START_RATIO
    print(f"Script runs while dragging γ in the app's Decision boundaries: {figures['drag_runs']}  "
          f"[{verdict(figures['drag_runs'] == 0)} = 0]")
    ok &= figures["drag_runs"] == 0
    ok &= line("Committed γ step (→ or ← on the γ slider above the figure) until the figure shows it", figures["commit"],
               COMMIT_BUDGET)
    ok &= line("Drawn point until it is on the canvas", figures["point"], DRAWN_POINT_BUDGET)
    ok &= line("Switch Similarity → Decision boundaries, warm", figures["switch"], VIEW_SWITCH_BUDGET)
    return ok


def _live_drag_of(checkout: Path):
    """The browser helpers of another checkout (its ``serve`` runs that checkout's app and package)."""
    spec = importlib.util.spec_from_file_location(f"live_drag_{abs(hash(str(checkout)))}",
                                                  checkout / "tests" / "apps" / "live_drag.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def commit_ab(other: Path, rounds: int = 3) -> dict:
    """Medians of the eight committed γ steps, per round, for this checkout ("this") and ``other``,
    alternating (item 5 of the module's notes)."""
    from playwright.sync_api import sync_playwright

    helpers = {"this": _live_drag_of(ROOT), "other": _live_drag_of(other)}
    out = {name: [] for name in helpers}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for _ in range(rounds):
            for name, ld in helpers.items():
                with ld.serve(ld.APP) as url:
                    page = browser.new_page(viewport=SCREEN["viewport"])
                    page.set_default_timeout(300_000)
                    page.goto(f"{url}/?view=boundaries&log_gamma=1{SCREEN['query']}")
                    # an older checkout's helpers name the scrub row's live state instead
                    page.locator(getattr(ld, "READY", None) or f'{ld.SCRUB}[data-state="live"]').wait_for()
                    page.wait_for_selector(ld.IDLE)
                    out[name].append(statistics.median(ld.commit_gamma_step(page, expected, key)
                                                       for key, expected in COMMIT_STEPS))
                    page.close()
        browser.close()
    return out


def report_ab(figures: dict, other: Path) -> None:
    this, that = statistics.median(figures["this"]), statistics.median(figures["other"])
    print(f"Committed γ step, alternating rounds: this checkout medians "
          f"{', '.join(f'{x:.3f}' for x in figures['this'])} s; {other}: "
          f"{', '.join(f'{x:.3f}' for x in figures['other'])} s — ratio {this / that:.2f} "
          f"[{verdict(this <= COMMIT_BUDGET)} ≤ {COMMIT_BUDGET:g} s for this checkout]")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-browser", action="store_true", help="only the lattice's ready time")
    parser.add_argument("--app", action="store_true", help="only the app's budgets (cold start, commit, point, switch)")
    parser.add_argument("--points", action="store_true", help="only a dragged data point's budgets (item 6)")
    parser.add_argument("--against", type=Path, metavar="CHECKOUT",
                        help="A/B of the committed step against another checkout (item 5)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of the A/B (default 3)")
    parser.add_argument("--projector", action="store_true",
                        help="measure at 1920 × 1080 with the page's projector=1 (default 1440 × 900)")
    args = parser.parse_args()
    if args.projector:
        SCREEN.update(PROJECTOR)
    print(f"screen: {SCREEN['viewport']['width']} × {SCREEN['viewport']['height']}"
          f"{', projector=1' if SCREEN['query'] else ''}")
    ok = True
    if args.against:
        figures = commit_ab(args.against.resolve(), args.rounds)
        report_ab(figures, args.against)
        print(f"load average now: {', '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cores")
        return 0 if statistics.median(figures["this"]) <= COMMIT_BUDGET else 1
    if args.points:
        ok = report_points(point_figures())
        print(f"load average now: {', '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cores")
        return 0 if ok else 1
    if args.app:
        ok = report_app(app_figures())
        print(f"load average now: {', '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cores")
        return 0 if ok else 1

    walls, cpus, lattice, prep = lattice_ready()
    median = statistics.median(walls)
    n_gamma, n_C = len(lattice.axes["log_gamma"]), len(lattice.axes["log_C"])
    print(f"Lattice ready (4 kernels, n = 500, {n_gamma} γ + {n_C} C values, {lattice.grid.shape[1]}×"
          f"{lattice.grid.shape[0]} field, packed): median {median:.2f} s, spread {min(walls):.2f}–{max(walls):.2f} s "
          f"over {len(walls)} repeats; CPU {statistics.median(cpus):.2f} s  "
          f"[{verdict(median <= READY_BUDGET)} ≤ {READY_BUDGET:g} s]")
    ok &= median <= READY_BUDGET

    if not args.no_browser:
        if not os.path.exists(CHROMIUM):
            print(f"{CHROMIUM} missing: cannot measure the browser figures")
            return 1
        figures = browser_figures(lattice, prep)
        c, paced = figures["component"], figures["paced"]
        rate = paced["distinct"] / paced["seconds"] if paced["seconds"] > 0 else 0.0
        print(f"Scrubbing γ, 24 moves at one per animation frame, 4 panels: {paced['distinct']} distinct redraws "
              f"in {paced['seconds']:.3f} s = {rate:.0f} redraws/s  [{verdict(rate >= REDRAW_BUDGET)} ≥ "
              f"{REDRAW_BUDGET:g}/s]")
        print(f"  a real mouse drag (Playwright, 24 moves): {c['distinct']} distinct redraws in {c['seconds']:.3f} s "
              f"({c['distinct'] / c['seconds']:.0f}/s, paced by the driver's round trips)")
        if c["latencies"]:
            print(f"  move → all panels redrawn: median {statistics.median(c['latencies']):.3f} s, "
                  f"max {max(c['latencies']):.3f} s")
        cost = statistics.median(c["paint_seconds"])
        print(f"  one redraw of all four panels costs median {1000 * cost:.1f} ms of page script "
              f"(max {1000 * max(c['paint_seconds']):.1f} ms): room for {1 / cost:.0f} redraws/s when the browser "
              f"gets the frames")
        print(f"  script reruns during the drag: {c['runs']}  [{verdict(c['runs'] == 0)} = 0]")
        ok &= rate >= REDRAW_BUDGET and c["runs"] == 0
        plotly = figures["plotly"]
        ratio = statistics.median(plotly) / statistics.median(c["latencies"]) if c["latencies"] else float("nan")
        print(f"Baseline — the same lattice as Plotly frames, 24 switches: median {statistics.median(plotly):.3f} s, "
              f"max {max(plotly):.3f} s per switch ({ratio:.1f}× the component's move → redraw)")
    print(f"load average now: {', '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cores")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
