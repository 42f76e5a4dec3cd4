// Unit tests of the level lines on a canvas (kernelviz/components/plot/contours.js), under node
// --test: marching squares on a grid of codes or values, and the strokes as Plotly draws them.
import assert from "node:assert/strict";
import { test } from "node:test";

import { contourPaths, dashOf } from "../../kernelviz/components/plot/contours.js";

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
