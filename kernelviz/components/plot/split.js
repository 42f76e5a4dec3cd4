// A figure taken apart once per figure (splitCanvas): what Plotly draws, and what the component's
// canvases paint.
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

import { arrayOf, first, isArray } from "./arrays.js";
import { contourPaths, crossingsAt, levelsOf } from "./contours.js";
import { colourScale, rgb } from "./colours.js";
import { fieldPixels, stepped } from "./pictures.js";
import { classRegions } from "./regions.js";

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
export function along(xs, g) {
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
    paths: nx > 1 && ny > 1
      ? levelsOf(trace.contours).map((level) => contourPaths(z, nx, ny, level, null, crossingsAt(trace.meta, level))) : [],
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
// own colour scale, cells neither smoothed nor gapped, an even grid, one value per grid point
// (at any opacity: its picture is laid over the plot at it, as Plotly lays its own).
function fieldOnCanvas(trace) {
  if (trace.type !== "heatmap" || trace.visible === false || trace.showscale !== false) return false;
  if (trace.coloraxis || trace.zsmooth || trace.xgap || trace.ygap || trace.transpose) return false;
  const opacity = trace.opacity ?? 1;
  if (!Array.isArray(trace.colorscale) || !(opacity > 0 && opacity <= 1)) return false;
  const xs = arrayOf(trace.x);
  const ys = arrayOf(trace.y);
  const rows = arrayOf(trace.z);
  return evenlySpaced(xs) && evenlySpaced(ys) && isArray(rows) && rows.length === ys.length
    && rows.every((row) => isArray(row) && row.length === xs.length);
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
  const field = {
    index, xaxis: trace.xaxis || "x", yaxis: trace.yaxis || "y", xs, ys, nx, ny, z, text: arrayOf(trace.text),
    hovertemplate: trace.hovertemplate, hoverinfo: trace.hoverinfo, name: trace.name, ...look,
    opacity: trace.opacity ?? 1, pixels: fieldPixels(z, nx, ny, look), picture: null, regions: null,
  };
  // a class field that brings where its classes change along the grid's edges: its regions as polygons
  const crossings = stepped(trace.colorscale) ? crossingsAt(trace.meta, "classes") : null;
  if (crossings) {
    const colour = colourScale(trace.colorscale);
    const span = zmax > zmin ? zmax - zmin : 1;
    field.regions = classRegions(field, crossings, (v) => rgb(colour(Math.min(Math.max((v - zmin) / span, 0), 1))));
  }
  return field;
}

// Plotly's invisible stand-in of a field: one cell from its grid's first value to its last (x and y
// as the cell's edges), the axes' range, so that Plotly reports a hover and a click anywhere over the
// field; the component finds the field's own cell under the mouse (markers.js fieldCellAt). It is the
// same whatever the field's values and resolution: a stand-in of the field's own cells changed at a
// dragged point's release (its frames are coarser than the committed figure), and Plotly recomputed
// every trace (~90 ms of the four-panel figure's release).
function fieldStandIn(trace, field) {
  return { type: "heatmap", x: [field.xs[0], field.xs[field.nx - 1]], y: [field.ys[0], field.ys[field.ny - 1]], z: [[0]],
           zmin: 0, zmax: 1, opacity: 0, showscale: false, hoverinfo: "none", showlegend: false, name: trace.name,
           xaxis: trace.xaxis, yaxis: trace.yaxis };
}

// A digest (FNV-1a, 32 bits) of what Plotly is handed as data.
function dataDigest(data) {
  const text = JSON.stringify(data);
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
export function splitCanvas(figure) {
  const layers = [];
  const levels = [];
  const fields = [];
  const data = figure.data.map((trace, index) => {
    if (fieldOnCanvas(trace)) {
      const field = fieldLayer(trace, index);
      fields.push(field);
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
    // outline widths by their mean within its bounds, colours by the first; so a step that changes
    // only the support vectors' sizes hands Plotly the same entry. Symbols one by one (a support
    // vector's square at the bound C) by the first in order of those drawn, not the first point's,
    // which a moved point's refit changes: Plotly would then recompute every trace for its legend.
    const symbol = isArray(layer.symbol) ? [...new Set(layer.symbol)].sort()[0] : layer.symbol;
    const legendMarker = { ...marker, size: legendValue(layer.size, [2, 16]), symbol,
                           color: first(layer.color), opacity: legendValue(layer.opacity, [0.2, 1]),
                           line: { ...line, width: legendValue(layer.lineWidth, [0, 5]), color: first(layer.lineColor) } };
    return { ...trace, x: [null], y: [null], customdata: undefined, hovertext: undefined, marker: legendMarker };
  });
  let layout = { ...figure.layout, datarevision: dataDigest(data) };
  // A translucent field (a partition's regions) lies under Plotly's drawing (paint.js), as Plotly's
  // own heatmap lay under its other traces: the ellipses and centres drawn over it keep their colours.
  // Plotly's backgrounds, which would hide it, are then the canvas's to paint.
  const under = fields.filter((field) => field.opacity < 1);
  if (under.length) {
    const template = (figure.layout.template && figure.layout.template.layout) || {};
    const paper = figure.layout.paper_bgcolor ?? template.paper_bgcolor ?? "#ffffff";
    const plot = figure.layout.plot_bgcolor ?? template.plot_bgcolor ?? paper;
    for (const field of under) Object.assign(field, { under: true, backdrop: { paper, plot } });
    layout = { ...layout, paper_bgcolor: "rgba(0,0,0,0)", plot_bgcolor: "rgba(0,0,0,0)" };
  }
  return { figure: { ...figure, data, layout }, layers, levels, fields };
}
