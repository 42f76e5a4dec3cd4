// Unit tests of the drawing canvas (kernelviz/components/draw/draw.js, its default export), under
// node --test with a fake page: Python's points and the legend shown, a click painted at once and
// sent as a numbered click until Python has applied it, and the element's going.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import draw from "../../kernelviz/components/draw/draw.js";
import { install, uninstall } from "./fake_dom.mjs";

const DATA = JSON.parse(readFileSync(new URL("fixtures/draw_data.json", import.meta.url), "utf-8"));

const click = (canvas, clientX, clientY) => canvas.dispatchEvent(Object.assign(new Event("click"), { clientX, clientY }));
const arcs = (canvas) => canvas.context.calls.filter(([name]) => name === "arc").map(([, x, y]) => [x, y]);

test("Python's points and the legend are shown; a click is painted at once and sent until Python applied it", () => {
  const { document } = install();
  try {
    const parentElement = document.createElement("div");
    const states = [];
    const show = (data) => draw({ data, parentElement, setStateValue: (name, value) => states.push([name, value]) });
    show(DATA);
    const root = parentElement.querySelector(".kv-draw");
    const legend = root.querySelector(".kv-draw-legend");
    assert.deepEqual(legend.children.map((item) => item.children[1].textContent), ["class +1", "class −1", "unlabeled"]);
    assert.equal(root.dataset.points, "3");
    // a 400 px square for [−3, 3]² inside the axes' margins (44 px left, 14 top)
    const canvas = root.querySelector("canvas.kv-draw-canvas");
    Object.assign(canvas, { clientWidth: 44 + 400 + 14, clientHeight: 14 + 400 + 36 });
    click(canvas, 44 + 200, 14 + 200);
    click(canvas, 44 + 100, 14 + 100);
    const [[name, first], [, second]] = states;
    assert.equal(name, "points");
    assert.deepEqual(first.clicks, [[1, 0, 0, 1]]);
    assert.deepEqual(second, { token: first.token, clicks: [[1, 0, 0, 1], [2, -1.5, 1.5, 1]] });
    assert.equal(root.dataset.points, "5");
    // the circle of class −1 at (−1, 0.25), where the click's scale puts it
    assert.ok(arcs(canvas).some(([x, y]) => Math.abs(x - (44 + (2 / 6) * 400)) < 1e-9 && Math.abs(y - (14 + (2.75 / 6) * 400)) < 1e-9));
    // Python's next run applied the first click: it is one of its points now, the second still on its way
    show({ ...DATA, points: [...DATA.points, [0, 0, 1]], applied: { [first.token]: 1 } });
    assert.equal(root.dataset.points, "5");
    click(canvas, 44, 14);
    assert.deepEqual(states.at(-1)[1].clicks, [[2, -1.5, 1.5, 1], [3, -3, 3, 1]]);
  } finally { uninstall(); }
});

test("when the element goes, its canvas goes and stops following its size", () => {
  const { document, observers } = install();
  try {
    const parentElement = document.createElement("div");
    const cleanup = draw({ data: DATA, parentElement, setStateValue: () => {} });
    assert.equal(parentElement.children.length, 1);
    assert.equal(observers.filter((observer) => observer.observed.length).length, 1);
    cleanup();
    assert.deepEqual(parentElement.children, []);
    assert.equal(observers.filter((observer) => observer.observed.length).length, 0);
  } finally { uninstall(); }
});
