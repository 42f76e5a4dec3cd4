// Unit tests of the outbox (kernelviz/components/outbox.js) the drawing canvas's clicks and a
// figure's edits go to Python through, under node --test: every change is sent until Python has
// applied it, and the canvas shows its clicks after Python's points meanwhile.
import assert from "node:assert/strict";
import { test } from "node:test";

import { acknowledge, createOutbox, pending, post, shownPoints } from "../../kernelviz/components/outbox.js";

const PYTHON = [[1, 0.5, 1], [-1, -0.5, -1]];

test("each change is numbered in order and sent with every change not yet applied", () => {
  const box = createOutbox("page-a");
  assert.equal(post(box, [1.5, 1.5, 1]), 1);
  assert.deepEqual(pending(box), [[1, 1.5, 1.5, 1]]);
  assert.equal(post(box, ["move", 3, -1.5, -1.5, 0]), 2);
  assert.deepEqual(pending(box), [[1, 1.5, 1.5, 1], [2, "move", 3, -1.5, -1.5, 0]]);
  // what was sent is a copy: a later change does not alter a state already handed to Streamlit
  const sent = pending(box);
  sent[0][1] = 99;
  post(box, [0, 0, -1]);
  assert.equal(sent.length, 2);
  assert.equal(box.entries[0][1], 1.5);
});

test("a change leaves the outbox only once Python says it applied it", () => {
  const box = createOutbox("page-a");
  for (let i = 0; i < 20; i += 1) post(box, [i / 10, -i / 10, 1]);
  acknowledge(box, {});  // a run that applied none (it started before the changes arrived)
  assert.equal(box.entries.length, 20);
  acknowledge(box, { "page-b": 20 });  // another page's numbers say nothing of this one's
  assert.equal(box.entries.length, 20);
  acknowledge(box, { "page-a": 13 });
  assert.deepEqual(box.entries.map(([seq]) => seq), [14, 15, 16, 17, 18, 19, 20]);
  post(box, [9, 9, 1]);
  assert.deepEqual(pending(box).map(([seq]) => seq), [14, 15, 16, 17, 18, 19, 20, 21]);
  acknowledge(box, { "page-a": 21 });
  assert.deepEqual(pending(box), []);
});

test("the canvas shows Python's points, then the clicks still on their way, in the order they were made", () => {
  const box = createOutbox("page-a");
  post(box, [1.5, 1.5, 1]);
  post(box, [-1.5, -1.5, 1]);
  assert.deepEqual(shownPoints(box, PYTHON), [...PYTHON, [1.5, 1.5, 1], [-1.5, -1.5, 1]]);
  // an Undo that reached Python before the clicks: its list, one point shorter, then the clicks
  assert.deepEqual(shownPoints(box, PYTHON.slice(0, 1)), [PYTHON[0], [1.5, 1.5, 1], [-1.5, -1.5, 1]]);
  // Python applied the first click: it is Python's now, and shown once
  acknowledge(box, { "page-a": 1 });
  assert.deepEqual(shownPoints(box, [...PYTHON, [1.5, 1.5, 1]]), [...PYTHON, [1.5, 1.5, 1], [-1.5, -1.5, 1]]);
});
