// Unit tests of where the live preview's sliders stand in the lattice (kernelviz/components/plot/lattice.js),
// under node --test: which stored field shows the sliders' (γ, C), and when that is the figure's own.
import assert from "node:assert/strict";
import { test } from "node:test";

import { currentField, figureIndex, formatPower, LIVE_AXES, nearestIndex, previewing, previewNote }
  from "../../kernelviz/components/plot/lattice.js";

// A γ × C lattice around (γ, C) = (1, 10): the γ lattice holds C = 10 only, the C lattice γ = 1 only.
const LATTICE = { kind: "decision", log_gamma: 0, log_C: 1, axes: { log_gamma: [-2, -1, 0, 1], log_C: [-1, 0, 1, 2, 3] } };
const live = (extra = {}) => ({ lattice: LATTICE, log_gamma: 0, log_C: 1, ...extra });
const at = (log_gamma, log_C, extra) => ({ live: live(extra), index: { log_gamma, log_C } });

test("the nearest of a lattice's values, the first of two as near", () => {
  assert.equal(nearestIndex([-2, -1, 0, 1], 0.4), 2);
  assert.equal(nearestIndex([-2, -1, 0, 1], 0.5), 2);
  assert.equal(nearestIndex([-2, -1, 0, 1], -7), 0);
  assert.equal(figureIndex(live({ log_gamma: -0.9 }), "log_gamma"), 1);
  assert.deepEqual(LIVE_AXES, ["log_gamma", "log_C"]);
});

test("a power of ten as the sliders write it: two digits, exponents beyond [0.01, 100)", () => {
  assert.deepEqual([0, 0.5, -1, -2, 2, -3, Math.log10(25)].map(formatPower), ["1", "3.16", "0.1", "0.01", "100", "0.001", "25"]);
  // Python's f"{10 ** log:.3g}", which the figures' titles print
  const cases = [[1.25, "17.8"], [1.5, "31.6"], [2.75, "562"], [3, "1e+03"], [4.25, "1.78e+04"], [-1.25, "0.0562"],
                 [-4, "0.0001"], [-5, "1e-05"], [-4.5, "3.16e-05"], [Math.log10(999.9), "1e+03"], [Math.log10(0.5), "0.5"]];
  for (const [log, printed] of cases) assert.equal(formatPower(log), printed, String(log));
});

test("previewing: a slider away from the figure's own value, on an axis the lattice has", () => {
  assert.equal(previewing(at(2, 2)), false);
  assert.equal(previewing(at(3, 2)), true);
  assert.equal(previewing(at(2, 4)), true);
  const gammaOnly = { live: { lattice: { ...LATTICE, axes: { log_gamma: LATTICE.axes.log_gamma } }, log_gamma: 0, log_C: 1 },
                      index: { log_gamma: 2, log_C: 4 } };
  assert.equal(previewing(gammaOnly), false);  // no C lattice: its index means nothing
});

test("the field of the sliders' values: along γ at the lattice's C, along C at its γ, none elsewhere", () => {
  assert.deepEqual(currentField(at(0, 2)), { axis: "log_gamma", index: 0 });
  assert.deepEqual(currentField(at(2, 4)), { axis: "log_C", index: 4 });
  assert.equal(currentField(at(0, 4)), null);
  const gammaOnly = { live: { lattice: { ...LATTICE, axes: { log_gamma: LATTICE.axes.log_gamma } } }, index: { log_gamma: 3, log_C: 0 } };
  assert.deepEqual(currentField(gammaOnly), { axis: "log_gamma", index: 3 });
});

test("the note under a preview names its values and the figure's", () => {
  assert.equal(previewNote(at(3, 2)),
               "Preview at γ = 10, C = 10: its support vectors and scores; release to fit there (the table, hidden meanwhile, is still at γ = 1, C = 10).");
  const similarity = { live: { lattice: { ...LATTICE, kind: "similarity", axes: { log_gamma: [-1, 0] } }, log_gamma: 0 },
                       index: { log_gamma: 0 } };
  assert.equal(previewNote(similarity), "Preview at γ = 0.1: release to label its level curves.");
});
