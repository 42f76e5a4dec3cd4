// Mid-drag, a previewing panel shows what the lattice knows of the dragged value besides its field
// (kernelviz.lattice.Lattice.to_browser: each value's support vectors and accuracies, from the fit
// that gave the field), drawn and worded as the committed figure would draw them there
// (kernelviz.figures.boundary_figure, boundary_title). What the lattice does not know (the fit's
// time, a model's support vectors) hides rather than stays stale.

import { formatPower } from "./lattice.js";

// The support vectors of `kernel` at the lattice value `where` ({axis, index}), as a layer drawPoints
// paints (markers.js): places from the lattice's training points, symbol (square: α at C) and size
// (∝ √|α|) from the figure's marker (kernelviz.figures.SUPPORT_MARKER), colour, opacity and outline
// those of the panel's own support vectors, `like`. Null when the lattice has none there (a model).
export function supportLayer(lattice, kernel, where, like) {
  const packed = kernel.support && kernel.support[where.axis];
  const marker = lattice.support_marker;
  if (!packed || !lattice.points || !marker) return null;
  let start = 0;
  for (let i = 0; i < where.index; i += 1) start += packed.counts[i];
  const n = packed.counts[where.index];
  let largest = 0;
  for (let k = start; k < start + n; k += 1) largest = Math.max(largest, packed.alpha[k]);
  const layer = { x: new Float64Array(n), y: new Float64Array(n), size: new Float64Array(n), symbol: new Array(n),
                  color: like.color, opacity: like.opacity, lineWidth: like.lineWidth, lineColor: like.lineColor };
  for (let k = 0; k < n; k += 1) {
    const point = packed.index[start + k];
    layer.x[k] = lattice.points[2 * point];
    layer.y[k] = lattice.points[2 * point + 1];
    layer.size[k] = marker.size + marker.grow * Math.sqrt(largest > 0 ? packed.alpha[start + k] / largest : 1);
    layer.symbol[k] = packed.bounded[start + k] ? marker.bounded : marker.free;
  }
  return layer;
}

// A share as the figure's titles print it, Python's f"{100 * share:.0f}": rounded half to even.
export function percent(share) {
  const value = 100 * share;
  const rounded = Math.round(value);
  return Math.abs(value - Math.trunc(value)) === 0.5 && rounded % 2 !== 0 ? rounded - 1 : rounded;
}

// The score lines of a panel's title at one lattice value ([train, test, hidden] accuracies, each
// null where the data have no such points), in boundary_title's words, two a line; null when the
// lattice has no scores there. The fit's time is left out: the lattice's fit is not the figure's.
export function scoreLines(accuracy) {
  if (!accuracy) return null;
  const parts = [];
  accuracy.forEach((share, k) => {
    if (share !== null && share !== undefined) parts.push(`${["train", "test", "unlabeled"][k]} ${percent(share)}%`);
  });
  const lines = [];
  for (let i = 0; i < parts.length; i += 2) lines.push(parts.slice(i, i + 2).join(" · "));
  return lines;
}

// A panel title's lines as Plotly draws them: a tspan.line each, the first the panel's name, a
// line's styled text in a tspan of its own.
const titleLines = (title) => [...title.querySelectorAll("tspan.line")];
const textOf = (line) => line.querySelector("tspan") || line;

// Mid-drag, a title says the dragged value's scores (`lines`) in place of the figure's and hides its
// other lines (the fit's time, notes); `lines` null hides every line but the name (plot.css). The
// figure's text is kept on the element, for restoreTitle.
// Only what changes is written (mid-drag this runs at every dragged value, most of them with the
// same scores): a text node is replaced, a class set, only when it differs.
export function previewTitle(title, lines) {
  setClass(title, "kv-stale", !lines);
  titleLines(title).slice(1).forEach((line, k) => {
    const shown = Boolean(lines) && k < lines.length;
    if (shown) {
      const text = textOf(line);
      if (line.kvFigureText === undefined) line.kvFigureText = text.textContent;
      if (text.textContent !== lines[k]) text.textContent = lines[k];
    }
    setClass(line, "kv-hidden", Boolean(lines) && !shown);
  });
}

// The title as the figure drew it (Plotly redraws a title whose text changed, with none of the
// above; one it kept gets its own text back here).
export function restoreTitle(title) {
  setClass(title, "kv-stale", false);
  for (const line of titleLines(title)) {
    if (line.kvFigureText !== undefined) {
      const text = textOf(line);
      if (text.textContent !== line.kvFigureText) text.textContent = line.kvFigureText;
      delete line.kvFigureText;
    }
    setClass(line, "kv-hidden", false);
  }
}

// The figure's title at γ = 10^logGamma and C = 10^logC, from its words with {gamma} and {C}.
export function titleAt(words, logGamma, logC) {
  return words.replace("{gamma}", formatPower(logGamma)).replace("{C}", formatPower(logC));
}

// Where Plotly drew the figure's title (text.gtitle), and the element holding its words.
function figureTitle(root) {
  const title = root.querySelector("text.gtitle");
  return title ? [title, title.querySelector("tspan") || title] : [null, null];
}

// Mid-drag, the figure's title says the dragged values (`words`, titleAt) in place of the figure's,
// which stay on the element for restoreFigureTitle; the class kv-preview says so (a test or a
// benchmark waiting for the committed figure's title reads only .gtitle:not(.kv-preview)).
// Written only when they change.
export function previewFigureTitle(root, words) {
  const [title, leaf] = figureTitle(root);
  if (!title) return;
  if (title.kvFigureText === undefined) {
    title.kvFigureText = leaf.textContent;
    title.classList.add("kv-preview");
  }
  if (leaf.textContent !== words) leaf.textContent = words;
}

// The figure's title as the figure drew it.
export function restoreFigureTitle(root) {
  const [title, leaf] = figureTitle(root);
  if (!title || title.kvFigureText === undefined) return;
  if (leaf.textContent !== title.kvFigureText) leaf.textContent = title.kvFigureText;
  delete title.kvFigureText;
  title.classList.remove("kv-preview");
}

// Every title of the figure in `root` as the figure drew it: before a new figure's words are written
// over the drawn ones (titles.js), which they must read as drawn. A title a preview keeps saying
// its own words over would otherwise get back the words of the figure before.
export function restoreTitles(root) {
  for (const title of root.querySelectorAll("g.annotation")) restoreTitle(title);
  restoreFigureTitle(root);
}

function setClass(element, name, on) {
  if (element.classList.contains(name) !== on) element.classList.toggle(name, on);
}
