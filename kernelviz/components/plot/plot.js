// kernelviz plot component (Streamlit components v2): a Plotly figure drawn once and then updated
// in place. Streamlit's own Plotly element mounts a new element, and draws it from scratch, for
// every new figure (its identity includes the figure); here a new figure is handed to
// Plotly.react on the same element.
//
// data (bytes, from kernelviz.components.plot.payload): the header's length (4 bytes, little-endian),
// the header (UTF-8 JSON), then the lattice's raw codes, which the header points into. The header
// (declared in kernelviz/protocol.py, checked by tests/js/payloads.test.mjs):
//   figure      — {data, layout} as Plotly.react takes them (layout.datarevision changes with the data)
//   config      — Plotly's config
//   plotly      — file name of Streamlit's own plotly.js chunk (static/js/PlotlyChart.<hash>.js):
//                 importing it defines window.Plotly, and it is the very module Streamlit's
//                 Plotly element loads, so the page never holds two copies (and nothing comes
//                 from another host)
//   selectable  — a click on a point is kept as the state "selection" = {revision, points}
//   revision    — the figure's data revision, stored with a selection so that Python can tell
//                 a selection of an older figure from one of this figure
//   canvas      — draw the figure's marker-only scatter traces on a canvas over the plot (split.js)
//   drawing     — a digest of figure, config and canvas: a payload with the drawing already drawn
//                 (a rerun that changed only the live preview) is not handed to Plotly again.
//                 The plot's element says data-drawing="busy" until it is drawn, then "done".
// Without a figure (kernelviz.components.plot.load_plotly) the instance only imports plotly.js.
//
// The modules beside this one, each put in place of its import (kernelviz.components.module_text):
// payload.js decodes the data; plotly_access.js loads plotly.js and reads where it drew; split.js
// takes a figure apart into what Plotly draws and what the canvases paint (arrays.js reads its
// arrays); markers.js paints the points, hover.js labels them; pictures.js, colours.js and
// contours.js paint fields and level lines, for the figure and the live preview alike; the live
// preview's sliders are sliders.js, where they stand in the lattice lattice.js, what a panel
// looks like there looks.js, and paint.js paints the field canvas; screen.js lays the figure out
// for the screen (arrange.js); titles.js writes a figure's new titles where only their words
// changed; edit.js lets a person drag, add and remove points. This module is the component: its view, Plotly's events, and the
// default export Streamlit calls.

import { FINISHED_EVENT } from "../events.js";
import { mount } from "../lifecycle.js";
import { editArrived, editDrawn, editing, listenForEdits } from "./edit.js";
import { fieldLabel, pointLabel, showHover } from "./hover.js";
import { canvasSelection, drawPoints, fieldCellAt, fieldSelection, plotAreas, pointAt, selectedPoints } from "./markers.js";
import { paintFields } from "./paint.js";
import { decode } from "./payload.js";
import { loadPlotly, plotlyChanges } from "./plotly_access.js";
import { arranged, fitToScreen, redrawArranged } from "./screen.js";
import { listenForFinished, updateLive } from "./sliders.js";
import { splitCanvas } from "./split.js";
import { restoreTitles } from "./support.js";
import { drawnAs, wordsOnly, writeWords } from "./titles.js";

const VIEWS = new WeakMap();

function createView(parent) {
  const root = document.createElement("div");
  root.className = "kv-plot";
  parent.appendChild(root);
  const view = { root, payload: null, body: null, listening: false, setStateValue: null,
                 setTriggerValue: null, resize: null, layers: [], canvas: null, hoverLabel: null,
                 live: null, controls: null, fieldCanvas: null, fields: [], pointHovered: false, dimmed: false, frame: 0,
                 drawing: null, drawn: Promise.resolve(), onFinished: null, levels: [], covered: new Set(),
                 split: null, given: null, solo: null, box: null, onKey: null, onWindow: null, runEnd: null, edit: null, stopEditing: null,
                 added: [] };
  // The figure follows the column's width, and small multiples the screen's height too
  // (arrange.js). Hidden (no width) there is nothing to fit, and Plotly refuses; back at the size
  // it was drawn for, a resize would only draw it all again.
  view.resize = new ResizeObserver(() => fitToScreen(view));
  view.resize.observe(root);
  // the elements above the figure (a lesson's sentence, a warning, the view buttons settling) come
  // and go after it: its room changes. The page's content grows or shrinks with them; the body
  // does not (Streamlit scrolls its main section inside a body as tall as the window).
  view.resize.observe(root.closest('[data-testid="stMainBlockContainer"]') || document.body);
  view.onWindow = () => fitToScreen(view);
  window.addEventListener("resize", view.onWindow);
  // Escape: back from one panel shown alone to all of them
  view.onKey = (event) => {
    if (event.key === "Escape" && view.solo !== null) {
      view.solo = null;
      redrawArranged(view);
    }
  };
  document.addEventListener("keydown", view.onKey);
  listenForFinished(view);
  return view;
}

// Hover and click for what the canvas paints, through Plotly's own hover: a field's stand-in (or a
// heatmap Plotly draws) under the points reports every position of the plot area, and Plotly's
// click is the hover's point. Over a canvas point its own label shows (and a label Plotly draws is
// hidden: cancelling Plotly's hover would leave a click there with no point at all); elsewhere
// over a field, the field's label.
function listenForPoints(view) {
  const redraw = () => {
    drawPoints(view);
    paintFields(view);
  };
  view.root.on("plotly_afterplot", redraw);
  view.root.on("plotly_relayouting", redraw);
  view.root.on("plotly_beforehover", (event) => {
    if (view.edit && view.edit.drag) return false;  // a point being dragged: no label follows the pointer
    const found = view.layers.length && event && event.clientX !== undefined
      ? pointAt(view, event.clientX, event.clientY) : null;
    view.pointHovered = showHover(view, pointLabel(found), event && event.clientX, event && event.clientY);
    view.root.classList.toggle("kv-plot-point-hover", view.pointHovered);
    return true;
  });
  view.root.on("plotly_hover", (event) => {
    const point = event && event.points && event.points[0];
    const field = point && view.fields.find((f) => f.index === point.curveNumber);
    if (view.pointHovered || !field || !event.event) return;
    const cell = fieldCellAt(view, field, event.event.clientX, event.event.clientY);
    showHover(view, cell && fieldLabel(field, cell.j, cell.i), event.event.clientX, event.event.clientY);
  });
  view.root.on("plotly_unhover", () => {
    if (!view.pointHovered) showHover(view, null);
  });
  view.root.addEventListener("mouseleave", () => {
    view.pointHovered = false;
    showHover(view, null);
    view.root.classList.remove("kv-plot-point-hover");
  });
}

// What edit.js needs of the painter.
const EDIT_HOOKS = {
  pointAt,
  plotAreas,
  redraw: drawPoints,
  hideHover(view) {
    view.pointHovered = false;
    showHover(view, null);
  },
  // a click on a point that was pressed for a drag that did not move: the click's selection
  select(view, event) {
    const points = view.payload.selectable && canvasSelection(view, { event });
    if (points) view.setStateValue("selection", { revision: view.payload.revision, points });
  },
  // a point added by a click, painted at once in every panel until the figure with it comes
  addMarker(view, where, label) {
    view.added.push({ x: where.x, y: where.y, label });
    drawPoints(view);
  },
};

// A click on a panel's title shows that panel alone; a click on it again (or Escape), all of them.
function listenForTitles(view) {
  view.root.on("plotly_clickannotation", (event) => {
    const marked = view.split && view.split.layout.meta && view.split.layout.meta.kv_panels;
    const panel = marked && marked.titles ? marked.titles.indexOf(event.index) : -1;
    if (panel < 0) return;
    view.solo = view.solo === panel ? null : panel;
    redrawArranged(view);
  });
}

function showChanges(view, changes) {
  const note = document.createElement("p");
  note.className = "kv-plot-error";
  note.textContent = `This Streamlit's plotly.js has changed (${changes.join(", ")}): the points and the live `
    + "preview may be drawn in the wrong place. kernelviz is tested with the Streamlit its pyproject.toml names.";
  view.root.parentNode.insertBefore(note, view.root);
  console.error(note.textContent);
}

function showError(view, message) {
  view.root.textContent = "";
  const note = document.createElement("p");
  note.className = "kv-plot-error";
  note.textContent = `The figure could not be drawn: ${message}`;
  view.root.appendChild(note);
}

export default function (component) {
  const { data, parentElement, setStateValue, setTriggerValue } = component;
  const { payload, body } = decode(data);
  if (!payload.figure || !payload.figure.data) {  // the loader: plotly.js starts now; a chart that mounts meanwhile waits for the same import
    loadPlotly(payload.plotly).catch(() => {});  // a chart that needs it says what went wrong
    return undefined;
  }
  const { view, isLatest, cleanup } = mount(VIEWS, parentElement, createView);
  view.setStateValue = setStateValue;
  view.setTriggerValue = setTriggerValue;
  view.payload = payload;
  view.body = body;
  editArrived(view);
  try {
    updateLive(view, payload.live, payload.figure);
  } catch (error) {
    showError(view, error.message || String(error));
    return undefined;
  }
  view.root.dataset.drawing = "busy";
  const done = () => {
    if (!isLatest()) return;
    view.root.dataset.drawing = "done";
    // for tests and benchmarks: the latest move of a dragged point, and the latest release, drawn
    if (view.edit && view.edit.answered) view.root.dataset.editPainted = String(view.edit.answered);
    if (view.edit && view.edit.settled) view.root.dataset.editSettled = String(view.edit.settled);
  };
  loadPlotly(payload.plotly).then((Plotly) => {
    if (!isLatest()) return;  // a newer figure arrived meanwhile
    // The same figure again (say, the rerun that brings a finished lattice): Plotly.react would
    // recompute and draw it all (0.1–0.3 s of the four-panel figure) for nothing new.
    if (payload.drawing && view.drawing === payload.drawing) {
      return view.drawn.then(() => { paintFields(view); done(); });
    }
    view.drawing = payload.drawing;
    const split = payload.canvas ? splitCanvas(payload.figure)
      : { figure: payload.figure, layers: [], levels: [], fields: [] };
    const { layers, levels, fields } = split;
    const panels = (split.figure.layout.meta && split.figure.layout.meta.kv_panels) || {};
    if (view.solo !== null && !(view.solo < (panels.count || 0))) view.solo = null;  // that panel is gone
    view.split = split.figure;
    view.root.dataset.solo = view.solo === null ? "" : String(view.solo);
    const figure = arranged(view);
    view.root.style.minHeight = `${figure.layout.height || 450}px`;
    editDrawn(view, layers);  // a point being dragged stays under the pointer
    view.layers = layers;
    view.added = [];
    view.levels = levels;
    view.fields = fields;
    view.root._kvFields = fields;  // for tests: the fields the canvas paints
    view.root._kvLevels = levels;  // for tests: the level lines the canvas paints
    view.root._kvLayers = layers;  // for tests: the points as drawn (data and pixel positions)
    // the figure drawn but for its titles' words (a dragged point's frame, a committed step): the
    // words are written where Plotly drew them (titles.js), the canvases painted again
    const drawn = view.given;
    const changes = view.listening ? wordsOnly(drawn, figure) : null;
    view.given = drawnAs(figure);
    // (over the figure's own words: mid-drag a title says the dragged value's, support.js)
    const written = changes ? view.drawn.then(() => {
      restoreTitles(view.root);
      return writeWords(view.root, drawn, changes);
    }) : Promise.resolve(false);
    view.drawn = written.then((wrote) => {
      if (!wrote) {
        // plotly.js keeps the drawn title's element and writes the new words into it: what a
        // preview left on it (its figure's words, the kv-preview mark) must not outlive them
        restoreTitles(view.root);
        return Plotly.react(view.root, figure.data, figure.layout, payload.config);
      }
      drawPoints(view);
      return undefined;
    }).then(() => {
      if (!view.listening) {
        view.listening = true;
        listenForPoints(view);
        listenForTitles(view);
        view.root.on("plotly_click", (event) => {
          if (!view.payload.selectable) return;
          // where points can be edited, a click on empty space adds one: it selects nothing
          const points = canvasSelection(view, event)
            || (editing(view) ? null : fieldSelection(view, event) || selectedPoints(event));
          if (points) view.setStateValue("selection", { revision: view.payload.revision, points });
        });
        view.stopEditing = listenForEdits(view, EDIT_HOOKS);
        drawPoints(view);  // the first afterplot came before the listener
        const changes = plotlyChanges(view.root);
        view.root._kvPlotlyChanges = changes;  // for tests: what of plotly.js's internals is not as expected
        if (changes.length) showChanges(view, changes);
      }
      paintFields(view);  // the new figure's own values, or still the sliders' where a drag goes on
    });
    return view.drawn.then(done);
  }).catch((error) => {
    view.drawing = null;  // nothing is known to be drawn: the next payload draws in full
    view.given = null;
    showError(view, error.message || String(error));
  });
  return cleanup((gone) => {
    gone.resize.disconnect();
    document.removeEventListener(FINISHED_EVENT, gone.onFinished);
    document.removeEventListener("keydown", gone.onKey);
    if (gone.runEnd) gone.runEnd.disconnect();
    window.removeEventListener("resize", gone.onWindow);
    if (gone.stopEditing) gone.stopEditing();
    if (gone.frame) cancelAnimationFrame(gone.frame);
    if (gone.controls) gone.controls.remove();
    if (window.Plotly) window.Plotly.purge(gone.root);
  });
}

