// Unit tests of the figure's points on the canvas (kernelviz/components/plot/markers.js), under node
// --test with a fake page: painted where Plotly would have drawn them, the support vectors over their
// subplot those of the values it shows, and found again under the mouse.
import assert from "node:assert/strict";
import { test } from "node:test";

import { canvasSelection, drawPoints, drawSupport, fieldCellAt, fieldSelection, pointAt, selectedPoints } from "../../kernelviz/components/plot/markers.js";
import { splitCanvas } from "../../kernelviz/components/plot/split.js";
import { drawnAxis, fakePlotly, install, uninstall } from "./fake_dom.mjs";

// Two panels over [0, 1]²: the first (x, y) at 80–580 × 100–400 px, the second (x2, y2) at 600–800 × 100–400.
const PANELS = () => ({ xaxis: drawnAxis("x", 80, 500, [0, 1]), yaxis: drawnAxis("y", 100, 300, [0, 1]),
                        xaxis2: drawnAxis("x", 600, 200, [0, 1]), yaxis2: drawnAxis("y", 100, 300, [0, 1]) });
const FIGURE = {
  data: [
    { type: "scatter", mode: "markers", name: "class +1", x: [0.5, 0, NaN], y: [0.5, 1, 0], customdata: [["a"], ["b"], ["c"]],
      marker: { size: 10, color: "#D55E00" } },
    { type: "scatter", mode: "markers", name: "support vectors", legendgroup: "sv", x: [0.5], y: [0.5], xaxis: "x2", yaxis: "y2",
      marker: { symbol: "circle-open", size: 14, color: "black" } },
    { type: "contour", x: [0, 1], y: [0, 1], z: [[-1, 1], [-1, 1]], showlegend: false, contours: { start: 0, end: 0, size: 1, coloring: "none" },
      line: { color: "#123456", width: 2 } },
  ],
  layout: {},
};

async function drawn({ hidden = [] } = {}) {
  install();
  const root = document.createElement("div");
  const { figure, layers, levels } = splitCanvas(FIGURE);
  await fakePlotly({ layout: PANELS }).react(root, figure.data, figure.layout, {});
  for (const index of hidden) root._fullData[index].visible = "legendonly";  // a legend click hid it
  return { root, layers, levels, covered: new Set(), canvas: null };
}

const arcsOn = (canvas) => canvas.context.calls.filter(([name]) => name === "arc").map((call) => call.slice(1, 3));
const arcs = (view) => arcsOn(view.canvas);
// the support canvas's picture, put whole (sprites.js; the fake canvas leaves a pixel at each
// marker's centre): its painted pixels in the figure's CSS pixels, and their alpha
const supportPixels = (view) => {
  const { left, top, ratio } = view.supportCanvas.place;
  const [, image] = view.supportCanvas.context.calls.findLast(([name]) => name === "putImageData");
  const found = [];
  for (let k = 0; k < image.width * image.height; k += 1) {
    if (image.data[4 * k + 3]) found.push([left + (k % image.width) / ratio, top + Math.floor(k / image.width) / ratio, image.data[4 * k + 3]]);
  }
  return found;
};

test("the points are painted at their axes' pixels on a canvas between Plotly's drawing and its hover layer", async () => {
  const view = await drawn();
  try {
    drawPoints(view);
    const container = view.root.querySelector(".svg-container");
    assert.deepEqual(container.children.map((c) => c.className), ["main-svg drawing", "main-svg info", "kv-plot-points", "main-svg hover"]);
    const [points, svs] = view.layers;
    assert.deepEqual([...points.px], [330, 80, NaN]);  // a point with no value is not painted
    assert.deepEqual([...points.py.slice(0, 2)], [250, 100]);
    assert.deepEqual([...svs.px, ...svs.py], [700, 250]);
    assert.deepEqual(arcs(view), [[330, 250], [80, 100], [700, 250]]);
    // the level line f = 0 of the first panel: x = 0.5, in its colour, clipped to its panel
    const calls = view.canvas.context.calls;
    assert.ok(calls.some((call) => call[0] === "strokeStyle=" && call[1] === "#123456"));
    assert.deepEqual(calls.filter(([name]) => name === "moveTo" || name === "lineTo").slice(0, 2), [["moveTo", 330, 400], ["lineTo", 330, 100]]);
    assert.deepEqual(calls.find(([name]) => name === "rect"), ["rect", 80, 100, 500, 300]);
  } finally { uninstall(); }
});

test("a panel the live preview covers shows not the figure's support vectors nor its level lines", async () => {
  const view = await drawn();
  try {
    view.covered = new Set(["x2/y2", "x/y"]);
    drawPoints(view);
    assert.equal(view.layers[1].px, null);
    assert.deepEqual(arcs(view), [[330, 250], [80, 100]]);  // the class's points stay: they are the data
    assert.ok(!view.canvas.context.calls.some((call) => call[0] === "strokeStyle=" && call[1] === "#123456"));
  } finally { uninstall(); }
});

test("over a covered panel, the dragged value's support vectors in place of the figure's, not found under the mouse", async () => {
  const view = await drawn();
  try {
    view.covered = new Set(["x2/y2"]);
    view.support = new Map([["x2/y2", { x: [0.25, 0.75], y: [0.25, 0.75], size: [10, 24], symbol: ["circle-open", "circle-open"],
                                        color: "black", opacity: 0.7, lineWidth: 1.5 }]]);
    drawPoints(view);
    // the figure's points on their canvas, the dragged value's support vectors on one of their own above it
    assert.deepEqual(arcs(view), [[330, 250], [80, 100]]);
    const container = view.root.querySelector(".svg-container");
    assert.deepEqual(container.children.map((c) => c.className),
                     ["main-svg drawing", "main-svg info", "kv-plot-points", "kv-plot-support", "main-svg hover"]);
    assert.deepEqual(supportPixels(view), [[750, 175, Math.round(0.7 * 255)], [650, 325, Math.round(0.7 * 255)]]);
    assert.equal(view.layers[1].px, null);
    view.root.box = { left: 0, top: 0, width: 800, height: 450 };
    assert.equal(pointAt(view, 650, 325), null);
    // the next dragged value: its support vectors alone repainted, the figure's points left as they are
    view.canvas.context.calls.length = 0;
    view.supportCanvas.context.calls.length = 0;
    view.support = new Map([["x2/y2", { x: [0.5], y: [0.5], size: [12], symbol: ["square-open"], color: "black" }]]);
    drawSupport(view);
    assert.deepEqual(view.canvas.context.calls, []);
    // a canvas over the covered plot area alone (600–800 × 100–400 px), drawn on in the figure's pixels
    assert.deepEqual(view.supportCanvas.context.calls.find(([name]) => name === "clearRect"), ["clearRect", 600, 100, 200, 300]);
    assert.deepEqual([view.supportCanvas.style.left, view.supportCanvas.style.top, view.supportCanvas.width, view.supportCanvas.height],
                     ["600px", "100px", 200, 300]);
    assert.deepEqual(view.supportCanvas.context.calls.find(([name]) => name === "setTransform"), ["setTransform", 1, 0, 0, 1, -600, -100]);
    assert.deepEqual(supportPixels(view), [[700, 250, 255]]);  // the square alone: the rings went
    view.root._fullData[1].visible = "legendonly";  // the figure's support vectors hidden from the legend: so are these
    view.canvas.context.calls.length = 0;
    drawPoints(view);
    assert.deepEqual(arcs(view), [[330, 250], [80, 100]]);
    assert.equal(view.root.querySelector(".kv-plot-support"), null);  // nothing to show: the canvas goes
  } finally { uninstall(); }
});

test("a trace hidden from the legend is not painted nor found; with nothing to paint the canvas goes", async () => {
  const view = await drawn({ hidden: [0] });
  try {
    drawPoints(view);
    assert.equal(view.layers[0].px, null);
    assert.deepEqual(arcs(view), [[700, 250]]);
    assert.equal(pointAt(view, 330, 250), null);
    view.layers = [];
    view.levels = [];
    drawPoints(view);
    assert.equal(view.root.querySelector(".kv-plot-points"), null);
  } finally { uninstall(); }
});

test("the point under the mouse: within its marker or 5 px of its centre, the top-most of equally near ones", async () => {
  const view = await drawn();
  try {
    view.root.box = { left: 10, top: 20, width: 800, height: 450 };
    drawPoints(view);
    const found = pointAt(view, 340 + 3, 270 + 4);  // 5 px from the first point (size 10: radius 5)
    assert.deepEqual([found.layer.name, found.i], ["class +1", 0]);
    assert.equal(pointAt(view, 340 + 6, 270), null);
    const open = pointAt(view, 710 + 7, 270);  // the support vector's ring is 14 px wide
    assert.deepEqual([open.layer.name, open.i], ["support vectors", 0]);
    view.layers[1].px = Float64Array.of(330);  // two points at one place: the one painted last
    assert.equal(pointAt(view, 340, 270).layer.name, "support vectors");
  } finally { uninstall(); }
});

test("a click selects the canvas point under it as Plotly reports a point, its customdata with it", async () => {
  const view = await drawn();
  try {
    drawPoints(view);
    assert.deepEqual(canvasSelection(view, { event: { clientX: 80, clientY: 100 } }),
                     [{ x: 0, y: 1, curve_number: 0, point_number: 1, point_index: 1, customdata: ["b"] }]);
    assert.equal(canvasSelection(view, { event: { clientX: 200, clientY: 300 } }), null);
    assert.equal(canvasSelection(view, {}), null);
  } finally { uninstall(); }
});

// A field on the second panel (600–800 × 100–400 px over [0, 1]²): cells 0.25 wide, 0.5 high.
async function withField() {
  install();
  const root = document.createElement("div");
  const fxs = [0, 0.25, 0.5, 0.75, 1];
  const fys = [0, 0.5, 1];
  const { figure, layers, fields } = splitCanvas({
    data: [{ type: "heatmap", x: fxs, y: fys, z: fys.map((y) => fxs.map((x) => x + y)), zmin: 0, zmax: 2, showscale: false,
             colorscale: [[0, "#000000"], [1, "#ffffff"]], xaxis: "x2", yaxis: "y2" }],
    layout: {} });
  await fakePlotly({ layout: PANELS }).react(root, figure.data, figure.layout, {});
  return { root, layers, fields, covered: new Set(), canvas: null };
}

test("the field cell under the mouse, and a click on a field's stand-in as a click on that cell", async () => {
  const view = await withField();
  try {
    const [field] = view.fields;
    // x = 0.3 (660 px) is nearest 0.25; y = 0.9 (130 px) nearest 1
    assert.deepEqual(fieldCellAt(view, field, 660, 130), { j: 2, i: 1 });
    assert.equal(fieldCellAt(view, field, 500, 130), null);  // the first panel's plot area: not this field's
    // Plotly reports its stand-in's one cell; the selection is the field's cell under the mouse
    const click = { event: { clientX: 660, clientY: 130 }, points: [{ x: 0.5, y: 0.5, curveNumber: 0, pointNumber: [0, 0] }] };
    assert.deepEqual(fieldSelection(view, click), [{ x: 0.25, y: 1, curve_number: 0, point_number: [2, 1], point_index: [2, 1] }]);
    assert.equal(fieldSelection(view, { ...click, points: [{ ...click.points[0], curveNumber: 3 }] }), null);  // not a field
    assert.equal(fieldSelection(view, { points: click.points }), null);  // no mouse event
  } finally { uninstall(); }
});

test("Plotly's own clicked points, in the selection's keys", () => {
  const event = { points: [{ x: 1, y: 2, curveNumber: 3, pointNumber: 4, pointIndex: 4, customdata: [7] },
                           { x: 5, y: 6, curveNumber: 0, pointNumber: [1, 2], pointIndex: 9 }] };
  assert.deepEqual(selectedPoints(event), [
    { x: 1, y: 2, curve_number: 3, point_number: 4, point_index: 4, customdata: [7] },
    { x: 5, y: 6, curve_number: 0, point_number: [1, 2], point_index: 9 },
  ]);
  assert.deepEqual(selectedPoints({}), []);
});
