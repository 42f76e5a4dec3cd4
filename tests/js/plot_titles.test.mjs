// Unit tests of a figure's titles rewritten in place (kernelviz/components/plot/titles.js): which
// changes are words only, and the words written into the text nodes Plotly drew — or nothing at all
// where the drawing is not what the layout says.
import assert from "node:assert/strict";
import { test } from "node:test";

import { drawnAs, words, wordsOnly, writeWords } from "../../kernelviz/components/plot/titles.js";

const TITLE = (score, ms) => `<b>RBF</b><br><span style='font-size:11px'>train ${score}</span><br><span style='font-size:11px'>${ms} ms</span>`;

function figure(texts, revision = "kv-1") {
  return { data: [{ type: "scatter" }], layout: { datarevision: revision, xaxis: { range: [0, 1] },
                                                   annotations: texts.map((text, i) => ({ text, x: i, xanchor: "center" })) } };
}

// What Plotly draws of an annotation: <text class="annotation-text"> with one text node per word
// between the tags (plain objects: the function reads childNodes, nodeType, nodeValue).
function drawnAnnotation(text) {
  const attributes = {};
  const empty = () => ({ nodeType: 3, nodeValue: "" });  // as Plotly leaves around its tspans
  const leaves = words(text).map((value) => ({ childNodes: [empty(), { nodeType: 3, nodeValue: value }, empty()], nodeType: 1 }));
  return { childNodes: leaves.map((leaf) => ({ nodeType: 1, childNodes: [leaf] })), nodeType: 1, attributes,
           setAttribute(name, value) { attributes[name] = value; } };
}

function drawnRoot(layout) {
  const elements = layout.annotations.map((a) => drawnAnnotation(a.text));
  const title = typeof layout.title === "string" ? layout.title : layout.title && layout.title.text;
  const gtitle = title === undefined ? null : drawnAnnotation(title);
  return {
    elements,
    gtitle,
    layout,
    querySelector(selector) {
      if (selector === "text.gtitle") return gtitle;
      const element = elements[Number(/data-index="(\d+)"/.exec(selector)[1])];
      return element ? { querySelector: () => element } : null;
    },
  };
}

const shown = (element) => element.childNodes.map((line) => line.childNodes[0].childNodes[1].nodeValue);

test("the words between the tags, and none where Plotly would write something else", () => {
  assert.deepEqual(words(TITLE("95%", 2)), ["RBF", "train 95%", "2 ms"]);
  assert.equal(words("a &amp; b"), null);
  assert.equal(words("two\nlines"), null);
});

test("a change of words alone is found; any other change is not words only", () => {
  const before = drawnAs(figure([TITLE("95%", 2), TITLE("90%", 3)]));
  assert.deepEqual(wordsOnly(before, figure([TITLE("95%", 2), TITLE("91%", 4)])), [[1, TITLE("91%", 4)]]);
  assert.deepEqual(wordsOnly(before, figure([TITLE("95%", 2), TITLE("90%", 3)])), []);
  assert.equal(wordsOnly(before, figure([TITLE("95%", 2), TITLE("90%", 3)], "kv-2")), null, "new data");
  assert.equal(wordsOnly(before, figure([TITLE("95%", 2), "<b>RBF</b>"])), null, "a line less");
  assert.equal(wordsOnly(before, figure([TITLE("95%", 2)])), null, "an annotation less");
  const moved = figure([TITLE("95%", 2), TITLE("91%", 4)]);
  moved.layout.xaxis.range = [0, 2];
  assert.equal(wordsOnly(before, moved), null, "an axis changed too");
  assert.equal(wordsOnly(null, before), null, "nothing drawn yet");
});

test("what Plotly writes into the layout it was given does not count as a change", () => {
  const given = figure([TITLE("95%", 2)]);
  const drawn = drawnAs(given);
  given.layout.xaxis.type = "linear";  // as plotly.js does
  given.layout.xaxis.domain = [1e-17, 0.5];
  assert.deepEqual(wordsOnly(drawn, figure([TITLE("96%", 2)])), [[0, TITLE("96%", 2)]]);
});

test("the new words are written into the drawn text nodes, and into Plotly's copy of the layout", () => {
  const before = figure([TITLE("95%", 2), TITLE("90%", 3)]);
  const root = drawnRoot(before.layout);
  const changes = wordsOnly(drawnAs(before), figure([TITLE("95%", 2), TITLE("100%", 12)]));
  assert.equal(writeWords(root, drawnAs(before), changes), true);
  assert.deepEqual(shown(root.elements[1]), ["RBF", "train 100%", "12 ms"]);
  assert.deepEqual(shown(root.elements[0]), ["RBF", "train 95%", "2 ms"]);
  assert.equal(root.elements[1].attributes["data-unformatted"], TITLE("100%", 12));
  assert.equal(before.layout.annotations[1].text, TITLE("100%", 12), "Plotly's next react compares against these words");
});

test("where the drawing is not what the layout says, nothing is written", () => {
  const before = figure([TITLE("95%", 2), TITLE("90%", 3)]);
  const root = drawnRoot(figure([TITLE("95%", 2), TITLE("80%", 3)]).layout);  // drawn otherwise
  root.layout = before.layout;
  const changes = wordsOnly(drawnAs(before), figure([TITLE("96%", 2), TITLE("91%", 4)]));
  assert.equal(writeWords(root, drawnAs(before), changes), false);
  assert.deepEqual(shown(root.elements[0]), ["RBF", "train 95%", "2 ms"], "not even the annotation that matched");
  assert.equal(before.layout.annotations[0].text, TITLE("95%", 2));
  const missing = { querySelector: () => null };
  assert.equal(writeWords(missing, drawnAs(before), changes), false);
});

const HEAD = (gamma) => `<b>Decision boundaries at γ = ${gamma}, C = 1</b>`;

test("the figure's own title is words too, as a string or as {text, font}; its font or tags changed is not", () => {
  for (const title of [(g) => HEAD(g), (g) => ({ text: HEAD(g), font: { size: 18 } })]) {
    const titled = (gamma, score) => ({ ...figure([TITLE(score, 2)]), layout: { ...figure([TITLE(score, 2)]).layout, title: title(gamma) } });
    const before = drawnAs(titled(10, "95%"));
    assert.deepEqual(wordsOnly(before, titled(17.8, "95%")), [["title", HEAD(17.8)]]);
    assert.deepEqual(wordsOnly(before, titled(17.8, "96%")), [[0, TITLE("96%", 2)], ["title", HEAD(17.8)]]);
  }
  const object = (text, size) => ({ ...figure([TITLE("95%", 2)]), layout: { ...figure([TITLE("95%", 2)]).layout, title: { text, font: { size } } } });
  assert.equal(wordsOnly(drawnAs(object(HEAD(10), 18)), object(HEAD(17.8), 20)), null, "its font changed too");
  assert.equal(wordsOnly(drawnAs(object(HEAD(10), 18)), object("Decision boundaries at γ = 17.8", 18)), null, "its tags changed");
  assert.equal(wordsOnly(drawnAs(object(HEAD(10), 18)), figure([TITLE("95%", 2)])), null, "the title is gone");
});

test("the figure's new title is written where Plotly drew it, and into Plotly's copy of the layout", () => {
  const before = { ...figure([TITLE("95%", 2)]), layout: { ...figure([TITLE("95%", 2)]).layout, title: { text: HEAD(10) } } };
  const next = { ...before, layout: { ...before.layout, title: { text: HEAD(17.8) } } };
  const root = drawnRoot(before.layout);
  assert.equal(writeWords(root, drawnAs(before), wordsOnly(drawnAs(before), next)), true);
  assert.deepEqual(shown(root.gtitle), ["Decision boundaries at γ = 17.8, C = 1"]);
  assert.equal(root.gtitle.attributes["data-unformatted"], HEAD(17.8));
  assert.equal(before.layout.title.text, HEAD(17.8));
  const untitled = { ...root, querySelector: (selector) => (selector === "text.gtitle" ? null : root.querySelector(selector)) };
  const back = { ...before, layout: { ...before.layout, title: { text: HEAD(10) } } };
  assert.equal(writeWords(untitled, drawnAs(next), wordsOnly(drawnAs(next), back)), false, "no title drawn");
});
