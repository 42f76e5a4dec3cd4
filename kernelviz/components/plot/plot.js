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
//   canvas      — draw the figure's marker-only scatter traces on a canvas over the plot (see below)
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

function onCanvas(trace) {
  return (trace.type || "scatter") === "scatter" && trace.mode === "markers" && trace.visible !== false;
}

// The figure Plotly draws (each marker-only trace with one empty point: the legend draws its entry
// from the first point's style) and the points the canvas draws.
function splitPoints(figure) {
  const layers = [];
  const data = figure.data.map((trace, index) => {
    if (!onCanvas(trace)) return trace;
    const marker = trace.marker || {};
    const line = marker.line || {};
    const layer = {
      index, name: trace.name, xaxis: trace.xaxis || "x", yaxis: trace.yaxis || "y",
      x: arrayOf(trace.x) || [], y: arrayOf(trace.y) || [], customdata: arrayOf(trace.customdata),
      hovertext: arrayOf(trace.hovertext), hovertemplate: trace.hovertemplate, hoverinfo: trace.hoverinfo,
      size: arrayOf(marker.size), symbol: marker.symbol, color: marker.color,
      // Plotly's default: markers sized one by one ("bubbles") are drawn at 0.7
      opacity: arrayOf(marker.opacity) ?? (isArray(arrayOf(marker.size)) ? 0.7 : 1),
      lineWidth: arrayOf(line.width), lineColor: line.color, px: null, py: null,
    };
    layers.push(layer);
    const legendMarker = { ...marker, size: first(layer.size), symbol: first(layer.symbol), color: first(layer.color),
                           opacity: first(layer.opacity),
                           line: { ...line, width: first(layer.lineWidth), color: first(layer.lineColor) } };
    return { ...trace, x: [null], y: [null], customdata: undefined, hovertext: undefined, marker: legendMarker };
  });
  return { figure: { ...figure, data }, layers };
}

// Plotly's marker symbols (plotly.js src/components/drawing/symbol_defs.js) as polygons of
// radius 1 (y down, as in SVG); a circle is drawn as an arc.
const SQRT3 = Math.sqrt(3);
const RX = 0.8 / Math.SQRT2;
const SYMBOLS = {
  square: [[1, 1], [-1, 1], [-1, -1], [1, -1]],
  diamond: [[1.3, 0], [0, 1.3], [-1.3, 0], [0, -1.3]],
  cross: [[1.2, 0.4], [0.4, 0.4], [0.4, 1.2], [-0.4, 1.2], [-0.4, 0.4], [-1.2, 0.4], [-1.2, -0.4], [-0.4, -0.4],
          [-0.4, -1.2], [0.4, -1.2], [0.4, -0.4], [1.2, -0.4]],
  x: [[0, RX], [RX, 2 * RX], [2 * RX, RX], [RX, 0], [2 * RX, -RX], [RX, -2 * RX], [0, -RX], [-RX, -2 * RX],
      [-2 * RX, -RX], [-RX, 0], [-2 * RX, RX], [-RX, 2 * RX]],
  "triangle-up": [[-2 / SQRT3, 0.5], [2 / SQRT3, 0.5], [0, -1]],
  star: [[0.315, -0.4326], [1.3314, -0.4326], [0.5082, 0.1652], [0.8232, 1.1326], [0, 0.5348], [-0.8232, 1.1326],
         [-0.5082, 0.1652], [-1.3314, -0.4326], [-0.315, -0.4326], [0, -1.4]],
  hexagon: [[SQRT3 / 2, -0.5], [SQRT3 / 2, 0.5], [0, 1], [-SQRT3 / 2, 0.5], [-SQRT3 / 2, -0.5], [0, -1]],
};

function tracePath(context, symbol, x, y, r) {
  context.beginPath();
  const polygon = SYMBOLS[symbol];
  if (!polygon) {
    context.arc(x, y, r, 0, 2 * Math.PI);
    return;
  }
  polygon.forEach(([u, v], k) => (k ? context.lineTo(x + u * r, y + v * r) : context.moveTo(x + u * r, y + v * r)));
  context.closePath();
}

function axisOf(fullLayout, ref) {
  return fullLayout[`${ref[0]}axis${ref.slice(1)}`];
}

function pointsCanvas(view) {
  const container = view.root.querySelector(".svg-container");
  if (!container) return null;
  let canvas = view.canvas;
  if (!canvas) {
    canvas = document.createElement("canvas");
    canvas.className = "kv-plot-points";
    view.canvas = canvas;
  }
  if (canvas.parentNode !== container) {
    // above the plot's drawing, below the hover layer (the last of Plotly's SVGs)
    const svgs = container.querySelectorAll(":scope > svg.main-svg");
    container.insertBefore(canvas, svgs.length > 1 ? svgs[svgs.length - 1] : null);
  }
  return canvas;
}

// Paint every visible layer's points where Plotly would have drawn them, and keep their pixel
// positions for hover and click.
function drawPoints(view) {
  const full = view.root._fullLayout;
  const fullData = view.root._fullData;
  if (!view.layers.length) {
    if (view.canvas) view.canvas.remove();
    return;
  }
  if (!full || !fullData) return;
  const canvas = pointsCanvas(view);
  if (!canvas) return;
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
  for (const layer of view.layers) {
    layer.px = null;
    const trace = fullData[layer.index];
    const xa = axisOf(full, layer.xaxis);
    const ya = axisOf(full, layer.yaxis);
    if (!trace || trace.visible !== true || !xa || !ya) continue;
    const n = Math.min(layer.x.length, layer.y.length);
    layer.px = new Float64Array(n);
    layer.py = new Float64Array(n);
    context.save();
    context.beginPath();
    context.rect(xa._offset, ya._offset, xa._length, ya._length);
    context.clip();
    for (let i = 0; i < n; i += 1) {
      const x = Number(layer.x[i]);
      const y = Number(layer.y[i]);
      if (!Number.isFinite(x) || !Number.isFinite(y)) {
        layer.px[i] = NaN;
        continue;
      }
      const px = xa._offset + xa.l2p(x);
      const py = ya._offset + ya.l2p(y);
      layer.px[i] = px;
      layer.py[i] = py;
      let symbol = String(pick(layer.symbol, i, "circle"));
      const open = symbol.endsWith("-open");
      if (open) symbol = symbol.slice(0, -"-open".length);
      const color = pick(layer.color, i, "#444");
      const lineWidth = Number(pick(layer.lineWidth, i, 0));
      context.globalAlpha = Number(pick(layer.opacity, i, 1));
      tracePath(context, symbol, px, py, Number(pick(layer.size, i, 6)) / 2);
      if (!open) {
        context.fillStyle = color;
        context.fill();
      }
      if (open || lineWidth > 0) {
        context.lineWidth = open ? Math.max(lineWidth, 1) : lineWidth;
        context.strokeStyle = open ? color : pick(layer.lineColor, i, "#444");
        context.stroke();
      }
    }
    context.restore();
  }
  context.globalAlpha = 1;
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

// The hover label's lines for point i of a layer, as Plotly would write them (a hovertemplate's
// %{x}, %{y} and %{customdata[k]}, with d3's .Nf / .Ng formats), or null for none.
function hoverLines(layer, i) {
  if (layer.hoverinfo === "skip" || layer.hoverinfo === "none") return null;
  const x = layer.x[i];
  const y = layer.y[i];
  if (layer.hovertemplate) {
    const text = String(layer.hovertemplate).replace(/<extra>[\s\S]*?<\/extra>/g, "").replace(
      /%\{(x|y|customdata\[(\d+)\])(?::([^}]*))?\}/g, (_, name, k, format) => {
        const row = pick(layer.customdata, i, []);
        const value = name === "x" ? x : name === "y" ? y : (isArray(row) ? row[Number(k)] : row);
        return formatted(value, format);
      });
    return text.split(/<br\s*\/?>/i);
  }
  const lines = [`(${formatted(x, ".3g")}, ${formatted(y, ".3g")})`];
  const extra = pick(layer.hovertext, i, null);
  if (extra !== null) lines.push(String(extra));
  lines.push(String(layer.name || ""));
  return lines;
}

function showHover(view, found, clientX, clientY) {
  let label = view.hoverLabel;
  if (!label) {
    label = document.createElement("div");
    label.className = "kv-plot-hover";
    view.root.appendChild(label);
    view.hoverLabel = label;
  }
  const lines = found && hoverLines(found.layer, found.i);
  if (!lines) {
    label.style.display = "none";
    return false;
  }
  label.textContent = "";
  lines.forEach((line) => {
    const row = document.createElement("div");
    row.textContent = line.replace(/<[^>]*>/g, "");  // Plotly's own tags (<b>, <span>) as plain text
    label.appendChild(row);
  });
  const color = pick(found.layer.color, found.i, "#444");
  label.style.borderColor = color === "rgba(0,0,0,0)" ? pick(found.layer.lineColor, found.i, "#444") : color;
  const box = view.root.getBoundingClientRect();
  label.style.left = `${clientX - box.left + 12}px`;
  label.style.top = `${clientY - box.top + 12}px`;
  label.style.display = "block";
  return true;
}

// Hover and click for the canvas's points, through Plotly's own hover: the field's heatmap under
// them reports every position of the plot area, and Plotly's click is the hover's point. Over a
// canvas point its own label shows and the field's is hidden (cancelling Plotly's hover would
// leave a click there with no point at all).
function listenForPoints(view) {
  view.root.on("plotly_afterplot", () => drawPoints(view));
  view.root.on("plotly_relayouting", () => drawPoints(view));
  view.root.on("plotly_beforehover", (event) => {
    const found = view.layers.length && event && event.clientX !== undefined
      ? pointAt(view, event.clientX, event.clientY) : null;
    view.root.classList.toggle("kv-plot-point-hover", showHover(view, found, event && event.clientX, event && event.clientY));
    return true;
  });
  view.root.addEventListener("mouseleave", () => {
    showHover(view, null);
    view.root.classList.remove("kv-plot-point-hover");
  });
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

// ---------------------------------------------------------------------------- the component

function createView(parent) {
  const root = document.createElement("div");
  root.className = "kv-plot";
  parent.appendChild(root);
  const view = { root, generation: 0, payload: null, listening: false, setStateValue: null, resize: null,
                 layers: [], canvas: null, hoverLabel: null };
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
    const { figure, layers } = payload.canvas ? splitPoints(payload.figure) : { figure: payload.figure, layers: [] };
    view.layers = layers;
    view.root._kvLayers = layers;  // for tests: the points as drawn (data and pixel positions)
    return Plotly.react(view.root, figure.data, figure.layout, payload.config).then(() => {
      if (!view.listening) {
        view.listening = true;
        listenForPoints(view);
        view.root.on("plotly_click", (event) => {
          if (!view.payload.selectable) return;
          const points = canvasSelection(view, event) || selectedPoints(event);
          view.setStateValue("selection", { revision: view.payload.revision, points });
        });
        drawPoints(view);  // the first afterplot came before the listener
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
