// Unit tests of the fields plot.js paints on its own canvas (kernelviz/components/plot/plot.js):
// which heatmaps it takes from Plotly, their pictures (as Plotly's heatmap colours them), the
// invisible stand-in Plotly keeps, the hover label, and the data revision Plotly is handed.
import assert from "node:assert/strict";
import { test } from "node:test";

import { fieldLines } from "../../kernelviz/components/plot/hover.js";
import { fieldPixels, finePicture, fineness } from "../../kernelviz/components/plot/pictures.js";
import { splitCanvas } from "../../kernelviz/components/plot/split.js";

const SCALE = [[0, "#0000ff"], [0.5, "#ffffff"], [1, "rgb(255, 0, 0)"]];
const xs = [-1, 0, 1, 2];
const ys = [0, 0.5, 1];
const field = (z, extra = {}) => ({ type: "heatmap", x: xs, y: ys, z, zmin: -2, zmax: 2, showscale: false,
                                    colorscale: SCALE, xaxis: "x2", yaxis: "y2",
                                    hovertemplate: "(%{x:.2f}, %{y:.2f})<br>f = %{z:.3f}<extra></extra>", ...extra });
const Z = ys.map((y) => xs.map((x) => x + y));
const svs = (sizes) => ({ type: "scatter", mode: "markers", name: "support vectors", legendgroup: "sv", x: sizes.map(() => 0),
                          y: sizes.map(() => 0), marker: { symbol: "circle-open", size: sizes, color: "black", line: { width: 1.5 } } });

test("a field heatmap leaves Plotly as an invisible stand-in of its grid; the canvas keeps its values", () => {
  const { figure, fields } = splitCanvas({ data: [field(Z)], layout: { datarevision: 7 } });
  assert.equal(fields.length, 1);
  const [stand] = figure.data;
  assert.deepEqual([stand.type, stand.opacity, stand.hoverinfo, stand.showlegend, stand.xaxis, stand.yaxis],
                   ["heatmap", 0, "none", false, "x2", "y2"]);
  assert.deepEqual([stand.x, stand.y], [xs, ys]);  // the same cells: hover and click report the one under the mouse
  assert.deepEqual(stand.z, ys.map(() => xs.map(() => 0)));
  assert.deepEqual([...fields[0].z], Z.flat());
  assert.deepEqual([fields[0].zmin, fields[0].zmax, fields[0].index], [-2, 2, 0]);
});

test("heatmaps the canvas cannot lay out as Plotly does stay Plotly's", () => {
  const kept = [
    field(Z, { showscale: true }),  // a colour bar
    field(Z, { x: [-1, 0, 1, 3] }),  // uneven cells
    field(Z, { zsmooth: "best" }),
    field(Z, { coloraxis: "coloraxis" }),
    field(Z, { x: [-1, 0, 1, 2, 3] }),  // cell edges, not centres
  ];
  const { figure, fields } = splitCanvas({ data: kept, layout: {} });
  assert.equal(fields.length, 0);
  assert.deepEqual(figure.data, kept);
});

test("a field's picture: the scale's colour of each value between zmin and zmax, clamped, none for NaN, top row first", () => {
  const z = new Float64Array([-2, 0, 2, 5, NaN, -9]);  // rows: y0 = [-2, 0, 2], y1 = [5, NaN, -9]
  const pixels = fieldPixels(z, 3, 2, { zmin: -2, zmax: 2, colorscale: SCALE });
  const at = (row, col) => [...pixels.subarray((row * 3 + col) * 4, (row * 3 + col) * 4 + 4)];
  // the picture's top row is the grid's last (y1)
  assert.deepEqual(at(1, 0), [0, 0, 255, 255]);
  assert.deepEqual(at(1, 1), [255, 255, 255, 255]);
  assert.deepEqual(at(1, 2), [255, 0, 0, 255]);
  assert.deepEqual(at(0, 0), [255, 0, 0, 255]);  // 5 > zmax: the top colour
  assert.deepEqual(at(0, 1), [0, 0, 0, 0]);  // no value: nothing painted
  assert.deepEqual(at(0, 2), [0, 0, 255, 255]);  // −9 < zmin: the bottom colour
  const quarter = fieldPixels(new Float64Array([1]), 1, 1, { zmin: -2, zmax: 2, colorscale: SCALE });
  assert.deepEqual([...quarter], [255, 128, 128, 255]);  // t = 0.75: halfway from white to red
});

test("without zmin and zmax a field spans its values' range, as Plotly's heatmap does", () => {
  const { fields } = splitCanvas({ data: [field(Z, { zmin: undefined, zmax: undefined })], layout: {} });
  assert.deepEqual([fields[0].zmin, fields[0].zmax], [-1, 3]);
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

test("Plotly's data revision changes with what it draws, not with what the canvas paints", () => {
  const revision = (data) => splitCanvas({ data, layout: { datarevision: "python's" } }).figure.layout.datarevision;
  const first = revision([field(Z), svs([18, 25, 30])]);
  // new field values and new support-vector sizes whose legend entry is the same (sizes above 16 draw at 16)
  assert.equal(revision([field(Z.map((row) => row.map((v) => -v))), svs([20, 17, 40, 22])]), first);
  // a legend entry that changes (smaller markers), a field on another grid, a trace more: Plotly redraws
  assert.notEqual(revision([field(Z), svs([4, 6])]), first);
  assert.notEqual(revision([field(Z, { x: [0, 1, 2, 3] }), svs([18, 25, 30])]), first);
  assert.notEqual(revision([field(Z), svs([18, 25, 30]), { type: "scatter", mode: "lines", x: [0, 1], y: [0, 1] }]), first);
});

test("a marker trace's legend entry is Plotly's: mean size within [2, 16], mean opacity within [0.2, 1]", () => {
  const { figure } = splitCanvas({ data: [{ ...svs([4, 8]), marker: { size: [4, 8], opacity: [0.1, 0.2], color: ["red", "blue"] } }],
                                   layout: {} });
  const { marker } = figure.data[0];
  assert.deepEqual([marker.size, marker.opacity, marker.color], [6, 0.2, "red"]);
});

test("a field's fine picture interpolates its values between grid points, not a staircase of cells", () => {
  // f = x − y on a 5 × 4 grid (row 0 at the bottom): its zero line is the diagonal
  const nx = 5, ny = 4, factor = 4;
  const values = new Float64Array(nx * ny);
  for (let j = 0; j < ny; j += 1) for (let i = 0; i < nx; i += 1) values[j * nx + i] = i - j;
  const picture = finePicture(values, nx, ny, factor, (v) => !Number.isFinite(v), (out, at, v) => {
    out[at] = 128 + 20 * v;  // the value, readable back from red
    out[at + 3] = 255;
  });
  const width = nx * factor;
  const read = (u, v) => (picture[(v * width + u) * 4] - 128) / 20;
  // each fine pixel holds the value at its own centre: x − y in grid units (clamped at the outer half cells)
  for (let v = factor; v < (ny - 1) * factor; v += 1) {
    for (let u = factor; u < (nx - 1) * factor; u += 1) {
      const gx = (u + 0.5) / factor - 0.5;
      const gy = (ny * factor - 1 - v + 0.5) / factor - 0.5;
      assert.ok(Math.abs(read(u, v) - (gx - gy)) < 0.05 + 1 / 20, `${u},${v}: ${read(u, v)} vs ${gx - gy}`);
    }
  }
  // one picture pixel per grid point for a small panel, two for a large one (smoothed when drawn)
  assert.deepEqual([fineness(60, 70), fineness(100, 70), fineness(2000, 70)], [1, 2, 2]);
});

test("a missing value leaves its fine pixels to the nearest corner's, or empty", () => {
  const values = new Float64Array([1, NaN, 1, 1]);  // 2 × 2
  const picture = finePicture(values, 2, 2, 2, (v) => !Number.isFinite(v), (out, at, v) => { out[at] = 10 * v; out[at + 3] = 255; });
  // the top row of the picture is the grid's last row (both 1); the bottom right quarter is the missing corner's
  const alpha = Array.from({ length: 16 }, (_, k) => picture[k * 4 + 3]);
  assert.deepEqual(alpha, [255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 0, 0, 255, 255, 0, 0]);
  assert.ok(Array.from({ length: 16 }, (_, k) => picture[k * 4]).every((r, k) => alpha[k] === 0 || r === 10));
});
