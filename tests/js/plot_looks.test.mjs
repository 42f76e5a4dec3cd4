// Unit tests of what a live preview's panel looks like at a field of the lattice
// (kernelviz/components/plot/looks.js), under node --test. The numbers it must agree with are
// kernelviz's own: the codec of kernelviz.lattice (254 buckets, 255 undefined), the tints of
// kernelviz.figures._binary_regions, nice_levels' steps.
import assert from "node:assert/strict";
import { test } from "node:test";

import { contourPaths } from "../../kernelviz/components/plot/contours.js";
import { classLook, codeHistogram, decisionLook, niceStep, quantile, similarityLook } from "../../kernelviz/components/plot/looks.js";

const DECISION = { lo: -3, hi: 3, top: 253, undefined: 255 };
const UNIT = { lo: 0, hi: 1, top: 253, undefined: 255 };
const step = (codec) => (codec.hi - codec.lo) / (codec.top + 1);
const encode = (codec, v) => Math.min(Math.max(Math.floor((v - (codec.lo + codec.hi) / 2) / step(codec)) + 127, 0), codec.top);

test("the zero contour of the decision codec lies between the codes of f < 0 and f ≥ 0", () => {
  const codes = new Uint8Array([encode(DECISION, -1e-9), encode(DECISION, 1e-9)]);
  assert.deepEqual([...codes], [126, 127]);
  const trace = { colorscale: [[0, "#a0c4e8"], [0.5, "#FFFFFF"], [1, "#f0c09a"]],
                  line: {}, contours: {} };
  const levels = [{ type: "contour", contours: { start: 0, end: 0, size: 1, coloring: "none" }, line: { color: "black", width: 2.6 } },
                  { type: "contour", contours: { start: -1, end: 1, size: 2, coloring: "none" }, line: { color: "#444444", width: 1.3, dash: "dash" } }];
  const look = decisionLook(DECISION, { field: trace, levels }, codes);
  assert.deepEqual(look.lines.map((l) => l.code), [126.5, (-1 + 3) / step(DECISION) - 0.5, (1 + 3) / step(DECISION) - 0.5]);
  assert.equal(look.lines[2].dash, "dash");
  // every negative code is tinted towards the low colour, every non-negative one towards the high one
  for (let code = 0; code <= 253; code += 1) {
    const [r, , b] = look.table.slice(code * 4, code * 4 + 3);
    if (code < 126) assert.ok(b > r, `code ${code}`);
    if (code > 127) assert.ok(r > b, `code ${code}`);
  }
});

test("tints saturate at the 95th percentile of |f|, held within [1, 3] as the figure's heatmap", () => {
  const field = { colorscale: [[0, "#000000"], [0.5, "#808080"], [1, "#ffffff"]] };
  const small = new Uint8Array(100).map((_, i) => encode(DECISION, (i - 50) / 100));  // |f| ≤ 0.5: limit 1
  const look = decisionLook(DECISION, { field, levels: [] }, small);
  const at = (f) => look.table[encode(DECISION, f) * 4];
  assert.equal(at(1.5), 255);  // beyond the limit 1: saturated
  assert.ok(at(0.5) > 180 && at(0.5) < 200);  // 0.5 / 1 of the way from the middle (128 → 255): ~191
});

test("quantiles of codes follow numpy's on the bucket middles", () => {
  const codes = new Uint8Array([10, 20, 30, 40, 255]);
  const counts = codeHistogram(codes, 255);
  assert.equal(counts[255], 0);
  assert.equal(quantile(counts, (c) => c, 0.5), 20);
  assert.equal(quantile(counts, (c) => c, 1), 40);
  assert.ok(Number.isNaN(quantile(codeHistogram(new Uint8Array([255]), 255), (c) => c, 0.5)));
});

test("nice steps are kernelviz.figures.nice_levels' (1, 2, 2.5, 5 × 10^k)", () => {
  // nice_levels([0, top], 9)[1] for these tops, computed in Python
  for (const [top, expected] of [[0.7, 0.1], [1.3, 0.2], [2.0, 0.25], [4.1, 0.5], [12, 2], [0, 1]]) {
    assert.equal(niceStep(top, 9), expected, `top ${top}`);
  }
});

test("similarity bands come from the dissimilarity codes: exp(−γ d²)", () => {
  const trace = { colorscale: [[0, "rgb(255,255,255)"], [1, "rgb(0,0,255)"]], zmin: 0, zmax: 1,
                  contours: { start: 0.1, end: 0.9, size: 0.1, coloring: "fill" }, line: { color: "#333", width: 1 } };
  const scale = 2, gamma = 1;
  const look = similarityLook(UNIT, { field: trace, levels: [], lines: [] }, new Uint8Array([0, 253]), scale, gamma, "#fff");
  // code 0: d ≈ 0, s ≈ 1 → the top band (0.95): nearly blue; code 253: d ≈ 2, s ≈ 0.018 → under 0.1 (0.05): nearly white
  assert.ok(look.table[0 * 4 + 2] > 240 && look.table[0 * 4] < 20);
  assert.ok(look.table[253 * 4] > 230);
  // the level s = 0.5 is d = √(ln 2 / γ), as a code level
  const half = look.lines.find((_, k) => Math.abs(0.1 * (k + 1) - 0.5) < 1e-9);
  assert.ok(Math.abs(half.code - (Math.sqrt(Math.log(2)) / scale / step(UNIT) - 0.5)) < 1e-9);
});

test("dissimilarity levels sit every nice step, from the 70th percentile of d", () => {
  const trace = { colorscale: [[0, "#1b3a6b"], [1, "#7aa6d6"]], contours: { coloring: "lines" }, line: { width: 1.4 } };
  const codes = new Uint8Array(254).map((_, i) => i);  // d spread evenly over [0, scale]
  const look = similarityLook(UNIT, { field: trace }, codes, 1, 1, "#ffffff");
  // 70th percentile ≈ 0.7 → step 0.1: levels 0.1 … 1.2
  assert.equal(look.lines.length, 12);
  assert.ok(Math.abs(look.lines[0].code - (0.1 / step(UNIT) - 0.5)) < 1e-9);
  assert.deepEqual([...look.table.slice(0, 4)], [255, 255, 255, 255]);  // no fill: the plot's background
});

test("more than two classes: each class tinted as the figure's discrete heatmap, each region outlined", () => {
  // kernelviz.figures._discrete_colorscale of three colours: flat steps at thirds
  const colorscale = [[0, "#ff0000"], [1 / 3, "#ff0000"], [1 / 3, "#00ff00"], [2 / 3, "#00ff00"], [2 / 3, "#0000ff"], [1, "#0000ff"]];
  const codes = new Uint8Array([0, 0, 1, 1, 2, 2, 0, 0, 1, 1, 2, 2]);  // 6 × 2
  const look = classLook({ field: { colorscale }, levels: [{ line: { color: "black", width: 2.2 } }] }, codes, 3);
  assert.deepEqual([...look.table.slice(0, 12)], [255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255]);
  assert.equal(look.lines.length, 3);
  assert.deepEqual([...look.lines[1].codes], [0, 0, 1, 1, 0, 0, 0, 0, 1, 1, 0, 0]);
  const paths = contourPaths(look.lines[1].codes, 6, 2, 0.5, 255);
  assert.deepEqual(paths.map((p) => p.map((q) => q.x)), [[1.5, 1.5], [3.5, 3.5]].map((xs) => xs));
});

test("a model without margins: codes of f / scale, tints saturating at its own 95th percentile", () => {
  const field = { colorscale: [[0, "#000000"], [0.5, "#808080"], [1, "#ffffff"]] };
  const scale = 0.002;  // a discriminant's f: thousandths
  const codes = new Uint8Array(100).map((_, i) => encode(DECISION, (i - 50) / 50));  // f / scale over [−1, 1)
  const levels = [{ type: "contour", contours: { start: 0, end: 0, size: 1, coloring: "none" }, line: { color: "black", width: 2.6 } }];
  const look = decisionLook(DECISION, { field, levels }, codes, scale, false);
  assert.equal(look.lines[0].code, 126.5);  // f = 0 is still between codes 126 and 127
  // the limit is ~0.95 × scale, not 1: f = scale is beyond it (saturated), f = scale / 2 about half way
  assert.equal(look.table[encode(DECISION, 1) * 4], 255);
  const half = look.table[encode(DECISION, 0.5) * 4];
  assert.ok(half > 185 && half < 200, String(half));
  // with margins (an SVM) the same codes would saturate only beyond f = 1, i.e. never here
  const svm = decisionLook(DECISION, { field, levels }, codes, scale, true);
  assert.ok(svm.table[encode(DECISION, 1) * 4] < 140);
});

test("the level curves' background is the plot's, also when the figure names it (plotly_white: \"white\")", () => {
  // plotly_white's plot_bgcolor is the word "white": read as no numbers at all, it painted every
  // cell of a Similarity panel black while γ moved
  const trace = { colorscale: [[0, "#1b3a6b"], [1, "#7aa6d6"]], contours: { coloring: "lines" }, line: { width: 1.4 } };
  const codes = new Uint8Array(254).map((_, i) => i);
  for (const [name, rgb] of [["white", [255, 255, 255]], ["WhiteSmoke", [245, 245, 245]], ["rgb(250, 250, 250)", [250, 250, 250]],
                             ["#fff", [255, 255, 255]], ["#E5ECF6", [229, 236, 246]], ["rgba(240,240,240,1)", [240, 240, 240]]]) {
    const look = similarityLook(UNIT, { field: trace }, codes, 1, 1, name);
    assert.deepEqual([...look.table.slice(0, 4)], [...rgb, 255], name);
  }
});
