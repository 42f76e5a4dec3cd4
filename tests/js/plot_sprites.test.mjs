// Unit tests of the markers copied from sprites (kernelviz/components/plot/sprites.js), under node
// --test with a fake page: a sprite is the marker as points.js paints it, shared by markers whose
// sizes and centres differ by less than a screen shows, and copied at whole device pixels.
import assert from "node:assert/strict";
import { test } from "node:test";

import { markerSprite, paintSprites } from "../../kernelviz/components/plot/sprites.js";
import { install, recordingContext, uninstall } from "./fake_dom.mjs";

const RING = { symbol: "circle-open", color: "black", opacity: 0.7, line: { width: 1.5 } };
const painted = (sprite, name) => sprite.canvas.context.calls.filter(([call]) => call === name).map((call) => call.slice(1));

test("a sprite is the marker as paintMarker paints it, at full opacity, round its centre pixel and phase", () => {
  install();
  try {
    const sprite = markerSprite({ ...RING, size: 14 }, 1, 0.5, 0);
    // room for the ring (7 px) and its outline (1.5 px), and a pixel, each side of the centre
    assert.equal(sprite.origin, 10);
    assert.deepEqual([sprite.canvas.width, sprite.canvas.height], [21, 21]);
    assert.deepEqual(painted(sprite, "arc"), [[10.5, 10, 7, 0, 2 * Math.PI]]);
    assert.deepEqual(painted(sprite, "globalAlpha="), [[1], [1]]);  // the copy carries the opacity
    assert.deepEqual(painted(sprite, "strokeStyle="), [["black"]]);
    assert.deepEqual(painted(sprite, "lineWidth="), [[1.5]]);
    // at 2 device px a CSS px: twice the pixels, painted through a scaled context
    const sharp = markerSprite({ ...RING, size: 14 }, 2, 0, 0.5);
    assert.equal(sharp.origin, 18);
    assert.deepEqual(painted(sharp, "setTransform"), [[2, 0, 0, 2, 0, 0]]);
    assert.deepEqual(painted(sharp, "arc"), [[9, 9.25, 7, 0, 2 * Math.PI]]);
    // a star reaches 1.4 radii down: room for it
    assert.equal(markerSprite({ ...RING, symbol: "star", size: 14 }, 1).origin, Math.ceil(1.4 * 7 + 1.5) + 1);
  } finally { uninstall(); }
});

test("sizes within an eighth of a pixel share a sprite (sized to the quarter pixel), as do equal markers", () => {
  install();
  try {
    const sprite = markerSprite({ ...RING, size: 17.1 }, 1);
    assert.deepEqual(painted(sprite, "arc"), [[sprite.origin, sprite.origin, 8.5, 0, 2 * Math.PI]]);  // 17.1 → 17
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

test("a layer's markers copied at whole device pixels of the canvas, clipped to the plot area, its opacity set once", () => {
  install({ devicePixelRatio: 2 });
  try {
    const context = recordingContext();
    const layer = { x: [0, 0.501, NaN, 1, 0.0005, 0.0012, 0.002], y: [1, 0.5, 0.5, 0, 1, 1, 1], size: [10, 24, 12, 10, 10, 10, 10],
                    symbol: ["circle-open", "square-open", "circle-open", "circle-open", "circle-open", "circle-open", "circle-open"],
                    color: "black", opacity: 0.7, lineWidth: 1.5 };
    // a canvas whose top left corner stands at 90, 95 px of the figure, 2 device px a CSS px
    paintSprites(context, layer, AXIS, AXIS, { left: 90, top: 95, ratio: 2 });
    const calls = context.calls;
    assert.deepEqual(calls.slice(0, 5), [["save"], ["beginPath"], ["rect", 100, 100, 200, 200], ["clip"], ["setTransform", 1, 0, 0, 1, 0, 0]]);
    assert.deepEqual(calls.filter(([name]) => name === "globalAlpha="), [["globalAlpha=", 0.7]]);
    assert.deepEqual(calls.at(-1), ["restore"]);
    const copies = calls.filter(([name]) => name === "drawImage");
    assert.equal(copies.length, 6);  // the point with no value is not painted
    // each copy's centre: (x − 90) × 2, (y − 95) × 2 device px, to the half pixel
    const centres = copies.map(([, sprite, x, y]) => {
      const [[, u, v]] = sprite.context.calls.filter(([name]) => name === "arc" || name === "moveTo");
      return [x + 2 * u, y + 2 * v];
    });
    assert.deepEqual(centres[0], [20, 410]);  // (100, 300) px
    assert.deepEqual(centres[2], [420, 10]);  // (300, 100) px
    // the square, at (200.2, 200) px = (220.4, 210) device px → 220.5: its first corner 12 px right of and below
    assert.deepEqual(centres[1], [220.5 + 24, 210 + 24]);
    // each centre at the half device pixel nearest to it: 20.2 → 20, 20.48 → 20.5, 20.8 → 21
    assert.deepEqual(centres.slice(3).map(([x]) => x), [20, 20.5, 21]);
    // the same sprite for the same size and phase, one of its own for another phase
    assert.deepEqual([copies[3][1] === copies[0][1], copies[4][1] === copies[0][1], copies[5][1] === copies[0][1]],
                     [true, false, true]);
    copies.forEach(([, , x, y]) => assert.ok(Number.isInteger(x) && Number.isInteger(y)));
  } finally { uninstall(); }
});
