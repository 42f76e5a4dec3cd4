// kernelviz plot component (Streamlit components v2): a Plotly figure drawn once and then updated
// in place. Streamlit's own Plotly element mounts a new element, and draws it from scratch, for
// every new figure (its identity includes the figure); here a new figure is handed to
// Plotly.react on the same element.
//
// data (bytes, UTF-8 JSON, from kernelviz.components.plot.plot):
//   figure      — {data, layout} as Plotly.react takes them (layout.datarevision changes with the data)
//   config      — Plotly's config
//   plotly      — file name of Streamlit's own plotly.js chunk (static/js/PlotlyChart.<hash>.js):
//                 importing it defines window.Plotly, and it is the very module Streamlit's
//                 Plotly element loads, so the page never holds two copies (and nothing comes
//                 from another host)
//   selectable  — a click on a point is kept as the state "selection" = {revision, points}
//   revision    — the figure's data revision, stored with a selection so that Python can tell
//                 a selection of an older figure from one of this figure
// Without a figure (kernelviz.components.plot.load_plotly) the instance only imports plotly.js.

const VIEWS = new WeakMap();
let plotlyLoading = null;

function loadPlotly(file) {
  if (window.Plotly) return Promise.resolve(window.Plotly);
  if (!plotlyLoading) {
    // Streamlit's chunks sit beside its entry script, wherever the app is served from.
    const entry = document.querySelector('script[type="module"][src*="/static/js/"]');
    const base = entry ? entry.src : new URL("static/js/", document.baseURI).href;
    plotlyLoading = import(new URL(file, base).href).then(() => {
      if (!window.Plotly) throw new Error(`${file} did not define plotly.js`);
      return window.Plotly;
    });
    plotlyLoading.catch(() => { plotlyLoading = null; });
  }
  return plotlyLoading;
}

function decode(data) {
  const bytes = data instanceof ArrayBuffer ? new Uint8Array(data) : data;
  return JSON.parse(new TextDecoder().decode(bytes));
}

function selectedPoints(event) {
  return (event.points || []).map((p) => {
    const point = { x: p.x, y: p.y, curve_number: p.curveNumber, point_number: p.pointNumber,
                    point_index: p.pointIndex };
    if (p.customdata !== undefined) point.customdata = p.customdata;
    return point;
  });
}

function createView(parent) {
  const root = document.createElement("div");
  root.className = "kv-plot";
  parent.appendChild(root);
  const view = { root, generation: 0, payload: null, listening: false, setStateValue: null, resize: null };
  // The figure follows the column's width (its height is the figure's own). Hidden (no width)
  // there is nothing to fit, and Plotly refuses; back at the width it was drawn at, a resize
  // would only draw it all again.
  view.resize = new ResizeObserver(([entry]) => {
    const width = Math.round(entry.contentRect.width);
    if (!window.Plotly || !root._fullLayout || width === 0 || width === root._fullLayout.width) return;
    window.Plotly.Plots.resize(root);
  });
  view.resize.observe(root);
  return view;
}

function showError(view, message) {
  view.root.textContent = "";
  const note = document.createElement("p");
  note.className = "kv-plot-error";
  note.textContent = `The figure could not be drawn: ${message}`;
  view.root.appendChild(note);
}

export default function (component) {
  const { data, parentElement, setStateValue } = component;
  const payload = decode(data);
  if (!payload.figure) {  // the loader: plotly.js starts now; a chart that mounts meanwhile waits for the same import
    loadPlotly(payload.plotly).catch(() => {});  // a chart that needs it says what went wrong
    return undefined;
  }
  let view = VIEWS.get(parentElement);
  if (!view) {
    view = createView(parentElement);
    VIEWS.set(parentElement, view);
  }
  view.setStateValue = setStateValue;
  const generation = ++view.generation;
  view.payload = payload;
  loadPlotly(payload.plotly).then((Plotly) => {
    if (generation !== view.generation) return;  // a newer figure arrived meanwhile
    view.root.style.minHeight = `${payload.figure.layout.height || 450}px`;
    return Plotly.react(view.root, payload.figure.data, payload.figure.layout, payload.config).then(() => {
      if (!view.listening) {
        view.listening = true;
        view.root.on("plotly_click", (event) => {
          if (!view.payload.selectable) return;
          view.setStateValue("selection", { revision: view.payload.revision, points: selectedPoints(event) });
        });
      }
    });
  }).catch((error) => showError(view, error.message || String(error)));
  return () => {
    if (view.generation === generation) {
      view.resize.disconnect();
      if (window.Plotly) window.Plotly.purge(view.root);
      VIEWS.delete(parentElement);
    }
  };
}
