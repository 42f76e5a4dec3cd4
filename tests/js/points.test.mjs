// Unit tests of the one points painter (kernelviz/components/points.js), under node --test: a
// marker is painted as Plotly draws it, from the same marker dict the figures carry.
import assert from "node:assert/strict";
import { test } from "node:test";

import { SYMBOLS, paintMarker } from "../../kernelviz/components/points.js";

// A 2D context that records what is asked of it.
function recorder() {
  const calls = [];
  const context = { calls, globalAlpha: 1, fillStyle: null, strokeStyle: null, lineWidth: 1 };
  for (const name of ["beginPath", "moveTo", "lineTo", "closePath", "arc"]) {
    context[name] = (...args) => calls.push([name, ...args]);
  }
  context.fill = () => calls.push(["fill", context.fillStyle, context.globalAlpha]);
  context.stroke = () => calls.push(["stroke", context.strokeStyle, context.lineWidth, context.globalAlpha]);
  return context;
}

test("a filled class marker: its polygon at its radius, filled in its colour, outlined by its line", () => {
  const context = recorder();
  paintMarker(context, { symbol: "cross", size: 10, color: "#D55E00", line: { width: 0.8, color: "white" } }, 50, 20);
  const points = context.calls.filter(([name]) => name === "moveTo" || name === "lineTo");
  assert.equal(points.length, SYMBOLS.cross.length);
  assert.deepEqual(points[0].slice(1), [50 + 1.2 * 5, 20 + 0.4 * 5]);  // radius = size / 2
  assert.deepEqual(context.calls.filter(([name]) => name === "fill" || name === "stroke"),
                   [["fill", "#D55E00", 1], ["stroke", "white", 0.8, 1]]);
});

test("an open symbol is its outline in the marker's colour, never filled", () => {
  const context = recorder();
  paintMarker(context, { symbol: "square-open", size: 12, color: "#222", line: { width: 0 } }, 0, 0);
  assert.ok(!context.calls.some(([name]) => name === "fill"));
  assert.deepEqual(context.calls.at(-1), ["stroke", "#222", 1, 1]);  // at least 1 px wide
});

test("a circle is an arc; a marker with no line is not stroked; opacity times alpha, then reset", () => {
  const context = recorder();
  paintMarker(context, { color: "#B5B5B5", size: 6, line: { width: 0 }, opacity: 0.5 }, 3, 4, 0.2);
  assert.deepEqual(context.calls.find(([name]) => name === "arc"), ["arc", 3, 4, 3, 0, 2 * Math.PI]);
  const fill = context.calls.find(([name]) => name === "fill");
  assert.ok(Math.abs(fill[2] - 0.1) < 1e-12, fill);
  assert.ok(!context.calls.some(([name]) => name === "stroke"));
  assert.equal(context.globalAlpha, 1);
});
