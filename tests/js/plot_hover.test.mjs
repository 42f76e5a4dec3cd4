// Unit tests of the hover labels of what the canvas paints (kernelviz/components/plot/hover.js),
// under node --test: a point's or a field cell's lines as Plotly would write them, and the label
// shown over the plot.
import assert from "node:assert/strict";
import { test } from "node:test";

import { fieldLines } from "../../kernelviz/components/plot/hover.js";
import { splitCanvas } from "../../kernelviz/components/plot/split.js";

const xs = [-1, 0, 1, 2];
const ys = [0, 0.5, 1];
const Z = ys.map((y) => xs.map((x) => x + y));
const field = (z, extra = {}) => ({ type: "heatmap", x: xs, y: ys, z, zmin: -2, zmax: 2, showscale: false,
                                    colorscale: [[0, "#0000ff"], [0.5, "#ffffff"], [1, "rgb(255, 0, 0)"]], xaxis: "x2", yaxis: "y2",
                                    hovertemplate: "(%{x:.2f}, %{y:.2f})<br>f = %{z:.3f}<extra></extra>", ...extra });

test("a cell's hover label fills the field's template from its own values and class names", () => {
  const { fields } = splitCanvas({ data: [field(Z)], layout: {} });
  assert.deepEqual(fieldLines(fields[0], 2, 1), ["(0.00, 1.00)", "f = 1.000"]);
  const names = ys.map(() => xs.map((x) => (x < 0.5 ? "setosa" : "virginica")));
  const classes = splitCanvas({ data: [field(Z, { text: names, hovertemplate: "(%{x:.2f}, %{y:.2f})<br>predicted %{text}<extra></extra>" })],
                                layout: {} });
  assert.deepEqual(fieldLines(classes.fields[0], 0, 3), ["(2.00, 0.00)", "predicted virginica"]);
  assert.equal(fieldLines({ ...fields[0], hoverinfo: "skip" }, 0, 0), null);
});
