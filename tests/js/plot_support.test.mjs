// Unit tests of the live preview's support vectors and scores (kernelviz/components/plot/support.js),
// under node --test: a lattice value's support vectors as the figure draws them, its scores in the
// figure's words, and a title that says them mid-drag and the figure's own after.
import assert from "node:assert/strict";
import { test } from "node:test";

import { percent, previewFigureTitle, previewTitle, restoreFigureTitle, restoreTitle, restoreTitles, scoreLines, supportLayer, titleAt } from "../../kernelviz/components/plot/support.js";
import { FakeElement, install, uninstall } from "./fake_dom.mjs";

// Four training points; along log_C, value 0 has support vectors 1 and 3, value 1 none, value 2 points 0, 2, 3.
const LATTICE = {
  points: Float32Array.of(0, 0, 1, 0, 0, 1, 1, 1),
  support_marker: { free: "circle-open", bounded: "square-open", size: 10, grow: 14 },
};
const KERNEL = { support: { log_C: { counts: [2, 0, 3], index: Uint16Array.of(1, 3, 0, 2, 3),
                                     alpha: Float32Array.of(0.5, 2, 4, 1, 4), bounded: Uint8Array.of(0, 0, 1, 0, 1) } } };
// the figure's own support vectors of the panel: colour, opacity and outline come from them
const LIKE = { color: "black", opacity: 0.7, lineWidth: 1.5, lineColor: undefined };

test("a value's support vectors: at their training points, squares at C, sized as the figure sizes them", () => {
  const layer = supportLayer(LATTICE, KERNEL, { axis: "log_C", index: 2 }, LIKE);
  assert.deepEqual([...layer.x], [0, 0, 1]);
  assert.deepEqual([...layer.y], [0, 1, 1]);
  assert.deepEqual(layer.symbol, ["square-open", "circle-open", "square-open"]);
  // boundary_figure: 10 + 14 √(|α| / max |α|)
  assert.deepEqual([...layer.size], [24, 10 + 14 * Math.sqrt(0.25), 24]);
  assert.deepEqual([layer.color, layer.opacity, layer.lineWidth, layer.lineColor], ["black", 0.7, 1.5, undefined]);
  const first = supportLayer(LATTICE, KERNEL, { axis: "log_C", index: 0 }, LIKE);
  assert.deepEqual([[...first.x], [...first.y], first.symbol], [[1, 1], [0, 1], ["circle-open", "circle-open"]]);
  assert.equal(supportLayer(LATTICE, KERNEL, { axis: "log_C", index: 1 }, LIKE).x.length, 0);
});

test("no support vectors where the lattice has none: a model's panel, a similarity lattice", () => {
  assert.equal(supportLayer(LATTICE, { support: { log_C: null } }, { axis: "log_C", index: 0 }, LIKE), null);
  assert.equal(supportLayer(LATTICE, { support: null }, { axis: "log_C", index: 0 }, LIKE), null);
  assert.equal(supportLayer({ ...LATTICE, points: null }, KERNEL, { axis: "log_C", index: 0 }, LIKE), null);
});

test("scores in boundary_title's words, two a line, rounded as Python rounds them, the fit's time left out", () => {
  assert.deepEqual(scoreLines([0.9142857, 0.8666667, null]), ["train 91% · test 87%"]);
  assert.deepEqual(scoreLines([1, 0.5, 0.25]), ["train 100% · test 50%", "unlabeled 25%"]);
  assert.deepEqual(scoreLines([0.75, null, null]), ["train 75%"]);
  assert.equal(scoreLines(null), null);
  // f"{12.5:.0f}" == "12", f"{13.5:.0f}" == "14": half to even
  assert.deepEqual([percent(0.125), percent(0.135), percent(0.875), percent(0.9)], [12, 14, 88, 90]);
});

// A title as Plotly draws "<b>rbf</b><br><span>train 90% · test 80%</span><br><span>12 ms</span><br><span>note</span>".
function title() {
  const g = new FakeElement("g");
  g.className = "annotation";
  const text = new FakeElement("text");
  g.appendChild(text);
  for (const words of ["rbf", "train 90% · test 80%", "12 ms", "note"]) {
    const line = new FakeElement("tspan");
    line.className = "line";
    const styled = new FakeElement("tspan");
    styled.textContent = words;
    line.appendChild(styled);
    text.appendChild(line);
  }
  return g;
}
const lines = (g) => g.querySelectorAll("tspan.line").map((line) => [line.textContent, line.classList.contains("kv-hidden")]);

test("mid-drag a title says the value's scores and hides what the lattice does not know; after, the figure's", () => {
  install();
  try {
    const g = title();
    previewTitle(g, ["train 70% · test 60%"]);
    assert.deepEqual(lines(g), [["rbf", false], ["train 70% · test 60%", false], ["12 ms", true], ["note", true]]);
    previewTitle(g, ["train 75% · test 65%"]);  // the next value
    assert.equal(g.classList.contains("kv-stale"), false);
    restoreTitle(g);
    assert.deepEqual(lines(g), [["rbf", false], ["train 90% · test 80%", false], ["12 ms", false], ["note", false]]);
    previewTitle(g, null);  // no scores known there: the name alone (plot.css hides the rest)
    assert.equal(g.classList.contains("kv-stale"), true);
    assert.deepEqual(lines(g).map(([words]) => words), ["rbf", "train 90% · test 80%", "12 ms", "note"]);
    restoreTitle(g);
    assert.equal(g.classList.contains("kv-stale"), false);
  } finally { uninstall(); }
});

test("every title back to the figure's words at once, before a new figure's words are written over them", () => {
  install();
  try {
    const root = new FakeElement("div");
    const [first, second] = [title(), title()];
    root.append(first, second);
    previewTitle(first, ["train 70% · test 60%"]);
    previewTitle(second, null);
    restoreTitles(root);
    for (const g of [first, second]) {
      assert.deepEqual(lines(g), [["rbf", false], ["train 90% · test 80%", false], ["12 ms", false], ["note", false]]);
      assert.equal(g.classList.contains("kv-stale"), false);
      // nothing of the preview's is left to write back over newer words
      assert.ok(g.querySelectorAll("tspan.line").every((line) => line.kvFigureText === undefined));
    }
  } finally { uninstall(); }
});

test("the figure's title at the dragged γ and C, as Python's f\"{value:.3g}\" prints them", () => {
  assert.equal(titleAt("Decision boundaries at γ = {gamma}, C = {C}", 1.25, -0.5),
               "Decision boundaries at γ = 17.8, C = 0.316");
});

test("mid-drag the figure's title says the dragged values, and the figure's own words come back", () => {
  install();
  try {
    const root = new FakeElement("div");
    const text = new FakeElement("text");
    text.className = "gtitle";
    const bold = new FakeElement("tspan");
    bold.textContent = "Decision boundaries at γ = 10, C = 1";
    text.appendChild(bold);
    root.appendChild(text);
    previewFigureTitle(root, "Decision boundaries at γ = 17.8, C = 1");
    assert.equal(text.textContent, "Decision boundaries at γ = 17.8, C = 1");
    assert.ok(text.classList.contains("kv-preview"), "marked: not the committed figure's title");
    previewFigureTitle(root, "Decision boundaries at γ = 31.6, C = 1");  // the next value
    assert.equal(text.textContent, "Decision boundaries at γ = 31.6, C = 1");
    restoreTitles(root);  // before a new figure's words are written (titles.js reads them as drawn)
    assert.equal(text.textContent, "Decision boundaries at γ = 10, C = 1");
    assert.ok(!text.classList.contains("kv-preview"));
    restoreFigureTitle(root);  // nothing to give back twice
    assert.equal(text.textContent, "Decision boundaries at γ = 10, C = 1");
    previewFigureTitle(new FakeElement("div"), "no title drawn");  // a figure without a title: nothing to do
  } finally { uninstall(); }
});
