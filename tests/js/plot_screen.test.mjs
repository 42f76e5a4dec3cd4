// Unit tests of the figure laid out for the screen (kernelviz/components/plot/screen.js), under node
// --test with a fake page: the box it may fill, small multiples arranged in it, one panel alone, and
// a new layout only when the room changed and no script runs.
import assert from "node:assert/strict";
import { test } from "node:test";

import { arranged, fitToScreen, redrawArranged } from "../../kernelviz/components/plot/screen.js";
import { fakePlotly, install, uninstall } from "./fake_dom.mjs";

// A figure as kernelviz.figures marks its small multiples: `count` equal-aspect panels titled by annotations.
function panels(count) {
  const layout = { datarevision: "rev", font: { size: 12 }, annotations: [], meta: { kv_panels: { count, equal: true, titles: [] } } };
  const data = [];
  for (let i = 0; i < count; i += 1) {
    const s = i === 0 ? "" : String(i + 1);
    layout[`xaxis${s}`] = { range: [-2, 2] };
    layout[`yaxis${s}`] = { range: [-2, 2] };
    layout.meta.kv_panels.titles.push(i);
    layout.annotations.push({ text: `panel ${i}` });
    data.push({ type: "scatter", mode: "markers", xaxis: `x${s}`, yaxis: `y${s}`, x: [0], y: [0] });
  }
  return { data, layout };
}
const CURVES = { data: [{ type: "scatter", mode: "lines", x: [0, 1], y: [0, 1] }], layout: { height: 450 } };

// A chart's element in the page: `top` px from the top of the screen, `width` px wide.
function chart({ top = 100, width = 800, split = CURVES } = {}) {
  const root = document.createElement("div");
  root.className = "kv-plot";
  root.box = { left: 0, top, width, height: 450 };
  root.clientWidth = width;
  document.body.appendChild(root);
  return { root, split, solo: null, box: null, drawn: Promise.resolve(), payload: { config: { responsive: true } }, runEnd: null };
}

test("the page's first figure fills the screen below its top; the figures under it keep their height", () => {
  install({ innerHeight: 900 });
  try {
    const first = chart();
    const figure = arranged(first);
    assert.deepEqual([figure.layout.width, figure.layout.height, first.root.dataset.box], [800, 900 - 100 - 16, "800x784"]);
    assert.equal(arranged(chart({ top: 1000 })).layout.height, 450);
    assert.equal(arranged(chart({ split: { ...CURVES, layout: { height: 1200 } } })).layout.height, 1200);  // a taller one stays taller
  } finally { uninstall(); }
});

test("the box's height: the screen below the figure's top, 90 % of it below half the screen, never under 55 %", () => {
  install({ innerHeight: 900 });
  try {
    const low = chart({ top: 600 });
    arranged(low);
    assert.deepEqual(low.box, { width: 800, height: 810 });
    const tight = chart({ top: 440 });
    arranged(tight);
    assert.equal(tight.box.height, 495);
    const scrolled = chart({ top: 200 });  // Streamlit's main section scrolled by 300 px: its top is 500 px down
    const section = document.createElement("section");
    section.scrollTop = 300;
    section.appendChild(scrolled.root);
    arranged(scrolled);
    assert.equal(scrolled.box.height, 810);
  } finally { uninstall(); }
});

test("small multiples are arranged for the box; one panel alone gets its own data revision", () => {
  install({ innerHeight: 900 });
  try {
    const view = chart({ width: 1800, top: 50, split: panels(2) });
    const both = arranged(view);
    assert.deepEqual([view.root.dataset.panels, both.layout.width, both.layout.datarevision], ["1x2", 1800, "rev"]);
    view.solo = 1;
    const alone = arranged(view);
    assert.equal(alone.layout.datarevision, "rev-alone1");
    assert.deepEqual(alone.data.map((trace) => trace.visible), [false, undefined]);  // the other panel is not drawn
  } finally { uninstall(); }
});

test("a new layout is handed to Plotly, the element saying so until it is drawn; without plotly.js, nothing", async () => {
  const { window } = install({ innerHeight: 900 });
  try {
    const view = chart({ split: panels(2) });
    redrawArranged(view);
    assert.equal(view.root.dataset.arranging, undefined);
    window.Plotly = fakePlotly();
    view.solo = 0;
    redrawArranged(view);
    assert.deepEqual([view.root.dataset.arranging, view.root.dataset.solo], ["1", "0"]);
    await view.drawn;
    assert.equal(view.root.dataset.arranging, "0");
    const [drawn] = window.Plotly.reacted;
    assert.deepEqual([drawn.root, drawn.layout.datarevision, drawn.config], [view.root, "rev-alone0", { responsive: true }]);
    assert.equal(view.root.style.minHeight, `${drawn.layout.height}px`);
  } finally { uninstall(); }
});

test("the figure is laid out again only when its room changed, and while a script runs only once it is over", async () => {
  const { window, observers } = install({ innerHeight: 900 });
  try {
    window.Plotly = fakePlotly();
    const view = chart({ split: panels(2) });
    await window.Plotly.react(view.root, [], {}, {});  // drawn once already
    window.Plotly.reacted.length = 0;
    arranged(view);
    fitToScreen(view);
    view.root.clientWidth = 801;  // a pixel: the same room
    fitToScreen(view);
    await view.drawn;
    assert.equal(window.Plotly.reacted.length, 0);
    const app = document.createElement("div");
    app.dataset.testid = "stApp";
    app.dataset.testScriptState = "running";
    document.body.appendChild(app);
    view.root.clientWidth = 700;
    fitToScreen(view);
    fitToScreen(view);
    await view.drawn;
    assert.equal(window.Plotly.reacted.length, 0);
    assert.equal(observers.filter((observer) => observer.observed.length).length, 1);  // one watch of the run's end
    app.dataset.testScriptState = "notRunning";
    view.runEnd.callback();
    await view.drawn;
    assert.equal(window.Plotly.reacted.length, 1);
    assert.equal(window.Plotly.reacted[0].layout.width, 700);
    assert.equal(view.runEnd, null);
  } finally { uninstall(); }
});

test("a panel alone and back again keeps the room the figure was laid out for while it moved less than a re-layout's margin", () => {
  install({ innerHeight: 900 });
  try {
    const view = chart({ width: 1400, top: 300, split: panels(4) });
    const before = arranged(view);
    view.root.box.top = 295;  // a line above the figure lost a few pixels after it was drawn
    view.solo = 2;
    arranged(view);
    view.solo = null;
    const after = arranged(view);
    assert.deepEqual(view.box, { width: 1400, height: 900 - 300 - 16 });
    assert.deepEqual([after.layout.width, after.layout.height], [before.layout.width, before.layout.height]);
    view.root.box.top = 200;  // a whole line less above it: a new room
    arranged(view);
    assert.equal(view.box.height, 900 - 200 - 16);
  } finally { uninstall(); }
});
