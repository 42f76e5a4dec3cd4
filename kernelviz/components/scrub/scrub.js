// kernelviz scrub component (Streamlit components v2): every kernel's field painted from a
// precomputed lattice while a γ or C slider is dragged, with no round trip to Python.
//
// data (bytes from kernelviz.components.scrub.pack: the header's length as 4 bytes, little-endian,
// the header as UTF-8 JSON, then the fields' raw uint8 codes, which the header points into):
//   lattice   — kernelviz.lattice.Lattice.to_browser(): grid size and extent, codec, axes,
//               the lattice's own (log_gamma, log_C), per kernel its fields or null
//   log_gamma, log_C — the committed values (they may differ from the lattice's own)
//   points    — {train: [[x, y, class index]…], test: […]}, classes: names, colors: palette
// Sent back: the trigger "commit" = {axis, log_gamma, log_C} when a slider is released.

const VIEWS = new WeakMap();
// Small enough that four panels share one row at 1024 px (about 130 px each): every kernel in one glance.
const MIN_PANEL_PX = 125;
const GAP_PX = 10;
// Few kernels on a wide window would make each panel as tall as the screen and push the
// annotated figure below it: a panel is at most this share of the window's height.
const MAX_PANEL_HEIGHT_SHARE = 0.4;

export default function (component) {
  const { data, parentElement, setTriggerValue } = component;
  let view = VIEWS.get(parentElement);
  if (!view) {
    view = createView(parentElement);
    VIEWS.set(parentElement, view);
  }
  view.setTriggerValue = setTriggerValue;
  const generation = ++view.generation;
  view.update(unpack(data));
  // Streamlit calls this module again on every new `data` and keeps only the latest
  // cleanup; an older call's cleanup may still run, so only the latest one tears down.
  return () => {
    if (view.generation === generation) {
      view.dispose();
      VIEWS.delete(parentElement);
    }
  };
}

function createView(parent) {
  const root = document.createElement("div");
  root.className = "kv-scrub";
  root.dataset.paints = "0";
  root.innerHTML = `
    <div class="kv-scrub-controls">
      <label class="kv-scrub-control" data-axis="log_gamma"><span class="kv-scrub-name">γ</span>
        <input type="range" min="0" max="0" step="1" value="0" aria-label="gamma">
        <output></output></label>
      <label class="kv-scrub-control" data-axis="log_C"><span class="kv-scrub-name">C</span>
        <input type="range" min="0" max="0" step="1" value="0" aria-label="C">
        <output></output></label>
      <span class="kv-scrub-status" role="status"></span>
    </div>
    <div class="kv-scrub-legend"></div>
    <div class="kv-scrub-panels"></div>`;
  parent.appendChild(root);

  const view = {
    generation: 0,
    root,
    data: null,
    fields: new Map(),     // kernel name → {log_gamma: Uint8Array, log_C: Uint8Array}
    panels: [],
    index: { log_gamma: 0, log_C: 0 },   // where the sliders stand
    dragging: false,
    frame: 0,
    setTriggerValue: null,
  };
  const sliders = {};
  for (const control of root.querySelectorAll(".kv-scrub-control")) {
    const axis = control.dataset.axis;
    const input = control.querySelector("input");
    sliders[axis] = { control, input, output: control.querySelector("output") };
    input.addEventListener("pointerdown", () => { view.dragging = true; });
    // a press without a move ends with no change event: the drag still ends here
    for (const end of ["pointerup", "pointercancel"]) input.addEventListener(end, () => { view.dragging = false; });
    input.addEventListener("input", () => {
      view.index[axis] = Number(input.value);
      showValue(view, sliders, axis);
      requestPaint(view);
    });
    input.addEventListener("change", () => {
      view.dragging = false;
      view.index[axis] = Number(input.value);
      const axes = view.data.lattice.axes;
      const committed = {
        axis,
        log_gamma: axes.log_gamma[view.index.log_gamma],
        log_C: axes.log_C ? axes.log_C[view.index.log_C] : view.data.log_C,
      };
      requestPaint(view);
      if (view.setTriggerValue) view.setTriggerValue("commit", committed);
    });
  }
  view.sliders = sliders;
  view.resize = new ResizeObserver(() => layout(view));
  view.resize.observe(root);
  view.onWindowResize = () => layout(view);  // a change of height alone does not resize the root
  window.addEventListener("resize", view.onWindowResize);

  view.update = (data) => updateView(view, data);
  view.dispose = () => {
    view.resize.disconnect();
    window.removeEventListener("resize", view.onWindowResize);
    if (view.frame) cancelAnimationFrame(view.frame);
    root.remove();
  };
  return view;
}

function nearestIndex(values, value) {
  let best = 0;
  for (let i = 1; i < values.length; i++) {
    if (Math.abs(values[i] - value) < Math.abs(values[best] - value)) best = i;
  }
  return best;
}

// The payload's header, with each kernel's fields as views of the payload's body (no copy).
function unpack(data) {
  const bytes = data instanceof ArrayBuffer ? new Uint8Array(data) : data;
  const length = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(0, true);
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(4, 4 + length)));
  const body = bytes.subarray(4 + length);
  for (const kernel of header.lattice.kernels) {
    if (!kernel.fields) continue;
    for (const axis of Object.keys(kernel.fields)) {
      const [offset, size] = kernel.fields[axis];
      kernel.fields[axis] = body.subarray(offset, offset + size);
    }
  }
  return header;
}

function formatPower(log) {
  const value = Math.pow(10, log);
  return value >= 100 || value < 0.01 ? value.toExponential(1) : value.toPrecision(2);
}

function showValue(view, sliders, axis) {
  const values = view.data.lattice.axes[axis];
  if (!values) return;
  sliders[axis].output.textContent = formatPower(values[view.index[axis]]);
}

function updateView(view, data) {
  const previous = view.data;
  view.data = data;
  const lattice = data.lattice;
  const shapeChanged = !previous || previous.lattice.nx !== lattice.nx || previous.lattice.ny !== lattice.ny ||
    previous.lattice.kernels.map((k) => k.name).join() !== lattice.kernels.map((k) => k.name).join();
  for (const kernel of lattice.kernels) {
    if (kernel.fields) view.fields.set(kernel.name, kernel.fields);
    else view.fields.delete(kernel.name);
  }
  const sliders = view.sliders;
  for (const axis of ["log_gamma", "log_C"]) {
    const values = lattice.axes[axis];
    sliders[axis].control.hidden = !values;
    if (!values) continue;
    sliders[axis].input.max = String(values.length - 1);
    // A rerun arriving mid-drag (say, the lattice became ready) must not yank the thumb away.
    if (!view.dragging) {
      view.index[axis] = nearestIndex(values, axis === "log_gamma" ? data.log_gamma : data.log_C);
      sliders[axis].input.value = String(view.index[axis]);
    }
    showValue(view, sliders, axis);
  }
  if (shapeChanged) buildPanels(view);
  buildLegend(view);
  layout(view);
}

function buildPanels(view) {
  const lattice = view.data.lattice;
  const host = view.root.querySelector(".kv-scrub-panels");
  host.replaceChildren();
  view.panels = lattice.kernels.map((kernel) => {
    const wrap = document.createElement("figure");
    wrap.className = "kv-scrub-panel";
    wrap.dataset.kernel = kernel.name;
    const title = document.createElement("figcaption");
    title.textContent = kernel.label;
    const frame = document.createElement("div");
    frame.className = "kv-scrub-frame";
    const canvas = document.createElement("canvas");
    const note = document.createElement("div");
    note.className = "kv-scrub-note";
    frame.append(canvas, note);
    wrap.append(title, frame);
    host.appendChild(wrap);
    const off = document.createElement("canvas");
    off.width = lattice.nx;
    off.height = lattice.ny;
    const offContext = off.getContext("2d");
    return {
      name: kernel.name, wrap, canvas, note, context: canvas.getContext("2d"), off, offContext,
      image: offContext.createImageData(lattice.nx, lattice.ny),
    };
  });
}

function hexToRgb(hex) {
  return [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
}

// 256 RGBA entries: codes 0..top blend low → mid → high; the undefined code is transparent.
function colourTable(colors, top, undefinedCode) {
  const stops = [colors.low, colors.mid, colors.high].map(hexToRgb);
  const table = new Uint8ClampedArray(256 * 4);
  for (let code = 0; code <= top; code++) {
    const t = code / top;
    const [a, b, u] = t < 0.5 ? [stops[0], stops[1], t * 2] : [stops[1], stops[2], (t - 0.5) * 2];
    for (let c = 0; c < 3; c++) table[code * 4 + c] = a[c] + (b[c] - a[c]) * u;
    table[code * 4 + 3] = 255;
  }
  table[undefinedCode * 4 + 3] = 0;
  return table;
}

function buildLegend(view) {
  const { lattice, colors, classes } = view.data;
  const codec = lattice.codec;
  view.table = colourTable(colors.field, codec.top, codec.undefined);
  const legend = view.root.querySelector(".kv-scrub-legend");
  const gradient = `linear-gradient(to right, ${colors.field.low}, ${colors.field.mid}, ${colors.field.high})`;
  const [lo, hi] = [codec.lo, codec.hi];
  const scale = lattice.kind === "decision"
    ? `<span>f ≤ ${lo}</span><span class="kv-scrub-bar" style="background:${gradient}"></span><span>f ≥ +${hi}</span>
       <span class="kv-scrub-key"><i class="kv-scrub-line"></i> f = 0 <i class="kv-scrub-line kv-scrub-thin"></i> f = ±1</span>`
    : `<span>similarity 0</span><span class="kv-scrub-bar" style="background:${gradient}"></span><span>1</span>
       <span class="kv-scrub-key"><i class="kv-scrub-line"></i> levels 0.1 … 0.9 <b>×</b> reference</span>`;
  const marks = classes.map((name, i) =>
    `<span class="kv-scrub-key"><i class="kv-scrub-dot" style="background:${colors.classes[i]}"></i>${name}</span>`).join("");
  const test = view.data.points.test.length
    ? `<span class="kv-scrub-key"><i class="kv-scrub-dot kv-scrub-hollow"></i>test</span>` : "";
  legend.innerHTML = scale + marks + test;
}

function layout(view) {
  if (!view.data || !view.panels.length) return;
  const lattice = view.data.lattice;
  const width = view.root.clientWidth || 800;
  const n = view.panels.length;
  const columns = Math.max(1, Math.min(n, Math.floor((width + GAP_PX) / (MIN_PANEL_PX + GAP_PX))));
  const aspect = (lattice.ny - 1) / (lattice.nx - 1);
  const tallest = MAX_PANEL_HEIGHT_SHARE * (window.innerHeight || 900);
  const panelWidth = Math.max(MIN_PANEL_PX, Math.min(Math.floor((width - GAP_PX * (columns - 1)) / columns),
                                                     Math.floor(tallest / aspect)));
  const panelHeight = Math.round(panelWidth * aspect);
  const ratio = window.devicePixelRatio || 1;
  view.root.querySelector(".kv-scrub-panels").style.gridTemplateColumns = `repeat(${columns}, ${panelWidth}px)`;
  for (const panel of view.panels) {
    panel.canvas.style.width = `${panelWidth}px`;
    panel.canvas.style.height = `${panelHeight}px`;
    panel.canvas.width = Math.round(panelWidth * ratio);
    panel.canvas.height = Math.round(panelHeight * ratio);
  }
  paint(view);
}

function requestPaint(view) {
  if (view.frame) return;
  view.frame = requestAnimationFrame(() => {
    view.frame = 0;
    paint(view);
  });
}

// Which stored field shows the sliders' (γ, C): the γ lattice holds the lattice's C only,
// the C lattice the lattice's γ only. Anything else is not in the lattice (null).
function currentField(view) {
  const { lattice } = view.data;
  const gammaHome = nearestIndex(lattice.axes.log_gamma, lattice.log_gamma);
  if (!lattice.axes.log_C) return { axis: "log_gamma", index: view.index.log_gamma };
  const cHome = nearestIndex(lattice.axes.log_C, lattice.log_C);
  if (view.index.log_C === cHome) return { axis: "log_gamma", index: view.index.log_gamma };
  if (view.index.log_gamma === gammaHome) return { axis: "log_C", index: view.index.log_C };
  return null;
}

function paint(view) {
  const started = performance.now();
  const { lattice } = view.data;
  const size = lattice.nx * lattice.ny;
  const where = currentField(view);
  let waiting = 0;
  for (const [k, panel] of view.panels.entries()) {
    const kernel = lattice.kernels[k];
    const stored = view.fields.get(panel.name);
    const context = panel.context;
    if (kernel.failed) {
      panel.wrap.dataset.state = "failed";
      panel.note.textContent = kernel.failed + " — release a slider to redraw it.";
      context.clearRect(0, 0, panel.canvas.width, panel.canvas.height);
      continue;
    }
    if (!stored || !where) {
      waiting += 1;
      // Never show an old field as the current one: the panel is blanked and says why.
      panel.wrap.dataset.state = "preparing";
      panel.note.textContent = stored ? "not in the live preview yet: release to redraw" : "preparing live preview…";
      context.clearRect(0, 0, panel.canvas.width, panel.canvas.height);
      continue;
    }
    panel.wrap.dataset.state = "live";
    panel.note.textContent = "";
    const codes = stored[where.axis].subarray(where.index * size, (where.index + 1) * size);
    drawField(view, panel, codes, lattice);
  }
  const status = view.root.querySelector(".kv-scrub-status");
  status.textContent = waiting ? "preparing live preview… (the sliders still commit on release)"
    : "live: drag to preview, release to commit";
  view.root.dataset.state = waiting ? "preparing" : "live";
  view.root.dataset.field = where ? `${where.axis}:${where.index}` : "";
  // what one redraw of every panel costs, for benchmarks (set before the count their observers watch)
  view.root.dataset.paintMs = (performance.now() - started).toFixed(2);
  view.root.dataset.paints = String(Number(view.root.dataset.paints) + 1);
}

function drawField(view, panel, codes, lattice) {
  const { nx, ny, codec } = lattice;
  const pixels = panel.image.data;
  const table = view.table;
  // Row 0 of the field is the bottom of the plot (grid.ys[0]); row 0 of an image is its top.
  for (let row = 0; row < ny; row++) {
    const source = row * nx;
    const target = (ny - 1 - row) * nx * 4;
    for (let col = 0; col < nx; col++) {
      const t = codes[source + col] * 4;
      const p = target + col * 4;
      pixels[p] = table[t];
      pixels[p + 1] = table[t + 1];
      pixels[p + 2] = table[t + 2];
      pixels[p + 3] = table[t + 3];
    }
  }
  panel.offContext.putImageData(panel.image, 0, 0);
  const context = panel.context;
  const W = panel.canvas.width;
  const H = panel.canvas.height;
  context.clearRect(0, 0, W, H);
  context.imageSmoothingEnabled = true;
  context.drawImage(panel.off, 0, 0, W, H);
  const toX = (gx) => (gx + 0.5) * W / nx;
  const toY = (gy) => H - (gy + 0.5) * H / ny;
  const ratio = window.devicePixelRatio || 1;
  // codes are buckets of equal width decoded at their middles (kernelviz.lattice.Codec): a level's
  // place among the codes is its distance from lo in buckets, less half a bucket; f = 0 falls
  // between the codes of the negative and the positive values
  const step = (codec.hi - codec.lo) / (codec.top + 1);
  const codeOf = (value) => (value - codec.lo) / step - 0.5;
  if (lattice.kind === "decision") {
    // Margins thin rather than dashed: marching squares gives one short segment per cell,
    // and a dash pattern restarts on every segment.
    strokeContour(context, codes, nx, ny, codeOf(0), codec.undefined, toX, toY, "#000000", 2.4 * ratio);
    for (const margin of [-1, 1]) {
      strokeContour(context, codes, nx, ny, codeOf(margin), codec.undefined, toX, toY, "#555555", 1 * ratio);
    }
  } else {
    for (let level = 1; level <= 9; level++) {
      strokeContour(context, codes, nx, ny, codeOf(level / 10), codec.undefined, toX, toY, "#1b3a5c", 1 * ratio);
    }
  }
  drawPoints(view, context, lattice, W, H, ratio);
}

// Marching squares on the codes at a (fractional) code level; cells touching an undefined
// value are skipped. Corners: a bottom-left, b bottom-right, c top-right, d top-left.
function strokeContour(context, codes, nx, ny, level, undefinedCode, toX, toY, colour, width) {
  context.beginPath();
  const cross = (v0, v1) => (level - v0) / (v1 - v0);
  for (let j = 0; j < ny - 1; j++) {
    for (let i = 0; i < nx - 1; i++) {
      const a = codes[j * nx + i];
      const b = codes[j * nx + i + 1];
      const c = codes[(j + 1) * nx + i + 1];
      const d = codes[(j + 1) * nx + i];
      if (a === undefinedCode || b === undefinedCode || c === undefinedCode || d === undefinedCode) continue;
      const mask = (a >= level) | ((b >= level) << 1) | ((c >= level) << 2) | ((d >= level) << 3);
      if (mask === 0 || mask === 15) continue;
      const bottom = () => [i + cross(a, b), j];
      const right = () => [i + 1, j + cross(b, c)];
      const top = () => [i + cross(d, c), j + 1];
      const left = () => [i, j + cross(a, d)];
      let pairs;
      if (mask === 5) pairs = [[bottom, left], [right, top]];
      else if (mask === 10) pairs = [[bottom, right], [top, left]];
      else {
        const edges = [];
        if ((mask & 1) !== ((mask >> 1) & 1)) edges.push(bottom);
        if (((mask >> 1) & 1) !== ((mask >> 2) & 1)) edges.push(right);
        if (((mask >> 2) & 1) !== ((mask >> 3) & 1)) edges.push(top);
        if (((mask >> 3) & 1) !== (mask & 1)) edges.push(left);
        pairs = [edges];
      }
      for (const [from, to] of pairs) {
        const [x0, y0] = from();
        const [x1, y1] = to();
        context.moveTo(toX(x0), toY(y0));
        context.lineTo(toX(x1), toY(y1));
      }
    }
  }
  context.strokeStyle = colour;
  context.lineWidth = width;
  context.stroke();
}

function drawPoints(view, context, lattice, W, H, ratio) {
  const { nx, ny, x_range: xr, y_range: yr } = lattice;
  const px = (x) => ((x - xr[0]) / (xr[1] - xr[0]) * (nx - 1) + 0.5) * W / nx;
  const py = (y) => H - ((y - yr[0]) / (yr[1] - yr[0]) * (ny - 1) + 0.5) * H / ny;
  const colours = view.data.colors.classes;
  const radius = 3 * ratio;
  context.lineWidth = 1 * ratio;
  for (const [x, y, k] of view.data.points.train) {
    context.beginPath();
    context.arc(px(x), py(y), radius, 0, 2 * Math.PI);
    context.fillStyle = colours[k];
    context.fill();
    context.strokeStyle = "#ffffff";
    context.stroke();
  }
  for (const [x, y, k] of view.data.points.test) {
    context.beginPath();
    context.arc(px(x), py(y), radius, 0, 2 * Math.PI);
    context.strokeStyle = colours[k];
    context.stroke();
  }
  if (lattice.reference) {
    const [x, y] = lattice.reference;
    const s = 6 * ratio;
    context.beginPath();
    context.moveTo(px(x) - s, py(y) - s);
    context.lineTo(px(x) + s, py(y) + s);
    context.moveTo(px(x) - s, py(y) + s);
    context.lineTo(px(x) + s, py(y) - s);
    context.strokeStyle = "#000000";
    context.lineWidth = 2.5 * ratio;
    context.stroke();
  }
}
