// What a live preview's panel looks like at a field of the lattice: the colour of each code (256
// RGBA entries) and the levels to stroke, as code levels. kernelviz.figures draws the committed
// panel from f itself; these make its choices (tints, levels) again from the lattice's codes.

import { colourScale, parseColour, rgb } from "./colours.js";
import { levelsOf } from "./contours.js";

export function codeHistogram(codes, undefinedCode) {
  const counts = new Uint32Array(256);
  for (let i = 0; i < codes.length; i += 1) counts[codes[i]] += 1;
  counts[undefinedCode] = 0;
  return counts;
}

// The q-quantile of value(code) over the defined codes (to the code's bucket).
export function quantile(counts, value, q) {
  const order = [];
  let total = 0;
  for (let code = 0; code < 256; code += 1) {
    if (counts[code]) {
      order.push([value(code), counts[code]]);
      total += counts[code];
    }
  }
  if (!total) return NaN;
  order.sort((a, b) => a[0] - b[0]);
  let seen = 0;
  for (const [v, n] of order) {
    seen += n;
    if (seen >= q * total) return v;
  }
  return order[order.length - 1][0];
}

// kernelviz.figures.nice_levels' step for levels spanning [0, top] about `count` at a time.
export function niceStep(top, count) {
  if (!(top > 0)) return 1;
  const raw = top / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 2.5, 5, 10].map((m) => m * power).find((v) => v >= raw);
}

// A field of f (codes of f / scale: a model without margins stores its f over its own scale,
// kernelviz.lattice.panel_codes); `margins`: the panel is an SVM's, whose f = ±1 means something.
export function decisionLook(codec, traces, codes, scale = 1, margins = true) {
  const step = (codec.hi - codec.lo) / (codec.top + 1);
  const value = (code) => (codec.lo + (code + 0.5) * step) * scale;
  // kernelviz.figures._binary_regions: tints saturate at the 95th percentile of |f|, within [1, 3]
  // for an SVM, as it is for the other models
  const found = quantile(codeHistogram(codes, codec.undefined), (code) => Math.abs(value(code)), 0.95);
  const spread = Number.isFinite(found) ? found : 1;
  const limit = margins ? Math.min(Math.max(spread, 1), 3) : Math.max(spread, 1e-12);
  const table = new Uint8ClampedArray(256 * 4);
  const colour = colourScale(traces.field.colorscale);
  for (let code = 0; code <= codec.top; code += 1) {
    table.set([...colour(Math.min(Math.max((value(code) + limit) / (2 * limit), 0), 1)), 255], code * 4);
  }
  const toCode = (f) => (f / scale - codec.lo) / step - 0.5;
  const lines = traces.levels.flatMap((trace) => levelsOf(trace.contours).map((f) => ({
    code: toCode(f), colour: trace.line.color, width: trace.line.width, dash: trace.line.dash })));
  return { table, lines };
}

// More than two classes: each code is a class index (kernelviz.lattice), tinted as the figure's
// discrete heatmap tints it; each class's region is outlined by the level 0.5 of its indicator.
export function classLook(traces, codes, classes) {
  const table = new Uint8ClampedArray(256 * 4);
  const colour = colourScale(traces.field.colorscale);
  for (let j = 0; j < classes; j += 1) table.set([...colour((j + 0.5) / classes), 255], j * 4);
  const line = (traces.levels[0] || { line: { color: "#000000", width: 2 } }).line;
  const lines = [];
  for (let j = 0; j < classes; j += 1) {
    lines.push({ code: 0.5, codes: codes.map((c) => (c === j ? 1 : 0)), colour: line.color, width: line.width, dash: line.dash });
  }
  return { table, lines, stepped: true };  // a class index has no value between two classes
}

// Similarity panels store the dissimilarity d as a share of the field's largest (kernelviz.lattice):
// the shaded view is s = exp(−γ d²) in filled bands, the other d's level curves.
export function similarityLook(codec, traces, codes, scale, gamma, behind) {
  const step = (codec.hi - codec.lo) / (codec.top + 1);
  const distance = (code) => (codec.lo + (code + 0.5) * step) * scale;
  const toCode = (d) => d / scale / step - 0.5;
  const trace = traces.field;
  const contours = trace.contours;
  const table = new Uint8ClampedArray(256 * 4);
  const lines = [];
  if (contours.coloring === "lines") {
    // kernelviz.figures.similarity_figure: levels every nice step up to 12 of them, the step from
    // the 70th percentile of d; each level coloured along the scale over the field's range
    const top = quantile(codeHistogram(codes, codec.undefined), distance, 0.7);
    const size = niceStep(top, 9);
    const colour = parseColour(behind);
    for (let code = 0; code < 256; code += 1) table.set([...colour, 255], code * 4);
    for (let k = 1; k <= 12; k += 1) {
      const d = k * size;
      lines.push({ code: toCode(d), colour: rgb(colourScale(trace.colorscale)(Math.min(d / scale, 1))),
                   width: trace.line.width });
    }
    return { table, lines };
  }
  // filled bands between the levels, each the scale's colour at its middle
  const levels = levelsOf(contours);
  const size = contours.size;
  const [zmin, zmax] = [trace.zmin ?? 0, trace.zmax ?? 1];
  const colour = colourScale(trace.colorscale);
  for (let code = 0; code < 256; code += 1) {
    const s = code === codec.undefined ? 0 : Math.exp(-gamma * distance(code) ** 2);
    const band = levels.filter((level) => s >= level).length;
    const middle = band === 0 ? levels[0] - size / 2 : levels[band - 1] + size / 2;
    table.set([...colour(Math.min(Math.max((middle - zmin) / (zmax - zmin), 0), 1)), 255], code * 4);
  }
  for (const level of levels) {
    lines.push({ code: toCode(Math.sqrt(-Math.log(level) / gamma)), colour: trace.line.color, width: trace.line.width });
  }
  return { table, lines };
}
