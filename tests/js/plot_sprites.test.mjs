// Unit tests of the markers blended from sprites (kernelviz/components/plot/sprites.js), under node
// --test with a fake page, whose canvases leave one opaque pixel at the centre of each path painted
// (fake_dom.mjs): a sprite is the marker as points.js paints it, shared by markers whose sizes and
// centres differ by less than a screen shows; its pixels are blended, source over, into one
// picture of the canvas, clipped to the plot area.
import assert from "node:assert/strict";
import { test } from "node:test";

import { markerSprite, paintSprites } from "../../kernelviz/components/plot/sprites.js";
import { install, recordingContext, uninstall } from "./fake_dom.mjs";

const RING = { symbol: "circle-open", color: "black", line: { width: 1.5 } };

// The fake page, and the sprites' canvases it makes from now on.
function page(options) {
  const fake = install(options);
  const made = [];
  const create = fake.document.createElement;
  fake.document.createElement = (tag) => {
    const element = create(tag);
    if (tag === "canvas") made.push(element);
    return element;
  };
  return made;
}
const painted = (canvas, name) => canvas.context.calls.filter(([call]) => call === name).map((call) => call.slice(1));

test("a sprite is the marker as paintMarker paints it, at full opacity, round its centre pixel and phase, read back", () => {
  const made = page();
  try {
    const sprite = markerSprite({ ...RING, size: 14, opacity: 0.7 }, 1, 0.5, 0);
    const [canvas] = made;
    // room for the ring (7 px) and its outline (1.5 px), and a pixel, each side of the centre
    assert.equal(sprite.reach, 10);
    assert.deepEqual([canvas.width, canvas.height], [21, 21]);
    assert.deepEqual(painted(canvas, "arc"), [[10.5, 10, 7, 0, 2 * Math.PI]]);
    assert.deepEqual(painted(canvas, "globalAlpha="), [[1], [1]]);  // the opacity is the blend's
    assert.deepEqual(painted(canvas, "strokeStyle="), [["black"]]);
    assert.deepEqual(painted(canvas, "lineWidth="), [[1.5]]);
    assert.deepEqual(painted(canvas, "getImageData"), [[0, 0, 21, 21]]);
    // its pixels, from its centre pixel: the fake's one, black and opaque, a colour of its own
    assert.deepEqual([[...sprite.dx], [...sprite.dy], [...sprite.alpha], sprite.colour], [[0], [0], [255], 0]);
    // at 2 device px a CSS px: twice the pixels, painted through a scaled context
    const sharp = markerSprite({ ...RING, size: 14 }, 2, 0, 0.5);
    assert.equal(sharp.reach, 18);
    assert.deepEqual(painted(made[1], "setTransform"), [[2, 0, 0, 2, 0, 0]]);
    assert.deepEqual(painted(made[1], "arc"), [[9, 9.25, 7, 0, 2 * Math.PI]]);
    // a star reaches 1.4 radii down: room for it
    assert.equal(markerSprite({ ...RING, symbol: "star", size: 14 }, 1).reach, Math.ceil(1.4 * 7 + 1.5) + 1);
  } finally { uninstall(); }
});

test("sizes within an eighth of a pixel share a sprite (sized to the quarter pixel), as do equal markers", () => {
  const made = page();
  try {
    const sprite = markerSprite({ ...RING, size: 17.1 }, 1);
    assert.deepEqual(painted(made[0], "arc"), [[sprite.reach, sprite.reach, 8.5, 0, 2 * Math.PI]]);  // 17.1 → 17
    assert.equal(markerSprite({ ...RING, size: 16.9 }, 1), sprite);
    assert.equal(markerSprite({ ...RING, size: 17 }, 1), sprite);
    assert.notEqual(markerSprite({ ...RING, size: 17.2 }, 1), sprite);  // → 17.25
    assert.notEqual(markerSprite({ ...RING, size: 17 }, 1, 0.5, 0), sprite);  // another phase
    assert.notEqual(markerSprite({ ...RING, size: 17, symbol: "square-open" }, 1), sprite);
    assert.notEqual(markerSprite({ ...RING, size: 17, color: "red" }, 1), sprite);
    assert.notEqual(markerSprite({ ...RING, size: 17 }, 2), sprite);
  } finally { uninstall(); }
});

// An axis of the figure's CSS pixels: offset 100, 200 px long, over [0, 1].
const AXIS = { offset: 100, length: 200, toPixel: (v) => 100 + 200 * v };

// A fake canvas standing at 90, 95 px of the figure, 2 device px a CSS px, 230 × 215 CSS px.
function canvasAt(document) {
  const canvas = document.createElement("canvas");
  Object.assign(canvas, { width: 460, height: 430, place: { left: 90, top: 95, ratio: 2 } });
  return canvas;
}

// The picture put on the canvas: its painted pixels, [x, y, [r, g, b, a]] in device pixels.
function picture(canvas) {
  const puts = painted(canvas, "putImageData");
  assert.equal(puts.length, 1);
  const [[image, x, y]] = puts;
  assert.deepEqual([x, y, image.width, image.height], [0, 0, canvas.width, canvas.height]);
  const found = [];
  for (let k = 0; k < image.width * image.height; k += 1) {
    if (image.data[4 * k + 3]) found.push([k % image.width, Math.floor(k / image.width), [...image.data.subarray(4 * k, 4 * k + 4)]]);
  }
  return found;
}

test("the markers at the half device pixel nearest to their centres, each from its sprite, the canvas's picture put whole", () => {
  const made = page();
  try {
    const canvas = canvasAt(globalThis.document);
    made.length = 0;
    const context = canvas.getContext("2d");
    const layer = { x: [0, 0.501, NaN, 1, 0.0005, 0.0012, 0.002], y: [0, 0.5, 0.5, 0, 0.9, 0.8, 0.7],
                    size: [10, 24, 12, 10, 10, 10, 10], color: "black", lineWidth: 1.5,
                    symbol: ["circle-open", "square-open", "circle-open", "circle-open", "circle-open", "circle-open", "circle-open"] };
    paintSprites(canvas, context, [[layer, AXIS, AXIS]]);
    // (x − 90) × 2, (y − 95) × 2 device px: (100, 100) px → 20, 10; the point with no value is not
    // painted; (300, 100) px is the plot area's corner, right of it (its right edge is outside)
    const pixels = picture(canvas).map(([x, y]) => [x, y]);
    // the square at (200.2, 200) px: 220.4, 210 device px → 220.5, its pixel 220; then across,
    // 20.2 → 20, 20.48 → 20.5 (pixel 20), 20.8 → 21
    assert.deepEqual(pixels, [[20, 10], [220, 210], [21, 290], [20, 330], [20, 370]]);
    // a sprite for each size, symbol and phase: the three 10 px rings at whole pixels share one;
    // painted in CSS px at 2 device px each (a 10 px ring reaches 14 device px: 5 + 1.5, and a pixel)
    const arcs = made.map((sprite) => painted(sprite, "arc").map(([x, y, r]) => [x, y, r])[0] || "polygon");
    assert.deepEqual(arcs, [[7, 7, 5], "polygon", [7.25, 7, 5]]);
    // the 24 px square reaches 28 device px; its path starts at its corner 12 px right of and below the centre
    assert.deepEqual(painted(made[1], "moveTo"), [[14.25 + 12, 14 + 12]]);
  } finally { uninstall(); }
});

test("markers over markers blend source over, a colour over another too; what was painted before goes", () => {
  page();
  try {
    const canvas = canvasAt(globalThis.document);
    const context = canvas.getContext("2d");
    const twice = { x: [0.5, 0.5], y: [0.5, 0.5], size: 10, symbol: "circle-open", color: "black", opacity: 0.5, lineWidth: 1.5 };
    paintSprites(canvas, context, [[twice, AXIS, AXIS]]);
    const [[, , [r, g, b, a]]] = picture(canvas);
    assert.deepEqual([r, g, b], [0, 0, 0]);
    assert.ok(Math.abs(a - 255 * (1 - 0.5 * 0.5)) <= 1, a);  // 1 − (1 − ½)²
    // red at half opacity over opaque black: half of each
    context.calls.length = 0;
    const black = { ...twice, x: [0.5], y: [0.5], opacity: 1 };
    const red = { ...black, color: "#ff0000", opacity: 0.5 };
    paintSprites(canvas, context, [[black, AXIS, AXIS], [red, AXIS, AXIS]]);
    const [[x, y, colour]] = picture(canvas);
    assert.deepEqual([x, y], [220, 210]);
    assert.ok(Math.abs(colour[0] - 127.5) <= 1 && colour[1] === 0 && colour[2] === 0 && colour[3] === 255, colour);
    // the next frame's markers alone
    context.calls.length = 0;
    paintSprites(canvas, context, [[{ ...black, x: [0.25] }, AXIS, AXIS]]);
    assert.deepEqual(picture(canvas).map(([px, py]) => [px, py]), [[120, 210]]);
  } finally { uninstall(); }
});

test("a layer is clipped to its plot area, rounded to whole device pixels, though the canvas reaches past it", () => {
  page();
  try {
    const canvas = canvasAt(globalThis.document);
    const context = canvas.getContext("2d");
    // the plot area is 20–420 device px across (its right edge outside): 99.9 px (19.8 → 20) is in
    // it, as the area is rounded to whole pixels, 99.6 px (19.2 → 19) and 300.2 px (420.4 → 420) are not
    const xs = [-0.0005, -0.002, 1.001];
    paintSprites(canvas, context, [[{ x: xs, y: [0.5, 0.5, 0.5], size: 10, symbol: "circle-open", color: "black", lineWidth: 1.5 },
                                    AXIS, AXIS]]);
    assert.deepEqual(picture(canvas).map(([x]) => x), [20]);
  } finally { uninstall(); }
});

test("a context that records: a sprite's pixels are read once, whatever the markers that share it", () => {
  const made = page();
  try {
    const canvas = canvasAt(globalThis.document);
    made.length = 0;
    const ring = { x: [0.1, 0.2, 0.3], y: [0.1, 0.2, 0.3], size: 13, symbol: "circle-open", color: "black", lineWidth: 1.5 };
    paintSprites(canvas, recordingContext(), [[ring, AXIS, AXIS]]);
    paintSprites(canvas, recordingContext(), [[ring, AXIS, AXIS]]);
    assert.equal(made.length, 1);
    assert.equal(painted(made[0], "getImageData").length, 1);
  } finally { uninstall(); }
});
