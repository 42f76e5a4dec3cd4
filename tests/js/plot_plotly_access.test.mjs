// Unit tests of what the plot component takes of plotly.js (kernelviz/components/plot/plotly_access.js),
// under node --test: Streamlit's copy imported once, where Plotly drew (its private fields), and the
// canvases laid over its drawing.
import assert from "node:assert/strict";
import { test } from "node:test";

import { plotlyChanges } from "../../kernelviz/components/plot/plotly_access.js";

test("plotly.js's private fields the component reads are named when they change", () => {
  const svg = (hover) => ({ querySelector: (s) => (hover && s === ".hoverlayer" ? {} : null) });
  const layers = [svg(false), svg(false), svg(true)];
  const container = { querySelectorAll: () => layers };
  const root = (axis) => ({
    _fullLayout: { width: 800, height: 400, xaxis: axis }, _fullData: [],
    querySelector: (s) => (s === ".svg-container" ? container : null),
  });
  const axis = { _offset: 50, _length: 300, l2p: (v) => v * 10 };
  assert.deepEqual(plotlyChanges(root(axis)), []);
  assert.deepEqual(plotlyChanges(root({ ...axis, _offset: undefined })), ["_fullLayout.xaxis._offset / _length"]);
  assert.deepEqual(plotlyChanges(root({ _offset: 50, _length: 300 })), ["_fullLayout.xaxis.l2p"]);
  layers.pop();
  layers.pop();
  assert.deepEqual(plotlyChanges(root(axis)), ["svg.main-svg layers"]);
});
