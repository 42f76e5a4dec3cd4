// Unit tests of the plot component itself (kernelviz/components/plot/plot.js, its default export),
// under node --test with a fake page and a fake plotly.js: one element per chart, drawn once per
// drawing, its points' hover and clicks, a panel alone, what goes wrong said on the page, and the
// element's going.
import assert from "node:assert/strict";
import { mkdtempSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";

import { FINISHED_EVENT } from "../../kernelviz/components/events.js";
import plot from "../../kernelviz/components/plot/plot.js";
import { previewFigureTitle } from "../../kernelviz/components/plot/support.js";
import { fakePlotly, install, payload, uninstall } from "./fake_dom.mjs";

// Two points on the default axes of the fake plotly.js: (0.5, 0.5) at 330, 250 px and (0, 1) at 80, 100 px.
const FIGURE = { data: [{ type: "scatter", mode: "markers", name: "class +1", x: [0.5, 0], y: [0.5, 1], customdata: [["a"], ["b"]],
                          hovertemplate: "%{customdata[0]}<extra></extra>", marker: { size: 10, color: "#D55E00" } },
                        { type: "scatter", mode: "lines", x: [0, 1], y: [0, 1] }],
                 layout: { datarevision: "r1" } };
const header = (extra = {}) => ({ figure: FIGURE, config: { displaylogo: false }, plotly: "PlotlyChart.test.js", selectable: true,
                                  revision: "r1", canvas: true, drawing: "d1", ...extra });
const settled = () => new Promise((resolve) => { setTimeout(resolve, 0); });

// A page with plotly.js loaded, and a chart's element; `show(header)` runs the component as Streamlit does.
function page(plotly = fakePlotly()) {
  const { window } = install();
  window.Plotly = plotly;
  const parentElement = document.createElement("div");
  document.body.appendChild(parentElement);
  const states = [];
  const triggers = [];
  const show = (shown) => plot({ data: payload(shown), parentElement, setStateValue: (name, value) => states.push([name, value]),
                                 setTriggerValue: (name, value) => triggers.push([name, value]) });
  return { plotly, parentElement, states, triggers, show, root: () => parentElement.querySelector(".kv-plot") };
}

test("the loader's payload (no figure) starts plotly.js's import beside Streamlit's script, and mounts nothing", async () => {
  const { document, window } = install();
  try {
    const folder = mkdtempSync(join(tmpdir(), "kv-plot-"));
    mkdirSync(join(folder, "static", "js"), { recursive: true });
    writeFileSync(join(folder, "static", "js", "PlotlyChart.test.js"), "window.Plotly = { loaded: true };\n");
    const entry = pathToFileURL(join(folder, "static", "js", "index.js")).href;
    document.querySelector = (selector) => (selector.startsWith("script") ? { src: entry } : null);
    const parentElement = document.createElement("div");
    assert.equal(plot({ data: payload({ plotly: "PlotlyChart.test.js" }), parentElement }), undefined);
    assert.deepEqual(parentElement.children, []);
    for (let wait = 0; !window.Plotly && wait < 100; wait += 1) await new Promise((resolve) => { setTimeout(resolve, 20); });
    assert.deepEqual(window.Plotly, { loaded: true });
  } finally { uninstall(); }
});

test("a figure is drawn into one element by Plotly.react, its points on the canvas; the element says when it is drawn", async () => {
  const { plotly, parentElement, show, root } = page();
  try {
    show(header());
    assert.equal(root().dataset.drawing, "busy");
    await settled();
    assert.equal(root().dataset.drawing, "done");
    const [drawn] = plotly.reacted;
    assert.equal(drawn.root, root());
    assert.deepEqual([drawn.data[0].x, drawn.data[1].x, drawn.config], [[null], [0, 1], { displaylogo: false }]);
    assert.ok(root().querySelector(".kv-plot-points"));
    assert.deepEqual(root()._kvPlotlyChanges, []);
    assert.deepEqual([...root()._kvLayers[0].px], [330, 80]);
    assert.equal(parentElement.querySelectorAll(".kv-plot").length, 1);
  } finally { uninstall(); }
});

test("the same drawing again is not handed to Plotly; a new one is, on the same element", async () => {
  const { plotly, parentElement, show, root } = page();
  try {
    show(header());
    await settled();
    const element = root();
    show(header());
    await settled();
    assert.deepEqual([plotly.reacted.length, root().dataset.drawing], [1, "done"]);
    show(header({ drawing: "d2", figure: { ...FIGURE, data: [FIGURE.data[0], { ...FIGURE.data[1], y: [1, 0] }] } }));
    await settled();
    assert.equal(plotly.reacted.length, 2);
    assert.equal(plotly.reacted[1].root, element);
    assert.equal(parentElement.querySelectorAll(".kv-plot").length, 1);
  } finally { uninstall(); }
});

test("a new figure whose titles alone changed their words is not handed to Plotly: the words are written where it drew them", async () => {
  const { plotly, show, root } = page();
  const titled = (words, points = FIGURE.data[0]) => ({ data: [points, FIGURE.data[1]],
                                                        layout: { ...FIGURE.layout, xaxis: { range: [0, 1] },
                                                                  annotations: [{ text: `<b>RBF</b><br>${words}` }] } });
  const drawnWords = () => root().querySelector('g.annotation[data-index="0"]').querySelector("text.annotation-text")
    .childNodes.map((node) => node.nodeValue);
  try {
    show(header({ figure: titled("train 90%") }));
    await settled();
    show(header({ figure: titled("train 95%"), drawing: "d2" }));
    await settled();
    assert.equal(plotly.reacted.length, 1);
    assert.deepEqual(drawnWords(), ["RBF", "train 95%"]);
    assert.equal(root().layout.annotations[0].text, "<b>RBF</b><br>train 95%", "Plotly's own copy says what is drawn");
    assert.equal(root().dataset.drawing, "done");
    // the points moved too (the canvas's): still not Plotly's, and the canvas has them
    const moved = { ...FIGURE.data[0], x: [0.25, 0] };
    show(header({ figure: titled("train 97%", moved), drawing: "d3" }));
    await settled();
    assert.equal(plotly.reacted.length, 1);
    assert.deepEqual([...root()._kvLayers[0].x], [0.25, 0]);
    assert.deepEqual(drawnWords(), ["RBF", "train 97%"]);
    // back to the first words: Plotly is not told either, the page shows them
    show(header({ figure: titled("train 90%"), drawing: "d1" }));
    await settled();
    assert.deepEqual([plotly.reacted.length, drawnWords()], [1, ["RBF", "train 90%"]]);
    // a title of other lines is Plotly's to draw
    show(header({ figure: { ...titled(""), layout: { ...FIGURE.layout, annotations: [{ text: "<b>RBF</b>" }] } }, drawing: "d4" }));
    await settled();
    assert.equal(plotly.reacted.length, 2);
    // a committed γ step: the figure's title and the panels' scores change their words, nothing else
    const stepped = (gamma, words) => ({ ...titled(words), layout: { ...titled(words).layout, title: { text: `<b>γ = ${gamma}</b>` } } });
    show(header({ figure: stepped(10, "train 90%"), drawing: "d5" }));
    await settled();
    assert.equal(plotly.reacted.length, 3);
    show(header({ figure: stepped(17.8, "train 93%"), drawing: "d6" }));
    await settled();
    assert.equal(plotly.reacted.length, 3, "a new title's words are no new drawing");
    assert.deepEqual(root().querySelector("text.gtitle").childNodes.map((node) => node.nodeValue), ["γ = 17.8"]);
    assert.deepEqual(drawnWords(), ["RBF", "train 93%"]);
  } finally { uninstall(); }
});

test("a click keeps the clicked point with the figure's revision: the canvas point under the mouse, else Plotly's", async () => {
  const { plotly, states, show, root } = page();
  try {
    show(header());
    await settled();
    plotly.emit(root(), "plotly_click", { event: { clientX: 81, clientY: 101 }, points: [] });
    plotly.emit(root(), "plotly_click", { event: { clientX: 500, clientY: 300 },
                                          points: [{ x: 0.9, y: 0.1, curveNumber: 1, pointNumber: 3, pointIndex: 3 }] });
    assert.deepEqual(states, [
      ["selection", { revision: "r1", points: [{ x: 0, y: 1, curve_number: 0, point_number: 1, point_index: 1, customdata: ["b"] }] }],
      ["selection", { revision: "r1", points: [{ x: 0.9, y: 0.1, curve_number: 1, point_number: 3, point_index: 3 }] }],
    ]);
    show(header({ selectable: false, drawing: "d2" }));
    await settled();
    plotly.emit(root(), "plotly_click", { event: { clientX: 81, clientY: 101 }, points: [] });
    assert.equal(states.length, 2);
  } finally { uninstall(); }
});

test("over a canvas point its own label shows (Plotly's hidden); leaving the figure hides it", async () => {
  const { plotly, show, root } = page();
  try {
    show(header());
    await settled();
    plotly.emit(root(), "plotly_beforehover", { clientX: 330, clientY: 250 });
    const label = root().querySelector(".kv-plot-hover");
    assert.deepEqual([label.style.display, label.textContent], ["block", "a"]);
    assert.ok(root().classList.contains("kv-plot-point-hover"));
    root().dispatchEvent(new Event("mouseleave"));
    assert.equal(label.style.display, "none");
    assert.ok(!root().classList.contains("kv-plot-point-hover"));
  } finally { uninstall(); }
});

test("a click on a panel's title shows it alone; Escape shows them all again", async () => {
  const { plotly, show, root } = page();
  try {
    const layout = { annotations: [{ text: "first" }, { text: "second" }],
                     meta: { kv_panels: { count: 2, equal: true, titles: [0, 1] } },
                     xaxis: { range: [0, 1] }, yaxis: { range: [0, 1] }, xaxis2: { range: [0, 1] }, yaxis2: { range: [0, 1] } };
    const data = [{ type: "scatter", mode: "lines", x: [0], y: [0] }, { type: "scatter", mode: "lines", x: [0], y: [0], xaxis: "x2", yaxis: "y2" }];
    show(header({ figure: { data, layout } }));
    root().clientWidth = 800;  // the column's width, before Plotly draws
    await settled();
    assert.match(root().dataset.panels, /^\d+x\d+$/);  // laid out as small multiples
    const all = plotly.reacted[0].layout.datarevision;  // the digest of what Plotly draws
    plotly.emit(root(), "plotly_clickannotation", { index: 1 });
    await settled();
    assert.deepEqual([root().dataset.solo, plotly.reacted.at(-1).layout.datarevision], ["1", `${all}-alone1`]);
    assert.equal(plotly.reacted.at(-1).data[0].visible, false);
    plotly.emit(root(), "plotly_clickannotation", { index: 7 });  // not a panel's title
    document.dispatchEvent(Object.assign(new Event("keydown"), { key: "Escape" }));
    await settled();
    assert.deepEqual([root().dataset.solo, plotly.reacted.at(-1).layout.datarevision, plotly.reacted.length], ["", all, 3]);
  } finally { uninstall(); }
});

test("what goes wrong is said on the page: a plotly.js whose private fields moved, a figure it cannot draw", async () => {
  const moved = page(fakePlotly({ layout: () => ({ xaxis: { _offset: 80, _length: 500 } }) }));  // no l2p
  try {
    moved.show(header());
    await settled();
    const note = moved.parentElement.querySelector(".kv-plot-error");
    assert.equal(note.nextSibling, moved.root());
    assert.match(note.textContent, /plotly.js has changed \(_fullLayout.xaxis.l2p, _fullLayout.xaxis.p2l\)/);
  } finally { uninstall(); }
  const failing = fakePlotly();
  failing.react = () => Promise.reject(new Error("boom"));
  const broken = page(failing);
  try {
    broken.show(header());
    await settled();
    assert.equal(broken.root().textContent, "The figure could not be drawn: boom");
    broken.plotly.react = fakePlotly().react;  // the next payload draws in full, its drawing not taken as drawn
    broken.show(header());
    await settled();
    assert.equal(broken.root().dataset.drawing, "done");
  } finally { uninstall(); }
});

test("a lattice that does not fit the payload's body is an error on the page", async () => {
  const { show, root } = page();
  try {
    const lattice = { id: "L", kind: "decision", nx: 2, ny: 2, axes: { log_gamma: [0, 1] }, log_gamma: 0, log_C: null,
                      kernels: [{ name: "rbf", fields: { log_gamma: [0, 3] } }] };
    show(header({ live: { lattice, log_gamma: 0, log_C: null, panels: [], held: [], locked: [] } }));
    await settled();
    assert.equal(root().textContent, "The figure could not be drawn: the rbf lattice has the wrong size");
  } finally { uninstall(); }
});

test("when the element goes: Plotly's figure purged, the sliders removed, the page's events no longer heard", async () => {
  const { plotly, triggers, show, root } = page();
  try {
    const lattice = { id: "G", kind: "decision", nx: 1, ny: 1, codec: { lo: -1, hi: 1, top: 253, undefined: 255 }, complete: true,
                      axes: { log_gamma: [0, 1] }, log_gamma: 0, log_C: null, kernels: [{ name: "rbf", fields: { log_gamma: [0, 2] } }] };
    const cleanup = show(header({ live: { lattice, log_gamma: 0, log_C: null, panels: [], held: [], locked: [] } }));
    await settled();
    const element = root();
    const controls = element.nextSibling;
    assert.ok(controls.classList.contains("kv-live"));
    cleanup();
    assert.deepEqual(plotly.purged, [element]);
    assert.equal(controls.parentNode, null);
    document.dispatchEvent(new CustomEvent(FINISHED_EVENT, { detail: { kind: "decision", signal: "after" } }));
    assert.deepEqual(triggers, []);
  } finally { uninstall(); }
});

test("a title a preview wrote over is given back before Plotly draws a new figure into its element", async () => {
  const { show, root } = page();
  const figure = (gamma, y) => ({ data: [FIGURE.data[0], { ...FIGURE.data[1], y }],
                                  layout: { ...FIGURE.layout, title: { text: `<b>γ = ${gamma}</b>` } } });
  try {
    show(header({ figure: figure(10, [0, 1]), drawing: "t1" }));
    await settled();
    const title = root().querySelector("text.gtitle");
    previewFigureTitle(root(), "γ = 17.8");  // mid-drag
    assert.ok(title.classList.contains("kv-preview"));
    show(header({ figure: figure(17.8, [1, 0]), drawing: "t2" }));  // other data: Plotly draws it
    await settled();
    assert.equal(root().querySelector("text.gtitle"), title, "plotly.js keeps the element");
    assert.deepEqual(title.childNodes.map((node) => node.nodeValue), ["γ = 17.8"]);
    assert.ok(!title.classList.contains("kv-preview"), "not the preview's any more");
    assert.equal(title.kvFigureText, undefined, "no figure's words of before left to come back");
  } finally { uninstall(); }
});

test("the figure watches the page's content for lines that come or go above it, not the body (as tall as the window)", async () => {
  const { observers } = install();
  try {
    window.Plotly = fakePlotly();
    const content = document.createElement("div");
    content.dataset.testid = "stMainBlockContainer";
    const parentElement = document.createElement("div");
    content.appendChild(parentElement);
    document.body.appendChild(content);
    plot({ data: payload(header()), parentElement, setStateValue: () => {}, setTriggerValue: () => {} });
    const root = parentElement.querySelector(".kv-plot");
    const watched = observers.flatMap((observer) => observer.observed.map(([target]) => target));
    assert.ok(watched.includes(root) && watched.includes(content), watched.map((t) => t.className || t.tagName));
    assert.ok(!watched.includes(document.body));
    await settled();  // the drawing it started, over before the page goes
  } finally { uninstall(); }
});
