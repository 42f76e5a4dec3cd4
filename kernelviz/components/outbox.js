// A component's changes on their way to Python: the drawing canvas's clicks (draw.js) and a
// figure's edits of its points (plot/edit.js). Kept apart so that node --test can check them
// (tests/js/outbox.test.mjs); Python's side is kernelviz/components/outbox.py.
//
// Each change gets the next number of this page's outbox (its token: one per load of the module)
// and stays in the outbox until a run of Python's says it has applied it (applied[token]). What
// the browser sends is every change not yet applied, with its number, never a whole list of
// points: Python applies the changes it has not seen yet to the points it holds, whatever came in
// between (an Undo, a Clear). Streamlit keeps only the latest value of a component's state when
// several requests meet at the server, and a run can start before an earlier request's callback
// has reached the page; a whole list sent against an older state lost either the change (rejected
// as stale after an Undo) or the Undo (the stale list accepted). A change is applied exactly once,
// however often it is sent and in whatever run it arrives.

// A new outbox for one page; `token` names this page's changes apart from another load's (Python
// keeps the last number it applied per token).
export function createOutbox(token) {
  return { token, seq: 0, entries: [] };
}

// A change (`fields`, an array) joins the outbox under the next number, which is returned.
export function post(box, fields) {
  box.seq += 1;
  box.entries.push([box.seq, ...fields]);
  return box.seq;
}

// What to send: the changes Python has not applied yet, oldest first, each [number, ...fields]
// (copies: a later change does not alter a state already handed to Streamlit).
export function pending(box) {
  return box.entries.map((entry) => entry.slice());
}

// A run's data says which of this page's changes Python has applied (`applied`, {token: number}):
// those leave the outbox.
export function acknowledge(box, applied) {
  const done = (applied && applied[box.token]) || 0;
  box.entries = box.entries.filter(([seq]) => seq > done);
}

// The drawing canvas's points: Python's (every click it applied included) and then the clicks
// (entries [number, x, y, label]) still on their way, in the order they were made; Python will
// append them just so.
export function shownPoints(box, points) {
  return points.map((p) => p.slice()).concat(box.entries.map(([, x, y, label]) => [x, y, label]));
}
