// Editing a figure's points where they are drawn (kernelviz.ui.edits): drag any point, click on
// empty space to add one, right-click (or Alt-click) a point to remove it.
//
// payload.edit (kernelviz.protocol.EditInfo): the data as drawn points [x, y, label] in the order the
// edits' indices count, which of this page's edits Python has applied, the latest move the figure
// shows (`moved`), what a click adds, or why editing is off (`off`).
//
// The dragged point follows the pointer at once: every canvas marker at its place (the point, its
// support-vector ring, a test point's outline) is moved and the points canvas repainted, with no
// script run. The move goes to Python as the state `edit.moving` = {seq, index, x, y}; Python
// refits every stage on the data with the point there and sends the figure back. The next position
// goes only once that figure has come (its `moved` is the move's seq): the latest position always
// wins, and refits never queue behind each other. A move left unanswered (a run that never came,
// say a reload) goes again after RESEND_MS under a new number, also while the pointer rests; the
// figure of the earlier number may still come, and is a refit like any other: every number sent
// keeps its position, so that each figure's point is found where that figure drew it. The release,
// a click on empty space and a removal are edits, numbered in the page's outbox (../outbox.js) and
// sent until Python has applied them, so that none is lost or applied twice, whatever the load.

import { acknowledge, createOutbox, pending, post } from "../outbox.js";

// A press that moves less than this many pixels is a click.
export const CLICK_PX = 4;
// A move not answered within this time is sent again (a run that never came, say a reload).
export const RESEND_MS = 3000;

// One outbox per load of the page, shared by the figures and kept across remounts (as the drawing
// canvas's): Python keeps the last number it applied per token.
const OUTBOX = createOutbox(`fig-${Math.random().toString(36).slice(2, 12)}`);

// The data's points after `entries` ([number, op, index, x, y, label], oldest first), as Python's
// kernelviz.pipeline.apply_edits gives them: an edit of a point that is not there is skipped.
export function applyEdits(points, entries) {
  let out = points.map((p) => p.slice());
  for (const [, op, index, x, y, label] of entries) {
    if (op === "add") {
      out.push([x, y, label]);
    } else if (index >= 0 && index < out.length) {
      if (op === "move") out[index] = [x, y, out[index][2]];
      else if (op === "remove") out = out.slice(0, index).concat(out.slice(index + 1));
    }
  }
  return out;
}

// The index of the data point drawn at (x, y) — a marker's own data coordinates — or -1.
export function pointIndex(points, x, y) {
  for (let i = 0; i < points.length; i += 1) {
    if (points[i][0] === x && points[i][1] === y) return i;
  }
  return -1;
}

// Move every marker of `layers` drawn at `from` to `to` (the point and whatever marks it: a
// support-vector ring, a test point's outline); returns how many moved.
export function moveMarkers(layers, from, to) {
  let moved = 0;
  for (const layer of layers) {
    for (let i = 0; i < layer.x.length; i += 1) {
      if (Number(layer.x[i]) === from[0] && Number(layer.y[i]) === from[1]) {
        if (ArrayBuffer.isView(layer.x)) layer.x = Array.from(layer.x);
        if (ArrayBuffer.isView(layer.y)) layer.y = Array.from(layer.y);
        layer.x[i] = to[0];
        layer.y[i] = to[1];
        moved += 1;
      }
    }
  }
  return moved;
}

// What to send: the edits not yet applied and the point on its way (or null).
function state(moving) {
  return { token: OUTBOX.token, edits: pending(OUTBOX), moving };
}

function editing(view) {
  return Boolean(view.payload && view.payload.edit && !view.payload.edit.off && view.edit);
}

// A new payload: what Python applied leaves the outbox, and the points are Python's with the edits
// still on their way applied after them.
export function editArrived(view) {
  const info = view.payload && view.payload.edit;
  if (!info || info.off) {
    view.edit = null;
    return;
  }
  acknowledge(OUTBOX, info.applied);
  view.root.dataset.editLabel = String(info.label);  // what a click adds (tests wait for a new choice to arrive)
  const edit = view.edit || (view.edit = { drag: null, released: null, seq: 0, press: null, points: [] });
  edit.points = applyEdits(info.points, pending(OUTBOX));
  if (edit.released && !OUTBOX.entries.some(([number]) => number === edit.released.number)) {
    edit.settled = edit.released.number;  // plot.js marks it drawn (data-edit-settled): the release is committed
    edit.released = null;
  }
}

// A new figure's markers (`layers`, before they are painted): a drag under way keeps its point under
// the pointer, and the latest position goes to Python if this figure answered the last one.
export function editDrawn(view, layers) {
  // a released point keeps its place until the figure of its edit comes (an answer to an earlier
  // move may come first)
  const released = view.edit && view.edit.released;
  const drag = (view.edit && view.edit.drag) || (released && released.drag);
  if (!drag) return;
  const moved = view.payload.edit.moved;
  if (drag.sent.has(moved)) {  // the figure of a move sent (the latest, or one sent again since)
    drag.answeredAt = drag.sent.get(moved);
    for (const seq of drag.sent.keys()) if (seq <= moved) drag.sent.delete(seq);
    if (moved === drag.sentSeq) drag.inFlight = false;
    view.edit.answered = moved;  // plot.js marks it painted (data-edit-painted) once Plotly has drawn it
  }
  // the new figure draws the point where the latest answered move put it (before any, where it was)
  moveMarkers(layers, drag.answeredAt || drag.origin, drag.at);
  drag.shown = drag.at;
  if (!released) sendMove(view);
}

// The dragged point's position goes to Python, unless a move is on its way or this position went
// last; `again`: the move on its way went unanswered, and goes again.
function sendMove(view, again = false) {
  const drag = view.edit && view.edit.drag;
  if (!drag || !drag.moved) return;
  if (!again && drag.inFlight) return;
  if (!again && drag.sentAt && drag.sentAt[0] === drag.at[0] && drag.sentAt[1] === drag.at[1]) return;
  view.edit.seq += 1;
  const seq = view.edit.seq;
  drag.sentSeq = seq;
  drag.sentAt = drag.at.slice();
  drag.sent.set(seq, drag.sentAt);
  drag.inFlight = true;
  clearTimeout(drag.resend);
  drag.resend = setTimeout(() => {
    if (view.edit && view.edit.drag === drag && drag.inFlight && drag.sentSeq === seq) sendMove(view, true);
  }, RESEND_MS);
  view.root.dataset.editSent = String(seq);  // for tests: the moves sent
  view.setStateValue("edit", state({ seq, index: drag.index, x: drag.at[0], y: drag.at[1] }));
}

// An edit joins the outbox and goes to Python with every one not yet applied: its number.
function sendEdit(view, fields) {
  const number = post(OUTBOX, fields);
  view.edit.points = applyEdits(view.edit.points, [[0, ...fields]]);
  view.setStateValue("edit", state(null));
  return number;
}

// The data coordinates of a pixel of the page, in the panel whose plot area holds it: {x, y, xaxis,
// yaxis} or null.
function dataAt(view, clientX, clientY, hooks) {
  const box = view.root.getBoundingClientRect();
  const px = clientX - box.left;
  const py = clientY - box.top;
  for (const area of hooks.plotAreas(view)) {
    if (px < area.left || px > area.left + area.width || py < area.top || py > area.top + area.height) continue;
    return { x: area.xa.toValue(px), y: area.ya.toValue(py), xaxis: area.xaxis, yaxis: area.yaxis, area };
  }
  return null;
}

// The data point under the pointer: {index, layer} or null.
function hitPoint(view, event, hooks) {
  const found = hooks.pointAt(view, event.clientX, event.clientY);
  if (!found) return null;
  const x = Number(found.layer.x[found.i]);
  const y = Number(found.layer.y[found.i]);
  const index = pointIndex(view.edit.points, x, y);
  return index < 0 ? null : { index, layer: found.layer, x, y };
}

// Listen to the figure's pointer (once per view); returns the function that stops listening. `hooks`: {pointAt, plotAreas, redraw, select}
// from plot.js — the canvas point under a pixel, the panels' plot areas with their axes, the
// points canvas repainted, a click's selection.
export function listenForEdits(view, hooks) {
  const root = view.root;
  const press = (event) => {
    if (!editing(view) || event.button > 2) return;
    const hit = hitPoint(view, event, hooks);
    if (hit && (event.button === 2 || event.altKey)) {
      event.preventDefault();
      event.stopPropagation();
      sendEdit(view, ["remove", hit.index, 0, 0, 0]);
      moveMarkers(view.layers, [hit.x, hit.y], [NaN, NaN]);
      hooks.redraw(view);
      return;
    }
    if (event.button !== 0) return;
    if (hit) {
      // a point: it is dragged, not the plot panned
      event.preventDefault();
      event.stopPropagation();
      const where = dataAt(view, event.clientX, event.clientY, hooks);
      view.edit.drag = { index: hit.index, start: [event.clientX, event.clientY], origin: [hit.x, hit.y],
                         shown: [hit.x, hit.y], at: [hit.x, hit.y], moved: false, inFlight: false, sentSeq: 0,
                         sentAt: null, sent: new Map(), answeredAt: null, resend: null,
                         panel: where && { xaxis: where.xaxis, yaxis: where.yaxis } };
      root.dataset.editing = "drag";
      hooks.hideHover(view);  // the point's label would stay where the point was
      if (root.setPointerCapture && event.pointerId !== undefined) root.setPointerCapture(event.pointerId);
    } else {
      view.edit.press = [event.clientX, event.clientY];
    }
  };
  root.addEventListener("pointerdown", press, true);
  // plotly.js pans on mousedown: a press on a point is the drag's alone
  root.addEventListener("mousedown", (event) => {
    if (view.edit && view.edit.drag) event.stopPropagation();
  }, true);
  root.addEventListener("contextmenu", (event) => {
    if (editing(view) && hooks.pointAt(view, event.clientX, event.clientY)) event.preventDefault();
  });
  // on the window: plotly.js covers the page while it pans (its drag cover takes the pointer's events),
  // and a dragged point may leave the figure
  const move = (event) => {
    const drag = view.edit && view.edit.drag;
    if (!drag) return;
    if (!drag.moved && Math.hypot(event.clientX - drag.start[0], event.clientY - drag.start[1]) < CLICK_PX) return;
    drag.moved = true;
    const box = root.getBoundingClientRect();
    // the panel's area as drawn now (a new figure may have laid it out again)
    const area = drag.panel && hooks.plotAreas(view).find((a) => a.xaxis === drag.panel.xaxis && a.yaxis === drag.panel.yaxis);
    if (!area) return;
    // held inside the panel it started in: the axes there are the point's
    const px = Math.min(Math.max(event.clientX - box.left, area.left), area.left + area.width);
    const py = Math.min(Math.max(event.clientY - box.top, area.top), area.top + area.height);
    const to = [area.xa.toValue(px), area.ya.toValue(py)];
    moveMarkers(view.layers, drag.shown, to);
    drag.shown = to;
    drag.at = to;
    hooks.redraw(view);
    sendMove(view);
  };
  const release = (event) => {
    if (!view.edit) return;
    const drag = view.edit.drag;
    const pressed = view.edit.press;
    view.edit.drag = null;
    view.edit.press = null;
    if (drag) {
      clearTimeout(drag.resend);
      root.dataset.editing = "";
      if (drag.moved) {
        const number = sendEdit(view, ["move", drag.index, drag.at[0], drag.at[1], 0]);
        view.edit.released = { number, drag };
      }
      else hooks.select(view, event);  // a click on a point selects it, as before editing
      return;
    }
    if (!pressed || !editing(view) || event.button !== 0 || event.altKey) return;
    if (Math.hypot(event.clientX - pressed[0], event.clientY - pressed[1]) >= CLICK_PX) return;  // a pan
    if (hooks.pointAt(view, event.clientX, event.clientY)) return;
    const where = dataAt(view, event.clientX, event.clientY, hooks);
    if (!where) return;
    sendEdit(view, ["add", -1, where.x, where.y, view.payload.edit.label]);
    hooks.addMarker(view, where, view.payload.edit.label);
  };
  const cancel = () => {
    if (view.edit) {
      if (view.edit.drag) clearTimeout(view.edit.drag.resend);
      view.edit.drag = null;
      view.edit.press = null;
    }
  };
  window.addEventListener("pointermove", move);
  window.addEventListener("pointerup", release, true);
  window.addEventListener("pointercancel", cancel);
  // what the view's cleanup calls when its element goes
  return () => {
    window.removeEventListener("pointermove", move);
    window.removeEventListener("pointerup", release, true);
    window.removeEventListener("pointercancel", cancel);
  };
}

export { editing };
