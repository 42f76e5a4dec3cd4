// Unit tests of a class field's regions (kernelviz/components/plot/regions.js), under node --test:
// polygons through where the class changes along each grid edge, which tile the grid, agree with the
// class outlines' marching squares, and are filled one path a class.
import assert from "node:assert/strict";
import { test } from "node:test";

import { contourPaths } from "../../kernelviz/components/plot/contours.js";
import { classRegions, fillRegions, regionPolygons } from "../../kernelviz/components/plot/regions.js";
import { recordingContext } from "./fake_dom.mjs";

const area = (polygon) => Math.abs(polygon.reduce((sum, p, k) => {
  const q = polygon[(k + 1) % polygon.length];
  return sum + p.x * q.y - q.x * p.y;
}, 0)) / 2;
const total = (polygons) => polygons.reduce((sum, polygon) => sum + area(polygon), 0);
const signed = (polygon) => polygon.reduce((sum, p, k) => {
  const q = polygon[(k + 1) % polygon.length];
  return sum + p.x * q.y - q.x * p.y;
}, 0);

// Classes 0 | 1 on a 5 × 4 grid split by the line x = 1.3 + 0.4 y (grid indices): every edge it cuts
// is crossed where the line is, as kernelviz.crossings finds it.
const nx = 5, ny = 4;
const border = (y) => 1.3 + 0.4 * y;
function split() {
  const values = new Float64Array(nx * ny);
  const crossings = new Map();
  for (let j = 0; j < ny; j += 1) {
    for (let i = 0; i < nx; i += 1) values[j * nx + i] = i > border(j) ? 1 : 0;
    const i = Math.floor(border(j));
    crossings.set(2 * (j * nx + i), border(j) - i);  // the row's edge from (i, j) to (i + 1, j)
  }
  for (let i = 0; i < nx; i += 1) {  // the edge from (i, j) to (i, j + 1) where the line's y at x = i lies
    const y = (i - 1.3) / 0.4;
    if (y > 0 && y < ny - 1 && y !== Math.floor(y)) crossings.set(2 * (Math.floor(y) * nx + i) + 1, y - Math.floor(y));
  }
  return { values, crossings };
}

test("two classes' regions tile the grid and meet along the border the crossings give, not the cells'", () => {
  const { values, crossings } = split();
  const left = regionPolygons(values, nx, ny, (v) => v === 0, crossings);
  const right = regionPolygons(values, nx, ny, (v) => v === 1, crossings);
  const grid = (nx - 1) * (ny - 1);
  assert.ok(Math.abs(total(left) + total(right) - grid) < 1e-9);
  // left of x = 1.3 + 0.4 y over y ∈ [0, 3]: ∫ (1.3 + 0.4 y) dy = 3.9 + 1.8
  assert.ok(Math.abs(total(left) - 5.7) < 1e-9, `${total(left)}`);
  // the cells' own border (a class per grid point, halfway between them) would give 6 here
  assert.ok(Math.abs(total(regionPolygons(values, nx, ny, (v) => v === 0)) - 6) < 1e-9);
  // every polygon turns the same way (one path a class fills them all with no gaps)
  assert.ok([...left, ...right].every((polygon) => signed(polygon) > 0));
});

test("a region's edge and its class's outline are one line: the outline's points are the polygons'", () => {
  const { values, crossings } = split();
  const indicator = Float64Array.from(values, (v) => (v === 0 ? 1 : 0));
  const outline = contourPaths(indicator, nx, ny, 0.5, null, crossings).flat().map((p) => `${p.x},${p.y}`);
  const corners = new Set(regionPolygons(values, nx, ny, (v) => v === 0, crossings).flat().map((p) => `${p.x},${p.y}`));
  assert.ok(outline.length >= ny && outline.every((p) => corners.has(p)), JSON.stringify(outline));
});

test("a row's cells inside at every corner are one rectangle; a cell with no value is left out", () => {
  const full = regionPolygons(new Float64Array(12).fill(2), 4, 3, (v) => v === 2);
  assert.deepEqual(full.map((polygon) => polygon.map((p) => [p.x, p.y])),
                   [[[0, 0], [3, 0], [3, 1], [0, 1]], [[0, 1], [3, 1], [3, 2], [0, 2]]]);
  const holed = new Float64Array(12).fill(2);
  holed[5] = NaN;  // (i, j) = (1, 1): the four cells around it go
  assert.ok(Math.abs(total(regionPolygons(holed, 4, 3, (v) => v === 2)) - 2) < 1e-9);
});

test("a saddle cell keeps its two inside corners apart, as the outlines' marching squares do", () => {
  // corners: bottom-left and top-right class 1, the others 0
  const values = [1, 0, 0, 1];
  const ones = regionPolygons(values, 2, 2, (v) => v === 1);
  assert.deepEqual(ones.map((polygon) => polygon.map((p) => [p.x, p.y])),
                   [[[0, 0], [0.5, 0], [0, 0.5]], [[1, 1], [0.5, 1], [1, 0.5]]]);
  const zeros = regionPolygons(values, 2, 2, (v) => v === 0);
  assert.equal(zeros.length, 2);
  assert.ok([...ones, ...zeros].every((polygon) => signed(polygon) > 0));
});

test("each class the grid holds has its colour and polygons, filled one path a class", () => {
  const { values, crossings } = split();
  const field = { z: values, nx, ny };
  const regions = classRegions(field, crossings, (v) => (v ? "blue" : "red"));
  assert.deepEqual(regions.map((r) => [r.value, r.colour]), [[0, "red"], [1, "blue"]]);
  const context = recordingContext();
  fillRegions(context, regions, (g) => 10 * g, (g) => 100 - 10 * g);
  const names = context.calls.map(([name]) => name);
  assert.equal(names.filter((name) => name === "fill").length, 2);
  assert.equal(names.filter((name) => name === "beginPath").length, 2);
  assert.deepEqual(context.calls.filter(([name]) => name === "fillStyle=").map(([, colour]) => colour), ["red", "blue"]);
  assert.equal(names.filter((name) => name === "closePath").length,
               regions[0].polygons.length + regions[1].polygons.length);
});
