// Unit tests of the level lines on a canvas (kernelviz/components/plot/contours.js), under node
// --test: marching squares on a grid of codes or values, and the strokes as Plotly draws them.
import assert from "node:assert/strict";
import { test } from "node:test";

import { contourPaths, crossingsAt, dashOf, edgePoint, levelsOf, strokePaths, strokeTrace } from "../../kernelviz/components/plot/contours.js";
import { recordingContext } from "./fake_dom.mjs";

const xy = (paths) => paths.map((path) => path.map((p) => [p.x, p.y]));

test("one cell crossed from bottom to top: its crossings where the level lies between the corners", () => {
  // corners: bottom-left 0, bottom-right 10, top-right 10, top-left 0; level 5 halfway along both edges
  assert.deepEqual(xy(contourPaths([0, 10, 0, 10], 2, 2, 5, 255)), [[[0.5, 0], [0.5, 1]]]);
  assert.deepEqual(xy(contourPaths([0, 10, 0, 10], 2, 2, 2.5, 255)), [[[0.25, 0], [0.25, 1]]]);
  assert.deepEqual(contourPaths([0, 10, 0, 10], 2, 2, 20, 255), []);  // above every corner: no line
});

test("the segments of neighbouring cells join into one path through their shared edge", () => {
  // rows from the bottom: [0, 0, 10] and [0, 10, 10]; level 5 cuts the right cell's bottom and left
  // edges and the left cell's right and top edges: one diagonal path
  assert.deepEqual(xy(contourPaths([0, 0, 10, 0, 10, 10], 3, 2, 5, 255)), [[[1.5, 0], [1, 0.5], [0.5, 1]]]);
});

test("a saddle cell (high corners opposite) draws two separate segments", () => {
  // bottom-left and top-right 10, the others 0
  assert.deepEqual(xy(contourPaths([10, 0, 0, 10], 2, 2, 5, 255)), [[[0.5, 0], [0, 0.5]], [[1, 0.5], [0.5, 1]]]);
});

test("values with no value (NaN) and no undefined code: cells touching them draw nothing", () => {
  const values = new Float64Array([0, 10, 20, 0, 10, NaN]);  // 3 × 2
  assert.deepEqual(xy(contourPaths(values, 3, 2, 5, null)), [[[0.5, 0], [0.5, 1]]]);
});

test("a closed level curve is one path, not a segment per cell", () => {
  // a 7 × 7 field, high in the middle: the level around it crosses 12 cells
  const nx = 7, ny = 7, codes = new Uint8Array(nx * ny);
  for (let j = 0; j < ny; j += 1) for (let i = 0; i < nx; i += 1) codes[j * nx + i] = Math.max(0, 100 - 30 * Math.hypot(i - 3, j - 3));
  const paths = contourPaths(codes, nx, ny, 50, 255);
  assert.equal(paths.length, 1);
  const path = paths[0];
  assert.ok(path.length > 8);
  assert.deepEqual([path[0].x, path[0].y], [path.at(-1).x, path.at(-1).y]);  // closed
  for (const p of path) assert.ok(Math.abs(Math.hypot(p.x - 3, p.y - 3) - 50 / 30) < 0.5, JSON.stringify(p));
});

test("cells touching an undefined value draw nothing", () => {
  const codes = new Uint8Array([0, 255, 0, 200]);
  assert.deepEqual(contourPaths(codes, 2, 2, 100, 255), []);
});

test("Plotly's dash patterns, at least 3 px", () => {
  assert.deepEqual(dashOf("dash", 1.3), [9, 9]);
  assert.deepEqual(dashOf("dot", 4), [4, 4]);
  assert.deepEqual(dashOf(undefined, 2), []);
});

test("a contour trace's levels, from start to end every size, the end kept despite rounding", () => {
  assert.deepEqual(levelsOf({ start: -1, end: 1, size: 0.5 }), [-1, -0.5, 0, 0.5, 1]);
  assert.equal(levelsOf({ start: 0.1, end: 0.9, size: 0.1 }).length, 9);
  assert.deepEqual(levelsOf({ start: 0, end: 0, size: 1 }), [0]);
  assert.equal(levelsOf({ start: 0, end: 1e6, size: 1 }).length, 100);  // at most 100
});

test("paths are stroked in the line's colour, width and dash, each path from its own start", () => {
  const context = recordingContext();
  const paths = [[{ x: 0, y: 0 }, { x: 1, y: 2 }], [{ x: 3, y: 3 }, { x: 4, y: 3 }]];
  strokePaths(context, paths, (gx) => 10 * gx, (gy) => 100 - 10 * gy, { colour: "#123456", width: 2, dash: "dash" });
  assert.deepEqual(context.calls, [
    ["beginPath"], ["moveTo", 0, 100], ["lineTo", 10, 80], ["moveTo", 30, 70], ["lineTo", 40, 70],
    ["setLineDash", [9, 9]], ["strokeStyle=", "#123456"], ["lineWidth=", 2], ["lineJoin=", "round"], ["stroke"],
    ["setLineDash", []],
  ]);
  const plain = recordingContext();
  strokePaths(plain, [], (g) => g, (g) => g, {});
  assert.deepEqual(plain.calls.filter(([name]) => name.endsWith("=")), [["strokeStyle=", "#000000"], ["lineWidth=", 1], ["lineJoin=", "round"]]);
});

test("a line trace (an ellipse) is drawn in its axes' pixels, filled first where Plotly fills it", () => {
  const area = { xa: { toPixel: (v) => 100 + 10 * v }, ya: { toPixel: (v) => 200 - 10 * v } };
  const context = recordingContext();
  strokeTrace(context, { x: [0, 1, 0], y: [0, 0, 1], fill: "toself", fillcolor: "rgba(0,0,255,0.1)",
                         line: { color: "blue", width: 1.5, dash: "dot" } }, area);
  assert.deepEqual(context.calls, [
    ["beginPath"], ["moveTo", 100, 200], ["lineTo", 110, 200], ["lineTo", 100, 190],
    ["fillStyle=", "rgba(0,0,255,0.1)"], ["fill"],
    ["setLineDash", [3, 3]], ["strokeStyle=", "blue"], ["lineWidth=", 1.5], ["stroke"], ["setLineDash", []],
  ]);
  for (const trace of [{ x: [], y: [] }, { x: [0, 1], y: [0, 1], visible: false }]) {
    const nothing = recordingContext();
    strokeTrace(nothing, trace, area);
    assert.deepEqual(nothing.calls, []);
  }
});

test("an edge's crossing found on the model replaces the linear interpolation between its grid values", () => {
  // one cell: bottom-left 0, bottom-right 10, top-right 10, top-left 0; level 5: linearly at x = 0.5 on
  // both edges; the model puts it at 0.2 along the bottom edge (key 0) and 0.7 along the top (key 2 · 2)
  const crossings = new Map([[0, 0.2], [4, 0.7]]);
  assert.deepEqual(xy(contourPaths([0, 10, 0, 10], 2, 2, 5, 255, crossings)), [[[0.2, 0], [0.7, 1]]]);
  // vertical edges, keyed 2 (j nx + i) + 1, measured from their lower point
  const across = new Map([[1, 0.9], [3, 0.1]]);
  assert.deepEqual(xy(contourPaths([0, 0, 10, 10], 2, 2, 5, 255, across)), [[[1, 0.1], [0, 0.9]]]);
  // an edge the map does not name keeps the interpolation
  assert.deepEqual(xy(contourPaths([0, 10, 0, 10], 2, 2, 5, 255, new Map([[0, 0.2]]))), [[[0.2, 0], [0.5, 1]]]);
});

test("a trace's crossings are read at its level, or a class field's at any level, clamped to the edge", () => {
  const meta = { kv_crossings: [{ level: -1, edges: [3], at: [0.25] }, { level: 1, edges: [5, 7], at: [1.5, -0.5] }] };
  assert.deepEqual([...crossingsAt(meta, -1)], [[3, 0.25]]);
  assert.deepEqual([...crossingsAt(meta, 1)], [[5, 1], [7, 0]]);
  assert.equal(crossingsAt(meta, 0), null);
  assert.equal(crossingsAt(undefined, 0), null);
  assert.equal(crossingsAt({ kv_crossings: [{ level: 0 }] }, 0), null);  // nothing usable
  const classes = { kv_crossings: [{ level: "classes", edges: [2], at: [0.4] }] };
  assert.deepEqual([...crossingsAt(classes, 0.5)], [[2, 0.4]]);
  assert.deepEqual([...crossingsAt(classes, "classes")], [[2, 0.4]]);
  // as the page sends them: Plotly's base64 arrays (int8 edges, float64 fractions)
  const typed = { kv_crossings: [{ level: 0, edges: { dtype: "i1", bdata: "AwU=" },
                                   at: { dtype: "f8", bdata: "AAAAAAAA0D8AAAAAAAD4Pw==" } }] };
  assert.deepEqual([...crossingsAt(typed, 0)], [[3, 0.25], [5, 1]]);
  assert.deepEqual([edgePoint(6, 1, 2, 0.25), edgePoint(7, 1, 2, 0.25)], [{ key: 6, x: 1.25, y: 2 }, { key: 7, x: 1, y: 2.25 }]);
});
