// Unit tests of the live preview's sliders (kernelviz/components/plot/sliders.js), under node --test
// with a fake page: where they stand for a figure, a drag repainting at the next frame, a release
// committing, the lattices kept by id, and the signal that a lattice is finished.
import assert from "node:assert/strict";
import { test } from "node:test";

import { FINISHED_EVENT } from "../../kernelviz/components/events.js";
import { listenForFinished, updateLive } from "../../kernelviz/components/plot/sliders.js";
import { fakePlotly, install, uninstall } from "./fake_dom.mjs";

const CODEC = { lo: -3, hi: 3, top: 253, undefined: 255 };
const FIGURE = {
  data: [{ type: "heatmap", x: [0, 1], y: [0, 1], z: [[-1, 1], [-1, 1]], zmin: -3, zmax: 3, showscale: false,
           colorscale: [[0, "#0000ff"], [1, "#ff0000"]] },
         { type: "contour", x: [0, 1], y: [0, 1], z: [[-1, 1], [-1, 1]], showlegend: false,
           contours: { start: 0, end: 0, size: 1, coloring: "none" }, line: { color: "black", width: 2 } },
         { type: "scatter", mode: "lines", x: [0, 1], y: [1, 0] }],
  layout: {},
};

// A 2 × 2 lattice along γ ∈ {0.1, 1, 10} at C = 10 and along C ∈ {1, 10} at γ = 1; the figure at (1, 10).
function live(id, extra = {}) {
  const lattice = { id, kind: "decision", nx: 2, ny: 2, codec: CODEC, classes: 2, x_range: [0, 1], y_range: [0, 1], complete: true,
                    axes: { log_gamma: [-1, 0, 1], log_C: [0, 1] }, log_gamma: 0, log_C: 1,
                    kernels: [{ name: "rbf", fields: { log_gamma: [0, 12], log_C: [12, 8] }, scales: { log_gamma: [1, 1, 1], log_C: [1, 1] } }] };
  return { lattice, log_gamma: 0, log_C: 1, locked: [], panels: [{ name: "rbf", xaxis: "x", yaxis: "y", margins: true }], held: [],
           ...extra };
}
// A lattice the page was sent before: its id alone.
const sent = (id) => live(id, { lattice: { id, sent: true, kind: "decision", axes: { log_gamma: [-1, 0, 1], log_C: [0, 1] },
                                          log_gamma: 0, log_C: 1, kernels: [{ name: "rbf", fields: null }] } });

async function mounted() {
  const page = install();
  const root = document.createElement("div");
  document.body.appendChild(root);
  await fakePlotly().react(root, FIGURE.data, FIGURE.layout, {});
  const states = [];
  const triggers = [];
  const view = { root, body: new Uint8Array(20).map((_, i) => i), controls: null, fields: [], levels: [], layers: [],
                 covered: new Set(), dimmed: false, fieldCanvas: null, canvas: null, frame: 0, split: FIGURE,
                 setStateValue: (name, value) => states.push([name, value]), setTriggerValue: (name, value) => triggers.push([name, value]) };
  return { view, states, triggers, flushFrames: page.flushFrames };
}

const slider = (view, axis) => view.sliders[axis];
const type = (input, value, event = "input") => {
  input.value = String(value);
  input.dispatchEvent(new Event(event));
};

test("the sliders come under the figure at the figure's values, each saying its value", async () => {
  const { view } = await mounted();
  try {
    const shown = live("first");
    updateLive(view, shown, FIGURE);
    assert.equal(view.root.nextSibling, view.controls);
    assert.equal(view.controls.hidden, false);
    const [gamma, c] = [slider(view, "log_gamma"), slider(view, "log_C")];
    assert.deepEqual([gamma.input.max, gamma.input.value, gamma.output.textContent], ["2", "1", "1"]);
    assert.deepEqual([c.input.max, c.input.value, c.output.textContent], ["1", "1", "10"]);
    assert.deepEqual([view.controls.dataset.ready, view.controls.dataset.current, view.controls.dataset.waiting], ["true", "true", "0"]);
    assert.deepEqual([...shown.lattice.kernels[0].fields.log_C], [12, 13, 14, 15, 16, 17, 18, 19]);  // views of the body
    const traces = shown.traces.get("rbf");
    assert.deepEqual([traces.field, traces.levels, traces.lines.map((t) => t.y)], [FIGURE.data[0], [FIGURE.data[1]], [[1, 0]]]);
  } finally { uninstall(); }
});

test("a locked slider is hidden, and all the controls when every slider is locked or there is no preview", async () => {
  const { view } = await mounted();
  try {
    updateLive(view, live("locked", { locked: ["log_C"] }), FIGURE);
    assert.deepEqual([view.controls.hidden, slider(view, "log_gamma").control.hidden, slider(view, "log_C").control.hidden],
                     [false, false, true]);
    updateLive(view, live("locked", { locked: ["log_C", "log_gamma"] }), FIGURE);
    assert.equal(view.controls.hidden, true);
    view.covered = new Set(["x/y"]);
    updateLive(view, undefined, FIGURE);
    assert.deepEqual([view.controls.hidden, view.live, [...view.covered]], [true, undefined, []]);
  } finally { uninstall(); }
});

test("a drag repaints once a frame; the release commits its values before the preview repaints", async () => {
  const { view, triggers, flushFrames } = await mounted();
  try {
    updateLive(view, live("drag"), FIGURE);
    const gamma = slider(view, "log_gamma");
    type(gamma.input, 2);
    type(gamma.input, 2);
    assert.deepEqual([view.index.log_gamma, gamma.output.textContent, view.controls.dataset.paints], [2, "10", "0"]);
    flushFrames();
    assert.deepEqual([view.controls.dataset.paints, view.controls.dataset.state], ["1", "live"]);
    type(gamma.input, 0);
    type(gamma.input, 0, "change");
    assert.deepEqual(triggers, [["commit", { axis: "log_gamma", log_gamma: -1, log_C: 1 }]]);
    flushFrames();
    assert.equal(view.controls.dataset.paints, "1");  // the input's frame gave way to the request
    await new Promise((resolve) => { setTimeout(resolve, 0); });
    flushFrames();
    assert.equal(view.controls.dataset.paints, "2");
  } finally { uninstall(); }
});

test("a rerun that arrives mid-drag leaves the thumb where the hand is", async () => {
  const { view } = await mounted();
  try {
    updateLive(view, live("held"), FIGURE);
    const gamma = slider(view, "log_gamma");
    gamma.input.dispatchEvent(new Event("pointerdown"));
    type(gamma.input, 0);
    updateLive(view, sent("held"), FIGURE);
    assert.deepEqual([view.index.log_gamma, gamma.input.value], [0, "0"]);
    gamma.input.dispatchEvent(new Event("pointerup"));
    updateLive(view, sent("held"), FIGURE);
    assert.deepEqual([view.index.log_gamma, gamma.input.value], [1, "1"]);
  } finally { uninstall(); }
});

test("a lattice sent again by its id is the one kept (the last three); one the page lacks is asked for", async () => {
  const { view, states } = await mounted();
  try {
    const first = live("kept-1");
    updateLive(view, first, FIGURE);
    const again = sent("kept-1");
    updateLive(view, again, FIGURE);
    assert.equal(again.lattice, first.lattice);
    assert.deepEqual(states, []);
    for (const id of ["kept-2", "kept-3", "kept-4"]) updateLive(view, live(id), FIGURE);
    const forgotten = sent("kept-1");
    updateLive(view, forgotten, FIGURE);
    assert.deepEqual(states.map(([name, value]) => [name, value.id]), [["lattice_missing", "kept-1"]]);
    assert.equal(forgotten.lattice.kernels[0].fields, null);  // nothing to preview meanwhile
    assert.equal(view.controls.dataset.ready, "false");
    updateLive(view, sent("kept-2"), FIGURE);
    assert.equal(states.length, 1);
    updateLive(view, sent("never"), FIGURE);
    assert.ok(states[1][1].ask > states[0][1].ask);  // each ask its own value: Streamlit sends a repeated state once
  } finally { uninstall(); }
});

test("a finished lattice of the figure's kind asks for the view's run, once per signal", async () => {
  const { view, triggers } = await mounted();
  try {
    listenForFinished(view);
    const finished = (kind, signal) => document.dispatchEvent(new CustomEvent(FINISHED_EVENT, { detail: { kind, signal } }));
    finished("decision", "s1");
    assert.deepEqual(triggers, []);  // no preview yet: nothing to bring
    updateLive(view, live("signals"), FIGURE);
    finished("decision", "s1");
    finished("decision", "s1");
    finished("similarity", "s2");
    finished("decision", "s3");
    assert.deepEqual(triggers, [["lattice_finished", "s1"], ["lattice_finished", "s3"]]);
  } finally { uninstall(); }
});
