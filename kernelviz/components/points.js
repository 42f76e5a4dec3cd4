// One painter of data points for every canvas of the app: the plot component's points layer
// (kernelviz/components/plot/markers.js) and the drawing canvas (kernelviz/components/draw/draw.js).
// A point is painted from a Plotly marker — {symbol, size, color, opacity, line: {width, color}} —
// as Plotly would draw it, so a class looks the same on the drawing canvas as in every figure.
//
// The components import it as an ES module (node --test does too); Streamlit receives each
// component as one text, with this module put in place of its import
// (kernelviz.components.module_text).

// Plotly's marker symbols (plotly.js src/components/drawing/symbol_defs.js) as polygons of
// radius 1 (y down, as in SVG); a circle is drawn as an arc.
const SQRT3 = Math.sqrt(3);
const RX = 0.8 / Math.SQRT2;
export const SYMBOLS = {
  square: [[1, 1], [-1, 1], [-1, -1], [1, -1]],
  diamond: [[1.3, 0], [0, 1.3], [-1.3, 0], [0, -1.3]],
  cross: [[1.2, 0.4], [0.4, 0.4], [0.4, 1.2], [-0.4, 1.2], [-0.4, 0.4], [-1.2, 0.4], [-1.2, -0.4], [-0.4, -0.4],
          [-0.4, -1.2], [0.4, -1.2], [0.4, -0.4], [1.2, -0.4]],
  x: [[0, RX], [RX, 2 * RX], [2 * RX, RX], [RX, 0], [2 * RX, -RX], [RX, -2 * RX], [0, -RX], [-RX, -2 * RX],
      [-2 * RX, -RX], [-RX, 0], [-2 * RX, RX], [-RX, 2 * RX]],
  "triangle-up": [[-2 / SQRT3, 0.5], [2 / SQRT3, 0.5], [0, -1]],
  star: [[0.315, -0.4326], [1.3314, -0.4326], [0.5082, 0.1652], [0.8232, 1.1326], [0, 0.5348], [-0.8232, 1.1326],
         [-0.5082, 0.1652], [-1.3314, -0.4326], [-0.315, -0.4326], [0, -1.4]],
  hexagon: [[SQRT3 / 2, -0.5], [SQRT3 / 2, 0.5], [0, 1], [-SQRT3 / 2, 0.5], [-SQRT3 / 2, -0.5], [0, -1]],
};

// The outline of a symbol of radius r centred at (x, y), as the context's current path.
export function tracePath(context, symbol, x, y, r) {
  context.beginPath();
  const polygon = SYMBOLS[symbol];
  if (!polygon) {
    context.arc(x, y, r, 0, 2 * Math.PI);
    return;
  }
  polygon.forEach(([u, v], k) => (k ? context.lineTo(x + u * r, y + v * r) : context.moveTo(x + u * r, y + v * r)));
  context.closePath();
}

// Paint one marker at pixel (px, py). `alpha` multiplies the marker's own opacity (faint support
// vectors while the live preview shows other values). An "-open" symbol is its outline in the
// marker's colour; a filled one is outlined with its line when that has a width.
export function paintMarker(context, marker, px, py, alpha = 1) {
  let symbol = String(marker.symbol ?? "circle");
  const open = symbol.endsWith("-open");
  if (open) symbol = symbol.slice(0, -"-open".length);
  const color = marker.color ?? "#444";
  const line = marker.line || {};
  const lineWidth = Number(line.width ?? 0);
  context.globalAlpha = alpha * Number(marker.opacity ?? 1);
  tracePath(context, symbol, px, py, Number(marker.size ?? 6) / 2);
  if (!open) {
    context.fillStyle = color;
    context.fill();
  }
  if (open || lineWidth > 0) {
    context.lineWidth = open ? Math.max(lineWidth, 1) : lineWidth;
    context.strokeStyle = open ? color : (line.color ?? "#444");
    context.stroke();
  }
  context.globalAlpha = 1;
}
