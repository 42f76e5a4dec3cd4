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

// ---------------------------------------------------------------------------- the pointer, on a fake page
import { FakeElement, install, uninstall } from "./fake_dom.mjs";
import { editArrived, editDrawn, listenForEdits } from "../../kernelviz/components/plot/edit.js";

// One panel over [0, 10] × [0, 10] drawn on 100 × 100 px at (0, 0); markers at the data points.
function editablePage(points, edit = {}) {
  install();
  const root = new FakeElement("div");
  root.box = { left: 0, top: 0, width: 100, height: 100 };
  const axis = (flip) => ({ toPixel: (v) => (flip ? 100 - 10 * v : 10 * v), toValue: (p) => (flip ? (100 - p) / 10 : p / 10) });
  const area = { left: 0, top: 0, width: 100, height: 100, xa: axis(false), ya: axis(true), xaxis: "x", yaxis: "y" };
  const layer = { x: points.map((p) => p[0]), y: points.map((p) => p[1]) };
  const sent = [];
  const view = {
    root, layers: [layer], payload: { edit: { points, applied: {}, moved: 0, label: -1, off: null, ...edit } },
    setStateValue: (name, value) => sent.push(JSON.parse(JSON.stringify([name, value]))),
  };
  const events = { redraws: 0, selected: 0, added: [] };
  const hooks = {
    pointAt: (v, x, y) => {
      const i = layer.x.findIndex((px, k) => Math.hypot(10 * px - x, 100 - 10 * layer.y[k] - y) < 5);
      return i < 0 ? null : { layer, i };
    },
    plotAreas: () => [area],
    redraw: () => { events.redraws += 1; },
    hideHover: () => {},
    select: () => { events.selected += 1; },
    addMarker: (v, where, label) => events.added.push([where.x, where.y, label]),
  };
  editArrived(view);
  const stop = listenForEdits(view, hooks);
  const fire = (target, type, x, y, extra = {}) => target.dispatchEvent(
    Object.assign(new Event(type), { clientX: x, clientY: y, button: 0, altKey: false, pointerId: 1, ...extra }));
  return { view, layer, sent, events, stop, fire, window: globalThis.window };
}

test("a dragged point follows the pointer at once, one move goes at a time, and the release is an edit", () => {
  const page = editablePage([[2, 2, 1], [5, 5, -1]]);
  try {
    const { view, layer, sent, fire, window } = page;
    fire(view.root, "pointerdown", 20, 80);  // the point (2, 2)
    fire(window, "pointermove", 30, 70);
    assert.deepEqual([layer.x[0], layer.y[0]], [3, 3]);  // drawn under the pointer before any answer
    assert.equal(sent.length, 1);
    assert.deepEqual(sent[0][1].moving, { seq: 1, index: 0, x: 3, y: 3 });
    fire(window, "pointermove", 40, 60);  // no answer yet: nothing more goes, the latest position waits
    fire(window, "pointermove", 50, 50);
    assert.equal(sent.length, 1);
    assert.deepEqual([layer.x[0], layer.y[0]], [5, 5]);
    // the figure of move 1 comes: its markers draw the point at (3, 3); it goes under the pointer again,
    // and the latest position, not the ones in between, goes next
    view.payload = { edit: { ...view.payload.edit, moved: 1 } };
    const figure = { x: [3, 5], y: [3, 5] };
    editArrived(view);
    editDrawn(view, [figure]);
    assert.deepEqual([figure.x[0], figure.y[0]], [5, 5]);
    assert.equal(sent.length, 2);
    assert.deepEqual(sent[1][1].moving, { seq: 2, index: 0, x: 5, y: 5 });
    fire(window, "pointerup", 50, 50);
    const last = sent[sent.length - 1][1];
    assert.equal(last.moving, null);
    assert.deepEqual(last.edits, [[1, "move", 0, 5, 5, 0]]);
    // Python applied it: the page's outbox (one per page, shared by its figures) is empty again
    view.payload = { edit: { ...view.payload.edit, applied: { [last.token]: 1 } } };
    editArrived(view);
    assert.deepEqual(view.edit.points, [[2, 2, 1], [5, 5, -1]]);
  } finally {
    page.stop();
    uninstall();
  }
});

test("a click on empty space adds a point of the chosen kind; a right-click on a point removes it", () => {
  const page = editablePage([[2, 2, 1], [5, 5, -1]], { label: 0 });
  try {
    const { view, sent, events, fire, window, layer } = page;
    fire(view.root, "pointerdown", 80, 20);
    fire(window, "pointerup", 81, 21);
    assert.deepEqual(events.added, [[8.1, 7.9, 0]]);
    const [number, ...add] = sent[sent.length - 1][1].edits.at(-1);
    assert.deepEqual(add, ["add", -1, 8.1, 7.9, 0]);
    // a press that moves is a pan, not a click: nothing is added
    fire(view.root, "pointerdown", 70, 20);
    fire(window, "pointerup", 90, 20);
    assert.equal(events.added.length, 1);
    // the right button on the point (5, 5): removed, its markers hidden at once
    fire(view.root, "pointerdown", 50, 50, { button: 2 });
    assert.deepEqual(sent[sent.length - 1][1].edits.at(-1).slice(1), ["remove", 1, 0, 0, 0]);
    assert.ok(Number.isNaN(layer.x[1]));
    // Python applied both: they leave the outbox
    view.payload = { edit: { ...view.payload.edit, applied: { [sent[0][1].token]: number + 1 } } };
    editArrived(view);
    fire(view.root, "pointerdown", 20, 80);  // a press on a point that does not move: a selection
    fire(window, "pointerup", 20, 80);
    assert.equal(events.selected, 1);
  } finally {
    page.stop();
    uninstall();
  }
});

test("with editing off nothing is sent, and a stopped figure no longer hears the window", () => {
  const page = editablePage([[2, 2, 1]], { off: "Editing the data is switched off by this page's link." });
  try {
    const { view, sent, fire, window } = page;
    editArrived(view);
    fire(view.root, "pointerdown", 20, 80);
    fire(window, "pointermove", 40, 40);
    fire(window, "pointerup", 40, 40);
    assert.deepEqual(sent, []);
  } finally {
    page.stop();
    uninstall();
  }
});

// ---------------------------------------------------------------------------- moves that go unanswered
import { mock } from "node:test";
import { RESEND_MS } from "../../kernelviz/components/plot/edit.js";

test("a move left unanswered is sent again while the pointer rests, and a late answer to it still counts", () => {
  mock.timers.enable({ apis: ["setTimeout"] });
  const page = editablePage([[2, 2, 1], [5, 5, -1]]);
  try {
    const { view, sent, fire, window } = page;
    fire(view.root, "pointerdown", 20, 80);
    fire(window, "pointermove", 30, 70);  // move 1: (3, 3)
    mock.timers.tick(RESEND_MS - 1);
    assert.equal(sent.length, 1);
    // no answer in time (a run that never came): the same position goes again, under a new number,
    // with no pointer move to prompt it (a hand that holds still)
    mock.timers.tick(1);
    assert.equal(sent.length, 2);
    assert.deepEqual(sent[1][1].moving, { seq: 2, index: 0, x: 3, y: 3 });
    fire(window, "pointermove", 50, 50);  // move 2 is on its way: (5, 5) waits
    assert.equal(sent.length, 2);
    // move 1's figure comes after all: it draws the point at (3, 3), which goes under the pointer, and
    // the figure counts as a refit drawn; move 2 is still awaited, so nothing more goes yet
    // (both figures draw the point at (3, 3), where both moves put it: their markers as drawn come back)
    const figureOf = (moved) => {
      view.payload = { edit: { ...view.payload.edit, moved } };
      const markers = { x: [3, 5], y: [3, 5] };
      editArrived(view);
      editDrawn(view, [markers]);
      return [markers.x[0], markers.y[0]];
    };
    assert.deepEqual(figureOf(1), [5, 5]);
    assert.equal(view.edit.answered, 1);
    assert.equal(sent.length, 2);
    // move 2's figure: the point under the pointer again, and the pointer's position goes next
    assert.deepEqual(figureOf(2), [5, 5]);
    assert.equal(view.edit.answered, 2);
    assert.deepEqual(sent[2][1].moving, { seq: 3, index: 0, x: 5, y: 5 });
    // once released, nothing is sent again however long the answer takes
    fire(window, "pointerup", 50, 50);
    const count = sent.length;
    mock.timers.tick(10 * RESEND_MS);
    assert.equal(sent.length, count);
  } finally {
    page.stop();
    uninstall();
    mock.timers.reset();
  }
});
