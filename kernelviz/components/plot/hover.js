// Hover labels of what the canvas paints (points, field cells): their lines as Plotly would write
// them, and the label itself, an element over the plot.

import { isArray, pick } from "./arrays.js";
import { PLOTLY } from "./plotly_access.js";

function formatted(value, format) {
  const number = Number(value);
  if (typeof value === "string" && !Number.isFinite(number)) return value;
  const match = /^\.(\d+)([fg])$/.exec(format || "");
  if (!match) return String(value);
  const digits = Number(match[1]);
  return match[2] === "f" ? number.toFixed(digits) : String(Number(number.toPrecision(Math.max(digits, 1))));
}

// A hovertemplate's lines as Plotly would write them: %{x}, %{y}, %{z}, %{text} and
// %{customdata[k]} from `value(name, k)`, with d3's .Nf / .Ng formats; <extra> dropped.
function templateLines(template, value) {
  const text = String(template).replace(/<extra>[\s\S]*?<\/extra>/g, "").replace(
    /%\{(x|y|z|text|customdata\[(\d+)\])(?::([^}]*))?\}/g,
    (_, name, k, format) => formatted(value(name.startsWith("customdata") ? "customdata" : name, Number(k)), format));
  return text.split(/<br\s*\/?>/i);
}

// The hover label's lines for point i of a layer, or null for none.
export function hoverLines(layer, i) {
  if (layer.hoverinfo === "skip" || layer.hoverinfo === "none") return null;
  const x = layer.x[i];
  const y = layer.y[i];
  if (layer.hovertemplate) {
    return templateLines(layer.hovertemplate, (name, k) => {
      if (name === "x") return x;
      if (name === "y") return y;
      const row = pick(layer.customdata, i, []);
      return name === "customdata" ? (isArray(row) ? row[k] : row) : "";
    });
  }
  const lines = [`(${formatted(x, ".3g")}, ${formatted(y, ".3g")})`];
  const extra = pick(layer.hovertext, i, null);
  if (extra !== null) lines.push(String(extra));
  lines.push(String(layer.name || ""));
  return lines;
}

// The hover label's lines for a field's cell (row j, column i), or null for none.
export function fieldLines(field, j, i) {
  if (field.hoverinfo === "skip" || field.hoverinfo === "none") return null;
  const values = { x: field.xs[i], y: field.ys[j], z: field.z[j * field.nx + i],
                   text: isArray(field.text) && isArray(field.text[j]) ? field.text[j][i] : "" };
  if (field.hovertemplate) return templateLines(field.hovertemplate, (name) => values[name] ?? "");
  return [`x: ${formatted(values.x, ".3g")}`, `y: ${formatted(values.y, ".3g")}`, `z: ${formatted(values.z, ".3g")}`];
}

// A point's label: its lines, framed in its colour (its outline's where it is transparent).
export function pointLabel(found) {
  const lines = found && hoverLines(found.layer, found.i);
  if (!lines) return null;
  const colour = pick(found.layer.color, found.i, "#444");
  return { lines, colour: colour === "rgba(0,0,0,0)" ? pick(found.layer.lineColor, found.i, "#444") : colour };
}

// The cell (row j, column i) of a field's even grid nearest data coordinates (x, y), or null beyond
// half a cell from its first and last values.
export function fieldCell(field, x, y) {
  const nearest = (values, n, value) => {
    const k = Math.round(((value - values[0]) / (values[n - 1] - values[0])) * (n - 1)) + 0;  // + 0: never −0
    return k >= 0 && k < n ? k : null;  // NaN fails both
  };
  const i = nearest(field.xs, field.nx, x);
  const j = nearest(field.ys, field.ny, y);
  return i === null || j === null ? null : { j, i };
}

// A field cell's label, framed in the cell's colour as Plotly frames it.
export function fieldLabel(field, j, i) {
  const lines = fieldLines(field, j, i);
  if (!lines) return null;
  const at = ((field.ny - 1 - j) * field.nx + i) * 4;
  return { lines, colour: `rgb(${field.pixels[at]},${field.pixels[at + 1]},${field.pixels[at + 2]})` };
}

export function showHover(view, label, clientX, clientY) {
  let box = view.hoverLabel;
  if (!box) {
    box = document.createElement("div");
    box.className = "kv-plot-hover";
    view.root.appendChild(box);
    view.hoverLabel = box;
  }
  if (!label) {
    box.style.display = "none";
    return false;
  }
  box.textContent = "";
  label.lines.forEach((line) => {
    const row = document.createElement("div");
    row.textContent = line.replace(/<[^>]*>/g, "");  // Plotly's own tags (<b>, <span>) as plain text
    box.appendChild(row);
  });
  box.style.borderColor = label.colour;
  // the figure's hover font, as Plotly's own labels take it (the projector's is larger)
  const font = (PLOTLY.layout(view.root) || {}).hoverlabel?.font;
  box.style.fontSize = font && font.size ? `${font.size}px` : "";
  const own = view.root.getBoundingClientRect();
  box.style.left = `${clientX - own.left + 12}px`;
  box.style.top = `${clientY - own.top + 12}px`;
  box.style.display = "block";
  return true;
}
