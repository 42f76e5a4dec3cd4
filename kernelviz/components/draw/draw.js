// kernelviz drawing component (Streamlit components v2): a canvas on which a click adds a point.
//
// The point is painted by the browser at once; the click then goes to Python as the state
// "points" = {token, clicks: [[number, x, y, label]…]} — every click Python has not applied yet
// (../outbox.js) — and the page catches up in its own time.
//
// data (from kernelviz.components.draw.draw_canvas):
//   points     — [[x, y, label]…] as Python holds them (label +1, −1 or 0 = unlabeled), every click
//                it has applied included
//   applied    — {token: number}: the last click of each page's canvas that Python has applied; the
//                canvas shows Python's points and then its own clicks still on their way
//   range      — [lo, hi], the same for both axes (equal aspect): the square the canvas shows at
//                least; the plot fills the canvas around it, so a click anywhere lands where it is
//   label      — the label a click adds
//   styles     — [{label, name, marker}…] in the legend's order; marker is the figures' Plotly marker
//                of such a point (kernelviz.figures.point_marker), painted by ../points.js

import { mount } from "../lifecycle.js";
import { paintMarker } from "../points.js";
import { acknowledge, createOutbox, pending, post, shownPoints } from "../outbox.js";

const VIEWS = new WeakMap();
// The clicks on their way, numbered under one token drawn once per load of this module. Kept by
// the module, not the view, and one for the page (the app has one drawing canvas, in the Data
// view): a canvas Streamlit mounts afresh (the Data view left and opened again) is a new element,
// and it must go on numbering, showing and sending the clicks the old one made (an outbox per
// element numbered them from 1 again, under the same token, and Python took them for clicks it had
// applied).
const OUTBOX = createOutbox(`${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`);
const PAD = { left: 44, right: 14, top: 14, bottom: 36 };

export default function (component) {
  const { data, parentElement, setStateValue } = component;
  const { view, cleanup } = mount(VIEWS, parentElement, createView);
  view.setStateValue = setStateValue;
  view.update(data);
  return cleanup((gone) => gone.dispose());
}

function createView(parent) {
  const root = document.createElement("div");
  root.className = "kv-draw";
  root.innerHTML = `<div class="kv-draw-legend"></div>
    <canvas class="kv-draw-canvas" role="img" aria-label="drawing canvas: click to add a point"></canvas>`;
  parent.appendChild(root);
  const canvas = root.querySelector("canvas");
  const view = {
    root, canvas, data: null, points: [], outbox: OUTBOX, setStateValue: null,
  };
  canvas.addEventListener("click", (event) => {
    if (!view.data) return;
    const box = canvas.getBoundingClientRect();
    // anywhere, the axes' margins too: Python's range then grows to take the point in
    const [x, y] = toData(view, event.clientX - box.left, event.clientY - box.top);
    post(view.outbox, [round2(x), round2(y), view.data.label]);
    const state = { token: view.outbox.token, clicks: pending(view.outbox) };
    view.points = shownPoints(view.outbox, view.data.points);
    paint(view);
    if (view.setStateValue) view.setStateValue("points", state);
  });
  view.resize = new ResizeObserver(() => paint(view));
  view.resize.observe(root);
  view.update = (data) => {
    view.data = data;
    // Python's list as it is (after an Undo, a Clear, a link), then the clicks it has not applied yet
    acknowledge(view.outbox, data.applied);
    view.points = shownPoints(view.outbox, data.points);
    legend(view);
    paint(view);
  };
  view.dispose = () => { view.resize.disconnect(); root.remove(); };
  return view;
}

const SWATCH_PX = 16;

function legend(view) {
  const box = view.root.querySelector(".kv-draw-legend");
  const ratio = window.devicePixelRatio || 1;
  box.replaceChildren(...view.data.styles.map((style) => {
    const item = document.createElement("span");
    const swatch = document.createElement("canvas");  // the marker itself, as the points are painted
    swatch.className = "kv-draw-swatch";
    swatch.setAttribute("aria-hidden", "true");  // the name beside it says it
    swatch.width = swatch.height = SWATCH_PX * ratio;
    const context = swatch.getContext("2d");
    context.setTransform(ratio, 0, 0, ratio, 0, 0);
    paintMarker(context, style.marker, SWATCH_PX / 2, SWATCH_PX / 2);
    item.append(swatch, document.createTextNode(style.name));  // text, never HTML
    return item;
  }));
}

function round2(v) { return Math.round(v * 100) / 100; }

// The square of Python's range: the largest square inside the padded canvas, centred across and
// at the top; the plot (width × height) is the whole padded canvas, the same scale continued.
function frame(view) {
  const w = view.canvas.clientWidth, h = view.canvas.clientHeight;
  const width = Math.max(10, w - PAD.left - PAD.right), height = Math.max(10, h - PAD.top - PAD.bottom);
  const side = Math.min(width, height);
  return { left: PAD.left + (width - side) / 2, top: PAD.top, side, width, height };
}

function toPixel(view, x, y) {
  const { left, top, side } = frame(view);
  const [lo, hi] = view.data.range;
  return [left + (x - lo) / (hi - lo) * side, top + (hi - y) / (hi - lo) * side];
}

function toData(view, px, py) {
  const { left, top, side } = frame(view);
  const [lo, hi] = view.data.range;
  return [lo + (px - left) / side * (hi - lo), hi - (py - top) / side * (hi - lo)];
}

// One step on both axes, from the square's span: the longer axis shows more ticks, not wider ones.
function tickStep(lo, hi) { return (hi - lo) > 8 ? 2 : 1; }

function ticks(lo, hi, step) {
  const out = [];
  for (let t = Math.ceil(lo / step) * step; t <= hi + 1e-9; t += step) out.push(t);
  return out;
}

function paint(view) {
  if (!view.data) return;
  const canvas = view.canvas, ratio = window.devicePixelRatio || 1;
  const w = canvas.clientWidth, h = canvas.clientHeight;
  if (canvas.width !== Math.round(w * ratio) || canvas.height !== Math.round(h * ratio)) {
    canvas.width = Math.round(w * ratio);
    canvas.height = Math.round(h * ratio);
  }
  const ctx = canvas.getContext("2d");
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  ctx.clearRect(0, 0, w, h);
  const { width, height } = frame(view);
  const [left, top, right, bottom] = [PAD.left, PAD.top, PAD.left + width, PAD.top + height];
  const [xlo, ytop] = toData(view, left, top), [xhi, ybottom] = toData(view, right, bottom);
  const step = tickStep(...view.data.range);
  const text = getComputedStyle(view.root).color;
  ctx.font = "12px sans-serif";
  ctx.fillStyle = text;
  ctx.lineWidth = 1;
  const tickLabel = (t) => String(t).replace("-", "\u2212");  // a typographic minus, as the Plotly figures write it
  for (const t of ticks(xlo, xhi, step)) {
    const [px] = toPixel(view, t, 0);
    ctx.strokeStyle = t === 0 ? "#CCCCCC" : "#EEEEEE";
    ctx.beginPath(); ctx.moveTo(px, top); ctx.lineTo(px, bottom); ctx.stroke();
    ctx.textAlign = "center"; ctx.textBaseline = "top"; ctx.fillText(tickLabel(t), px, bottom + 6);
  }
  for (const t of ticks(ybottom, ytop, step)) {
    const [, py] = toPixel(view, 0, t);
    ctx.strokeStyle = t === 0 ? "#CCCCCC" : "#EEEEEE";
    ctx.beginPath(); ctx.moveTo(left, py); ctx.lineTo(right, py); ctx.stroke();
    ctx.textAlign = "right"; ctx.textBaseline = "middle"; ctx.fillText(tickLabel(t), left - 6, py);
  }
  ctx.strokeStyle = "#BBBBBB";
  ctx.strokeRect(left, top, width, height);
  for (const [x, y, label] of view.points) {
    const style = view.data.styles.find((s) => s.label === label);
    const [px, py] = toPixel(view, x, y);
    paintMarker(ctx, style.marker, px, py);
  }
  // what a test (and a screen reader's status) reads: how many points the canvas shows
  view.root.dataset.points = String(view.points.length);
}
