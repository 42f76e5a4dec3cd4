// A field's picture: the colour of each value on the trace's scale, as Plotly's heatmap paints it,
// painted by the canvas into its panel (the committed figure's fields; the live preview's go
// through finePicture too).
//
// Smooth fields. A field drawn a cell per grid point shows its boundaries as staircases of cells
// 6–10 px wide on a large panel. So the picture is made `factor` times finer than the grid, each
// fine pixel from the values interpolated (bilinearly) between the four grid points around its
// centre — the values, not the colours: a tint's edge then lies where the interpolated value
// crosses it, as the contour lines do — and drawn smoothed. Fine pixels beside a missing value
// take the nearest corner's.

import { colourScale } from "./colours.js";
import { fillRegions } from "./regions.js";

// A field's picture, one RGBA pixel per grid point, top row first (the grid's last): each value's
// colour on the trace's scale between zmin and zmax (its values' range where it sets none),
// clamped at the ends, and nothing where there is no value (NaN), as Plotly's heatmap draws it.
export function fieldPixels(z, nx, ny, { zmin, zmax, colorscale }) {
  const colour = colourScale(colorscale);
  const span = zmax > zmin ? zmax - zmin : 1;
  const pixels = new Uint8ClampedArray(nx * ny * 4);
  for (let j = 0; j < ny; j += 1) {
    for (let i = 0; i < nx; i += 1) {
      const v = z[j * nx + i];
      if (!Number.isFinite(v)) continue;
      const target = ((ny - 1 - j) * nx + i) * 4;
      pixels.set(colour(Math.min(Math.max((v - zmin) / span, 0), 1)), target);
      pixels[target + 3] = 255;
    }
  }
  return pixels;
}

// How many times finer than the grid a field's picture is made for a panel `pixels` wide: twice at
// most, the browser's smoothing does the rest (4× cost 12 ms a field, 50 ms of a committed step).
const FINEST = 2;

export function fineness(pixels, cells) {
  return Math.min(Math.max(Math.ceil(pixels / Math.max(cells, 1)), 1), FINEST);
}

// A colour scale with steps (two stops at one place: a discrete one, as classes are tinted) has no
// colour between its values: such a field keeps its cells.
export function stepped(scale) {
  return Array.isArray(scale) && scale.some((stop, k) => k > 0 && Number(stop[0]) === Number(scale[k - 1][0]));
}

// An RGBA picture (top row first) of `values` (ny rows from the bottom, nx columns), `factor`
// times finer: paint(pixels, at, value) writes the colour of an interpolated value; `missing(v)`
// tells a value that is not there.
export function finePicture(values, nx, ny, factor, missing, paint, pixels = null) {
  const width = nx * factor;
  const height = ny * factor;
  const out = pixels || new Uint8ClampedArray(width * height * 4);
  const place = (k, n) => {  // fine pixel k's centre among n grid points: [index, weight]
    const g = Math.min(Math.max((k + 0.5) / factor - 0.5, 0), n - 1);
    const i = Math.min(Math.floor(g), Math.max(n - 2, 0));
    return [i, n > 1 ? g - i : 0];
  };
  const columns = Array.from({ length: width }, (_, u) => place(u, nx));
  for (let v = 0; v < height; v += 1) {
    const [j, ty] = place(height - 1 - v, ny);  // the picture's top row is the grid's last
    const row = j * nx;
    const above = ny > 1 ? row + nx : row;
    for (let u = 0; u < width; u += 1) {
      const [i, tx] = columns[u];
      const right = nx > 1 ? 1 : 0;
      const a = values[row + i];
      const b = values[row + i + right];
      const c = values[above + i];
      const d = values[above + i + right];
      let value;
      if (missing(a) || missing(b) || missing(c) || missing(d)) {
        value = [[a, b], [c, d]][ty < 0.5 ? 0 : 1][tx < 0.5 ? 0 : 1];
        if (missing(value)) continue;
      } else {
        value = (a * (1 - tx) + b * tx) * (1 - ty) + (c * (1 - tx) + d * tx) * ty;
      }
      paint(out, (v * width + u) * 4, value);
    }
  }
  return out;
}

// A committed field's picture `factor` times finer than its grid. Colours from a table of the
// scale at 1,024 places, each pixel's between the two around its value (rounded to the table, it
// showed steps of its own where the field is nearly flat; the scale itself is linear between its
// stops, so this is its colour).
const SCALE_STEPS = 1024;

export function fieldPicture(field, factor) {
  const colour = colourScale(field.colorscale);
  const table = new Float32Array((SCALE_STEPS + 2) * 3);
  for (let k = 0; k <= SCALE_STEPS; k += 1) table.set(colour(k / SCALE_STEPS), k * 3);
  table.set(colour(1), (SCALE_STEPS + 1) * 3);
  const span = field.zmax > field.zmin ? field.zmax - field.zmin : 1;
  const pixels = finePicture(field.z, field.nx, field.ny, factor, (v) => !Number.isFinite(v), (out, at, v) => {
    const t = Math.min(Math.max((v - field.zmin) / span, 0), 1) * SCALE_STEPS;
    const k = Math.floor(t);
    const u = t - k;
    const a = k * 3;
    out[at] = table[a] + (table[a + 3] - table[a]) * u;
    out[at + 1] = table[a + 1] + (table[a + 4] - table[a + 1]) * u;
    out[at + 2] = table[a + 2] + (table[a + 5] - table[a + 2]) * u;
    out[at + 3] = 255;
  });
  const canvas = document.createElement("canvas");
  canvas.width = field.nx * factor;
  canvas.height = field.ny * factor;
  canvas.getContext("2d").putImageData(new ImageData(pixels, canvas.width, canvas.height), 0, 0);
  return canvas;
}

// A field of the figure in its plot area: each value fills the cell around its grid point, at the
// field's opacity. A class field with its regions (regions.js) has them painted over its cells.
export function paintField(context, area, field) {
  const { xs, ys, nx, ny } = field;
  const dx = (xs[nx - 1] - xs[0]) / (nx - 1);
  const dy = (ys[ny - 1] - ys[0]) / (ny - 1);
  const [left, right] = [area.xa.toPixel(xs[0] - dx / 2), area.xa.toPixel(xs[nx - 1] + dx / 2)];
  const [top, bottom] = [area.ya.toPixel(ys[ny - 1] + dy / 2), area.ya.toPixel(ys[0] - dy / 2)];
  const smooth = !stepped(field.colorscale);
  const factor = smooth ? fineness((right - left) * (window.devicePixelRatio || 1), nx) : 1;
  if (!field.picture || field.picture.factor !== factor) {
    field.picture = { factor, canvas: fieldPicture(field, factor) };
  }
  context.save();
  context.beginPath();
  context.rect(area.left, area.top, area.width, area.height);
  context.clip();
  if ((field.opacity ?? 1) !== 1) context.globalAlpha = field.opacity;
  context.imageSmoothingEnabled = smooth;
  if (field.regions) {
    context.drawImage(regionsPicture(field, area, { left, top, width: right - left, height: bottom - top }),
                      area.left, area.top, area.width, area.height);
  } else {
    context.drawImage(field.picture.canvas, left, top, right - left, bottom - top);
  }
  context.restore();
}

// A class field's regions painted over its cells, opaque, on a canvas the size of the plot area (so
// that the field's opacity applies once to the whole picture: borders painted twice would show
// darker), kept until the area or the device's pixel ratio changes.
function regionsPicture(field, area, cells) {
  const ratio = window.devicePixelRatio || 1;
  const { xs, ys, nx, ny } = field;
  const toX = (g) => area.xa.toPixel(xs[0] + (g * (xs[nx - 1] - xs[0])) / (nx - 1)) - area.left;
  const toY = (g) => area.ya.toPixel(ys[0] + (g * (ys[ny - 1] - ys[0])) / (ny - 1)) - area.top;
  const where = [area.width, area.height, ratio, toX(0), toY(0), toX(nx - 1), toY(ny - 1)].map((v) => v.toFixed(3)).join();
  if (field.regionsPicture && field.regionsPicture.where === where) return field.regionsPicture.canvas;
  const canvas = document.createElement("canvas");
  canvas.width = Math.max(1, Math.round(area.width * ratio));
  canvas.height = Math.max(1, Math.round(area.height * ratio));
  const context = canvas.getContext("2d");
  context.setTransform(ratio, 0, 0, ratio, 0, 0);
  context.imageSmoothingEnabled = false;
  // the cells first: where two regions meet, a border's antialiased pixels show one of their colours
  context.drawImage(field.picture.canvas, cells.left - area.left, cells.top - area.top, cells.width, cells.height);
  fillRegions(context, field.regions, toX, toY);
  field.regionsPicture = { where, canvas };
  return canvas;
}
