// Unit tests of the hover labels of what the canvas paints (kernelviz/components/plot/hover.js),
// under node --test: a point's or a field cell's lines as Plotly would write them, and the label
// shown over the plot.
import assert from "node:assert/strict";
import { test } from "node:test";

import { fieldCell, fieldLabel, fieldLines, hoverLines, pointLabel, showHover } from "../../kernelviz/components/plot/hover.js";
import { splitCanvas } from "../../kernelviz/components/plot/split.js";
import { install, uninstall } from "./fake_dom.mjs";

const xs = [-1, 0, 1, 2];
const ys = [0, 0.5, 1];
const Z = ys.map((y) => xs.map((x) => x + y));
const field = (z, extra = {}) => ({ type: "heatmap", x: xs, y: ys, z, zmin: -2, zmax: 2, showscale: false,
                                    colorscale: [[0, "#0000ff"], [0.5, "#ffffff"], [1, "rgb(255, 0, 0)"]], xaxis: "x2", yaxis: "y2",
                                    hovertemplate: "(%{x:.2f}, %{y:.2f})<br>f = %{z:.3f}<extra></extra>", ...extra });

// A layer of points as splitCanvas keeps it.
const layer = (extra = {}) => ({ name: "class +1", x: [0.123456, 2], y: [-1.5, 1234567], customdata: [["setosa", 0.98765], ["virginica", 0.5]],
                                 color: ["#D55E00", "rgba(0,0,0,0)"], lineColor: "#0072B2", ...extra });

test("a point's template filled from its x, y and customdata, with d3's .Nf and .Ng formats; <extra> dropped", () => {
  const template = "%{customdata[0]}<br>x = %{x:.2f}, y = %{y:.3g}<br>p = %{customdata[1]:.2f}<extra>class</extra>";
  assert.deepEqual(hoverLines(layer({ hovertemplate: template }), 0), ["setosa", "x = 0.12, y = -1.5", "p = 0.99"]);
  assert.deepEqual(hoverLines(layer({ hovertemplate: "%{y:.2g}<br/>%{x}" }), 1), ["1200000", "2"]);
});

test("without a template: the point's (x, y) to 3 digits, its hover text, the trace's name; none where it is skipped", () => {
  assert.deepEqual(hoverLines(layer(), 1), ["(2, 1230000)", "class +1"]);
  assert.deepEqual(hoverLines(layer({ hovertext: ["first", "second"] }), 0), ["(0.123, -1.5)", "first", "class +1"]);
  assert.equal(hoverLines(layer({ hoverinfo: "skip" }), 0), null);
  assert.equal(hoverLines(layer({ hoverinfo: "none" }), 0), null);
});

test("a point's label is framed in its colour, its outline's where its fill is transparent", () => {
  assert.deepEqual(pointLabel({ layer: layer(), i: 0 }).colour, "#D55E00");
  assert.deepEqual(pointLabel({ layer: layer(), i: 1 }).colour, "#0072B2");
  assert.equal(pointLabel(null), null);
  assert.equal(pointLabel({ layer: layer({ hoverinfo: "skip" }), i: 0 }), null);
});

test("a cell's hover label fills the field's template from its own values and class names", () => {
  const { fields } = splitCanvas({ data: [field(Z)], layout: {} });
  assert.deepEqual(fieldLines(fields[0], 2, 1), ["(0.00, 1.00)", "f = 1.000"]);
  const names = ys.map(() => xs.map((x) => (x < 0.5 ? "setosa" : "virginica")));
  const classes = splitCanvas({ data: [field(Z, { text: names, hovertemplate: "(%{x:.2f}, %{y:.2f})<br>predicted %{text}<extra></extra>" })],
                                layout: {} });
  assert.deepEqual(fieldLines(classes.fields[0], 0, 3), ["(2.00, 0.00)", "predicted virginica"]);
  assert.equal(fieldLines({ ...fields[0], hoverinfo: "skip" }, 0, 0), null);
});

test("the cell under data coordinates: the nearest grid value's, up to half a cell beyond the first and last", () => {
  const { fields } = splitCanvas({ data: [field(Z)], layout: {} });
  const cell = (x, y) => fieldCell(fields[0], x, y);
  assert.deepEqual(cell(0.4, 0.6), { j: 1, i: 1 });
  assert.deepEqual(cell(xs.at(-1) + 0.49 * (xs[1] - xs[0]), ys[0] - 0.49 * (ys[1] - ys[0])), { j: 0, i: xs.length - 1 });
  assert.equal(cell(xs[0] - 0.51 * (xs[1] - xs[0]), 0.5), null);
  assert.equal(cell(0.5, ys.at(-1) + 0.51 * (ys[1] - ys[0])), null);
  assert.equal(cell(NaN, 0.5), null);
});

test("a cell's label is framed in the cell's own colour; without a template it says x, y and z", () => {
  const { fields } = splitCanvas({ data: [field(Z, { hovertemplate: undefined })], layout: {} });
  // row 0, column 3: z = 2 = zmax, the scale's top colour
  assert.deepEqual(fieldLabel(fields[0], 0, 3), { lines: ["x: 2", "y: 0", "z: 2"], colour: "rgb(255,0,0)" });
  assert.equal(fieldLabel({ ...fields[0], hoverinfo: "none" }, 0, 3), null);
});

test("the label shows beside the mouse in the figure's hover font, Plotly's tags as plain text, and hides", () => {
  const { document } = install();
  try {
    const root = document.createElement("div");
    root.box = { left: 100, top: 50, width: 700, height: 450 };
    root._fullLayout = { hoverlabel: { font: { size: 20 } } };
    const view = { root, hoverLabel: null };
    assert.equal(showHover(view, { lines: ["<b>setosa</b>", "p = 0.99"], colour: "#D55E00" }, 300, 200), true);
    const box = root.querySelector(".kv-plot-hover");
    assert.equal(box, view.hoverLabel);
    assert.deepEqual(box.children.map((row) => row.textContent), ["setosa", "p = 0.99"]);
    assert.deepEqual([box.style.borderColor, box.style.fontSize, box.style.left, box.style.top, box.style.display],
                     ["#D55E00", "20px", "212px", "162px", "block"]);
    assert.equal(showHover(view, { lines: ["one"], colour: "#000" }, 0, 0), true);
    assert.equal(box.children.length, 1);  // the previous label's lines are gone
    assert.equal(showHover(view, null), false);
    assert.equal(box.style.display, "none");
    assert.equal(root.querySelectorAll(".kv-plot-hover").length, 1);  // one label element, reused
  } finally { uninstall(); }
});
