// The field canvas, between Plotly's drawing and the points: each panel's field, the figure's own,
// or the live preview's at the sliders' values (its colours and levels from the panel's own traces).
// A translucent field (split.js) is painted on a canvas under Plotly's drawing instead.

import { background } from "./colours.js";
import { contourPaths, strokePaths, strokeTrace } from "./contours.js";
import { currentField, previewing, previewNote } from "./lattice.js";
import { classLook, decisionLook, similarityLook } from "./looks.js";
import { drawPoints, drawSupport, plotAreas, SV_GROUP } from "./markers.js";
import { finePicture, paintField } from "./pictures.js";
import { fitCanvas, plotArea, PLOTLY } from "./plotly_access.js";
import { previewFigureTitle, previewTitle, restoreFigureTitle, restoreTitle, scoreLines, supportLayer, titleAt } from "./support.js";

function fieldCanvas(view) {
  const { container, drawing } = PLOTLY.layers(view.root);
  if (!container) return null;
  if (!view.fieldCanvas) {
    view.fieldCanvas = document.createElement("canvas");
    view.fieldCanvas.className = "kv-plot-field";
  }
  // right above Plotly's drawing (the first of its SVGs), under its titles, the points and the hover layer
  if (view.fieldCanvas.previousSibling !== drawing) container.insertBefore(view.fieldCanvas, drawing ? drawing.nextSibling : null);
  return view.fieldCanvas;
}

// The field canvas: each panel's field, the figure's own (its values), or the live preview's
// where the sliders stand elsewhere and the lattice holds that field. One painter for both, so a
// panel looks the same while a slider moves and after the release.
export function paintFields(view) {
  const live = view.live;
  const full = PLOTLY.layout(view.root);
  if (!full) return;
  paintUnder(view, full, view.fields.filter((field) => field.under));
  const fields = view.fields.filter((field) => !field.under);
  if (!live && !fields.length) {
    if (view.fieldCanvas) view.fieldCanvas.remove();
    return;
  }
  const started = performance.now();
  const canvas = fieldCanvas(view);
  if (!canvas) return;
  const context = fitCanvas(canvas, full);
  const moved = Boolean(live) && previewing(view);
  const where = moved ? currentField(view) : null;
  const covered = new Set();  // the panels painted at the sliders' values
  const support = new Map();  // by covered subplot: the support vectors at the sliders' values
  const scores = new Map();   // by covered subplot: its title's score lines there (null: not known)
  let waiting = 0;
  if (moved) {
    for (const panel of live.panels) {
      const area = plotArea(full, panel);
      if (!area) continue;
      const kernel = live.lattice.kernels.find((k) => k.name === panel.name);
      if (!kernel || kernel.failed || !kernel.fields || !where) {
        if (!kernel || !kernel.failed) waiting += 1;
        continue;
      }
      if (paintPanel(view, context, area, panel, kernel, where, live.traces.get(panel.name))) {
        const subplot = `${panel.xaxis}/${panel.yaxis}`;
        covered.add(subplot);
        // only where the figure draws support vectors (a teacher may have turned them off), as it does
        const like = view.layers.find((l) => l.group === SV_GROUP && `${l.xaxis}/${l.yaxis}` === subplot);
        const layer = like ? supportLayer(live.lattice, kernel, where, like) : null;
        if (layer) support.set(subplot, layer);
        scores.set(subplot, scoreLines(kernel.accuracy && kernel.accuracy[where.axis][where.index]));
      }
    }
  }
  const fullData = PLOTLY.traces(view.root) || [];
  for (const field of fields) {
    const area = plotArea(full, field);
    const drawn = fullData[field.index];
    if (!area || !drawn || drawn.visible !== true || covered.has(`${field.xaxis}/${field.yaxis}`)) continue;
    paintField(context, area, field);
  }
  if (moved) {  // over the figure's own picture: the panels that cannot follow say so
    for (const panel of live.panels) {
      const kernel = live.lattice.kernels.find((k) => k.name === panel.name);
      const area = plotArea(full, panel);
      if (area && !covered.has(`${panel.xaxis}/${panel.yaxis}`)) {
        badge(context, full, area, kernel && kernel.failed ? "updates on release" : "preview not ready: updates on release");
      }
    }
    for (const panel of live.held) {
      const area = plotArea(full, panel);
      if (area) badge(context, full, area, "updates on release");
    }
  }
  // the points canvas: over a panel showing other values, no figure line nor support vectors, and
  // on the canvas above it their support vectors. The points canvas (every data point of every
  // panel) is repainted only when the covered panels change, as a drag starts and ends; at each
  // dragged value only the support vectors' canvas
  const at = moved && where ? `${where.axis}:${where.index}` : "";
  const changed = moved !== Boolean(view.dimmed) || [...covered].join() !== [...view.covered].join();
  const moves = at !== (view.supportAt || "");
  view.support = support;
  view.root._kvSupport = support;  // for tests: the support vectors drawn over the covered panels
  view.supportAt = at;
  if (changed) {
    view.dimmed = moved;
    view.covered = covered;
    drawPoints(view);
  } else if (moves) {
    drawSupport(view);
  }
  titleScores(view, scores, moved);
  titleValues(view, moved && where);
  if (!live) return;
  const root = view.controls;
  root.querySelector(".kv-live-status").textContent = moved ? previewNote(view) : live.lattice.complete
    ? "Drag γ or C: every kernel panel follows at once; release to fit there and update the scores."
    : "Drag γ or C: the panels follow once the preview is prepared (the note below); a release always fits there.";
  root.dataset.state = !moved ? "committed" : waiting ? "preparing" : "live";
  root.dataset.field = where ? `${where.axis}:${where.index}` : "";
  // what one redraw of every panel costs, for benchmarks (set before the count their observers watch)
  root.dataset.paintMs = (performance.now() - started).toFixed(2);
  root.dataset.paints = String(Number(root.dataset.paints) + 1);
}

// The translucent fields under Plotly's drawing (its first SVG), on the backgrounds Plotly leaves
// to them (split.js): the paper, then the plot's colour in each panel, then each field at its opacity.
function paintUnder(view, full, fields) {
  if (!fields.length) {
    if (view.underCanvas) view.underCanvas.remove();
    return;
  }
  const { container, drawing } = PLOTLY.layers(view.root);
  if (!container || !drawing) return;
  if (!view.underCanvas) {
    view.underCanvas = document.createElement("canvas");
    view.underCanvas.className = "kv-plot-field kv-plot-under";
  }
  if (view.underCanvas.nextSibling !== drawing) container.insertBefore(view.underCanvas, drawing);
  const context = fitCanvas(view.underCanvas, full);
  const { paper, plot } = fields[0].backdrop;
  context.fillStyle = paper;
  context.fillRect(0, 0, full.width, full.height);
  context.fillStyle = plot;
  for (const area of plotAreas(view)) context.fillRect(area.left, area.top, area.width, area.height);
  const fullData = PLOTLY.traces(view.root) || [];
  for (const field of fields) {
    const area = plotArea(full, field);
    const drawn = fullData[field.index];
    if (area && drawn && drawn.visible === true) paintField(context, area, field);
  }
}

// Mid-drag, a covered panel's title says the scores of the picture's values (support.js), or, where
// the lattice has none, keeps its name alone; the page's scores (its table, a lesson's sentence),
// which only the release computes, hide rather than stay stale (plot.css, body[data-kv-preview]).
function titleScores(view, scores, moved) {
  const marked = view.split && view.split.layout.meta && view.split.layout.meta.kv_panels;
  (marked && marked.titles ? marked.titles : []).forEach((annotation, panel) => {
    const suffix = panel === 0 ? "" : String(panel + 1);
    const subplot = `x${suffix}/y${suffix}`;
    const title = view.root.querySelector(`g.annotation[data-index="${annotation}"]`);
    if (!title) return;
    if (scores.has(subplot)) previewTitle(title, scores.get(subplot));
    else restoreTitle(title);
  });
  if (moved) document.body.dataset.kvPreview = "1";
  else delete document.body.dataset.kvPreview;
}

// Mid-drag, the figure's title says the sliders' γ and C where its figure marks its words for them
// (kernelviz.figures.TITLE_META), never the values before the drag.
function titleValues(view, moved) {
  const meta = view.split && view.split.layout.meta;
  const words = meta && meta.kv_title;
  if (!words || !moved) {
    restoreFigureTitle(view.root);
    return;
  }
  const { axes } = view.live.lattice;
  const logC = axes.log_C ? axes.log_C[view.index.log_C] : view.live.log_C;
  previewFigureTitle(view.root, titleAt(words, axes.log_gamma[view.index.log_gamma], logC));
}

function badge(context, full, area, text) {
  const size = Math.max(11, Math.round(((full.font && full.font.size) || 12)));
  context.save();
  context.font = `${size}px "Source Sans", sans-serif`;
  const width = context.measureText(text).width + 10;
  const height = size + 8;
  context.beginPath();
  context.rect(area.left, area.top, area.width, area.height);
  context.clip();
  context.fillStyle = "rgba(255, 255, 255, 0.9)";
  context.fillRect(area.left + 4, area.top + 4, width, height);
  context.strokeStyle = "#8a5a00";
  context.lineWidth = 1;
  context.strokeRect(area.left + 4.5, area.top + 4.5, width - 1, height - 1);
  context.fillStyle = "#8a5a00";
  context.textBaseline = "middle";
  context.fillText(text, area.left + 9, area.top + 4 + height / 2);
  context.restore();
}

function paintPanel(view, context, area, panel, kernel, where, traces) {
  const { lattice } = view.live;
  const { nx, ny, codec } = lattice;
  const size = nx * ny;
  const codes = kernel.fields[where.axis].subarray(where.index * size, (where.index + 1) * size);
  if (!traces || !traces.field) return false;
  const behind = background(PLOTLY.layout(view.root));
  let look;
  if (lattice.kind === "similarity") {
    look = similarityLook(codec, traces, codes, kernel.scales[where.axis][where.index],
                          10 ** lattice.axes[where.axis][where.index], behind);
  } else {
    look = lattice.classes > 2 ? classLook(traces, codes, lattice.classes)
      : decisionLook(codec, traces, codes, kernel.scales[where.axis][where.index], panel.margins !== false);
  }
  const dx = (lattice.x_range[1] - lattice.x_range[0]) / (nx - 1);
  const dy = (lattice.y_range[1] - lattice.y_range[0]) / (ny - 1);
  const toX = (gx) => area.xa.toPixel(lattice.x_range[0] + gx * dx);
  const toY = (gy) => area.ya.toPixel(lattice.y_range[0] + gy * dy);
  context.save();
  context.beginPath();
  context.rect(area.left, area.top, area.width, area.height);
  context.clip();
  context.fillStyle = behind;  // the figure's picture of other values goes under
  context.fillRect(area.left, area.top, area.width, area.height);
  // the field a cell per grid point, drawn smoothed (the browser blends the cells' colours: no
  // staircase, at the cost of the old cell-per-pixel picture; the committed figure's finer picture,
  // paintField, cost ~5× this paint at every frame); classes keep their cells
  const [left, right, top, bottom] = [toX(-0.5), toX(nx - 0.5), toY(ny - 0.5), toY(-0.5)];
  const smooth = !look.stepped;
  const factor = 1;
  const image = fieldImage(view, nx * factor, ny * factor);
  const { table } = look;
  const last = codec.top;
  // a fractional code's colour between those of the codes on either side (rounded, the codes'
  // 254 steps would show where the field is nearly flat)
  finePicture(codes, nx, ny, factor, (code) => code === codec.undefined, (out, at, code) => {
    const low = Math.min(Math.floor(code), last);
    const k = low * 4;
    const m = Math.min(low + 1, last) * 4;
    const u = code - low;
    out[at] = table[k] + (table[m] - table[k]) * u;
    out[at + 1] = table[k + 1] + (table[m + 1] - table[k + 1]) * u;
    out[at + 2] = table[k + 2] + (table[m + 2] - table[k + 2]) * u;
    out[at + 3] = table[k + 3];
  }, image.data);
  view.fieldOff.getContext("2d").putImageData(image, 0, 0);
  context.imageSmoothingEnabled = smooth;
  context.drawImage(view.fieldOff, left, top, right - left, bottom - top);
  for (const line of look.lines) {
    strokePaths(context, contourPaths(line.codes || codes, nx, ny, line.code, codec.undefined), toX, toY, line);
  }
  for (const trace of traces.lines) strokeTrace(context, trace, area);
  context.restore();
  return true;
}

function fieldImage(view, nx, ny) {
  if (!view.fieldOff || view.fieldOff.width !== nx || view.fieldOff.height !== ny) {
    view.fieldOff = document.createElement("canvas");
    view.fieldOff.width = nx;
    view.fieldOff.height = ny;
    view.fieldPixels = view.fieldOff.getContext("2d").createImageData(nx, ny);
  }
  return view.fieldPixels;
}
