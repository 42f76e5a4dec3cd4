// Unit tests of the drawing canvas's outbox (kernelviz/components/draw/outbox.js), under node --test:
// every click is sent until Python has applied it, and shown after Python's points meanwhile.
import assert from "node:assert/strict";
import { test } from "node:test";

import { acknowledge, addClick, createOutbox, sendable, shownPoints } from "../../kernelviz/components/draw/outbox.js";

const PYTHON = [[1, 0.5, 1], [-1, -0.5, -1]];

test("each click is numbered in order and sent with every click not yet applied", () => {
  const box = createOutbox("page-a");
  assert.deepEqual(addClick(box, 1.5, 1.5, 1), { token: "page-a", clicks: [[1, 1.5, 1.5, 1]] });
  assert.deepEqual(addClick(box, -1.5, -1.5, 0), { token: "page-a", clicks: [[1, 1.5, 1.5, 1], [2, -1.5, -1.5, 0]] });
  // what was sent is a copy: a later click does not change a state already handed to Streamlit
  const sent = sendable(box);
  addClick(box, 0, 0, -1);
  assert.equal(sent.clicks.length, 2);
});

test("a click leaves the outbox only once Python says it applied it", () => {
  const box = createOutbox("page-a");
  for (let i = 0; i < 20; i += 1) addClick(box, i / 10, -i / 10, 1);
  acknowledge(box, {});  // a run that applied none (it started before the clicks arrived)
  assert.equal(box.clicks.length, 20);
  acknowledge(box, { "page-b": 20 });  // another page's numbers say nothing of this one's
  assert.equal(box.clicks.length, 20);
  acknowledge(box, { "page-a": 13 });
  assert.deepEqual(box.clicks.map(([seq]) => seq), [14, 15, 16, 17, 18, 19, 20]);
  assert.deepEqual(addClick(box, 9, 9, 1).clicks.map(([seq]) => seq), [14, 15, 16, 17, 18, 19, 20, 21]);
  acknowledge(box, { "page-a": 21 });
  assert.deepEqual(sendable(box).clicks, []);
});

test("the canvas shows Python's points, then the clicks still on their way, in the order they were made", () => {
  const box = createOutbox("page-a");
  addClick(box, 1.5, 1.5, 1);
  addClick(box, -1.5, -1.5, 1);
  assert.deepEqual(shownPoints(box, PYTHON), [...PYTHON, [1.5, 1.5, 1], [-1.5, -1.5, 1]]);
  // an Undo that reached Python before the clicks: its list, one point shorter, then the clicks
  assert.deepEqual(shownPoints(box, PYTHON.slice(0, 1)), [PYTHON[0], [1.5, 1.5, 1], [-1.5, -1.5, 1]]);
  // Python applied the first click: it is Python's now, and shown once
  acknowledge(box, { "page-a": 1 });
  assert.deepEqual(shownPoints(box, [...PYTHON, [1.5, 1.5, 1]]), [...PYTHON, [1.5, 1.5, 1], [-1.5, -1.5, 1]]);
});
