// Unit tests of the field canvas (kernelviz/components/plot/paint.js, paintFields), under node --test
// with a fake page: the figure's own fields at its values; where a slider stands elsewhere, each
// kernel panel's field from the lattice, the panels that cannot follow saying so, the support vectors
// and title scores of the sliders' values, and the page's scores of the figure's values hidden.
import assert from "node:assert/strict";
import { test } from "node:test";

import { paintFields } from "../../kernelviz/components/plot/paint.js";
import { splitCanvas } from "../../kernelviz/components/plot/split.js";
import { drawnAxis, fakePlotly, FakeElement, install, uninstall } from "./fake_dom.mjs";

const SCALE = [[0, "#0000ff"], [0.5, "#ffffff"], [1, "#ff0000"]];
const heatmap = (axes) => ({ type: "heatmap", x: [0, 0.5, 1], y: [0, 1], z: [[-1, 0, 1], [-1, 0, 1]], zmin: -3, zmax: 3,
                             showscale: false, colorscale: SCALE, ...axes });
// An SVM's panel (x, y) with its f = 0 line, and a model's panel (x2, y2), which has no preview.
const FIGURE = {
  data: [
    heatmap({}),
    { type: "contour", x: [0, 0.5, 1], y: [0, 1], z: [[-1, 0, 1], [-1, 0, 1]], showlegend: false,
      contours: { start: 0, end: 0, size: 1, coloring: "none" }, line: { color: "#222222", width: 2.6 } },
    heatmap({ xaxis: "x2", yaxis: "y2" }),
  ],
  layout: { meta: { kv_panels: { count: 2, equal: true, titles: [0, 1] } } },
};
const PANELS = () => ({ xaxis: drawnAxis("x", 80, 300, [0, 1]), yaxis: drawnAxis("y", 100, 300, [0, 1]),
                        xaxis2: drawnAxis("x", 420, 300, [0, 1]), yaxis2: drawnAxis("y", 100, 300, [0, 1]) });
const CODEC = { lo: -3, hi: 3, top: 253, undefined: 255 };

// The lattice along γ at γ ∈ {0.1, 1, 10}, the figure drawn at γ = 1; at γ = 10 every code is 253 (f ≈ 3).
function lattice(kernel = {}) {
  const fields = new Uint8Array(3 * 6).fill(127);
  fields.fill(253, 12);
  return { kind: "decision", nx: 3, ny: 2, codec: CODEC, classes: 2, x_range: [0, 1], y_range: [0, 1], complete: true,
           axes: { log_gamma: [-1, 0, 1] }, log_gamma: 0, log_C: null,
           kernels: [{ name: "rbf", fields: { log_gamma: fields }, scales: { log_gamma: [1, 1, 1] }, ...kernel }] };
}

async function view(kernel) {
  install();
  const root = document.createElement("div");
  document.body.appendChild(root);
  const { figure, levels, fields } = splitCanvas(FIGURE);
  await fakePlotly({ layout: PANELS }).react(root, figure.data, figure.layout, {});
  for (const index of ["0", "1"]) {  // Plotly's panel titles
    const title = new FakeElement("g");
    title.className = "annotation";
    title.dataset.index = index;
    root.appendChild(title);
  }
  const controls = document.createElement("div");
  controls.innerHTML = '<span class="kv-live-status"></span>';
  controls.dataset.paints = "0";
  const live = { lattice: lattice(kernel), log_gamma: 0, log_C: null, locked: [],
                 panels: [{ name: "rbf", xaxis: "x", yaxis: "y", margins: true }], held: [{ name: "KFD", xaxis: "x2", yaxis: "y2" }],
                 traces: new Map([["rbf", { field: FIGURE.data[0], levels: [FIGURE.data[1]], lines: [] }]]) };
  return { root, live, fields, levels, layers: [], covered: new Set(), dimmed: false, split: figure, controls,
           index: { log_gamma: 1, log_C: 0 }, fieldCanvas: null, canvas: null };
}

const drawnImages = (view) => view.fieldCanvas.context.calls.filter(([name]) => name === "drawImage").map(([, image]) => image);
const badges = (view) => view.fieldCanvas.context.calls.filter(([name]) => name === "fillText").map(([, text, x]) => [text, x]);
const stale = (view) => view.root.querySelectorAll("g.annotation").map((title) => title.classList.contains("kv-stale"));

test("at the figure's values: each panel's own field, on a canvas right above Plotly's drawing", async () => {
  const shown = await view();
  try {
    paintFields(shown);
    const layers = shown.root.querySelector(".svg-container").children.map((c) => c.className);
    assert.deepEqual(layers, ["main-svg drawing", "kv-plot-field", "main-svg info", "main-svg hover"]);
    assert.deepEqual(drawnImages(shown), shown.fields.map((field) => field.picture.canvas));
    assert.deepEqual(badges(shown), []);
    assert.deepEqual(stale(shown), [false, false]);
    assert.equal(document.body.dataset.kvPreview, undefined);
    assert.deepEqual([shown.controls.dataset.state, shown.controls.dataset.field, shown.controls.dataset.paints], ["committed", "", "1"]);
    assert.match(shown.controls.querySelector(".kv-live-status").textContent, /every kernel panel follows at once/);
  } finally { uninstall(); }
});

test("a slider elsewhere: the kernel's panel shows the lattice's field there, the model's says it updates on release", async () => {
  const moved = await view();
  try {
    moved.index.log_gamma = 2;
    paintFields(moved);
    // the kernel's panel: the plot's background, then the lattice's field (f ≈ 3: the scale's red), then its f = 0 level
    assert.deepEqual(drawnImages(moved), [moved.fieldOff, moved.fields[1].picture.canvas]);
    assert.deepEqual([...moved.fieldPixels.data.slice(0, 4)], [255, 0, 0, 255]);
    const calls = moved.fieldCanvas.context.calls;
    assert.deepEqual(calls.find(([name]) => name === "fillRect"), ["fillRect", 80, 100, 300, 300]);
    assert.ok(calls.some((call) => call[0] === "strokeStyle=" && call[1] === "#222222"));
    assert.deepEqual(badges(moved), [["updates on release", 420 + 9]]);
    assert.deepEqual(stale(moved), [true, false]);  // this lattice has no scores: the kernel panel's title hides its own
    assert.equal(document.body.dataset.kvPreview, "1");  // so do the page's
    assert.deepEqual([...moved.covered], ["x/y"]);  // the points canvas hides that panel's support vectors
    assert.deepEqual([moved.controls.dataset.state, moved.controls.dataset.field], ["live", "log_gamma:2"]);
    assert.match(moved.controls.querySelector(".kv-live-status").textContent, /^Preview at γ = 10/);
    moved.index.log_gamma = 1;  // back at the figure's value: all as the figure drew it
    paintFields(moved);
    assert.deepEqual(stale(moved), [false, false]);
    assert.equal(document.body.dataset.kvPreview, undefined);
    assert.deepEqual([...moved.covered], []);
  } finally { uninstall(); }
});

test("a kernel whose lattice is not ready, or failed, keeps the figure's picture and says so", async () => {
  for (const [kernel, note, state] of [[{ fields: null }, "preview not ready: updates on release", "preparing"],
                                       [{ fields: null, failed: "too large" }, "updates on release", "live"]]) {
    const waiting = await view(kernel);
    try {
      waiting.index.log_gamma = 2;
      paintFields(waiting);
      assert.deepEqual(drawnImages(waiting), waiting.fields.map((field) => field.picture.canvas));
      assert.deepEqual(badges(waiting), [[note, 80 + 9], ["updates on release", 420 + 9]]);
      assert.equal(waiting.controls.dataset.state, state);
    } finally { uninstall(); }
  }
});

test("nothing to paint (no preview, no field): no field canvas", async () => {
  const plain = await view();
  try {
    paintFields(plain);
    assert.ok(plain.root.querySelector(".kv-plot-field"));
    Object.assign(plain, { live: null, fields: [] });
    paintFields(plain);
    assert.equal(plain.root.querySelector(".kv-plot-field"), null);
  } finally { uninstall(); }
});

test("a slider elsewhere: the kernel's panel has the support vectors and its title the scores of that value", async () => {
  // at γ = 10 (index 2): training point 1 a support vector at C, point 0 a free one with a quarter of its |α|
  const support = { log_gamma: { counts: [1, 1, 2], index: Uint16Array.of(0, 0, 1, 0), alpha: Float32Array.of(1, 1, 4, 1),
                                 bounded: Uint8Array.of(0, 0, 1, 0) } };
  const accuracy = { log_gamma: [[0.5, 0.5, null], [0.75, 0.5, null], [0.875, 0.625, null]] };
  const moved = await view({ support, accuracy });
  try {
    Object.assign(moved.live.lattice, { points: Float32Array.of(0.25, 0.5, 0.75, 0.5),
                                        support_marker: { free: "circle-open", bounded: "square-open", size: 10, grow: 14 } });
    moved.layers = [{ index: 9, group: "sv", xaxis: "x", yaxis: "y", x: [], y: [], color: "black", opacity: 0.7, lineWidth: 1.5 }];
    const [rbf] = moved.root.querySelectorAll("g.annotation");
    for (const words of ["rbf", "train 75% · test 50%", "3 ms"]) {  // the title as Plotly draws it
      const line = new FakeElement("tspan");
      line.className = "line";
      line.textContent = words;
      rbf.appendChild(line);
    }
    const titleLines = () => rbf.querySelectorAll("tspan.line").map((l) => (l.classList.contains("kv-hidden") ? "" : l.textContent));
    moved.index.log_gamma = 2;
    paintFields(moved);
    const layer = moved.support.get("x/y");
    assert.deepEqual([[...layer.x], [...layer.y], layer.symbol], [[0.75, 0.25], [0.5, 0.5], ["square-open", "circle-open"]]);
    assert.deepEqual([...layer.size], [24, 17]);
    assert.equal(layer.opacity, 0.7);
    assert.deepEqual(titleLines(), ["rbf", "train 88% · test 62%", ""]);  // 87.5 → 88 and 62.5 → 62: half to even
    assert.deepEqual(stale(moved), [false, false]);
    assert.equal(document.body.dataset.kvPreview, "1");  // the page's table: not known mid-drag, hidden
    moved.index.log_gamma = 0;
    paintFields(moved);
    assert.deepEqual([...moved.support.get("x/y").x], [0.25]);
    assert.deepEqual(titleLines(), ["rbf", "train 50% · test 50%", ""]);
    moved.index.log_gamma = 1;  // released where the figure stands: its own title again
    paintFields(moved);
    assert.deepEqual(titleLines(), ["rbf", "train 75% · test 50%", "3 ms"]);
    assert.equal(moved.support.size, 0);
  } finally { uninstall(); }
});

test("a translucent field (a partition's regions) is painted under Plotly's drawing, on the backgrounds Plotly leaves it", async () => {
  install();
  try {
    const root = document.createElement("div");
    document.body.appendChild(root);
    const layout = { template: { layout: { paper_bgcolor: "white", plot_bgcolor: "#eeeeee" } } };
    const { figure, fields } = splitCanvas({ data: [heatmap({ opacity: 0.45 })], layout });
    await fakePlotly().react(root, figure.data, figure.layout, {});
    const under = { root, live: null, fields, levels: [], layers: [], covered: new Set(), dimmed: false, split: figure,
                    fieldCanvas: null, canvas: null };
    paintFields(under);
    const layers = root.querySelector(".svg-container").children.map((c) => c.className);
    assert.deepEqual(layers, ["kv-plot-field kv-plot-under", "main-svg drawing", "main-svg info", "main-svg hover"]);
    const calls = under.underCanvas.context.calls;
    const fills = calls.filter(([name]) => name === "fillStyle=" || name === "fillRect").map(([name, ...args]) => [name, ...args]);
    // the paper over the whole figure, then the plot's colour over the panel (fakePlotly's 500 × 300 at (80, 100))
    assert.deepEqual(fills, [["fillStyle=", "white"], ["fillRect", 0, 0, 700, 450], ["fillStyle=", "#eeeeee"],
                             ["fillRect", 80, 100, 500, 300]]);
    assert.deepEqual(calls.filter(([name]) => name === "globalAlpha="), [["globalAlpha=", 0.45]]);
    assert.deepEqual(calls.filter(([name]) => name === "drawImage").map(([, image]) => image), [fields[0].picture.canvas]);
    // nothing is painted over the drawing
    assert.equal(under.fieldCanvas, null);
    Object.assign(under, { fields: [] });
    paintFields(under);
    assert.equal(root.querySelector(".kv-plot-under"), null);
  } finally { uninstall(); }
});

test("mid-drag the figure's title says the sliders' γ and C where the figure marks them, and its own words after", async () => {
  const moved = await view();
  try {
    moved.split = { ...moved.split, layout: { ...moved.split.layout,
                                              meta: { ...moved.split.layout.meta, kv_title: "At γ = {gamma}, C = {C}" } } };
    moved.live.log_C = 0;
    const title = new FakeElement("text");
    title.className = "gtitle";
    const words = new FakeElement("tspan");
    words.textContent = "At γ = 1, C = 1";
    title.appendChild(words);
    moved.root.appendChild(title);
    moved.index.log_gamma = 2;
    paintFields(moved);
    assert.equal(title.textContent, "At γ = 10, C = 1");
    assert.ok(title.classList.contains("kv-preview"));
    moved.index.log_gamma = 1;  // back at the figure's value
    paintFields(moved);
    assert.equal(title.textContent, "At γ = 1, C = 1");
    assert.ok(!title.classList.contains("kv-preview"));
  } finally { uninstall(); }
});
