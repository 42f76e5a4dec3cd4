// A class field's regions (a panel's predicted classes, a partition's most responsible component)
// as polygons through the points where the class changes along each grid edge: their borders run
// where the model puts them (kernelviz.crossings), not along the grid's cells, which showed them
// as staircases 7–25 px a step. The same marching squares as the level lines (contours.js), the
// same edge keys and the same choice in a cell whose opposite corners agree, so that a class's
// outline and its region's edge are one line.

import { edgePoint } from "./contours.js";

// Polygons (grid indices) covering where the grid's values satisfy `inside`, cell by cell: a
// cell's inside corners and, between an inside and an outside corner, the crossing of their edge
// (`crossings`: edge key → fraction from the edge's first point; the middle where it has none).
// A row's run of cells inside at every corner is one rectangle. Cells touching a value that is not
// finite are left out.
export function regionPolygons(values, nx, ny, inside, crossings = null) {
  const polygons = [];
  const at = (key, i, j) => {
    const t = crossings ? crossings.get(key) : undefined;
    return edgePoint(key, i, j, t === undefined ? 0.5 : t);
  };
  for (let j = 0; j < ny - 1; j += 1) {
    let run = -1;  // where the current run of full cells started
    const closeRun = (end) => {
      if (run >= 0) polygons.push([{ x: run, y: j }, { x: end, y: j }, { x: end, y: j + 1 }, { x: run, y: j + 1 }]);
      run = -1;
    };
    for (let i = 0; i < nx - 1; i += 1) {
      const corners = [j * nx + i, j * nx + i + 1, (j + 1) * nx + i + 1, (j + 1) * nx + i];
      if (corners.some((k) => !Number.isFinite(values[k]))) {
        closeRun(i);
        continue;
      }
      const [a, b, c, d] = corners.map((k) => inside(values[k]));
      if (a && b && c && d) {
        if (run < 0) run = i;
        continue;
      }
      closeRun(i);
      if (!a && !b && !c && !d) continue;
      const bottom = () => at(2 * (j * nx + i), i, j);
      const right = () => at(2 * (j * nx + i + 1) + 1, i + 1, j);
      const top = () => at(2 * ((j + 1) * nx + i), i, j + 1);
      const left = () => at(2 * (j * nx + i) + 1, i, j);
      const A = { x: i, y: j };
      const B = { x: i + 1, y: j };
      const C = { x: i + 1, y: j + 1 };
      const D = { x: i, y: j + 1 };
      // opposite corners inside, the others outside: two corners cut off, as contourPaths separates them
      if (a && c && !b && !d) {
        polygons.push([A, bottom(), left()], [C, top(), right()]);
        continue;
      }
      if (b && d && !a && !c) {
        polygons.push([B, right(), bottom()], [D, left(), top()]);
        continue;
      }
      // round the cell: each inside corner, and the crossing of each edge that leaves or enters
      const polygon = [];
      const round = [[a, A, b, bottom], [b, B, c, right], [c, C, d, top], [d, D, a, left]];
      for (const [isIn, corner, nextIn, edge] of round) {
        if (isIn) polygon.push(corner);
        if (isIn !== nextIn) polygon.push(edge());
      }
      polygons.push(polygon);
    }
    closeRun(nx - 1);
  }
  return polygons;
}

// A class field's regions, once per figure: for each class value the grid holds, its polygons and
// its colour (`colourOf(value)`).
export function classRegions(field, crossings, colourOf) {
  const { z, nx, ny } = field;
  const classes = [...new Set(Array.from(z).filter(Number.isFinite))].sort((p, q) => p - q);
  return classes.map((value) => ({
    value, colour: colourOf(value), polygons: regionPolygons(z, nx, ny, (v) => v === value, crossings),
  }));
}

// The regions in a panel, each class's polygons one path (no seams between its cells' polygons).
// `toX`, `toY`: grid indices → pixels.
export function fillRegions(context, regions, toX, toY) {
  for (const region of regions) {
    context.beginPath();
    for (const polygon of region.polygons) {
      polygon.forEach((p, k) => (k ? context.lineTo(toX(p.x), toY(p.y)) : context.moveTo(toX(p.x), toY(p.y))));
      context.closePath();
    }
    context.fillStyle = region.colour;
    context.fill();
  }
}
