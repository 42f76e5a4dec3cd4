// The figure's points on the canvas (the layers splitCanvas took from Plotly): painted where Plotly
// would have drawn them, and found again under the mouse for hover and click.

import { paintMarker } from "../points.js";
import { pick } from "./arrays.js";
import { strokePaths } from "./contours.js";
import { fieldCell } from "./hover.js";
import { fitCanvas, plotArea, PLOTLY } from "./plotly_access.js";
import { along } from "./split.js";
import { paintSprites } from "./sprites.js";

export const SV_GROUP = "sv";  // kernelviz.figures.boundary_figure's legend group of the support vectors

export function selectedPoints(event) {
  return (event.points || []).map((p) => {
    const point = { x: p.x, y: p.y, curve_number: p.curveNumber, point_number: p.pointNumber,
                    point_index: p.pointIndex };
    if (p.customdata !== undefined) point.customdata = p.customdata;
    return point;
  });
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

// The canvas of the live preview's support vectors: right above the points canvas, below the hover
// layer. Mid-drag only it is repainted at each dragged value (drawSupport); the points canvas, every
// data point of every panel, once as the drag starts (paint.js).
function supportCanvas(view) {
  const points = view.canvas;
  if (!points || !points.parentNode) return null;
  if (!view.supportCanvas) {
    view.supportCanvas = document.createElement("canvas");
    view.supportCanvas.className = "kv-plot-support";
  }
  const canvas = view.supportCanvas;
  if (canvas.parentNode !== points.parentNode || canvas.previousSibling !== points) {
    points.parentNode.insertBefore(canvas, points.nextSibling);
  }
  return canvas;
}

// Paint the level lines and every visible layer's points where Plotly would have drawn them, and
// keep the points' pixel positions for hover and click. A panel the live preview covers (its field
// at other values) shows that field's own lines instead, and, on a canvas of their own
// (drawSupport), the support vectors of those values in place of the figure's.
export function drawPoints(view) {
  drawFigurePoints(view);
  drawSupport(view);
}

// Over each panel the live preview covers, the support vectors of the values it shows (view.support,
// by subplot, from paint.js), where the figure draws its own (the trace of its support vectors
// visible), as the figure's are drawn (each a sprite of it); not hovered: their numbers are not the figure's. Alone on
// their canvas, cleared and repainted at each dragged value; the canvas goes when there are none.
export function drawSupport(view) {
  const full = PLOTLY.layout(view.root);
  const fullData = PLOTLY.traces(view.root);
  const shown = [];
  if (full && fullData && view.support && view.support.size && view.covered) {
    for (const layer of view.layers) {
      const subplot = `${layer.xaxis}/${layer.yaxis}`;
      if (layer.group !== SV_GROUP || !view.covered.has(subplot)) continue;
      const preview = view.support.get(subplot);
      const trace = fullData[layer.index];
      const xa = PLOTLY.axis(full, layer.xaxis);
      const ya = PLOTLY.axis(full, layer.yaxis);
      if (preview && trace && trace.visible === true && xa && ya) shown.push([preview, xa, ya]);
    }
  }
  const canvas = shown.length ? supportCanvas(view) : null;
  if (!canvas) {
    if (view.supportCanvas) view.supportCanvas.remove();
    return;
  }
  // the canvas spans the covered plot areas alone (what paintLayer paints is clipped to them)
  const left = Math.min(...shown.map(([, xa]) => xa.offset));
  const top = Math.min(...shown.map(([, , ya]) => ya.offset));
  const right = Math.max(...shown.map(([, xa]) => xa.offset + xa.length));
  const bottom = Math.max(...shown.map(([, , ya]) => ya.offset + ya.length));
  const context = fitCanvas(canvas, full, { left, top, width: right - left, height: bottom - top });
  // pre-painted markers' pixels blended (sprites.js): stroked one by one they cost ~10 ms a frame
  paintSprites(canvas, context, shown);
}

function drawFigurePoints(view) {
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
    if (!trace || trace.visible !== true || !xa || !ya) continue;
    const subplot = `${layer.xaxis}/${layer.yaxis}`;
    // the figure's support vectors are its values', the picture the dragged value's: that value's
    // instead, where the lattice has them (drawSupport)
    if (layer.group === SV_GROUP && view.covered.has(subplot)) continue;
    [layer.px, layer.py] = paintLayer(context, layer, xa, ya);
  }
  // points a click added, on their way to Python: an outlined ring in every panel until they come back
  for (const point of view.added || []) {
    for (const area of plotAreas(view)) {
      paintMarker(context, { symbol: "circle-open", size: 10, color: "#262730", opacity: 1,
                             line: { width: 2, color: "#262730" } }, area.xa.toPixel(point.x), area.ya.toPixel(point.y), 1);
    }
  }
}

// A layer's points painted on its subplot; their pixel positions (NaN where a point has no value).
function paintLayer(context, layer, xa, ya) {
  const n = Math.min(layer.x.length, layer.y.length);
  const px = new Float64Array(n);
  const py = new Float64Array(n);
  context.save();
  context.beginPath();
  context.rect(xa.offset, ya.offset, xa.length, ya.length);
  context.clip();
  for (let i = 0; i < n; i += 1) {
    const x = Number(layer.x[i]);
    const y = Number(layer.y[i]);
    if (!Number.isFinite(x) || !Number.isFinite(y)) {
      px[i] = NaN;
      continue;
    }
    px[i] = xa.toPixel(x);
    py[i] = ya.toPixel(y);
    paintMarker(context, {
      symbol: pick(layer.symbol, i, "circle"), size: pick(layer.size, i, 6), color: pick(layer.color, i, "#444"),
      opacity: pick(layer.opacity, i, 1), line: { width: pick(layer.lineWidth, i, 0), color: pick(layer.lineColor, i, "#444") },
    }, px[i], py[i], 1);
  }
  context.restore();
  return [px, py];
}

// Each panel's plot area and its axes (the subplots the figure's points and fields are drawn on).
export function plotAreas(view) {
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

// The canvas point under (clientX, clientY), within its marker or a few pixels of its centre:
// {layer, i}, the top-most (last drawn) of equally near ones.
export function pointAt(view, clientX, clientY) {
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

// The cell of `field` under (clientX, clientY), {j, i}, or null outside its panel's plot area or its grid.
export function fieldCellAt(view, field, clientX, clientY) {
  const area = plotArea(PLOTLY.layout(view.root), field);
  if (!area) return null;
  const box = view.root.getBoundingClientRect();
  const [px, py] = [clientX - box.left, clientY - box.top];
  if (px < area.left || px > area.left + area.width || py < area.top || py > area.top + area.height) return null;
  return fieldCell(field, area.xa.toValue(px), area.ya.toValue(py));
}

// A click on a field's stand-in (split.js: one cell over the field) as Plotly reported a click on
// the field's own cell under the mouse (its centre, its row and column), or null for any other click.
export function fieldSelection(view, event) {
  const point = event.points && event.points[0];
  const field = point && view.fields.find((f) => f.index === point.curveNumber);
  const mouse = event.event;
  const cell = field && mouse ? fieldCellAt(view, field, mouse.clientX, mouse.clientY) : null;
  if (!cell) return null;
  return [{ x: field.xs[cell.i], y: field.ys[cell.j], curve_number: field.index, point_number: [cell.j, cell.i],
            point_index: [cell.j, cell.i] }];
}

export function canvasSelection(view, event) {
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
