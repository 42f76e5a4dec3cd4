// kernelviz poll component (Streamlit components v2): draws nothing; asks for another run of the
// fragment it is drawn in a while after each run, until that run says the wait is over.
//
// data (from kernelviz.components.poll.poll):
//   run      — the run that drew it (a new value each run, so that each run calls this again)
//   every_ms — how long after a run the next one is asked for
//   finished — null while waiting; then {kind, signal}: no more runs, and the page hears of it by
//              the document event FINISHED_EVENT (../events.js): the figure of that kind asks
//              for its view's run
//
// Sent back: the trigger "tick".
//
// One timer per element, and the next tick only once the last run's data arrived: a tick is never
// in flight when the run that took the element away is drawn (Streamlit's run_every kept ticking
// for a status line its view's run had removed, and the tick wrote into an element that was gone).

import { FINISHED_EVENT } from "../events.js";
import { mount } from "../lifecycle.js";

const VIEWS = new WeakMap();

export default function (component) {
  const { data, parentElement, setTriggerValue } = component;
  const { view, cleanup } = mount(VIEWS, parentElement, () => ({ timer: null }));
  clearTimeout(view.timer);
  view.timer = null;
  if (data.finished) {
    document.dispatchEvent(new CustomEvent(FINISHED_EVENT, { detail: data.finished }));
  } else {
    view.timer = setTimeout(() => { view.timer = null; setTriggerValue("tick", data.run); }, data.every_ms);
  }
  return cleanup((gone) => clearTimeout(gone.timer));
}
