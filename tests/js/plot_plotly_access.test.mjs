// Unit tests of what the plot component takes of plotly.js (kernelviz/components/plot/plotly_access.js),
// under node --test: Streamlit's copy imported once, where Plotly drew (its private fields), and the
// canvases laid over its drawing.
import assert from "node:assert/strict";
import { mkdtempSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";

import { fitCanvas, loadPlotly, plotArea, PLOTLY, plotlyChanges } from "../../kernelviz/components/plot/plotly_access.js";
import { drawnAxis, fakePlotly, install, uninstall } from "./fake_dom.mjs";

test("plotly.js's private fields the component reads are named when they change", () => {
  const svg = (hover) => ({ querySelector: (s) => (hover && s === ".hoverlayer" ? {} : null) });
  const layers = [svg(false), svg(false), svg(true)];
  const container = { querySelectorAll: () => layers };
  const root = (axis) => ({
    _fullLayout: { width: 800, height: 400, xaxis: axis }, _fullData: [],
    querySelector: (s) => (s === ".svg-container" ? container : null),
  });
  const axis = { _offset: 50, _length: 300, l2p: (v) => v * 10, p2l: (p) => p / 10 };
  assert.deepEqual(plotlyChanges(root(axis)), []);
  assert.deepEqual(plotlyChanges(root({ ...axis, _offset: undefined })), ["_fullLayout.xaxis._offset / _length"]);
  assert.deepEqual(plotlyChanges(root({ _offset: 50, _length: 300, p2l: axis.p2l })), ["_fullLayout.xaxis.l2p"]);
  assert.deepEqual(plotlyChanges(root({ _offset: 50, _length: 300, l2p: axis.l2p })), ["_fullLayout.xaxis.p2l"]);
  layers.pop();
  layers.pop();
  assert.deepEqual(plotlyChanges(root(axis)), ["svg.main-svg layers"]);
});

test("an axis by its reference: its offset, its length and data → pixels; none when hidden or missing", () => {
  const full = { xaxis: drawnAxis("x", 80, 500, [0, 1]), yaxis2: drawnAxis("y", 100, 300, [-1, 1]),
                 xaxis3: { ...drawnAxis("x", 0, 100, [0, 1]), visible: false } };
  const x = PLOTLY.axis(full, "x");
  assert.deepEqual([x.offset, x.length, x.toPixel(0.5)], [80, 500, 330]);
  const y2 = PLOTLY.axis(full, "y2");
  assert.deepEqual([y2.toPixel(1), y2.toPixel(-1)], [100, 400]);  // upside down, as on the screen
  assert.equal(PLOTLY.axis(full, "x3"), null);  // a panel hidden while another is shown alone
  assert.equal(PLOTLY.axis(full, "y4"), null);
  assert.equal(PLOTLY.axis(undefined, "x"), null);
});

test("a subplot's plot area in pixels, or none where an axis has no room", () => {
  const full = { xaxis: drawnAxis("x", 80, 500, [0, 1]), yaxis: drawnAxis("y", 100, 300, [0, 1]), yaxis2: drawnAxis("y", 100, 0, [0, 1]) };
  const area = plotArea(full, { xaxis: "x", yaxis: "y" });
  assert.deepEqual([area.left, area.top, area.width, area.height], [80, 100, 500, 300]);
  assert.equal(area.xa.toPixel(1), 580);
  assert.equal(plotArea(full, { xaxis: "x", yaxis: "y2" }), null);
});

test("Plotly's layers as drawn into the element: the drawing first, the hover layer last", async () => {
  install();
  try {
    const root = document.createElement("div");
    assert.deepEqual(PLOTLY.layers(root), { container: null, drawing: null, hover: null });
    await fakePlotly().react(root, [], {}, {});
    const { container, drawing, hover } = PLOTLY.layers(root);
    assert.equal(container, root.querySelector(".svg-container"));
    assert.deepEqual([drawing.className, hover.className], ["main-svg drawing", "main-svg hover"]);
    assert.deepEqual(plotlyChanges(root), []);
  } finally { uninstall(); }
});

test("a canvas the size of the figure in device pixels, its context in CSS pixels and cleared", () => {
  const { document } = install({ devicePixelRatio: 2 });
  try {
    const canvas = document.createElement("canvas");
    const context = fitCanvas(canvas, { width: 700.4, height: 450 });
    assert.deepEqual([canvas.width, canvas.height, canvas.style.width, canvas.style.height], [1400, 900, "700px", "450px"]);
    assert.deepEqual(context.calls, [["setTransform", 2, 0, 0, 2, 0, 0], ["clearRect", 0, 0, 700, 450]]);
    canvas.style.width = "kept";  // the same size again: the canvas is only cleared
    fitCanvas(canvas, { width: 700, height: 450 });
    assert.equal(canvas.style.width, "kept");
    assert.equal(context.calls.filter(([name]) => name === "clearRect").length, 2);
  } finally { uninstall(); }
});

test("a canvas over part of the figure: placed there, its context still in the figure's CSS pixels", () => {
  const { document } = install({ devicePixelRatio: 2 });
  try {
    const canvas = document.createElement("canvas");
    const context = fitCanvas(canvas, { width: 700, height: 450 }, { left: 80.5, top: 100, width: 300, height: 200.2 });
    assert.deepEqual([canvas.width, canvas.height, canvas.style.width, canvas.style.height, canvas.style.left, canvas.style.top],
                     [602, 402, "301px", "201px", "80px", "100px"]);
    assert.deepEqual(context.calls, [["setTransform", 2, 0, 0, 2, -160, -200], ["clearRect", 80, 100, 301, 201]]);
    // where it stands, for what is placed in its device pixels (sprites.js)
    assert.deepEqual(canvas.place, { left: 80, top: 100, ratio: 2 });
  } finally { uninstall(); }
});

// Streamlit's static files in a folder of their own: its entry script and the chunks beside it.
function staticFolder(chunks) {
  const folder = mkdtempSync(join(tmpdir(), "kv-plotly-"));
  mkdirSync(join(folder, "static", "js"), { recursive: true });
  for (const [name, text] of Object.entries(chunks)) writeFileSync(join(folder, "static", "js", name), text);
  return pathToFileURL(join(folder, "static", "js", "index.abc.js")).href;
}

test("plotly.js is imported from beside Streamlit's entry script, once, and again after a failure", async () => {
  const { document, window } = install();
  try {
    const entry = staticFolder({ "PlotlyChart.none.js": "export {};\n",
                                 "PlotlyChart.good.js": "window.Plotly = { version: 'fake' };\n" });
    document.querySelector = (selector) => (selector === 'script[type="module"][src*="/static/js/"]' ? { src: entry } : null);
    await assert.rejects(loadPlotly("PlotlyChart.none.js"), /PlotlyChart.none.js did not define plotly.js/);
    const loading = loadPlotly("PlotlyChart.good.js");  // the failure is forgotten: this one imports
    assert.equal(loadPlotly("PlotlyChart.other.js"), loading);  // a chart that mounts meanwhile waits for the same import
    assert.deepEqual(await loading, { version: "fake" });
    window.Plotly = { version: "already" };
    assert.deepEqual(await loadPlotly("PlotlyChart.good.js"), { version: "already" });
  } finally { uninstall(); }
});
