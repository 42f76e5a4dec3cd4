// The page-wide events by which one component tells another (Streamlit gives each its own element).

// The live preview watcher's wait is over (poll.js, data.finished): detail {kind, signal}. The figure whose
// lattice is of that kind (plot/sliders.js) asks for its view's run, once per signal.
export const FINISHED_EVENT = "kv-finished";
