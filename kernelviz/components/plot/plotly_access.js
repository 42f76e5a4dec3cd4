// What the plot component takes of plotly.js: Streamlit's own copy, imported once per page
// (loadPlotly), and where it drew, read from its private fields; the component's canvases lie over
// its drawing, placed by its layout (plotArea, fitCanvas).
//
// plotly.js has no public API for where it drew a subplot or for its layers. All this component
// reads of plotly.js's internals is here: the drawn layout (`gd._fullLayout`: its size, fonts and
// colours, each axis's pixel offset and length and its data → pixel map `l2p` and back, `p2l`), the drawn traces
// (`gd._fullData`: which are visible) and the order of the SVG layers in `.svg-container`.
// `plotlyChanges(root)` lists what is not as expected, by name; the component says so on the page
// (the points and the live preview would be drawn in the wrong place), and a browser test checks
// that the list is empty on the app's figures, so an upgrade of Streamlit's plotly.js that moves
// one of them fails loudly (pyproject.toml pins the Streamlit that was tested).

let plotlyLoading = null;

export function loadPlotly(file) {
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

export const PLOTLY = {
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

export function plotlyChanges(root) {
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

export function plotArea(full, ref) {
  const xa = PLOTLY.axis(full, ref.xaxis);
  const ya = PLOTLY.axis(full, ref.yaxis);
  if (!xa || !ya || !xa.length || !ya.length) return null;
  return { xa, ya, left: xa.offset, top: ya.offset, width: xa.length, height: ya.length };
}

// A canvas the size of the figure, its context scaled to CSS pixels; or, given `box` ({left, top,
// width, height} in the figure's CSS pixels), a canvas over that part of the figure alone, its
// context still in the figure's pixels (a smaller canvas is less to hand to the compositor each frame).
// The canvas keeps where it stands and its device pixels per CSS pixel: `canvas.place`, {left, top, ratio}.
export function fitCanvas(canvas, full, box = null) {
  const ratio = window.devicePixelRatio || 1;
  const left = box ? Math.floor(box.left) : 0;
  const top = box ? Math.floor(box.top) : 0;
  const width = box ? Math.ceil(box.left + box.width) - left : Math.round(full.width);
  const height = box ? Math.ceil(box.top + box.height) - top : Math.round(full.height);
  if (canvas.width !== width * ratio || canvas.height !== height * ratio) {
    canvas.width = width * ratio;
    canvas.height = height * ratio;
    canvas.style.width = `${width}px`;
    canvas.style.height = `${height}px`;
  }
  if (box || canvas.style.left) {
    canvas.style.left = `${left}px`;
    canvas.style.top = `${top}px`;
  }
  canvas.place = { left, top, ratio };
  const context = canvas.getContext("2d");
  context.setTransform(ratio, 0, 0, ratio, left ? -left * ratio : 0, top ? -top * ratio : 0);
  context.clearRect(left, top, width, height);
  return context;
}
