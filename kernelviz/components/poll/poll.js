// kernelviz poll component (Streamlit components v2): draws nothing; asks for another run of the
// fragment it is drawn in a while after each run, until that run says the wait is over.
//
// data (from kernelviz.components.poll.poll):
//   run      — the run that drew it (a new value each run, so that each run calls this again)
//   every_ms — how long after a run the next one is asked for
//   finished — null while waiting; then {kind, signal}: the page hears of it by the document event
//              FINISHED_EVENT (../events.js): the figure of that kind asks for its view's run.
//              Without watch, no more runs.
//   watch    — null, or a CSS selector: a tick goes only while the page has an element it selects,
//              and the timer goes on after finished (the live preview's watcher: a figure whose
//              lattice is being prepared says so, and a commit's run can make one wait again)
//
// Sent back: the trigger "tick".
//
// One timer per element, the next tick only once the last run's data arrived, and never while a
// script runs (it waits for the page to be idle): a tick that went during the page's run carried the
// sidebar's values from before the run, and one that went during the view's run reached a status
// line that run had taken away (Streamlit's run_every kept ticking for it, and its run wrote into a
// place that was gone). Nor just after a person's input: Streamlit sends the widget changes of one
// moment as one run of the first one's fragment, and a view switch that met a tick ran as the
// watcher's fragment, which put the view back.

import { FINISHED_EVENT } from "../events.js";
import { mount } from "../lifecycle.js";

const VIEWS = new WeakMap();
// How soon a tick that found the page busy looks again.
const WHILE_RUNNING_MS = 100;

// How long after a person's input (a click, a key) no tick goes.
const AFTER_INPUT_MS = 300;
let lastInput = -Infinity;
const LISTENED = new WeakSet();  // the documents listened to (one page has one)

function listenForInput() {
  if (LISTENED.has(document)) return;
  LISTENED.add(document);
  for (const type of ["pointerdown", "keydown", "change"]) {
    document.addEventListener(type, () => { lastInput = Date.now(); }, { capture: true });
  }
}

// Whether Streamlit is running the script (or a fragment) for this page, or a person has just acted.
function busy() {
  const app = document.querySelector ? document.querySelector('[data-testid="stApp"]') : null;
  return Date.now() - lastInput < AFTER_INPUT_MS
    || (Boolean(app) && app.getAttribute("data-test-script-state") === "running");
}

export default function (component) {
  const { data, parentElement, setTriggerValue } = component;
  const { view, cleanup } = mount(VIEWS, parentElement, () => ({ timer: null }));
  clearTimeout(view.timer);
  view.timer = null;
  if (data.finished) {
    document.dispatchEvent(new CustomEvent(FINISHED_EVENT, { detail: data.finished }));
  }
  if (!data.finished || data.watch) {
    listenForInput();
    const tick = () => {
      if (busy()) {
        view.timer = setTimeout(tick, WHILE_RUNNING_MS);
        return;
      }
      if (data.watch && !document.querySelector(data.watch)) {
        view.timer = setTimeout(tick, data.every_ms);  // nothing waits: look again later
        return;
      }
      view.timer = null;
      setTriggerValue("tick", data.run);
    };
    view.timer = setTimeout(tick, data.every_ms);
  }
  return cleanup((gone) => clearTimeout(gone.timer));
}
