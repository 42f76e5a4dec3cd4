// Unit tests of the small multiples' layout for the screen (kernelviz/components/plot/arrange.js).
import assert from "node:assert/strict";
import { test } from "node:test";

import { arrangePanels, bestGrid, titleHeight } from "../../kernelviz/components/plot/arrange.js";

// A figure as kernelviz.figures.boundary_figure marks it: `count` equal-aspect panels, titles as annotations.
function figure(count, { titleLines = 3, aspect = 1 } = {}) {
  const layout = { font: { size: 12 }, title: { text: "Decision boundaries", font: { size: 18 } }, annotations: [],
                   meta: { kv_panels: { count, equal: true, titles: [] } }, legend: {} };
  const data = [];
  for (let i = 0; i < count; i += 1) {
    const s = i === 0 ? "" : String(i + 1);
    layout[`xaxis${s}`] = { range: [-2, 2], domain: [0, 1] };
    layout[`yaxis${s}`] = { range: [-2 * aspect, 2 * aspect], domain: [0, 1] };
    layout.meta.kv_panels.titles.push(layout.annotations.length);
    layout.annotations.push({ text: Array.from({ length: titleLines }, (_, k) => `line ${k}`).join("<br>"), font: { size: 14 },
                              xref: "paper", yref: "paper" });
    data.push({ type: "scatter", mode: "markers", name: "class 0", legendgroup: "c0", showlegend: i === 0,
                xaxis: `x${s}`, yaxis: `y${s}`, x: [0], y: [0] });
  }
  return { data, layout };
}

function panelBoxes(result, count, width) {
  const { layout } = result;
  const plotWidth = width - layout.margin.l - layout.margin.r;
  const plotHeight = layout.height - layout.margin.t - layout.margin.b;
  return Array.from({ length: count }, (_, i) => {
    const s = i === 0 ? "" : String(i + 1);
    const [x0, x1] = layout[`xaxis${s}`].domain;
    const [y0, y1] = layout[`yaxis${s}`].domain;
    return { left: x0 * plotWidth, right: x1 * plotWidth, top: (1 - y1) * plotHeight, bottom: (1 - y0) * plotHeight };
  });
}

test("four panels sit in one row on a wide screen and 2 × 2 where a row would make them small", () => {
  const wide = arrangePanels(figure(4), { width: 1800, height: 800 });
  assert.equal(`${wide.rows}x${wide.cols}`, "1x4");
  const narrow = arrangePanels(figure(4), { width: 1000, height: 800 });
  assert.equal(`${narrow.rows}x${narrow.cols}`, "2x2");
  assert.ok(narrow.side > 0.25 * 1000, narrow.side);
  // a laptop's column (1,000 × 650 px below the controls): a row of four would be 200 px panels in a
  // figure a third of the screen tall; 2 × 2 panels are as large and fill the height
  const laptop = arrangePanels(figure(4), { width: 1000, height: 650 });
  assert.equal(`${laptop.rows}x${laptop.cols}`, "2x2");
  assert.ok(laptop.layout.height > 0.9 * 650, laptop.layout.height);
});

test("the figure is no taller than its box, and its panels keep the data's aspect", () => {
  for (const [width, height] of [[1800, 800], [1000, 550], [1300, 900]]) {
    const result = arrangePanels(figure(4, { aspect: 0.6 }), { width, height });
    assert.ok(result.layout.height <= height + 1, `${width}×${height}: ${result.layout.height}`);
    for (const box of panelBoxes(result, 4, width)) {
      assert.ok(Math.abs((box.bottom - box.top) / (box.right - box.left) - 0.6) < 0.02, JSON.stringify(box));
    }
  }
});

test("a second row's title block starts below the row above, and below its tick labels where it has them", () => {
  const fig = figure(4, { titleLines: 6 });
  const block = titleHeight(fig.layout.annotations[0], 12);
  assert.ok(block >= 6 * 11 * 1.2, block);
  // 2 × 2: the upper row writes no x tick labels (the axes are shared): its title block is all that parts the rows
  const full = arrangePanels(fig, { width: 1000, height: 1000 });
  assert.equal(`${full.rows}x${full.cols}`, "2x2");
  const boxes = panelBoxes(full, 4, 1000);
  assert.ok(boxes[2].top - block >= boxes[0].bottom, JSON.stringify({ boxes, block }));
  assert.deepEqual([0, 1, 2, 3].map((i) => full.layout[`xaxis${i ? i + 1 : ""}`].showticklabels), [false, false, true, true]);
  assert.deepEqual([0, 1, 2, 3].map((i) => full.layout[`yaxis${i ? i + 1 : ""}`].showticklabels), [true, false, true, false]);
  // three panels in 2 × 2: the upper right one has none below it and keeps its tick labels, under which the next row starts
  const three = figure(3, { titleLines: 6 });
  const gap = arrangePanels(three, { width: 1000, height: 1000 });
  assert.equal(`${gap.rows}x${gap.cols}`, "2x2");
  const three_boxes = panelBoxes(gap, 3, 1000);
  assert.equal(gap.layout.xaxis2.showticklabels, true);
  assert.ok(three_boxes[2].top - block >= three_boxes[1].bottom + 12 * 1.9, JSON.stringify({ three_boxes, block }));
  // each title sits on its panel's top edge, above it
  const plotHeight = full.layout.height - full.layout.margin.t - full.layout.margin.b;
  const note = full.layout.annotations[2];
  assert.ok(Math.abs((1 - note.y) * plotHeight - boxes[2].top) < 1);
  assert.equal(note.yanchor, "bottom");
  assert.equal(note.captureevents, true);
});

test("one panel alone fills the box; the others and their traces are hidden, their legend entries kept", () => {
  const fig = figure(4);
  const result = arrangePanels(fig, { width: 1400, height: 800 }, 2);
  assert.equal(`${result.rows}x${result.cols}`, "1x1");
  assert.equal(result.layout.xaxis.visible, false);
  assert.equal(result.layout.xaxis3.visible, true);
  // the hidden panels lie under the one shown, so that the axes they share keep its size
  assert.deepEqual(result.layout.xaxis.domain, result.layout.xaxis3.domain);
  assert.equal(result.layout.xaxis3.showticklabels && result.layout.yaxis3.showticklabels, true);
  assert.ok(result.side > 600, result.side);
  assert.deepEqual(result.data.map((t) => t.visible !== false), [false, false, true, false]);
  assert.equal(result.data[2].showlegend, true);  // panel 1 carried "class 0"'s entry
  assert.equal(result.layout.annotations[0].visible, false);
});

test("a figure without marked panels is left as it was made", () => {
  assert.equal(arrangePanels({ data: [], layout: { height: 400 } }, { width: 1000, height: 800 }), null);
});

test("rows are chosen for the largest panels, the fewest rows among equals", () => {
  const room = { width: 1000, height: 600, title: 40, gapX: 40, gapY: 30, gapShared: 10 };
  assert.equal(bestGrid(1, 1, room).rows, 1);
  assert.deepEqual([bestGrid(3, 1, { ...room, width: 2000 }).rows, bestGrid(3, 1, { ...room, width: 2000 }).cols], [1, 3]);
});
