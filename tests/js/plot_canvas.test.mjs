// Unit tests of what plot.js takes from Plotly onto its own canvas (kernelviz/components/plot/plot.js,
// splitCanvas), under node --test: the points and the level lines (f = 0, the margins), the latter
// found from the figure's own z by the live preview's marching squares.
import assert from "node:assert/strict";
import { test } from "node:test";

import { along, splitCanvas } from "../../kernelviz/components/plot/split.js";

// f(x, y) = x − 0.25 on a 5 × 3 grid over x ∈ [−1, 1], y ∈ [0, 1]: f = 0 is the line x = 0.25, and the
// margins f = ±1 cross no cell but x = −0.75 (f = −1); f = +1 would be x = 1.25, outside.
const xs = [-1, -0.5, 0, 0.5, 1];
const ys = [0, 0.5, 1];
const z = ys.map(() => xs.map((x) => x - 0.25));
const FIGURE = {
  data: [
    { type: "heatmap", x: xs, y: ys, z, xaxis: "x2", yaxis: "y2" },
    { type: "contour", x: xs, y: ys, z, showlegend: false, xaxis: "x2", yaxis: "y2",
      contours: { start: 0, end: 0, size: 1, coloring: "none" }, line: { color: "black", width: 2.6 } },
    { type: "contour", x: xs, y: ys, z, showlegend: false, xaxis: "x2", yaxis: "y2",
      contours: { start: -1, end: 1, size: 2, coloring: "none" }, line: { color: "#444444", width: 1.3, dash: "dash" } },
    { type: "contour", x: xs, y: ys, z, contours: { coloring: "lines" } },  // coloured levels: Plotly's
    { type: "scatter", mode: "markers", x: [0], y: [0.5], name: "a point" },
  ],
  layout: {},
};

test("level-line traces leave Plotly as empty traces in their places; other contours stay", () => {
  const { figure, layers, levels } = splitCanvas(FIGURE);
  assert.equal(figure.data.length, FIGURE.data.length);  // the traces keep their indices
  assert.deepEqual(figure.data.map((t) => t.type), ["heatmap", "scatter", "scatter", "contour", "scatter"]);
  for (const stand of figure.data.slice(1, 3)) {
    assert.deepEqual([stand.x, stand.y, stand.xaxis, stand.showlegend], [[], [], "x2", false]);
  }
  assert.equal(layers.length, 1);
  assert.deepEqual(levels.map((l) => [l.xaxis, l.yaxis, l.line]),
                   [["x2", "y2", { colour: "black", width: 2.6, dash: undefined }],
                    ["x2", "y2", { colour: "#444444", width: 1.3, dash: "dash" }]]);
});

test("each level line lies where the figure's own z crosses the level", () => {
  const { levels } = splitCanvas(FIGURE);
  const [zero, margins] = levels;
  assert.equal(zero.paths.length, 1);  // one level
  assert.equal(zero.paths[0].length, 1);  // one path, bottom to top
  for (const p of zero.paths[0][0]) assert.ok(Math.abs(along(xs, p.x) - 0.25) < 1e-12, JSON.stringify(p));
  assert.deepEqual(zero.paths[0][0].map((p) => p.y).sort(), [0, 1, 2]);  // through every row
  // the margins: −1 at x = −0.75, +1 nowhere on the grid
  assert.equal(margins.paths.length, 2);
  for (const p of margins.paths[0][0]) assert.ok(Math.abs(along(xs, p.x) + 0.75) < 1e-12);
  assert.deepEqual(margins.paths[1], []);
});

test("a grid index maps onto the grid's coordinates, between and at the ends", () => {
  assert.equal(along([0, 1, 3], 0), 0);
  assert.equal(along([0, 1, 3], 1.5), 2);
  assert.equal(along([0, 1, 3], 2), 3);
});

test("a cell with no value (NaN) draws no line, as Plotly leaves a gap", () => {
  const rows = [0, 1, 2, 3, 4];
  const holed = rows.map(() => xs.map((x) => x - 0.25));
  holed[2][2] = NaN;  // the two cells of the line that touch it, between rows 1 and 3, go
  const { levels } = splitCanvas({ data: [{ ...FIGURE.data[1], y: rows, z: holed }], layout: {} });
  const paths = levels[0].paths[0];
  assert.deepEqual(paths.map((path) => path.map((p) => p.y).sort()), [[0, 1], [3, 4]]);
});
