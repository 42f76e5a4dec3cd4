// kernelviz drawing component (Streamlit components v2): a canvas on which a click adds a point.
//
// The point is painted by the browser at once; the list of points then goes to Python as the
// state "points" = {generation, points: [[x, y, label]…]}, and the page catches up in its own time.
//
// data (from kernelviz.components.draw.draw_canvas):
//   points     — [[x, y, label]…] as Python holds them (label +1, −1 or 0 = unlabeled)
//   range      — [lo, hi], the same for both axes (equal aspect)
//   label      — the label a click adds
//   generation — bumped by Python when it changes the points itself (Undo, Clear): the browser's
//                own list then gives way to Python's
//   styles     — [{label, color, name, hollow}…] in the legend's order

const VIEWS = new WeakMap();
const PAD = { left: 44, right: 14, top: 14, bottom: 36 };
const POINT_RADIUS = 6;

export default function (component) {
  const { data, parentElement, setStateValue } = component;
  let view = VIEWS.get(parentElement);
  if (!view) {
    view = createView(parentElement);
    VIEWS.set(parentElement, view);
  }
  view.setStateValue = setStateValue;
  const call = ++view.call;
  view.update(data);
  return () => {
    if (view.call === call) {  // only the latest call tears the view down (see the scrub component)
      view.dispose();
      VIEWS.delete(parentElement);
    }
  };
}

function createView(parent) {
  const root = document.createElement("div");
  root.className = "kv-draw";
  root.innerHTML = `<div class="kv-draw-legend"></div>
    <canvas class="kv-draw-canvas" role="img" aria-label="drawing canvas: click to add a point"></canvas>`;
  parent.appendChild(root);
  const canvas = root.querySelector("canvas");
  const view = {
    call: 0, root, canvas, data: null, points: [], generation: null, setStateValue: null,
  };
  canvas.addEventListener("click", (event) => {
    if (!view.data) return;
    const box = canvas.getBoundingClientRect();
    const [x, y] = toData(view, event.clientX - box.left, event.clientY - box.top);
    const [lo, hi] = view.data.range;
    if (x < lo || x > hi || y < lo || y > hi) return;  // a click on the axes' margin
    view.points.push([round2(x), round2(y), view.data.label]);
    paint(view);
    if (view.setStateValue) view.setStateValue("points", { generation: view.generation, points: view.points });
  });
  view.resize = new ResizeObserver(() => paint(view));
  view.resize.observe(root);
  view.update = (data) => {
    view.data = data;
    // Python's list wins when Python changed it (Undo, Clear) or holds points this canvas never
    // drew (a link, a preset); otherwise it lags behind this canvas's clicks, which stay.
    if (data.generation !== view.generation || !isPrefix(data.points, view.points)) {
      view.generation = data.generation;
      view.points = data.points.map((p) => p.slice());
    }
    legend(view);
    paint(view);
  };
  view.dispose = () => { view.resize.disconnect(); root.remove(); };
  return view;
}

function legend(view) {
  const box = view.root.querySelector(".kv-draw-legend");
  box.replaceChildren(...view.data.styles.map((style) => {
    const item = document.createElement("span");
    const swatch = document.createElement("span");
    swatch.className = "kv-draw-swatch";
    swatch.style.borderColor = style.color;
    swatch.style.background = style.hollow ? "transparent" : style.color;
    item.append(swatch, document.createTextNode(style.name));  // text, never HTML
    return item;
  }));
}

function round2(v) { return Math.round(v * 100) / 100; }

function isPrefix(short, long) {
  if (short.length > long.length) return false;
  return short.every((p, i) => p[0] === long[i][0] && p[1] === long[i][1] && p[2] === long[i][2]);
}

// The plot square: the largest square inside the padded canvas, centred.
function frame(view) {
  const w = view.canvas.clientWidth, h = view.canvas.clientHeight;
  const side = Math.max(10, Math.min(w - PAD.left - PAD.right, h - PAD.top - PAD.bottom));
  const left = PAD.left + (w - PAD.left - PAD.right - side) / 2;
  return { left, top: PAD.top, side };
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

function ticks(lo, hi) {
  const step = (hi - lo) > 8 ? 2 : 1;
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
  const { left, top, side } = frame(view);
  const [lo, hi] = view.data.range;
  const text = getComputedStyle(view.root).color;
  ctx.font = "12px sans-serif";
  ctx.fillStyle = text;
  ctx.lineWidth = 1;
  for (const t of ticks(lo, hi)) {
    const [px] = toPixel(view, t, lo), [, py] = toPixel(view, lo, t);
    ctx.strokeStyle = t === 0 ? "#CCCCCC" : "#EEEEEE";
    ctx.beginPath(); ctx.moveTo(px, top); ctx.lineTo(px, top + side); ctx.stroke();
    ctx.beginPath(); ctx.moveTo(left, py); ctx.lineTo(left + side, py); ctx.stroke();
    const label = String(t).replace("-", "\u2212");  // a typographic minus, as the Plotly figures write it
    ctx.textAlign = "center"; ctx.textBaseline = "top"; ctx.fillText(label, px, top + side + 6);
    ctx.textAlign = "right"; ctx.textBaseline = "middle"; ctx.fillText(label, left - 6, py);
  }
  ctx.strokeStyle = "#BBBBBB";
  ctx.strokeRect(left, top, side, side);
  for (const [x, y, label] of view.points) {
    const style = view.data.styles.find((s) => s.label === label);
    const [px, py] = toPixel(view, x, y);
    ctx.beginPath();
    ctx.arc(px, py, POINT_RADIUS, 0, 2 * Math.PI);
    ctx.lineWidth = 2;
    ctx.strokeStyle = style.color;
    if (style.hollow) { ctx.fillStyle = "#FFFFFF"; ctx.fill(); } else { ctx.fillStyle = style.color; ctx.fill(); }
    ctx.stroke();
  }
  // what a test (and a screen reader's status) reads: how many points the canvas shows
  view.root.dataset.points = String(view.points.length);
}
