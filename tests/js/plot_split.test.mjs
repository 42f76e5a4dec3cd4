// Unit tests of a figure taken apart for Plotly and the canvases (kernelviz/components/plot/split.js,
// splitCanvas), under node --test: the points, the level lines (f = 0, the margins), found from the
// figure's own z by the live preview's marching squares, the fields and their invisible stand-ins,
// and the data revision Plotly is handed.
import assert from "node:assert/strict";
import { test } from "node:test";

import { along, splitCanvas } from "../../kernelviz/components/plot/split.js";

// f(x, y) = x − 0.25 on a 5 × 3 grid over x ∈ [−1, 1], y ∈ [0, 1]: f = 0 is the line x = 0.25, and the
// margins f = ±1 cross no cell but x = −0.75 (f = −1); f = +1 would be x = 1.25, outside.
const xs = [-1, -0.5, 0, 0.5, 1];
const ys = [0, 0.5, 1];
const z = ys.map(() => xs.map((x) => x - 0.25));
const FIGURE = {
  data: [
    { type: "heatmap", x: xs, y: ys, z, xaxis: "x2", yaxis: "y2" },
    { type: "contour", x: xs, y: ys, z, showlegend: false, xaxis: "x2", yaxis: "y2",
      contours: { start: 0, end: 0, size: 1, coloring: "none" }, line: { color: "black", width: 2.6 } },
    { type: "contour", x: xs, y: ys, z, showlegend: false, xaxis: "x2", yaxis: "y2",
      contours: { start: -1, end: 1, size: 2, coloring: "none" }, line: { color: "#444444", width: 1.3, dash: "dash" } },
    { type: "contour", x: xs, y: ys, z, contours: { coloring: "lines" } },  // coloured levels: Plotly's
    { type: "scatter", mode: "markers", x: [0], y: [0.5], name: "a point" },
  ],
  layout: {},
};

test("level-line traces leave Plotly as empty traces in their places; other contours stay", () => {
  const { figure, layers, levels } = splitCanvas(FIGURE);
  assert.equal(figure.data.length, FIGURE.data.length);  // the traces keep their indices
  assert.deepEqual(figure.data.map((t) => t.type), ["heatmap", "scatter", "scatter", "contour", "scatter"]);
  for (const stand of figure.data.slice(1, 3)) {
    assert.deepEqual([stand.x, stand.y, stand.xaxis, stand.showlegend], [[], [], "x2", false]);
  }
  assert.equal(layers.length, 1);
  assert.deepEqual(levels.map((l) => [l.xaxis, l.yaxis, l.line]),
                   [["x2", "y2", { colour: "black", width: 2.6, dash: undefined }],
                    ["x2", "y2", { colour: "#444444", width: 1.3, dash: "dash" }]]);
});

test("each level line lies where the figure's own z crosses the level", () => {
  const { levels } = splitCanvas(FIGURE);
  const [zero, margins] = levels;
  assert.equal(zero.paths.length, 1);  // one level
  assert.equal(zero.paths[0].length, 1);  // one path, bottom to top
  for (const p of zero.paths[0][0]) assert.ok(Math.abs(along(xs, p.x) - 0.25) < 1e-12, JSON.stringify(p));
  assert.deepEqual(zero.paths[0][0].map((p) => p.y).sort(), [0, 1, 2]);  // through every row
  // the margins: −1 at x = −0.75, +1 nowhere on the grid
  assert.equal(margins.paths.length, 2);
  for (const p of margins.paths[0][0]) assert.ok(Math.abs(along(xs, p.x) + 0.75) < 1e-12);
  assert.deepEqual(margins.paths[1], []);
});

test("a grid index maps onto the grid's coordinates, between and at the ends", () => {
  assert.equal(along([0, 1, 3], 0), 0);
  assert.equal(along([0, 1, 3], 1.5), 2);
  assert.equal(along([0, 1, 3], 2), 3);
});

test("a cell with no value (NaN) draws no line, as Plotly leaves a gap", () => {
  const rows = [0, 1, 2, 3, 4];
  const holed = rows.map(() => xs.map((x) => x - 0.25));
  holed[2][2] = NaN;  // the two cells of the line that touch it, between rows 1 and 3, go
  const { levels } = splitCanvas({ data: [{ ...FIGURE.data[1], y: rows, z: holed }], layout: {} });
  const paths = levels[0].paths[0];
  assert.deepEqual(paths.map((path) => path.map((p) => p.y).sort()), [[0, 1], [3, 4]]);
});

// Fields: heatmaps with no colour bar on an even grid.
const SCALE = [[0, "#0000ff"], [0.5, "#ffffff"], [1, "rgb(255, 0, 0)"]];
const FX = [-1, 0, 1, 2];
const FY = [0, 0.5, 1];
const field = (values, extra = {}) => ({ type: "heatmap", x: FX, y: FY, z: values, zmin: -2, zmax: 2, showscale: false,
                                         colorscale: SCALE, xaxis: "x2", yaxis: "y2",
                                         hovertemplate: "(%{x:.2f}, %{y:.2f})<br>f = %{z:.3f}<extra></extra>", ...extra });
const Z = FY.map((y) => FX.map((x) => x + y));
const svs = (sizes) => ({ type: "scatter", mode: "markers", name: "support vectors", legendgroup: "sv", x: sizes.map(() => 0),
                          y: sizes.map(() => 0), marker: { symbol: "circle-open", size: sizes, color: "black", line: { width: 1.5 } } });

test("a field heatmap leaves Plotly as an invisible stand-in over its grid; the canvas keeps its values", () => {
  const { figure, fields } = splitCanvas({ data: [field(Z)], layout: { datarevision: 7 } });
  assert.equal(fields.length, 1);
  const [stand] = figure.data;
  assert.deepEqual([stand.type, stand.opacity, stand.hoverinfo, stand.showlegend, stand.xaxis, stand.yaxis],
                   ["heatmap", 0, "none", false, "x2", "y2"]);
  // one cell from the first grid value to the last (x and y as its edges): Plotly reports a hover and
  // a click anywhere over the field, and the component finds the field's own cell under the mouse
  assert.deepEqual([stand.x, stand.y, stand.z], [[-1, 2], [0, 1], [[0]]]);
  assert.deepEqual([...fields[0].z], Z.flat());
  assert.deepEqual([fields[0].zmin, fields[0].zmax, fields[0].index], [-2, 2, 0]);
});

test("heatmaps the canvas cannot lay out as Plotly does stay Plotly's", () => {
  const kept = [
    field(Z, { showscale: true }),  // a colour bar
    field(Z, { x: [-1, 0, 1, 3] }),  // uneven cells
    field(Z, { zsmooth: "best" }),
    field(Z, { coloraxis: "coloraxis" }),
    field(Z, { x: [-1, 0, 1, 2, 3] }),  // cell edges, not centres
  ];
  const { figure, fields } = splitCanvas({ data: kept, layout: {} });
  assert.equal(fields.length, 0);
  assert.deepEqual(figure.data, kept);
});

test("without zmin and zmax a field spans its values' range, as Plotly's heatmap does", () => {
  const { fields } = splitCanvas({ data: [field(Z, { zmin: undefined, zmax: undefined })], layout: {} });
  assert.deepEqual([fields[0].zmin, fields[0].zmax], [-1, 3]);
});

test("Plotly's data revision changes with what it draws, not with what the canvas paints", () => {
  const revision = (data) => splitCanvas({ data, layout: { datarevision: "python's" } }).figure.layout.datarevision;
  const first = revision([field(Z), svs([18, 25, 30])]);
  // new field values and new support-vector sizes whose legend entry is the same (sizes above 16 draw at 16)
  assert.equal(revision([field(Z.map((row) => row.map((v) => -v))), svs([20, 17, 40, 22])]), first);
  // a legend entry that changes (smaller markers), a field on another grid, a trace more: Plotly redraws
  assert.notEqual(revision([field(Z), svs([4, 6])]), first);
  assert.notEqual(revision([field(Z, { x: [0, 1, 2, 3] }), svs([18, 25, 30])]), first);
  // the same span at another resolution (a dragged point's coarse frames, then its release): the same
  const fine = [-1, -0.5, 0, 0.5, 1, 1.5, 2];
  assert.equal(revision([field(FY.map(() => fine), { x: fine }), svs([18, 25, 30])]), first);
  assert.notEqual(revision([field(Z), svs([18, 25, 30]), { type: "scatter", mode: "lines", x: [0, 1], y: [0, 1] }]), first);
});

test("a marker trace's legend entry is Plotly's: mean size within [2, 16], mean opacity within [0.2, 1]", () => {
  const { figure } = splitCanvas({ data: [{ ...svs([4, 8]), marker: { size: [4, 8], opacity: [0.1, 0.2], color: ["red", "blue"] } }],
                                   layout: {} });
  const { marker } = figure.data[0];
  assert.deepEqual([marker.size, marker.opacity, marker.color], [6, 0.2, "red"]);
  // symbols one by one (support vectors: square at the bound C): not the first point's, which a moved
  // point's refit can change, but the first in order of those drawn, so the entry stays while both kinds are
  const symbol = (symbols) => splitCanvas({ data: [{ ...svs([4, 8]), marker: { size: 10, symbol: symbols } }], layout: {} })
    .figure.data[0].marker.symbol;
  assert.deepEqual([symbol(["square-open", "circle-open"]), symbol(["circle-open", "square-open"]), symbol(["square-open"])],
                   ["circle-open", "circle-open", "square-open"]);
});

test("a marker trace's points go to the canvas, decoded; Plotly keeps one empty point of it", () => {
  const x = { dtype: "f8", bdata: Buffer.from(new Float64Array([0.5, 1]).buffer).toString("base64") };
  const trace = { type: "scatter", mode: "markers", name: "class +1", x, y: [2, 3], customdata: [["a"], ["b"]],
                  hovertemplate: "%{customdata[0]}", marker: { size: [10, 20], color: "#D55E00", line: { width: 1, color: "white" } } };
  const line = { ...trace, mode: "lines" };
  const { figure, layers } = splitCanvas({ data: [trace, line], layout: {} });
  const [layer] = layers;
  assert.equal(layers.length, 1);
  assert.deepEqual([layer.index, layer.name, [...layer.x], layer.y, layer.customdata, layer.xaxis, layer.yaxis],
                   [0, "class +1", [0.5, 1], [2, 3], [["a"], ["b"]], "x", "y"]);
  assert.equal(layer.opacity, 0.7);  // Plotly's default for markers sized one by one
  assert.deepEqual([figure.data[0].x, figure.data[0].y, figure.data[0].customdata], [[null], [null], undefined]);
  assert.deepEqual(figure.data[0].marker.line, { width: 1, color: "white" });
  assert.equal(figure.data[1], line);  // a line trace stays Plotly's, as it is
});

test("a level line runs through the crossings its trace brings, found on the model (kernelviz.crossings)", () => {
  // f = 0 crosses the bottom row's edge from x = 0 to x = 0.5 (key 2 · 2) halfway by z; the model says 0.8 along it
  const [, zero] = FIGURE.data;
  const meta = { kv_crossings: [{ level: 0, edges: [4], at: [0.8] }] };
  const { levels } = splitCanvas({ data: [{ ...zero, meta }], layout: {} });
  const [path] = levels[0].paths[0];
  const bottom = path.find((p) => p.y === 0);
  assert.ok(Math.abs(along(xs, bottom.x) - 0.4) < 1e-12, JSON.stringify(bottom));
  // the other rows' crossings, which the trace does not bring, stay where z crosses
  for (const p of path.filter((q) => q.y > 0)) assert.ok(Math.abs(along(xs, p.x) - 0.25) < 1e-12);
});

// A class field: classes 0 | 1 over FX × FY, a discrete scale (two stops at one place).
const CLASSES = FY.map(() => [0, 0, 1, 1]);
const TINTS = [[0, "#ff0000"], [0.5, "#ff0000"], [0.5, "#0000ff"], [1, "#0000ff"]];

test("a class field that brings its crossings keeps its regions as polygons, each in its class's colour", () => {
  const meta = { kv_crossings: [{ level: "classes", edges: [2, 10, 18], at: [0.25, 0.5, 0.75] }] };
  const { fields } = splitCanvas({ data: [field(CLASSES, { zmin: -0.5, zmax: 1.5, colorscale: TINTS, meta })], layout: {} });
  const [{ regions }] = fields;
  assert.deepEqual(regions.map((r) => [r.value, r.colour]), [[0, "rgb(255,0,0)"], [1, "rgb(0,0,255)"]]);
  // class 0 reaches 0.25, 0.5 and 0.75 of the way from x = 0 to x = 1 on the three rows
  const reach = regions[0].polygons.flat().filter((p) => p.x > 1 && p.x < 2).map((p) => [p.x, p.y]);
  assert.deepEqual(reach.sort(), [[1.25, 0], [1.5, 1], [1.5, 1], [1.75, 2]].sort());
  // without crossings, or on a smooth scale, no regions: the cells' picture as before
  assert.equal(splitCanvas({ data: [field(CLASSES, { colorscale: TINTS })], layout: {} }).fields[0].regions, null);
  assert.equal(splitCanvas({ data: [field(Z, { meta })], layout: {} }).fields[0].regions, null);
});

test("a translucent field lies under Plotly's drawing, whose backgrounds are then the canvas's to paint", () => {
  const layout = { template: { layout: { paper_bgcolor: "white", plot_bgcolor: "#E5ECF6" } } };
  const { figure, fields } = splitCanvas({ data: [field(CLASSES, { colorscale: TINTS, opacity: 0.45 })], layout });
  assert.deepEqual([fields[0].under, fields[0].opacity, fields[0].backdrop], [true, 0.45, { paper: "white", plot: "#E5ECF6" }]);
  assert.deepEqual([figure.layout.paper_bgcolor, figure.layout.plot_bgcolor], ["rgba(0,0,0,0)", "rgba(0,0,0,0)"]);
  assert.equal(figure.data[0].opacity, 0);  // Plotly's stand-in, as for any field
  // an opaque field stays over the drawing, and Plotly keeps its backgrounds
  const opaque = splitCanvas({ data: [field(Z)], layout: { paper_bgcolor: "#111111" } });
  assert.deepEqual([opaque.fields[0].under, opaque.figure.layout.paper_bgcolor], [undefined, "#111111"]);
  // the figure's own colours before its template's
  const own = splitCanvas({ data: [field(Z, { opacity: 0.5 })], layout: { ...layout, paper_bgcolor: "#fafafa" } });
  assert.deepEqual(own.fields[0].backdrop, { paper: "#fafafa", plot: "#E5ECF6" });
});
