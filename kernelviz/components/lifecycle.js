// One lifecycle for every component of the app (Streamlit components v2 call a component's
// default export on every run that sends it new data, and call the function it returns when
// the element goes — or before the next call).
//
// A component keeps one view per element it is mounted in, created on the first call and
// updated in place after: a figure is handed to Plotly.react on the same element, a drawing keeps
// its clicks. Streamlit calls the previous call's cleanup after the next call has begun, so only
// the latest call's cleanup may tear the view down; an older one does nothing.

// The view of `parentElement` in `views` (a WeakMap the component owns), created by
// `create(parentElement)` if it has none: {view, call, isLatest(), cleanup(dispose)}.
// `cleanup(dispose)` is what the component returns to Streamlit: it calls `dispose(view)` and
// forgets the view only if no later call came.
export function mount(views, parentElement, create) {
  let view = views.get(parentElement);
  if (!view) {
    view = create(parentElement);
    view.call = 0;
    views.set(parentElement, view);
  }
  const call = ++view.call;
  const isLatest = () => view.call === call;
  const cleanup = (dispose) => () => {
    if (!isLatest()) return;
    dispose(view);
    views.delete(parentElement);
  };
  return { view, call, isLatest, cleanup };
}
