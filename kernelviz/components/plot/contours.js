// Level lines on a canvas: marching squares on a grid of values (the lattice's codes, or a
// figure's own z), and the strokes as Plotly draws them (its dash patterns). One implementation
// for the committed figure's level lines and the live preview's, so a line looks the same while a
// slider moves and after the release.

import { arrayOf, isArray } from "./arrays.js";

export function levelsOf(contours) {
  const { start, end, size } = contours;
  const levels = [];
  for (let v = start; v <= end + size * 1e-9 && levels.length < 100; v += size) levels.push(v);
  return levels;
}

// Marching squares on the codes at a (fractional) code level, cells touching an undefined value
// skipped, and the segments joined into paths (a dash pattern restarts on every path). Corners: a
// bottom-left, b bottom-right, c top-right, d top-left; a crossing is keyed by its cell edge,
// which at most two segments share: 2 (j nx + i) the edge from grid point (i, j) to (i + 1, j),
// 2 (j nx + i) + 1 the one from (i, j) to (i, j + 1). Where the edge crosses the level is
// `crossings`' fraction of the edge from its first point, where it has one (found on the model
// itself: kernelviz.crossings), else the linear interpolation between the edge's two values.
export function contourPaths(codes, nx, ny, level, undefinedCode, crossings = null) {
  const segments = [];
  const cross = (key, v0, v1) => {
    const t = crossings ? crossings.get(key) : undefined;
    return t === undefined ? (level - v0) / (v1 - v0) : t;
  };
  for (let j = 0; j < ny - 1; j += 1) {
    for (let i = 0; i < nx - 1; i += 1) {
      const a = codes[j * nx + i];
      const b = codes[j * nx + i + 1];
      const c = codes[(j + 1) * nx + i + 1];
      const d = codes[(j + 1) * nx + i];
      if (a === undefinedCode || b === undefinedCode || c === undefinedCode || d === undefinedCode) continue;
      if (a !== a || b !== b || c !== c || d !== d) continue;  // NaN (a figure's own z): no value, as in Plotly
      const mask = (a >= level) | ((b >= level) << 1) | ((c >= level) << 2) | ((d >= level) << 3);
      if (mask === 0 || mask === 15) continue;
      const bottom = () => edgePoint(2 * (j * nx + i), i, j, cross(2 * (j * nx + i), a, b));
      const top = () => edgePoint(2 * ((j + 1) * nx + i), i, j + 1, cross(2 * ((j + 1) * nx + i), d, c));
      const left = () => edgePoint(2 * (j * nx + i) + 1, i, j, cross(2 * (j * nx + i) + 1, a, d));
      const right = () => edgePoint(2 * (j * nx + i + 1) + 1, i + 1, j, cross(2 * (j * nx + i + 1) + 1, b, c));
      if (mask === 5) segments.push([bottom(), left()], [right(), top()]);
      else if (mask === 10) segments.push([bottom(), right()], [top(), left()]);
      else {
        const edges = [];
        if ((mask & 1) !== ((mask >> 1) & 1)) edges.push(bottom());
        if (((mask >> 1) & 1) !== ((mask >> 2) & 1)) edges.push(right());
        if (((mask >> 2) & 1) !== ((mask >> 3) & 1)) edges.push(top());
        if (((mask >> 3) & 1) !== (mask & 1)) edges.push(left());
        segments.push(edges);
      }
    }
  }
  const at = new Map();
  segments.forEach((segment, k) => {
    for (const point of segment) {
      const list = at.get(point.key);
      if (list) list.push(k);
      else at.set(point.key, [k]);
    }
  });
  const used = new Uint8Array(segments.length);
  const paths = [];
  for (let k = 0; k < segments.length; k += 1) {
    if (used[k]) continue;
    used[k] = 1;
    const forward = [segments[k][1]];
    const backward = [segments[k][0]];
    for (const end of [forward, backward]) {
      for (;;) {
        const last = end[end.length - 1];
        const next = (at.get(last.key) || []).find((m) => !used[m]);
        if (next === undefined) break;
        used[next] = 1;
        const [p, q] = segments[next];
        end.push(p.key === last.key ? q : p);
      }
    }
    paths.push([...backward.reverse(), ...forward]);
  }
  return paths;
}

// The point a fraction t along the edge `key` from grid point (i, j) (grid indices).
export function edgePoint(key, i, j, t) {
  return key % 2 ? { key, x: i, y: j + t } : { key, x: i + t, y: j };
}

// A trace's crossings (kernelviz.figures.crossings_meta) at one of its levels, as contourPaths
// takes them (edge key → fraction), or null where it brings none: those of that level, or a class
// field's (level "classes"), which serve any level of its indicator (and its regions: level "classes").
export function crossingsAt(meta, level) {
  const all = meta && Array.isArray(meta.kv_crossings) ? meta.kv_crossings : [];
  const found = all.find((c) => c.level === "classes"
    || (typeof level === "number" && Math.abs(Number(c.level) - level) < 1e-9));
  // the page sends them as Plotly's base64 arrays; a figure built in a test, as lists
  const edges = found ? arrayOf(found.edges) : null;
  const at = found ? arrayOf(found.at) : null;
  if (!isArray(edges) || !isArray(at)) return null;
  const map = new Map();
  edges.forEach((key, k) => {
    const t = Number(at[k]);
    if (Number.isFinite(t)) map.set(Number(key), Math.min(Math.max(t, 0), 1));
  });
  return map;
}

// Plotly's dash patterns (plotly.js Drawing.dashStyle): in multiples of the width, at least 3 px.
export function dashOf(dash, width) {
  const unit = Math.max(width, 3);
  return { dot: [unit, unit], dash: [3 * unit, 3 * unit], longdash: [5 * unit, 5 * unit],
           dashdot: [3 * unit, unit, unit, unit], longdashdot: [5 * unit, 2 * unit, unit, 2 * unit] }[dash] || [];
}

export function strokePaths(context, paths, toX, toY, line) {
  context.beginPath();
  for (const path of paths) {
    path.forEach((p, k) => (k ? context.lineTo(toX(p.x), toY(p.y)) : context.moveTo(toX(p.x), toY(p.y))));
  }
  const width = Number(line.width ?? 1);
  context.setLineDash(dashOf(line.dash, width));
  context.strokeStyle = line.colour || "#000000";
  context.lineWidth = width;
  context.lineJoin = "round";
  context.stroke();
  context.setLineDash([]);
}

// A line trace of the figure (an ellipse), filled as Plotly fills "toself".
export function strokeTrace(context, trace, area) {
  const n = Math.min(trace.x.length, trace.y.length);
  if (!n || trace.visible === false) return;
  context.beginPath();
  for (let i = 0; i < n; i += 1) {
    const px = area.xa.toPixel(Number(trace.x[i]));
    const py = area.ya.toPixel(Number(trace.y[i]));
    if (i) context.lineTo(px, py);
    else context.moveTo(px, py);
  }
  const line = trace.line || {};
  if (trace.fill === "toself" && trace.fillcolor) {
    context.fillStyle = trace.fillcolor;
    context.fill();
  }
  context.setLineDash(dashOf(line.dash, Number(line.width ?? 2)));
  context.strokeStyle = line.color || "#444444";
  context.lineWidth = Number(line.width ?? 2);
  context.stroke();
  context.setLineDash([]);
}
