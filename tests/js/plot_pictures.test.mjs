// Unit tests of a field's picture (kernelviz/components/plot/pictures.js), under node --test: each
// value's colour as Plotly's heatmap colours it, made finer than the grid, and painted into its panel.
import assert from "node:assert/strict";
import { test } from "node:test";

import { fieldPicture, fieldPixels, finePicture, fineness, paintField, stepped } from "../../kernelviz/components/plot/pictures.js";
import { install, recordingContext, uninstall } from "./fake_dom.mjs";

const SCALE = [[0, "#0000ff"], [0.5, "#ffffff"], [1, "rgb(255, 0, 0)"]];

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

test("a scale with steps (two stops at one place, as classes are tinted) is told from a smooth one", () => {
  assert.equal(stepped([[0, "red"], [0.5, "red"], [0.5, "blue"], [1, "blue"]]), true);
  assert.equal(stepped(SCALE), false);
  assert.equal(stepped(undefined), false);
});

// A committed field as splitCanvas keeps it: 3 × 2 values over x ∈ {0, 1, 2}, y ∈ {0, 1}.
const field = (z, colorscale = [[0, "#000000"], [1, "#ffffff"]]) => ({
  xs: [0, 1, 2], ys: [0, 1], nx: 3, ny: 2, z: new Float64Array(z), zmin: 0, zmax: 1, colorscale, picture: null,
});

test("a field's picture canvas: factor times the grid, each value's colour on the scale, nothing where none", () => {
  install();
  try {
    const picture = fieldPicture(field([0, 0.5, 1, NaN, 1, 0]), 1);
    assert.deepEqual([picture.width, picture.height], [3, 2]);
    const [[name, image, x, y]] = picture.context.calls;
    assert.deepEqual([name, x, y, image.width, image.height], ["putImageData", 0, 0, 3, 2]);
    const pixel = (k) => [...image.data.subarray(4 * k, 4 * k + 4)];
    // the top row is the grid's last: [NaN, 1, 0]
    assert.deepEqual([pixel(0), pixel(1), pixel(2)], [[0, 0, 0, 0], [255, 255, 255, 255], [0, 0, 0, 255]]);
    assert.deepEqual([pixel(3), pixel(4), pixel(5)], [[0, 0, 0, 255], [128, 128, 128, 255], [255, 255, 255, 255]]);
    const fine = fieldPicture(field([0, 0.5, 1, 0, 0.5, 1]), 2);
    assert.deepEqual([fine.width, fine.height], [6, 4]);
  } finally { uninstall(); }
});

test("a field fills the cells around its grid points in its plot area, smoothed and finer unless its scale has steps", () => {
  install({ devicePixelRatio: 1 });
  try {
    const area = { left: 40, top: 20, width: 400, height: 300,
                   xa: { toPixel: (v) => 100 + 100 * v }, ya: { toPixel: (v) => 300 - 100 * v } };
    const smooth = field([0, 0.5, 1, 0, 0.5, 1]);
    const context = recordingContext();
    paintField(context, area, smooth);
    // cells from x = −0.5 to 2.5 and y = −0.5 to 1.5: 300 × 200 px, clipped to the plot area
    assert.deepEqual(context.calls, [["save"], ["beginPath"], ["rect", 40, 20, 400, 300], ["clip"], ["imageSmoothingEnabled=", true],
                                     ["drawImage", smooth.picture.canvas, 50, 150, 300, 200], ["restore"]]);
    assert.equal(smooth.picture.factor, 2);  // 100 px a cell: twice finer (no more)
    const picture = smooth.picture;
    paintField(context, area, smooth);
    assert.equal(smooth.picture, picture);  // made once, painted at every redraw
    const classes = field([0, 1, 2, 0, 1, 2], [[0, "red"], [0.5, "red"], [0.5, "blue"], [1, "blue"]]);
    const cells = recordingContext();
    paintField(cells, area, classes);
    assert.equal(classes.picture.factor, 1);
    assert.deepEqual(cells.calls.find(([name]) => name === "imageSmoothingEnabled="), ["imageSmoothingEnabled=", false]);
  } finally { uninstall(); }
});

test("a class field with its regions: the regions over its cells on a picture the plot area's size, made once", () => {
  install({ devicePixelRatio: 2 });
  try {
    const area = { left: 40, top: 20, width: 400, height: 300,
                   xa: { toPixel: (v) => 100 + 100 * v }, ya: { toPixel: (v) => 300 - 100 * v } };
    const classes = field([0, 1, 1, 0, 0, 1], [[0, "red"], [0.5, "red"], [0.5, "blue"], [1, "blue"]]);
    classes.opacity = 0.5;
    classes.regions = [{ value: 0, colour: "red", polygons: [[{ x: 0, y: 0 }, { x: 0.5, y: 0 }, { x: 1.5, y: 1 }, { x: 0, y: 1 }]] },
                       { value: 1, colour: "blue", polygons: [[{ x: 0.5, y: 0 }, { x: 2, y: 0 }, { x: 2, y: 1 }, { x: 1.5, y: 1 }]] }];
    const context = recordingContext();
    paintField(context, area, classes);
    const [, picture, ...at] = context.calls.find(([name]) => name === "drawImage");
    assert.deepEqual(at, [40, 20, 400, 300]);  // the plot area
    assert.deepEqual([picture.width, picture.height], [800, 600]);  // at the device's pixels
    assert.deepEqual(context.calls.filter(([name]) => name === "globalAlpha="), [["globalAlpha=", 0.5]]);
    const inner = picture.context.calls;
    // the cells first (the picture of a class per grid point), then each class's polygons in plot-area pixels
    const cells = inner.find(([name]) => name === "drawImage");
    assert.deepEqual([cells[1], ...cells.slice(2)], [classes.picture.canvas, 10, 130, 300, 200]);
    assert.ok(inner.indexOf(cells) < inner.findIndex(([name]) => name === "fill"));
    const red = inner.filter(([name]) => name === "moveTo" || name === "lineTo").slice(0, 4).map(([, x, y]) => [x, y]);
    assert.deepEqual(red, [[60, 280], [110, 280], [210, 180], [60, 180]]);
    assert.deepEqual(inner.filter(([name]) => name === "fillStyle=").map(([, c]) => c), ["red", "blue"]);
    paintField(recordingContext(), area, classes);
    assert.equal(classes.regionsPicture.canvas, picture);  // the same area: painted once
  } finally { uninstall(); }
});
