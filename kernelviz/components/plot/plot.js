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
//   canvas      — draw the figure's marker-only scatter traces on a canvas over the plot (see below)
//   drawing     — a digest of figure, config and canvas: a payload with the drawing already drawn
//                 (a rerun that changed only the live preview) is not handed to Plotly again.
//                 The plot's element says data-drawing="busy" until it is drawn, then "done".
// Without a figure (kernelviz.components.plot.load_plotly) the instance only imports plotly.js.
//
// Points on a canvas. Plotly draws every marker as an SVG element: in the four-panel boundary
// figure (1,200 data markers, ~370 support-vector rings) that was two thirds of a committed
// step's Plotly.react (~0.2 of 0.3 s), while a canvas draws them in a few milliseconds. With
// `canvas`, each marker-only scatter trace is handed to Plotly with one empty point (its legend
// entry and legend clicks stay Plotly's) and its points are painted on a canvas between the
// plot's drawing and its hover layer, clipped to their subplot. The component then does what
// Plotly did for those points: their hover label (hovertemplate, customdata) and, on a click,
// the nearest point as the selected one.
//
// Fields on a canvas too. A panel's field (a heatmap with no colour bar on an even grid: a
// boundary panel's f or classes) is painted by the same canvas painter as the live preview's, so
// that a panel looks the same while a slider moves and after the release. Plotly keeps an
// invisible stand-in of the same grid (its hover and click report the cell under the mouse; the
// label is the component's). What Plotly is handed then changes, from one committed step to the
// next, only in its titles: its data revision is a digest of what it draws, and an unchanged one
// spares it recomputing every trace (Plotly.react took ~50 ms a step, ~15 ms without).

import { FINISHED_EVENT } from "../events.js";
import { mount } from "../lifecycle.js";
import { paintMarker } from "../points.js";
import { arrangePanels } from "./arrange.js";
import { editArrived, editDrawn, editing, listenForEdits } from "./edit.js";

const VIEWS = new WeakMap();
const SAME_Z = "kv_same_z_as";
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

// The payload (kernelviz.components.plot.payload): the header's length as 4 bytes, little-endian,
// the header as UTF-8 JSON, then the lattice's raw codes, which the header points into.
function decode(data) {
  const bytes = data instanceof ArrayBuffer ? new Uint8Array(data) : data;
  const length = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(0, true);
  const payload = JSON.parse(new TextDecoder().decode(bytes.subarray(4, 4 + length)));
  // a z sent once for the traces that share it (kernelviz.components.plot._shared_z): the same array in each
  const traces = (payload.figure && payload.figure.data) || [];
  for (const trace of traces) {
    if (trace.z && typeof trace.z === "object" && SAME_Z in trace.z) trace.z = traces[trace.z[SAME_Z]].z;
  }
  return { payload, body: bytes.subarray(4 + length) };
}

function selectedPoints(event) {
  return (event.points || []).map((p) => {
    const point = { x: p.x, y: p.y, curve_number: p.curveNumber, point_number: p.pointNumber,
                    point_index: p.pointIndex };
    if (p.customdata !== undefined) point.customdata = p.customdata;
    return point;
  });
}

// ---------------------------------------------------------------------------- Plotly's private fields
//
// plotly.js has no public API for where it drew a subplot or for its layers. All this component
// reads of plotly.js's internals is here: the drawn layout (`gd._fullLayout`: its size, fonts and
// colours, each axis's pixel offset and length and its data → pixel map `l2p`), the drawn traces
// (`gd._fullData`: which are visible) and the order of the SVG layers in `.svg-container`.
// `plotlyChanges(root)` lists what is not as expected, by name; the component says so on the page
// (the points and the live preview would be drawn in the wrong place), and a browser test checks
// that the list is empty on the app's figures, so an upgrade of Streamlit's plotly.js that moves
// one of them fails loudly (pyproject.toml pins the Streamlit that was tested).

const PLOTLY = {
  layout: (root) => root._fullLayout,
  traces: (root) => root._fullData,
  // {offset, length, toPixel(value)} of the axis a trace refers to ("x", "y2" …), or null
  axis(full, ref) {
    const axis = full && full[`${ref[0]}axis${ref.slice(1)}`];
    // a panel hidden while another is shown alone (arrange.js) has nowhere to paint
    if (!axis || typeof axis.l2p !== "function" || axis.visible === false) return null;
    return { offset: axis._offset, length: axis._length, toPixel: (value) => axis._offset + axis.l2p(value),
             toValue: (pixel) => axis.p2l(pixel - axis._offset) };
  },
  // Plotly's SVGs in their container: the drawing first, the hover layer last
  layers(root) {
    const container = root.querySelector(".svg-container");
    const svgs = container ? [...container.querySelectorAll(":scope > svg.main-svg")] : [];
    return { container, drawing: svgs[0] || null, hover: svgs.length > 1 ? svgs[svgs.length - 1] : null };
  },
};

function plotlyChanges(root) {
  const changes = [];
  const full = PLOTLY.layout(root);
  if (!full || !(full.width > 0) || !(full.height > 0)) changes.push("_fullLayout.width / height");
  if (!Array.isArray(PLOTLY.traces(root))) changes.push("_fullData");
  const axis = full && full.xaxis;
  if (!axis || typeof axis.l2p !== "function") changes.push("_fullLayout.xaxis.l2p");
  if (!axis || typeof axis.p2l !== "function") changes.push("_fullLayout.xaxis.p2l");
  if (!axis || !Number.isFinite(axis._offset) || !(axis._length > 0)) changes.push("_fullLayout.xaxis._offset / _length");
  const { container, drawing, hover } = PLOTLY.layers(root);
  if (!container) changes.push(".svg-container");
  if (!drawing || !hover || drawing === hover) changes.push("svg.main-svg layers");
  if (hover && !hover.querySelector(".hoverlayer")) changes.push(".hoverlayer in the last svg.main-svg");
  return changes;
}

// ---------------------------------------------------------------------------- points on a canvas

const TYPED = { f8: Float64Array, f4: Float32Array, i4: Int32Array, u4: Uint32Array, i2: Int16Array,
                u2: Uint16Array, i1: Int8Array, u1: Uint8Array, u1c: Uint8ClampedArray };

function isArray(value) {
  return Array.isArray(value) || ArrayBuffer.isView(value);
}

// A figure's array as plotly.js takes it: a list, or Plotly's base64 {dtype, bdata[, shape]}
// (rows of a 2-d one as lists).
function arrayOf(value) {
  if (!value || typeof value !== "object" || typeof value.bdata !== "string" || !TYPED[value.dtype]) return value;
  const text = atob(value.bdata);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i += 1) bytes[i] = text.charCodeAt(i);
  const flat = new TYPED[value.dtype](bytes.buffer);
  const shape = String(value.shape || "").split(",").map(Number);
  if (shape.length !== 2) return flat;
  return Array.from({ length: shape[0] }, (_, i) => Array.from(flat.subarray(i * shape[1], (i + 1) * shape[1])));
}

// Point i's value of an attribute that is one value for all points or one per point.
function pick(value, i, fallback) {
  const v = isArray(value) ? value[i] : value;
  return v === undefined || v === null ? fallback : v;
}

function first(value) {
  return isArray(value) ? value[0] : value;
}

// A legend entry's value of a marker attribute, as plotly.js's legend takes it: an array's mean, held within bounds.
function legendValue(value, [low, high]) {
  if (value === undefined || value === null) return value;
  const v = isArray(value) ? Array.from(value, Number).reduce((a, b) => a + b, 0) / value.length : Number(value);
  return Math.min(Math.max(v, low), high);
}

function onCanvas(trace) {
  return (trace.type || "scatter") === "scatter" && trace.mode === "markers" && trace.visible !== false;
}

// A trace of level lines only, with no legend entry (kernelviz.figures: f = 0, the margins, a
// class's outline): the canvas paints it from its own z with the live preview's marching squares,
// so that a line looks the same while γ moves and after the release (and Plotly's contour
// drawing, a quarter of a committed step's redraw, is not needed).
function levelsOnCanvas(trace) {
  return trace.type === "contour" && Boolean(trace.contours) && trace.contours.coloring === "none"
    && trace.showlegend === false && trace.visible !== false;
}

// Where a fractional grid index g lies along the grid's coordinates xs.
function along(xs, g) {
  const i = Math.min(Math.max(Math.floor(g), 0), xs.length - 2);
  return xs[i] + (g - i) * (xs[i + 1] - xs[i]);
}

// A level-line trace's paths in grid indices, one entry per level, found once per figure.
function levelPaths(trace) {
  const rows = arrayOf(trace.z) || [];
  const xs = Array.from(arrayOf(trace.x) || []).map(Number);
  const ys = Array.from(arrayOf(trace.y) || []).map(Number);
  const [nx, ny] = [xs.length, ys.length];
  const z = new Float64Array(nx * ny);
  rows.forEach((row, j) => { for (let i = 0; i < nx; i += 1) z[j * nx + i] = Number(row[i]); });
  const line = trace.line || {};
  return {
    xaxis: trace.xaxis || "x", yaxis: trace.yaxis || "y", xs, ys,
    line: { colour: line.color, width: line.width ?? 2, dash: line.dash },
    paths: nx > 1 && ny > 1 ? levelsOf(trace.contours).map((level) => contourPaths(z, nx, ny, level, null)) : [],
  };
}

// Values evenly spaced and increasing (a grid axis whose cells the canvas can lay out as Plotly does).
function evenlySpaced(values) {
  if (!isArray(values) || values.length < 2) return false;
  const step = (Number(values[values.length - 1]) - Number(values[0])) / (values.length - 1);
  if (!(step > 0)) return false;
  for (let i = 1; i < values.length; i += 1) {
    if (Math.abs(Number(values[i]) - Number(values[i - 1]) - step) > 1e-6 * step) return false;
  }
  return true;
}

// A heatmap the canvas paints: no colour bar (nothing outside the plot area depends on it), its
// own colour scale, cells neither smoothed nor gapped, an even grid, one value per grid point.
function fieldOnCanvas(trace) {
  if (trace.type !== "heatmap" || trace.visible === false || trace.showscale !== false) return false;
  if (trace.coloraxis || trace.zsmooth || trace.xgap || trace.ygap || trace.transpose) return false;
  if (!Array.isArray(trace.colorscale) || (trace.opacity ?? 1) !== 1) return false;
  const xs = arrayOf(trace.x);
  const ys = arrayOf(trace.y);
  const rows = arrayOf(trace.z);
  return evenlySpaced(xs) && evenlySpaced(ys) && isArray(rows) && rows.length === ys.length
    && rows.every((row) => isArray(row) && row.length === xs.length);
}

// A colour scale ([[t, colour], …]) as a function of t ∈ [0, 1] → [r, g, b], its stops parsed once.
function colourScale(scale) {
  const stops = scale.map(([at, colour]) => [Number(at), parseColour(colour)]);
  return (t) => {
    if (t <= stops[0][0]) return stops[0][1];
    for (let k = 1; k < stops.length; k += 1) {
      const [t1, c1] = stops[k];
      if (t <= t1) {
        const [t0, c0] = stops[k - 1];
        const u = t1 > t0 ? (t - t0) / (t1 - t0) : 1;
        return c0.map((v, c) => v + (c1[c] - v) * u);
      }
    }
    return stops[stops.length - 1][1];
  };
}

// A field's picture, one RGBA pixel per grid point, top row first (the grid's last): each value's
// colour on the trace's scale between zmin and zmax (its values' range where it sets none),
// clamped at the ends, and nothing where there is no value (NaN), as Plotly's heatmap draws it.
function fieldPixels(z, nx, ny, { zmin, zmax, colorscale }) {
  const colour = colourScale(colorscale);
  const span = zmax > zmin ? zmax - zmin : 1;
  const pixels = new Uint8ClampedArray(nx * ny * 4);
  for (let j = 0; j < ny; j += 1) {
    for (let i = 0; i < nx; i += 1) {
      const v = z[j * nx + i];
      if (!Number.isFinite(v)) continue;
      const target = ((ny - 1 - j) * nx + i) * 4;
      pixels.set(colour(Math.min(Math.max((v - zmin) / span, 0), 1)), target);
      pixels[target + 3] = 255;
    }
  }
  return pixels;
}

// Smooth fields. A field drawn a cell per grid point shows its boundaries as staircases of cells
// 6–10 px wide on a large panel. So the picture is made `factor` times finer than the grid, each
// fine pixel from the values interpolated (bilinearly) between the four grid points around its
// centre — the values, not the colours: a tint's edge then lies where the interpolated value
// crosses it, as the contour lines do — and drawn smoothed. Fine pixels beside a missing value
// take the nearest corner's.

// How many times finer than the grid a field's picture is made for a panel `pixels` wide: twice at
// most, the browser's smoothing does the rest (4× cost 12 ms a field, 50 ms of a committed step).
const FINEST = 2;

function fineness(pixels, cells) {
  return Math.min(Math.max(Math.ceil(pixels / Math.max(cells, 1)), 1), FINEST);
}

// A colour scale with steps (two stops at one place: a discrete one, as classes are tinted) has no
// colour between its values: such a field keeps its cells.
function stepped(scale) {
  return Array.isArray(scale) && scale.some((stop, k) => k > 0 && Number(stop[0]) === Number(scale[k - 1][0]));
}

// An RGBA picture (top row first) of `values` (ny rows from the bottom, nx columns), `factor`
// times finer: paint(pixels, at, value) writes the colour of an interpolated value; `missing(v)`
// tells a value that is not there.
function finePicture(values, nx, ny, factor, missing, paint, pixels = null) {
  const width = nx * factor;
  const height = ny * factor;
  const out = pixels || new Uint8ClampedArray(width * height * 4);
  const place = (k, n) => {  // fine pixel k's centre among n grid points: [index, weight]
    const g = Math.min(Math.max((k + 0.5) / factor - 0.5, 0), n - 1);
    const i = Math.min(Math.floor(g), Math.max(n - 2, 0));
    return [i, n > 1 ? g - i : 0];
  };
  const columns = Array.from({ length: width }, (_, u) => place(u, nx));
  for (let v = 0; v < height; v += 1) {
    const [j, ty] = place(height - 1 - v, ny);  // the picture's top row is the grid's last
    const row = j * nx;
    const above = ny > 1 ? row + nx : row;
    for (let u = 0; u < width; u += 1) {
      const [i, tx] = columns[u];
      const right = nx > 1 ? 1 : 0;
      const a = values[row + i];
      const b = values[row + i + right];
      const c = values[above + i];
      const d = values[above + i + right];
      let value;
      if (missing(a) || missing(b) || missing(c) || missing(d)) {
        value = [[a, b], [c, d]][ty < 0.5 ? 0 : 1][tx < 0.5 ? 0 : 1];
        if (missing(value)) continue;
      } else {
        value = (a * (1 - tx) + b * tx) * (1 - ty) + (c * (1 - tx) + d * tx) * ty;
      }
      paint(out, (v * width + u) * 4, value);
    }
  }
  return out;
}

// A committed field's picture `factor` times finer than its grid. Colours from a table of the
// scale at 1,024 places, each pixel's between the two around its value (rounded to the table, it
// showed steps of its own where the field is nearly flat; the scale itself is linear between its
// stops, so this is its colour).
const SCALE_STEPS = 1024;

function fieldPicture(field, factor) {
  const colour = colourScale(field.colorscale);
  const table = new Float32Array((SCALE_STEPS + 2) * 3);
  for (let k = 0; k <= SCALE_STEPS; k += 1) table.set(colour(k / SCALE_STEPS), k * 3);
  table.set(colour(1), (SCALE_STEPS + 1) * 3);
  const span = field.zmax > field.zmin ? field.zmax - field.zmin : 1;
  const pixels = finePicture(field.z, field.nx, field.ny, factor, (v) => !Number.isFinite(v), (out, at, v) => {
    const t = Math.min(Math.max((v - field.zmin) / span, 0), 1) * SCALE_STEPS;
    const k = Math.floor(t);
    const u = t - k;
    const a = k * 3;
    out[at] = table[a] + (table[a + 3] - table[a]) * u;
    out[at + 1] = table[a + 1] + (table[a + 4] - table[a + 1]) * u;
    out[at + 2] = table[a + 2] + (table[a + 5] - table[a + 2]) * u;
    out[at + 3] = 255;
  });
  const canvas = document.createElement("canvas");
  canvas.width = field.nx * factor;
  canvas.height = field.ny * factor;
  canvas.getContext("2d").putImageData(new ImageData(pixels, canvas.width, canvas.height), 0, 0);
  return canvas;
}

// What the canvas keeps of a field heatmap (its values for the hover label, its picture).
function fieldLayer(trace, index) {
  const xs = Array.from(arrayOf(trace.x), Number);
  const ys = Array.from(arrayOf(trace.y), Number);
  const [nx, ny] = [xs.length, ys.length];
  const z = new Float64Array(nx * ny);
  arrayOf(trace.z).forEach((row, j) => { for (let i = 0; i < nx; i += 1) z[j * nx + i] = row[i] === null ? NaN : Number(row[i]); });
  let [zmin, zmax] = [Number(trace.zmin), Number(trace.zmax)];
  if (!Number.isFinite(zmin) || !Number.isFinite(zmax)) {  // Plotly's default: the values' range
    const finite = z.filter(Number.isFinite);
    [zmin, zmax] = finite.length ? [Math.min(...finite), Math.max(...finite)] : [0, 1];
  }
  const look = { zmin, zmax, colorscale: trace.colorscale };
  return {
    index, xaxis: trace.xaxis || "x", yaxis: trace.yaxis || "y", xs, ys, nx, ny, z, text: arrayOf(trace.text),
    hovertemplate: trace.hovertemplate, hoverinfo: trace.hoverinfo, name: trace.name, ...look,
    pixels: fieldPixels(z, nx, ny, look), picture: null,
  };
}

// Plotly's invisible stand-in of a field: the same grid, so that its hover and click report the cell
// under the mouse, and the same values every time (zeros), so that it never needs recomputing.
const STAND_IN_ZEROS = new Map();
function fieldStandIn(trace, field) {
  const key = `${field.ny}x${field.nx}`;
  if (!STAND_IN_ZEROS.has(key)) STAND_IN_ZEROS.set(key, Array.from({ length: field.ny }, () => new Array(field.nx).fill(0)));
  return { type: "heatmap", x: field.xs, y: field.ys, z: STAND_IN_ZEROS.get(key), zmin: 0, zmax: 1, opacity: 0,
           showscale: false, hoverinfo: "none", showlegend: false, name: trace.name,
           xaxis: trace.xaxis, yaxis: trace.yaxis };
}

// A digest (FNV-1a, 32 bits) of what Plotly is handed as data, its stand-ins' zeros as their size.
function dataDigest(data, standIns) {
  const size = (trace) => `${trace.z.length}x${trace.z[0].length}`;
  const text = JSON.stringify(data.map((trace, index) => (standIns.has(index) ? { ...trace, z: size(trace) } : trace)));
  let hash = 0x811c9dc5;
  for (let k = 0; k < text.length; k += 1) {
    hash ^= text.charCodeAt(k);
    hash = Math.imul(hash, 0x01000193);
  }
  return `kv-${(hash >>> 0).toString(16)}-${text.length}`;
}

// The figure Plotly draws and what the canvas draws: the points (each marker-only trace left to
// Plotly with one empty point: the legend draws its entry from the first point's style), the level
// lines (each left as an empty trace: the traces keep their indices) and the fields (each left as
// its invisible stand-in). Plotly's data revision is the digest of what it is handed.
function splitCanvas(figure) {
  const layers = [];
  const levels = [];
  const fields = [];
  const standIns = new Set();
  const data = figure.data.map((trace, index) => {
    if (fieldOnCanvas(trace)) {
      const field = fieldLayer(trace, index);
      fields.push(field);
      standIns.add(index);
      return fieldStandIn(trace, field);
    }
    if (levelsOnCanvas(trace)) {
      levels.push(levelPaths(trace));
      return { type: "scatter", x: [], y: [], xaxis: trace.xaxis, yaxis: trace.yaxis, showlegend: false, hoverinfo: "skip" };
    }
    if (!onCanvas(trace)) return trace;
    const marker = trace.marker || {};
    const line = marker.line || {};
    const layer = {
      index, name: trace.name, group: trace.legendgroup, xaxis: trace.xaxis || "x", yaxis: trace.yaxis || "y",
      x: arrayOf(trace.x) || [], y: arrayOf(trace.y) || [], customdata: arrayOf(trace.customdata),
      hovertext: arrayOf(trace.hovertext), hovertemplate: trace.hovertemplate, hoverinfo: trace.hoverinfo,
      size: arrayOf(marker.size), symbol: marker.symbol, color: marker.color,
      // Plotly's default: markers sized one by one ("bubbles") are drawn at 0.7
      opacity: arrayOf(marker.opacity) ?? (isArray(arrayOf(marker.size)) ? 0.7 : 1),
      lineWidth: arrayOf(line.width), lineColor: line.color, px: null, py: null,
    };
    layers.push(layer);
    // what Plotly's legend draws of a trace's markers (plotly.js legend/style.js): sizes, opacities and
    // outline widths by their mean within its bounds, colours and symbols by the first; so a
    // step that changes only the support vectors' sizes hands Plotly the same entry
    const legendMarker = { ...marker, size: legendValue(layer.size, [2, 16]), symbol: first(layer.symbol),
                           color: first(layer.color), opacity: legendValue(layer.opacity, [0.2, 1]),
                           line: { ...line, width: legendValue(layer.lineWidth, [0, 5]), color: first(layer.lineColor) } };
    return { ...trace, x: [null], y: [null], customdata: undefined, hovertext: undefined, marker: legendMarker };
  });
  const layout = { ...figure.layout, datarevision: dataDigest(data, standIns) };
  return { figure: { ...figure, data, layout }, layers, levels, fields };
}

function pointsCanvas(view) {
  const { container, hover } = PLOTLY.layers(view.root);
  if (!container) return null;
  let canvas = view.canvas;
  if (!canvas) {
    canvas = document.createElement("canvas");
    canvas.className = "kv-plot-points";
    view.canvas = canvas;
  }
  if (canvas.parentNode !== container) {
    container.insertBefore(canvas, hover);  // above the plot's drawing, below the hover layer
  }
  return canvas;
}

// Paint the level lines and every visible layer's points where Plotly would have drawn them, and
// keep the points' pixel positions for hover and click. A panel the live preview covers (its field
// at other values) shows that field's own lines instead.
function drawPoints(view) {
  const full = PLOTLY.layout(view.root);
  const fullData = PLOTLY.traces(view.root);
  if (!view.layers.length && !view.levels.length) {
    if (view.canvas) view.canvas.remove();
    return;
  }
  if (!full || !fullData) return;
  const canvas = pointsCanvas(view);
  if (!canvas) return;
  const context = fitCanvas(canvas, full);
  for (const level of view.levels) {
    const area = plotArea(full, level);
    if (!area || view.covered.has(`${level.xaxis}/${level.yaxis}`)) continue;
    context.save();
    context.beginPath();
    context.rect(area.left, area.top, area.width, area.height);
    context.clip();
    const toX = (g) => area.xa.toPixel(along(level.xs, g));
    const toY = (g) => area.ya.toPixel(along(level.ys, g));
    for (const paths of level.paths) strokePaths(context, paths, toX, toY, level.line);
    context.restore();
  }
  for (const layer of view.layers) {
    layer.px = null;
    const trace = fullData[layer.index];
    const xa = PLOTLY.axis(full, layer.xaxis);
    const ya = PLOTLY.axis(full, layer.yaxis);
    // while the live preview shows a panel at other values, its support vectors (of the figure's
    // values) are not shown: the picture is the dragged value's, they would say otherwise
    const stale = layer.group === SV_GROUP && view.covered.has(`${layer.xaxis}/${layer.yaxis}`);
    if (!trace || trace.visible !== true || !xa || !ya || stale) continue;
    const n = Math.min(layer.x.length, layer.y.length);
    layer.px = new Float64Array(n);
    layer.py = new Float64Array(n);
    context.save();
    context.beginPath();
    context.rect(xa.offset, ya.offset, xa.length, ya.length);
    context.clip();
    for (let i = 0; i < n; i += 1) {
      const x = Number(layer.x[i]);
      const y = Number(layer.y[i]);
      if (!Number.isFinite(x) || !Number.isFinite(y)) {
        layer.px[i] = NaN;
        continue;
      }
      const px = xa.toPixel(x);
      const py = ya.toPixel(y);
      layer.px[i] = px;
      layer.py[i] = py;
      paintMarker(context, {
        symbol: pick(layer.symbol, i, "circle"), size: pick(layer.size, i, 6), color: pick(layer.color, i, "#444"),
        opacity: pick(layer.opacity, i, 1), line: { width: pick(layer.lineWidth, i, 0), color: pick(layer.lineColor, i, "#444") },
      }, px, py, 1);
    }
    context.restore();
  }
  // points a click added, on their way to Python: an outlined ring in every panel until they come back
  for (const point of view.added || []) {
    for (const area of plotAreas(view)) {
      paintMarker(context, { symbol: "circle-open", size: 10, color: "#262730", opacity: 1, line: { width: 2, color: "#262730" } },
                  area.xa.toPixel(point.x), area.ya.toPixel(point.y), 1);
    }
  }
}

// The canvas point under (clientX, clientY), within its marker or a few pixels of its centre:
// {layer, i}, the top-most (last drawn) of equally near ones.
function pointAt(view, clientX, clientY) {
  const box = view.root.getBoundingClientRect();
  const x = clientX - box.left;
  const y = clientY - box.top;
  let best = null;
  let bestDistance = Infinity;
  for (const layer of view.layers) {
    if (!layer.px) continue;
    for (let i = 0; i < layer.px.length; i += 1) {
      const d = Math.hypot(layer.px[i] - x, layer.py[i] - y);
      if (d <= Math.max(Number(pick(layer.size, i, 6)) / 2, 5) && d <= bestDistance) {
        best = { layer, i };
        bestDistance = d;
      }
    }
  }
  return best;
}

function formatted(value, format) {
  const number = Number(value);
  if (typeof value === "string" && !Number.isFinite(number)) return value;
  const match = /^\.(\d+)([fg])$/.exec(format || "");
  if (!match) return String(value);
  const digits = Number(match[1]);
  return match[2] === "f" ? number.toFixed(digits) : String(Number(number.toPrecision(Math.max(digits, 1))));
}

// A hovertemplate's lines as Plotly would write them: %{x}, %{y}, %{z}, %{text} and
// %{customdata[k]} from `value(name, k)`, with d3's .Nf / .Ng formats; <extra> dropped.
function templateLines(template, value) {
  const text = String(template).replace(/<extra>[\s\S]*?<\/extra>/g, "").replace(
    /%\{(x|y|z|text|customdata\[(\d+)\])(?::([^}]*))?\}/g,
    (_, name, k, format) => formatted(value(name.startsWith("customdata") ? "customdata" : name, Number(k)), format));
  return text.split(/<br\s*\/?>/i);
}

// The hover label's lines for point i of a layer, or null for none.
function hoverLines(layer, i) {
  if (layer.hoverinfo === "skip" || layer.hoverinfo === "none") return null;
  const x = layer.x[i];
  const y = layer.y[i];
  if (layer.hovertemplate) {
    return templateLines(layer.hovertemplate, (name, k) => {
      if (name === "x") return x;
      if (name === "y") return y;
      const row = pick(layer.customdata, i, []);
      return name === "customdata" ? (isArray(row) ? row[k] : row) : "";
    });
  }
  const lines = [`(${formatted(x, ".3g")}, ${formatted(y, ".3g")})`];
  const extra = pick(layer.hovertext, i, null);
  if (extra !== null) lines.push(String(extra));
  lines.push(String(layer.name || ""));
  return lines;
}

// The hover label's lines for a field's cell (row j, column i), or null for none.
function fieldLines(field, j, i) {
  if (field.hoverinfo === "skip" || field.hoverinfo === "none") return null;
  const values = { x: field.xs[i], y: field.ys[j], z: field.z[j * field.nx + i],
                   text: isArray(field.text) && isArray(field.text[j]) ? field.text[j][i] : "" };
  if (field.hovertemplate) return templateLines(field.hovertemplate, (name) => values[name] ?? "");
  return [`x: ${formatted(values.x, ".3g")}`, `y: ${formatted(values.y, ".3g")}`, `z: ${formatted(values.z, ".3g")}`];
}

// A point's label: its lines, framed in its colour (its outline's where it is transparent).
function pointLabel(found) {
  const lines = found && hoverLines(found.layer, found.i);
  if (!lines) return null;
  const colour = pick(found.layer.color, found.i, "#444");
  return { lines, colour: colour === "rgba(0,0,0,0)" ? pick(found.layer.lineColor, found.i, "#444") : colour };
}

// A field cell's label, framed in the cell's colour as Plotly frames it.
function fieldLabel(field, j, i) {
  const lines = fieldLines(field, j, i);
  if (!lines) return null;
  const at = ((field.ny - 1 - j) * field.nx + i) * 4;
  return { lines, colour: `rgb(${field.pixels[at]},${field.pixels[at + 1]},${field.pixels[at + 2]})` };
}

function showHover(view, label, clientX, clientY) {
  let box = view.hoverLabel;
  if (!box) {
    box = document.createElement("div");
    box.className = "kv-plot-hover";
    view.root.appendChild(box);
    view.hoverLabel = box;
  }
  if (!label) {
    box.style.display = "none";
    return false;
  }
  box.textContent = "";
  label.lines.forEach((line) => {
    const row = document.createElement("div");
    row.textContent = line.replace(/<[^>]*>/g, "");  // Plotly's own tags (<b>, <span>) as plain text
    box.appendChild(row);
  });
  box.style.borderColor = label.colour;
  // the figure's hover font, as Plotly's own labels take it (the projector's is larger)
  const font = (PLOTLY.layout(view.root) || {}).hoverlabel?.font;
  box.style.fontSize = font && font.size ? `${font.size}px` : "";
  const own = view.root.getBoundingClientRect();
  box.style.left = `${clientX - own.left + 12}px`;
  box.style.top = `${clientY - own.top + 12}px`;
  box.style.display = "block";
  return true;
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
    if (view.pointHovered || !field || !isArray(point.pointNumber) || !event.event) return;
    const [j, i] = point.pointNumber;
    showHover(view, fieldLabel(field, j, i), event.event.clientX, event.event.clientY);
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

// Each panel's plot area and its axes (the subplots the figure's points and fields are drawn on).
function plotAreas(view) {
  const full = PLOTLY.layout(view.root);
  const seen = new Set();
  const areas = [];
  for (const ref of [...view.layers, ...view.fields]) {
    const name = `${ref.xaxis}/${ref.yaxis}`;
    if (seen.has(name)) continue;
    seen.add(name);
    const area = plotArea(full, ref);
    if (area) areas.push({ ...area, xaxis: ref.xaxis, yaxis: ref.yaxis });
  }
  return areas;
}

function canvasSelection(view, event) {
  const mouse = event.event;
  const found = mouse && view.layers.length ? pointAt(view, mouse.clientX, mouse.clientY) : null;
  if (!found) return null;
  const { layer, i } = found;
  const point = { x: Number(layer.x[i]), y: Number(layer.y[i]), curve_number: layer.index, point_number: i,
                  point_index: i };
  const customdata = pick(layer.customdata, i, undefined);
  if (customdata !== undefined) point.customdata = customdata;
  return [point];
}

// ---------------------------------------------------------------------------- the live preview
//
// payload.live (kernelviz.ui.live.live_preview), when the figure is a view's live preview:
//   lattice   — kernelviz.lattice.Lattice.to_browser(), each field a view of the payload's body
//   log_gamma, log_C — the values the figure was drawn at
//   panels    — [{name, xaxis, yaxis, margins}]: the kernels that preview, their subplots, and
//               whether their f = ±1 are an SVM's margins (drawn dashed)
//   held      — [{name, xaxis, yaxis}]: panels with no preview (models …): they keep their picture
//   locked    — the axes whose slider the teacher's link hides
// Sent back: the trigger "commit" = {axis, log_gamma, log_C} when a slider is released, and the
// trigger "lattice_finished" when the live preview's watcher says that the lattice being
// prepared is finished or stopped (listenForFinished).
//
// One picture per panel. While the sliders stand at the figure's own values, the figure is all
// there is. Elsewhere a canvas between Plotly's drawing and the points canvas covers each
// previewing panel's plot area with its field at the sliders' values, painted as the figure
// paints it — colours and levels come from the panel's own heatmap or contour trace — then its
// contours and the lines that do not depend on γ or C (the Gaussians' ellipses). The points stay
// as drawn; the support vectors and the scores, those of the figure's values, hide until the release.

// The latest lattices this page received, by id, their fields views of the payloads they came in:
// a run that sends the same lattice again sends its id alone (kernelviz.components.plot.plot),
// also to a chart mounted anew (a view switched away and back). A few MB at most.
const LATTICES = new Map();
const LATTICES_KEPT = 3;
let missingAsked = 0;

// While its lattice is being prepared (data-waiting="1" on the controls), the page's watcher polls
// the server (kernelviz.ui.live._watch); when the lattice is finished or stopped, its poll tells the
// page (FINISHED_EVENT, ../poll/poll.js), and the figure of that kind asks for its view's run, which
// brings it — once per signal, also across remounts. The figure, because a component's trigger
// reruns only its view (a fragment): a page rerun from the watcher's fragment made the browser
// forget the sidebar's widgets (streamlit/streamlit#11266).
const SIGNALLED = new Set();

function listenForFinished(view) {
  view.onFinished = ({ detail }) => {
    if (!view.live || detail.kind !== view.live.lattice.kind || SIGNALLED.has(detail.signal)) return;
    SIGNALLED.add(detail.signal);
    if (view.setTriggerValue) view.setTriggerValue("lattice_finished", detail.signal);
  };
  document.addEventListener(FINISHED_EVENT, view.onFinished);
}

const SV_GROUP = "sv";  // kernelviz.figures.boundary_figure's legend group of the support vectors
const LIVE_AXES = ["log_gamma", "log_C"];

function createControls(view) {
  const controls = document.createElement("div");
  controls.className = "kv-live";
  controls.hidden = true;
  controls.dataset.paints = "0";
  controls.innerHTML = `
    <label class="kv-live-control" data-axis="log_gamma"><span class="kv-live-name">γ</span>
      <input type="range" min="0" max="0" step="1" value="0" aria-label="gamma"><output></output></label>
    <label class="kv-live-control" data-axis="log_C"><span class="kv-live-name">C</span>
      <input type="range" min="0" max="0" step="1" value="0" aria-label="C"><output></output></label>
    <span class="kv-live-status" role="status"></span>`;
  // under the figure: the figure comes first on the screen (a lesson's box and the view switcher
  // are above it already), the sliders right under its legend
  view.root.parentNode.insertBefore(controls, view.root.nextSibling);
  view.controls = controls;
  view.sliders = {};
  view.index = { log_gamma: 0, log_C: 0 };
  view.dragging = false;
  for (const control of controls.querySelectorAll(".kv-live-control")) {
    const axis = control.dataset.axis;
    const input = control.querySelector("input");
    view.sliders[axis] = { control, input, output: control.querySelector("output") };
    input.addEventListener("pointerdown", () => { view.dragging = true; });
    // a press without a move ends with no change event: the drag still ends here
    for (const end of ["pointerup", "pointercancel"]) input.addEventListener(end, () => { view.dragging = false; });
    input.addEventListener("input", () => {
      view.index[axis] = Number(input.value);
      showValue(view, axis);
      requestLivePaint(view);
    });
    input.addEventListener("change", () => {
      view.dragging = false;
      view.index[axis] = Number(input.value);
      const { axes } = view.live.lattice;
      const committed = { axis, log_gamma: axes.log_gamma[view.index.log_gamma],
                          log_C: axes.log_C ? axes.log_C[view.index.log_C] : view.live.log_C };
      // The request first: Streamlit sends a trigger from a timer (setTimeout 0), which waited
      // behind the frame that paints the new value (15–50 ms, then the compositor's commit), a
      // third of the way from the key to the request. The preview (the key's input event asked
      // for it too) is asked for from a timer set after Streamlit's, which runs first.
      if (view.frame) {
        cancelAnimationFrame(view.frame);
        view.frame = 0;
      }
      if (view.setTriggerValue) view.setTriggerValue("commit", committed);
      setTimeout(() => requestLivePaint(view), 0);
    });
  }
}

function nearestIndex(values, value) {
  let best = 0;
  for (let i = 1; i < values.length; i += 1) {
    if (Math.abs(values[i] - value) < Math.abs(values[best] - value)) best = i;
  }
  return best;
}

function formatPower(log) {
  const value = 10 ** log;
  return value >= 100 || value < 0.01 ? value.toExponential(1) : String(Number(value.toPrecision(2)));
}

function showValue(view, axis) {
  const values = view.live.lattice.axes[axis];
  if (values) view.sliders[axis].output.textContent = formatPower(values[view.index[axis]]);
}

// The figure's own index of each axis (where its picture holds).
function figureIndex(live, axis) {
  return nearestIndex(live.lattice.axes[axis], live[axis]);
}

function previewing(view) {
  const live = view.live;
  return LIVE_AXES.some((axis) => live.lattice.axes[axis] && view.index[axis] !== figureIndex(live, axis));
}

// Which stored field shows the sliders' (γ, C): the γ lattice holds the lattice's C only, the C
// lattice the lattice's γ only. Anything else is not in the lattice (null).
function currentField(view) {
  const { lattice } = view.live;
  const gammaHome = nearestIndex(lattice.axes.log_gamma, lattice.log_gamma);
  if (!lattice.axes.log_C) return { axis: "log_gamma", index: view.index.log_gamma };
  const cHome = nearestIndex(lattice.axes.log_C, lattice.log_C);
  if (view.index.log_C === cHome) return { axis: "log_gamma", index: view.index.log_gamma };
  if (view.index.log_gamma === gammaHome) return { axis: "log_C", index: view.index.log_C };
  return null;
}

// Each panel's traces as the painter uses them, decoded once per figure.
function panelTraces(figure, ref) {
  const own = figure.data.filter((t) => (t.xaxis || "x") === ref.xaxis && (t.yaxis || "y") === ref.yaxis);
  return {
    field: own.find((t) => t.type === "heatmap") || own.find((t) => t.type === "contour" && t.contours
                                                                     && t.contours.coloring !== "none"),
    levels: own.filter((t) => t.type === "contour" && t.contours && t.contours.coloring === "none"),
    lines: own.filter((t) => (t.type || "scatter") === "scatter" && String(t.mode || "").includes("lines"))
      .map((t) => ({ ...t, x: arrayOf(t.x) || [], y: arrayOf(t.y) || [] })),
  };
}

function updateLive(view, live, figure) {
  if (!view.controls) createControls(view);
  view.live = live;
  view.root._kvLive = live;  // for tests: the panels that preview, and where
  view.root._kvForgetLattices = () => LATTICES.clear();  // for tests: as after a reload of this module
  view.controls.hidden = !live || live.locked.length >= Object.keys(live.lattice.axes).length;
  // while the lattice of the figure's values is prepared, the live preview's watcher (poll.js) ticks
  view.controls.dataset.waiting = live && live.waiting ? "1" : "0";
  if (!live) {
    if (view.fieldCanvas) view.fieldCanvas.remove();
    view.dimmed = false;
    view.covered = new Set();  // no preview covers a panel: every level line is the figure's again
    return;
  }
  if (live.lattice.sent) {
    const kept = LATTICES.get(live.lattice.id);
    if (kept) live.lattice = kept;
    else {  // not here after all (a reloaded module): ask for it, and preview nothing meanwhile
      for (const kernel of live.lattice.kernels) kernel.fields = null;
      live.lattice.complete = false;
      if (view.setStateValue) view.setStateValue("lattice_missing", { id: live.lattice.id, ask: ++missingAsked });
    }
  } else {
    unpackLattice(live.lattice, view.body);
    LATTICES.delete(live.lattice.id);
    LATTICES.set(live.lattice.id, live.lattice);
    while (LATTICES.size > LATTICES_KEPT) LATTICES.delete(LATTICES.keys().next().value);
  }
  const { lattice } = live;
  // every kernel's lattice is there (or failed): what tests and benchmarks wait for
  view.controls.dataset.ready = String(Boolean(lattice.complete));
  // computed at the figure's own values (while a new one is prepared, the previous lattice serves)
  const near = (a, b) => (a === null && b === null) || Math.abs(a - b) < 1e-9;
  view.controls.dataset.current = String(near(lattice.log_gamma, live.log_gamma) && near(lattice.log_C, live.log_C));
  live.traces = new Map([...live.panels, ...live.held].map((p) => [p.name, panelTraces(figure, p)]));
  for (const axis of LIVE_AXES) {
    const values = lattice.axes[axis];
    const { control, input } = view.sliders[axis];
    control.hidden = !values || live.locked.includes(axis);
    if (!values) continue;
    input.max = String(values.length - 1);
    // A rerun arriving mid-drag (say, the lattice became ready) must not yank the thumb away.
    if (!view.dragging) {
      view.index[axis] = figureIndex(live, axis);
      input.value = String(view.index[axis]);
    }
    showValue(view, axis);
  }
}

// Each kernel's fields from their [offset, size] spans into views of the payload's body.
function unpackLattice(lattice, body) {
  const size = lattice.nx * lattice.ny;
  for (const kernel of lattice.kernels) {
    if (!kernel.fields) continue;
    for (const axis of Object.keys(kernel.fields)) {
      const [offset, length] = kernel.fields[axis];
      if (length !== size * lattice.axes[axis].length) throw new Error(`the ${kernel.name} lattice has the wrong size`);
      kernel.fields[axis] = body.subarray(offset, offset + length);
    }
  }
}

function requestLivePaint(view) {
  if (view.frame) return;
  view.frame = requestAnimationFrame(() => {
    view.frame = 0;
    paintFields(view);
  });
}

// A canvas the size of the figure, its context scaled to CSS pixels.
function fitCanvas(canvas, full) {
  const ratio = window.devicePixelRatio || 1;
  const width = Math.round(full.width);
  const height = Math.round(full.height);
  if (canvas.width !== width * ratio || canvas.height !== height * ratio) {
    canvas.width = width * ratio;
    canvas.height = height * ratio;
    canvas.style.width = `${width}px`;
    canvas.style.height = `${height}px`;
  }
  const context = canvas.getContext("2d");
  context.setTransform(ratio, 0, 0, ratio, 0, 0);
  context.clearRect(0, 0, width, height);
  return context;
}

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
function paintFields(view) {
  const live = view.live;
  const full = PLOTLY.layout(view.root);
  if (!full) return;
  if (!live && !view.fields.length) {
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
        covered.add(`${panel.xaxis}/${panel.yaxis}`);
      }
    }
  }
  const fullData = PLOTLY.traces(view.root) || [];
  for (const field of view.fields) {
    const area = plotArea(full, field);
    const drawn = fullData[field.index];
    if (!area || !drawn || drawn.visible !== true || covered.has(`${field.xaxis}/${field.yaxis}`)) continue;
    paintField(view, context, area, field);
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
  // the points canvas: no support vectors, and no figure line, over a panel showing other values
  if (moved !== Boolean(view.dimmed) || [...covered].join() !== [...view.covered].join()) {
    view.dimmed = moved;
    view.covered = covered;
    drawPoints(view);
  }
  staleScores(view, covered, moved);
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

// A field of the figure in its plot area: each value fills the cell around its grid point.
function paintField(view, context, area, field) {
  const { xs, ys, nx, ny } = field;
  const dx = (xs[nx - 1] - xs[0]) / (nx - 1);
  const dy = (ys[ny - 1] - ys[0]) / (ny - 1);
  const [left, right] = [area.xa.toPixel(xs[0] - dx / 2), area.xa.toPixel(xs[nx - 1] + dx / 2)];
  const [top, bottom] = [area.ya.toPixel(ys[ny - 1] + dy / 2), area.ya.toPixel(ys[0] - dy / 2)];
  const smooth = !stepped(field.colorscale);
  const factor = smooth ? fineness((right - left) * (window.devicePixelRatio || 1), nx) : 1;
  if (!field.picture || field.picture.factor !== factor) {
    field.picture = { factor, canvas: fieldPicture(field, factor) };
  }
  context.save();
  context.beginPath();
  context.rect(area.left, area.top, area.width, area.height);
  context.clip();
  context.imageSmoothingEnabled = smooth;
  context.drawImage(field.picture.canvas, left, top, right - left, bottom - top);
  context.restore();
}

// Mid-drag, what belongs to the figure's values and not to the picture is hidden, never shown stale:
// a covered panel's title keeps its name and hides its scores (the lines under it), and the page's
// scores (its table, a lesson's sentence) hide too (plot.css, body[data-kv-preview]).
function staleScores(view, covered, moved) {
  const marked = view.split && view.split.layout.meta && view.split.layout.meta.kv_panels;
  (marked && marked.titles ? marked.titles : []).forEach((annotation, panel) => {
    const suffix = panel === 0 ? "" : String(panel + 1);
    const title = view.root.querySelector(`g.annotation[data-index="${annotation}"]`);
    if (title) title.classList.toggle("kv-stale", covered.has(`x${suffix}/y${suffix}`));
  });
  if (moved) document.body.dataset.kvPreview = "1";
  else delete document.body.dataset.kvPreview;
}

function previewNote(view) {
  const { live } = view;
  const at = (source) => LIVE_AXES.filter((axis) => live.lattice.axes[axis])
    .map((axis) => `${axis === "log_gamma" ? "γ" : "C"} = ${formatPower(source(axis))}`).join(", ");
  const preview = at((axis) => live.lattice.axes[axis][view.index[axis]]);
  const figure = at((axis) => live[axis]);
  if (live.lattice.kind !== "decision") return `Preview at ${preview}: release to label its level curves.`;
  return `Preview at ${preview}: support vectors and scores show when you release (the figure's are those of ${figure}).`;
}

function plotArea(full, ref) {
  const xa = PLOTLY.axis(full, ref.xaxis);
  const ya = PLOTLY.axis(full, ref.yaxis);
  if (!xa || !ya || !xa.length || !ya.length) return null;
  return { xa, ya, left: xa.offset, top: ya.offset, width: xa.length, height: ya.length };
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

// ---- colours

// CSS's named colours (CSS Color Module Level 4, §6.1), which Plotly accepts wherever it takes a colour
const NAMED = new Map((
  "aliceblue:f0f8ff antiquewhite:faebd7 aqua:00ffff aquamarine:7fffd4 azure:f0ffff beige:f5f5dc " +
  "bisque:ffe4c4 black:000000 blanchedalmond:ffebcd blue:0000ff blueviolet:8a2be2 brown:a52a2a " +
  "burlywood:deb887 cadetblue:5f9ea0 chartreuse:7fff00 chocolate:d2691e coral:ff7f50 cornflowerblue:6495ed " +
  "cornsilk:fff8dc crimson:dc143c cyan:00ffff darkblue:00008b darkcyan:008b8b darkgoldenrod:b8860b " +
  "darkgray:a9a9a9 darkgreen:006400 darkgrey:a9a9a9 darkkhaki:bdb76b darkmagenta:8b008b " +
  "darkolivegreen:556b2f darkorange:ff8c00 darkorchid:9932cc darkred:8b0000 darksalmon:e9967a " +
  "darkseagreen:8fbc8f darkslateblue:483d8b darkslategray:2f4f4f darkslategrey:2f4f4f darkturquoise:00ced1 " +
  "darkviolet:9400d3 deeppink:ff1493 deepskyblue:00bfff dimgray:696969 dimgrey:696969 dodgerblue:1e90ff " +
  "firebrick:b22222 floralwhite:fffaf0 forestgreen:228b22 fuchsia:ff00ff gainsboro:dcdcdc ghostwhite:f8f8ff " +
  "gold:ffd700 goldenrod:daa520 gray:808080 green:008000 greenyellow:adff2f grey:808080 honeydew:f0fff0 " +
  "hotpink:ff69b4 indianred:cd5c5c indigo:4b0082 ivory:fffff0 khaki:f0e68c lavender:e6e6fa " +
  "lavenderblush:fff0f5 lawngreen:7cfc00 lemonchiffon:fffacd lightblue:add8e6 lightcoral:f08080 " +
  "lightcyan:e0ffff lightgoldenrodyellow:fafad2 lightgray:d3d3d3 lightgreen:90ee90 lightgrey:d3d3d3 " +
  "lightpink:ffb6c1 lightsalmon:ffa07a lightseagreen:20b2aa lightskyblue:87cefa lightslategray:778899 " +
  "lightslategrey:778899 lightsteelblue:b0c4de lightyellow:ffffe0 lime:00ff00 limegreen:32cd32 linen:faf0e6 " +
  "magenta:ff00ff maroon:800000 mediumaquamarine:66cdaa mediumblue:0000cd mediumorchid:ba55d3 " +
  "mediumpurple:9370db mediumseagreen:3cb371 mediumslateblue:7b68ee mediumspringgreen:00fa9a " +
  "mediumturquoise:48d1cc mediumvioletred:c71585 midnightblue:191970 mintcream:f5fffa mistyrose:ffe4e1 " +
  "moccasin:ffe4b5 navajowhite:ffdead navy:000080 oldlace:fdf5e6 olive:808000 olivedrab:6b8e23 " +
  "orange:ffa500 orangered:ff4500 orchid:da70d6 palegoldenrod:eee8aa palegreen:98fb98 paleturquoise:afeeee " +
  "palevioletred:db7093 papayawhip:ffefd5 peachpuff:ffdab9 peru:cd853f pink:ffc0cb plum:dda0dd " +
  "powderblue:b0e0e6 purple:800080 rebeccapurple:663399 red:ff0000 rosybrown:bc8f8f royalblue:4169e1 " +
  "saddlebrown:8b4513 salmon:fa8072 sandybrown:f4a460 seagreen:2e8b57 seashell:fff5ee sienna:a0522d " +
  "silver:c0c0c0 skyblue:87ceeb slateblue:6a5acd slategray:708090 slategrey:708090 snow:fffafa " +
  "springgreen:00ff7f steelblue:4682b4 tan:d2b48c teal:008080 thistle:d8bfd8 tomato:ff6347 turquoise:40e0d0 " +
  "violet:ee82ee wheat:f5deb3 white:ffffff whitesmoke:f5f5f5 yellow:ffff00 yellowgreen:9acd32"
).split(" ").map((entry) => entry.split(":")));

// A colour as [r, g, b]: #rgb, #rrggbb, rgb()/rgba() or a CSS name (plotly_white's backgrounds are
// "white"). Anything else is an error: read as no numbers at all, a name was painted black.
function parseColour(text) {
  const value = String(text).trim().toLowerCase();
  const hex = NAMED.get(value) ?? (/^#([0-9a-f]{3}|[0-9a-f]{6})$/.test(value) ? value.slice(1) : null);
  if (hex !== null) {
    const full = hex.length === 3 ? hex.split("").map((c) => c + c).join("") : hex;
    return [0, 2, 4].map((i) => parseInt(full.slice(i, i + 2), 16));
  }
  const match = /^rgba?\(\s*([\d.]+)\s*,\s*([\d.]+)\s*,\s*([\d.]+)\s*(,\s*[\d.]+\s*)?\)$/.exec(value);
  if (match) return match.slice(1, 4).map(Number);
  throw new Error(`the colour ${JSON.stringify(String(text))} is not one the figure painter reads (#hex, rgb(), rgba() or a CSS name)`);
}

function transparent(text) {
  const value = String(text || "").replace(/\s/g, "");
  return !value || value === "transparent" || /^rgba\(.*,0(\.0*)?\)$/.test(value);
}

// What the plot area shows where nothing is drawn: its own colour, else the paper's, else white.
function background(full) {
  return [full.plot_bgcolor, full.paper_bgcolor].find((colour) => !transparent(colour)) || "#ffffff";
}

// Plotly's linear interpolation of a colour scale ([[t, colour], …]) at t in [0, 1].
function rgb(colour) {
  return `rgb(${colour.map((v) => Math.round(v)).join(",")})`;
}

// ---- what a panel looks like at a field: the colour of each code (256 RGBA entries, null for
// none) and the levels to stroke, as code levels

function codeHistogram(codes, undefinedCode) {
  const counts = new Uint32Array(256);
  for (let i = 0; i < codes.length; i += 1) counts[codes[i]] += 1;
  counts[undefinedCode] = 0;
  return counts;
}

// The q-quantile of value(code) over the defined codes (to the code's bucket).
function quantile(counts, value, q) {
  const order = [];
  let total = 0;
  for (let code = 0; code < 256; code += 1) {
    if (counts[code]) {
      order.push([value(code), counts[code]]);
      total += counts[code];
    }
  }
  if (!total) return NaN;
  order.sort((a, b) => a[0] - b[0]);
  let seen = 0;
  for (const [v, n] of order) {
    seen += n;
    if (seen >= q * total) return v;
  }
  return order[order.length - 1][0];
}

// kernelviz.figures.nice_levels' step for levels spanning [0, top] about `count` at a time.
function niceStep(top, count) {
  if (!(top > 0)) return 1;
  const raw = top / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 2.5, 5, 10].map((m) => m * power).find((v) => v >= raw);
}

function levelsOf(contours) {
  const { start, end, size } = contours;
  const levels = [];
  for (let v = start; v <= end + size * 1e-9 && levels.length < 100; v += size) levels.push(v);
  return levels;
}

// A field of f (codes of f / scale: a model without margins stores its f over its own scale,
// kernelviz.lattice.panel_codes); `margins`: the panel is an SVM's, whose f = ±1 means something.
function decisionLook(codec, traces, codes, scale = 1, margins = true) {
  const step = (codec.hi - codec.lo) / (codec.top + 1);
  const value = (code) => (codec.lo + (code + 0.5) * step) * scale;
  // kernelviz.figures._binary_regions: tints saturate at the 95th percentile of |f|, within [1, 3]
  // for an SVM, as it is for the other models
  const found = quantile(codeHistogram(codes, codec.undefined), (code) => Math.abs(value(code)), 0.95);
  const spread = Number.isFinite(found) ? found : 1;
  const limit = margins ? Math.min(Math.max(spread, 1), 3) : Math.max(spread, 1e-12);
  const table = new Uint8ClampedArray(256 * 4);
  const colour = colourScale(traces.field.colorscale);
  for (let code = 0; code <= codec.top; code += 1) {
    table.set([...colour(Math.min(Math.max((value(code) + limit) / (2 * limit), 0), 1)), 255], code * 4);
  }
  const toCode = (f) => (f / scale - codec.lo) / step - 0.5;
  const lines = traces.levels.flatMap((trace) => levelsOf(trace.contours).map((f) => ({
    code: toCode(f), colour: trace.line.color, width: trace.line.width, dash: trace.line.dash })));
  return { table, lines };
}

// More than two classes: each code is a class index (kernelviz.lattice), tinted as the figure's
// discrete heatmap tints it; each class's region is outlined by the level 0.5 of its indicator.
function classLook(traces, codes, classes) {
  const table = new Uint8ClampedArray(256 * 4);
  const colour = colourScale(traces.field.colorscale);
  for (let j = 0; j < classes; j += 1) table.set([...colour((j + 0.5) / classes), 255], j * 4);
  const line = (traces.levels[0] || { line: { color: "#000000", width: 2 } }).line;
  const lines = [];
  for (let j = 0; j < classes; j += 1) {
    lines.push({ code: 0.5, codes: codes.map((c) => (c === j ? 1 : 0)), colour: line.color, width: line.width, dash: line.dash });
  }
  return { table, lines, stepped: true };  // a class index has no value between two classes
}

// Similarity panels store the dissimilarity d as a share of the field's largest (kernelviz.lattice):
// the shaded view is s = exp(−γ d²) in filled bands, the other d's level curves.
function similarityLook(codec, traces, codes, scale, gamma, behind) {
  const step = (codec.hi - codec.lo) / (codec.top + 1);
  const distance = (code) => (codec.lo + (code + 0.5) * step) * scale;
  const toCode = (d) => d / scale / step - 0.5;
  const trace = traces.field;
  const contours = trace.contours;
  const table = new Uint8ClampedArray(256 * 4);
  const lines = [];
  if (contours.coloring === "lines") {
    // kernelviz.figures.similarity_figure: levels every nice step up to 12 of them, the step from
    // the 70th percentile of d; each level coloured along the scale over the field's range
    const top = quantile(codeHistogram(codes, codec.undefined), distance, 0.7);
    const size = niceStep(top, 9);
    const colour = parseColour(behind);
    for (let code = 0; code < 256; code += 1) table.set([...colour, 255], code * 4);
    for (let k = 1; k <= 12; k += 1) {
      const d = k * size;
      lines.push({ code: toCode(d), colour: rgb(colourScale(trace.colorscale)(Math.min(d / scale, 1))),
                   width: trace.line.width });
    }
    return { table, lines };
  }
  // filled bands between the levels, each the scale's colour at its middle
  const levels = levelsOf(contours);
  const size = contours.size;
  const [zmin, zmax] = [trace.zmin ?? 0, trace.zmax ?? 1];
  const colour = colourScale(trace.colorscale);
  for (let code = 0; code < 256; code += 1) {
    const s = code === codec.undefined ? 0 : Math.exp(-gamma * distance(code) ** 2);
    const band = levels.filter((level) => s >= level).length;
    const middle = band === 0 ? levels[0] - size / 2 : levels[band - 1] + size / 2;
    table.set([...colour(Math.min(Math.max((middle - zmin) / (zmax - zmin), 0), 1)), 255], code * 4);
  }
  for (const level of levels) {
    lines.push({ code: toCode(Math.sqrt(-Math.log(level) / gamma)), colour: trace.line.color, width: trace.line.width });
  }
  return { table, lines };
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

// Marching squares on the codes at a (fractional) code level, cells touching an undefined value
// skipped, and the segments joined into paths (a dash pattern restarts on every path). Corners: a
// bottom-left, b bottom-right, c top-right, d top-left; a crossing is keyed by its cell edge,
// which at most two segments share.
function contourPaths(codes, nx, ny, level, undefinedCode) {
  const segments = [];
  const cross = (v0, v1) => (level - v0) / (v1 - v0);
  for (let j = 0; j < ny - 1; j += 1) {
    for (let i = 0; i < nx - 1; i += 1) {
      const a = codes[j * nx + i];
      const b = codes[j * nx + i + 1];
      const c = codes[(j + 1) * nx + i + 1];
      const d = codes[(j + 1) * nx + i];
      if (a === undefinedCode || b === undefinedCode || c === undefinedCode || d === undefinedCode) continue;
      if (a !== a || b !== b || c !== c || d !== d) continue;  // NaN (a figure's own z): no value, as in Plotly
      const mask = (a >= level) | ((b >= level) << 1) | ((c >= level) << 2) | ((d >= level) << 3);
      if (mask === 0 || mask === 15) continue;
      const bottom = () => ({ key: 2 * (j * nx + i), x: i + cross(a, b), y: j });
      const top = () => ({ key: 2 * ((j + 1) * nx + i), x: i + cross(d, c), y: j + 1 });
      const left = () => ({ key: 2 * (j * nx + i) + 1, x: i, y: j + cross(a, d) });
      const right = () => ({ key: 2 * (j * nx + i + 1) + 1, x: i + 1, y: j + cross(b, c) });
      if (mask === 5) segments.push([bottom(), left()], [right(), top()]);
      else if (mask === 10) segments.push([bottom(), right()], [top(), left()]);
      else {
        const edges = [];
        if ((mask & 1) !== ((mask >> 1) & 1)) edges.push(bottom());
        if (((mask >> 1) & 1) !== ((mask >> 2) & 1)) edges.push(right());
        if (((mask >> 2) & 1) !== ((mask >> 3) & 1)) edges.push(top());
        if (((mask >> 3) & 1) !== (mask & 1)) edges.push(left());
        segments.push(edges);
      }
    }
  }
  const at = new Map();
  segments.forEach((segment, k) => {
    for (const point of segment) {
      const list = at.get(point.key);
      if (list) list.push(k);
      else at.set(point.key, [k]);
    }
  });
  const used = new Uint8Array(segments.length);
  const paths = [];
  for (let k = 0; k < segments.length; k += 1) {
    if (used[k]) continue;
    used[k] = 1;
    const forward = [segments[k][1]];
    const backward = [segments[k][0]];
    for (const end of [forward, backward]) {
      for (;;) {
        const last = end[end.length - 1];
        const next = (at.get(last.key) || []).find((m) => !used[m]);
        if (next === undefined) break;
        used[next] = 1;
        const [p, q] = segments[next];
        end.push(p.key === last.key ? q : p);
      }
    }
    paths.push([...backward.reverse(), ...forward]);
  }
  return paths;
}

// Plotly's dash patterns (plotly.js Drawing.dashStyle): in multiples of the width, at least 3 px.
function dashOf(dash, width) {
  const unit = Math.max(width, 3);
  return { dot: [unit, unit], dash: [3 * unit, 3 * unit], longdash: [5 * unit, 5 * unit],
           dashdot: [3 * unit, unit, unit, unit], longdashdot: [5 * unit, 2 * unit, unit, 2 * unit] }[dash] || [];
}

function strokePaths(context, paths, toX, toY, line) {
  context.beginPath();
  for (const path of paths) {
    path.forEach((p, k) => (k ? context.lineTo(toX(p.x), toY(p.y)) : context.moveTo(toX(p.x), toY(p.y))));
  }
  const width = Number(line.width ?? 1);
  context.setLineDash(dashOf(line.dash, width));
  context.strokeStyle = line.colour || "#000000";
  context.lineWidth = width;
  context.lineJoin = "round";
  context.stroke();
  context.setLineDash([]);
}

// A line trace of the figure (an ellipse), filled as Plotly fills "toself".
function strokeTrace(context, trace, area) {
  const n = Math.min(trace.x.length, trace.y.length);
  if (!n || trace.visible === false) return;
  context.beginPath();
  for (let i = 0; i < n; i += 1) {
    const px = area.xa.toPixel(Number(trace.x[i]));
    const py = area.ya.toPixel(Number(trace.y[i]));
    if (i) context.lineTo(px, py);
    else context.moveTo(px, py);
  }
  const line = trace.line || {};
  if (trace.fill === "toself" && trace.fillcolor) {
    context.fillStyle = trace.fillcolor;
    context.fill();
  }
  context.setLineDash(dashOf(line.dash, Number(line.width ?? 2)));
  context.strokeStyle = line.color || "#444444";
  context.lineWidth = Number(line.width ?? 2);
  context.stroke();
  context.setLineDash([]);
}

// ---------------------------------------------------------------------------- the component

function createView(parent) {
  const root = document.createElement("div");
  root.className = "kv-plot";
  parent.appendChild(root);
  const view = { root, payload: null, body: null, listening: false, setStateValue: null,
                 setTriggerValue: null, resize: null, layers: [], canvas: null, hoverLabel: null,
                 live: null, controls: null, fieldCanvas: null, fields: [], pointHovered: false, dimmed: false, frame: 0,
                 drawing: null, drawn: Promise.resolve(), onFinished: null, levels: [], covered: new Set(),
                 split: null, solo: null, box: null, onKey: null, onWindow: null, runEnd: null, edit: null,
                 added: [] };
  // The figure follows the column's width, and small multiples the screen's height too
  // (arrange.js). Hidden (no width) there is nothing to fit, and Plotly refuses; back at the size
  // it was drawn for, a resize would only draw it all again.
  view.resize = new ResizeObserver(() => fitToScreen(view));
  view.resize.observe(root);
  // the elements above the figure (a lesson's sentence, a warning) arrive after it: its room changes
  view.resize.observe(document.body);
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

// The box a figure of small multiples may fill: the column's width, and the screen's height below
// the figure's top (all of it, less a little, where the figure starts lower than half the screen),
// never under 55 % of the screen.
function screenBox(view) {
  const screen = window.innerHeight || 900;
  // the figure's top in the page as it stands scrolled to its start (Streamlit scrolls its main
  // section, not the window)
  let top = view.root.getBoundingClientRect().top + (window.scrollY || 0);
  for (let e = view.root.parentElement; e; e = e.parentElement) top += e.scrollTop || 0;
  const room = top < screen / 2 ? screen - top - 16 : screen * 0.9;
  return { width: Math.round(view.root.clientWidth), height: Math.round(Math.max(room, screen * 0.55)) };
}

// The figure Plotly draws: the split figure, its small multiples laid out for the screen.
function arranged(view) {
  const figure = view.split;
  view.box = screenBox(view);
  view.root.dataset.box = `${view.box.width}x${view.box.height}`;  // the room it was laid out for
  const result = arrangePanels(figure, view.box, view.solo);
  if (!result) {
    // a view's own figure (the page's first) of another kind — curves, heatmaps — fills the screen's
    // height below it as the small multiples do; the figures under it keep their own height
    const own = document.querySelector(".kv-plot") === view.root;
    const height = Number(figure.layout.height) || 450;
    const filled = own && height < view.box.height ? view.box.height : height;
    return { ...figure, layout: { ...figure.layout, width: view.box.width, height: filled } };
  }
  view.root.dataset.panels = `${result.rows}x${result.cols}`;
  const revision = `${figure.layout.datarevision}${view.solo === null ? "" : `-alone${view.solo}`}`;
  return { ...figure, data: result.data, layout: { ...result.layout, width: view.box.width, datarevision: revision } };
}

// The figure laid out again (a new screen size, a panel shown alone): the element says
// data-arranging="1" until Plotly has drawn it.
function redrawArranged(view) {
  if (!window.Plotly || !view.split) return;
  view.root.dataset.solo = view.solo === null ? "" : String(view.solo);
  view.root.dataset.arranging = "1";
  const figure = arranged(view);
  view.root.style.minHeight = `${figure.layout.height || 450}px`;
  view.drawn = view.drawn.then(() => window.Plotly.react(view.root, figure.data, figure.layout, view.payload.config))
    .finally(() => { view.root.dataset.arranging = "0"; });
}

// While the script runs, the elements above the figure come and go (a "Fitting the SVMs …" note,
// a lesson's sentence filled in last): the figure is laid out again once, when the run is over,
// not at each of them (each a Plotly.react of 50–100 ms inside a committed step).
function scriptRunning(view) {
  const app = document.querySelector('[data-testid="stApp"]');
  if (!app || app.getAttribute("data-test-script-state") !== "running") return false;
  if (!view.runEnd) {
    view.runEnd = new MutationObserver(() => {
      if (app.getAttribute("data-test-script-state") === "running") return;
      view.runEnd.disconnect();
      view.runEnd = null;
      fitToScreen(view);
    });
    view.runEnd.observe(app, { attributes: true, attributeFilter: ["data-test-script-state"] });
  }
  return true;
}

function fitToScreen(view) {
  const full = PLOTLY.layout(view.root);
  if (!window.Plotly || !full || !view.split || view.root.clientWidth === 0 || scriptRunning(view)) return;
  const box = screenBox(view);
  if (view.box && Math.abs(box.width - view.box.width) < 2 && Math.abs(box.height - view.box.height) < 8) return;
  redrawArranged(view);
}

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
    // for tests and benchmarks: the latest move of a dragged point whose refitted figure is drawn
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
    view.drawn = Plotly.react(view.root, figure.data, figure.layout, payload.config).then(() => {
      if (!view.listening) {
        view.listening = true;
        listenForPoints(view);
        listenForTitles(view);
        view.root.on("plotly_click", (event) => {
          if (!view.payload.selectable) return;
          // where points can be edited, a click on empty space adds one: it selects nothing
          const points = canvasSelection(view, event) || (editing(view) ? null : selectedPoints(event));
          if (points) view.setStateValue("selection", { revision: view.payload.revision, points });
        });
        listenForEdits(view, EDIT_HOOKS);
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
    showError(view, error.message || String(error));
  });
  return cleanup((gone) => {
    gone.resize.disconnect();
    document.removeEventListener(FINISHED_EVENT, gone.onFinished);
    document.removeEventListener("keydown", gone.onKey);
    if (gone.runEnd) gone.runEnd.disconnect();
    window.removeEventListener("resize", gone.onWindow);
    if (gone.frame) cancelAnimationFrame(gone.frame);
    if (gone.controls) gone.controls.remove();
    if (window.Plotly) window.Plotly.purge(gone.root);
  });
}

// The painter's pure parts, for the unit tests (tests/js/, node --test); Streamlit uses the default export.
export { along, classLook, contourPaths, dashOf, decisionLook, decode, fieldLines, fieldPixels, finePicture, fineness, hoverLines, parseColour, plotlyChanges, niceStep,
         quantile, codeHistogram, colourScale, similarityLook, splitCanvas, unpackLattice };
