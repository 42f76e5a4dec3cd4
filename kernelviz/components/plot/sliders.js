// The live preview's sliders (γ, C), under a figure that is its own live preview, and the lattices
// they look into.
//
// payload.live (kernelviz.ui.live.live_preview), when the figure is a view's live preview:
//   lattice   — kernelviz.lattice.Lattice.to_browser(), each field a view of the payload's body
//   log_gamma, log_C — the values the figure was drawn at
//   panels    — [{name, xaxis, yaxis, margins}]: the kernels that preview, their subplots, and
//               whether their f = ±1 are an SVM's margins (drawn dashed)
//   held      — [{name, xaxis, yaxis}]: panels with no preview (models …): they keep their picture
//   locked    — the axes whose slider the teacher's link hides
// Sent back: the trigger "commit" = {axis, log_gamma, log_C} when a slider is released, and the
// trigger "lattice_finished" when the live preview's watcher says that the lattice being
// prepared is finished or stopped (listenForFinished).
//
// One picture per panel. While the sliders stand at the figure's own values, the figure is all
// there is. Elsewhere a canvas between Plotly's drawing and the points canvas covers each
// previewing panel's plot area with its field at the sliders' values, painted as the figure
// paints it — colours and levels come from the panel's own heatmap or contour trace — then its
// contours and the lines that do not depend on γ or C (the Gaussians' ellipses). The points stay
// as drawn; the support vectors and the titles' scores become those of the sliders' values (support.js).

import { FINISHED_EVENT } from "../events.js";
import { arrayOf } from "./arrays.js";
import { figureIndex, formatPower, LIVE_AXES } from "./lattice.js";
import { paintFields } from "./paint.js";
import { unpackLattice } from "./payload.js";

// The latest lattices this page received, by id, their fields views of the payloads they came in:
// a run that sends the same lattice again sends its id alone (kernelviz.components.plot.plot),
// also to a chart mounted anew (a view switched away and back). A few MB at most.
const LATTICES = new Map();
const LATTICES_KEPT = 3;
let missingAsked = 0;

// While its lattice is being prepared (data-waiting="1" on the controls), the page's watcher polls
// the server (kernelviz.ui.live._watch); when the lattice is finished or stopped, its poll tells the
// page (FINISHED_EVENT, ../poll/poll.js), and the figure of that kind asks for its view's run, which
// brings it — once per signal, also across remounts. The figure, because a component's trigger
// reruns only its view (a fragment): a page rerun from the watcher's fragment made the browser
// forget the sidebar's widgets (streamlit/streamlit#11266).
const SIGNALLED = new Set();

export function listenForFinished(view) {
  view.onFinished = ({ detail }) => {
    if (!view.live || detail.kind !== view.live.lattice.kind || SIGNALLED.has(detail.signal)) return;
    SIGNALLED.add(detail.signal);
    if (view.setTriggerValue) view.setTriggerValue("lattice_finished", detail.signal);
  };
  document.addEventListener(FINISHED_EVENT, view.onFinished);
}

function createControls(view) {
  const controls = document.createElement("div");
  controls.className = "kv-live";
  controls.hidden = true;
  controls.dataset.paints = "0";
  controls.innerHTML = `
    <label class="kv-live-control" data-axis="log_gamma"><span class="kv-live-name">γ</span>
      <input type="range" min="0" max="0" step="1" value="0" aria-label="gamma"><output></output></label>
    <label class="kv-live-control" data-axis="log_C"><span class="kv-live-name">C</span>
      <input type="range" min="0" max="0" step="1" value="0" aria-label="C"><output></output></label>
    <span class="kv-live-status" role="status"></span>`;
  // under the figure: the figure comes first on the screen (a lesson's box and the view switcher
  // are above it already), the sliders right under its legend
  view.root.parentNode.insertBefore(controls, view.root.nextSibling);
  view.controls = controls;
  view.sliders = {};
  view.index = { log_gamma: 0, log_C: 0 };
  view.dragging = false;
  for (const control of controls.querySelectorAll(".kv-live-control")) {
    const axis = control.dataset.axis;
    const input = control.querySelector("input");
    view.sliders[axis] = { control, input, output: control.querySelector("output") };
    input.addEventListener("pointerdown", () => { view.dragging = true; });
    // a press without a move ends with no change event: the drag still ends here
    for (const end of ["pointerup", "pointercancel"]) input.addEventListener(end, () => { view.dragging = false; });
    input.addEventListener("input", () => {
      view.index[axis] = Number(input.value);
      showValue(view, axis);
      requestLivePaint(view);
    });
    input.addEventListener("change", () => {
      view.dragging = false;
      view.index[axis] = Number(input.value);
      const { axes } = view.live.lattice;
      const committed = { axis, log_gamma: axes.log_gamma[view.index.log_gamma],
                          log_C: axes.log_C ? axes.log_C[view.index.log_C] : view.live.log_C };
      // The request first: Streamlit sends a trigger from a timer (setTimeout 0), which waited
      // behind the frame that paints the new value (15–50 ms, then the compositor's commit), a
      // third of the way from the key to the request. The preview (the key's input event asked
      // for it too) is asked for from a timer set after Streamlit's, which runs first.
      if (view.frame) {
        cancelAnimationFrame(view.frame);
        view.frame = 0;
      }
      if (view.setTriggerValue) view.setTriggerValue("commit", committed);
      setTimeout(() => requestLivePaint(view), 0);
    });
  }
}

function showValue(view, axis) {
  const values = view.live.lattice.axes[axis];
  if (values) view.sliders[axis].output.textContent = formatPower(values[view.index[axis]]);
}

// Each panel's traces as the painter uses them, decoded once per figure.
function panelTraces(figure, ref) {
  const own = figure.data.filter((t) => (t.xaxis || "x") === ref.xaxis && (t.yaxis || "y") === ref.yaxis);
  return {
    field: own.find((t) => t.type === "heatmap") || own.find((t) => t.type === "contour" && t.contours
                                                                     && t.contours.coloring !== "none"),
    levels: own.filter((t) => t.type === "contour" && t.contours && t.contours.coloring === "none"),
    lines: own.filter((t) => (t.type || "scatter") === "scatter" && String(t.mode || "").includes("lines"))
      .map((t) => ({ ...t, x: arrayOf(t.x) || [], y: arrayOf(t.y) || [] })),
  };
}

export function updateLive(view, live, figure) {
  if (!view.controls) createControls(view);
  view.live = live;
  view.root._kvLive = live;  // for tests: the panels that preview, and where
  view.root._kvForgetLattices = () => LATTICES.clear();  // for tests: as after a reload of this module
  view.controls.hidden = !live || live.locked.length >= Object.keys(live.lattice.axes).length;
  // while the lattice of the figure's values is prepared, the live preview's watcher (poll.js) ticks
  view.controls.dataset.waiting = live && live.waiting ? "1" : "0";
  if (!live) {
    if (view.fieldCanvas) view.fieldCanvas.remove();
    view.dimmed = false;
    view.covered = new Set();  // no preview covers a panel: every level line is the figure's again
    return;
  }
  if (live.lattice.sent) {
    const kept = LATTICES.get(live.lattice.id);
    if (kept) live.lattice = kept;
    else {  // not here after all (a reloaded module): ask for it, and preview nothing meanwhile
      for (const kernel of live.lattice.kernels) kernel.fields = null;
      live.lattice.complete = false;
      if (view.setStateValue) view.setStateValue("lattice_missing", { id: live.lattice.id, ask: ++missingAsked });
    }
  } else {
    unpackLattice(live.lattice, view.body);
    LATTICES.delete(live.lattice.id);
    LATTICES.set(live.lattice.id, live.lattice);
    while (LATTICES.size > LATTICES_KEPT) LATTICES.delete(LATTICES.keys().next().value);
  }
  const { lattice } = live;
  // every kernel's lattice is there (or failed): what tests and benchmarks wait for
  view.controls.dataset.ready = String(Boolean(lattice.complete));
  // computed at the figure's own values (while a new one is prepared, the previous lattice serves)
  const near = (a, b) => (a === null && b === null) || Math.abs(a - b) < 1e-9;
  view.controls.dataset.current = String(near(lattice.log_gamma, live.log_gamma) && near(lattice.log_C, live.log_C));
  live.traces = new Map([...live.panels, ...live.held].map((p) => [p.name, panelTraces(figure, p)]));
  for (const axis of LIVE_AXES) {
    const values = lattice.axes[axis];
    const { control, input } = view.sliders[axis];
    control.hidden = !values || live.locked.includes(axis);
    if (!values) continue;
    input.max = String(values.length - 1);
    // A rerun arriving mid-drag (say, the lattice became ready) must not yank the thumb away.
    if (!view.dragging) {
      view.index[axis] = figureIndex(live, axis);
      input.value = String(view.index[axis]);
    }
    showValue(view, axis);
  }
}

function requestLivePaint(view) {
  if (view.frame) return;
  view.frame = requestAnimationFrame(() => {
    view.frame = 0;
    paintFields(view);
  });
}
