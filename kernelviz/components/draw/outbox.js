// The drawing canvas's clicks on their way to Python (draw.js), kept apart so that node --test
// can check them (tests/js/draw_outbox.test.mjs).
//
// Each click gets the next number of this page's canvas (its token: one per load of this module)
// and stays in the outbox until a run of Python's says it has applied it (data.applied[token]).
// What the browser sends is every click not yet applied, with its number, never a whole list of
// points: Python appends the clicks it has not seen yet to the points it holds, whatever came in
// between (an Undo, a Clear). Streamlit keeps only the latest value of a component's state when
// several requests meet at the server, and a run can start before an earlier request's callback
// has reached the page; a whole list sent against an older state lost either the click (rejected
// as stale after an Undo) or the Undo (the stale list accepted). A click is applied exactly once,
// however often it is sent and in whatever run it arrives.

// A new outbox for one canvas of this page; `token` names this page's clicks apart from another
// load's (Python keeps the last number it applied per token).
export function createOutbox(token) {
  return { token, seq: 0, clicks: [] };
}

// A click at (x, y) adding a point of `label`: it joins the outbox under the next number; returns
// the state to send ({token, clicks: [[number, x, y, label]…]}, every click not yet applied).
export function addClick(box, x, y, label) {
  box.seq += 1;
  box.clicks.push([box.seq, x, y, label]);
  return sendable(box);
}

// What to send: the clicks Python has not applied yet, oldest first.
export function sendable(box) {
  return { token: box.token, clicks: box.clicks.map((click) => click.slice()) };
}

// A run's data says which of this page's clicks Python has applied (`applied`, {token: number}):
// those leave the outbox.
export function acknowledge(box, applied) {
  const done = (applied && applied[box.token]) || 0;
  box.clicks = box.clicks.filter(([seq]) => seq > done);
}

// The points the canvas shows: Python's (every click it applied included) and then the clicks
// still on their way, in the order they were made; Python will append them just so.
export function shownPoints(box, points) {
  return points.map((p) => p.slice()).concat(box.clicks.map(([, x, y, label]) => [x, y, label]));
}
