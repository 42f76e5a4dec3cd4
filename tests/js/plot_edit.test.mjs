// Unit tests of a figure's point editing (kernelviz/components/plot/edit.js), under node --test:
// the browser's copy of the data follows the edits as Python's kernelviz.pipeline.apply_edits does,
// a marker is found by its data coordinates, and a dragged point's markers move together.
import assert from "node:assert/strict";
import { test } from "node:test";

import { applyEdits, moveMarkers, pointIndex } from "../../kernelviz/components/plot/edit.js";

const POINTS = [[0, 0, 1], [1, 1, -1], [2, 2, 0]];

test("edits apply in order, as Python applies them, and an edit of a point that is gone is skipped", () => {
  // the same list as kernelviz.pipeline.edit.apply_edits's doctest
  assert.deepEqual(applyEdits([[0, 0, 1], [1, 1, -1]],
    [[1, "move", 0, 0.5, 0.5, 0], [2, "add", -1, 2, 2, 0], [3, "remove", 1, 0, 0, 0]]),
  [[0.5, 0.5, 1], [2, 2, 0]]);
  assert.deepEqual(applyEdits(POINTS, [[1, "remove", 7, 0, 0, 0], [2, "move", -1, 5, 5, 0]]), POINTS);
  // a move keeps the point's label, whatever label the edit carries
  assert.deepEqual(applyEdits(POINTS, [[1, "move", 1, 3, 4, 1]])[1], [3, 4, -1]);
  // the input is not changed
  const before = JSON.stringify(POINTS);
  applyEdits(POINTS, [[1, "remove", 0, 0, 0, 0]]);
  assert.equal(JSON.stringify(POINTS), before);
});

test("a marker's data point is found by its exact coordinates", () => {
  assert.equal(pointIndex(POINTS, 1, 1), 1);
  assert.equal(pointIndex(POINTS, 2, 2), 2);
  assert.equal(pointIndex(POINTS, 1, 1.0000001), -1);
});

test("every marker at the dragged point moves with it, typed arrays included, and no other", () => {
  const point = { x: new Float64Array([0, 1, 2]), y: new Float64Array([0, 1, 2]) };
  const ring = { x: [1], y: [1] };  // a support vector's ring over point 1
  const other = { x: [1], y: [2] };
  assert.equal(moveMarkers([point, ring, other], [1, 1], [1.5, -0.5]), 2);
  assert.deepEqual([point.x[1], point.y[1], ring.x[0], ring.y[0]], [1.5, -0.5, 1.5, -0.5]);
  assert.deepEqual([point.x[0], point.x[2], other.x[0], other.y[0]], [0, 2, 1, 2]);
  assert.equal(moveMarkers([point], [9, 9], [0, 0]), 0);
});
