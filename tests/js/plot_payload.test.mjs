// Unit tests of the plot component's data decoded (kernelviz/components/plot/payload.js), under node
// --test, on payloads made here (payloads.test.mjs checks the ones Python writes against the schema).
import assert from "node:assert/strict";
import { test } from "node:test";

import { decode, unpackLattice } from "../../kernelviz/components/plot/payload.js";
import { payload } from "./fake_dom.mjs";

test("the header and the body, from an ArrayBuffer or from a view into a larger buffer", () => {
  const bytes = payload({ revision: 3, figure: null, name: "γ" }, [7, 8, 9]);
  const fromBuffer = decode(bytes.buffer);
  assert.deepEqual(fromBuffer.payload, { revision: 3, figure: null, name: "γ" });
  assert.deepEqual([...fromBuffer.body], [7, 8, 9]);
  const larger = new Uint8Array(bytes.length + 10);
  larger.set(bytes, 6);
  const fromView = decode(larger.subarray(6, 6 + bytes.length));
  assert.deepEqual(fromView.payload, fromBuffer.payload);
  assert.deepEqual([...fromView.body], [7, 8, 9]);
});

test("a z sent once is the same array in every trace that refers to it", () => {
  const z = [[1, 2], [3, 4]];
  const { payload: decoded } = decode(payload({ figure: { data: [{ type: "heatmap", z }, { type: "contour", z: { kv_same_z_as: 0 } },
                                                                 { type: "scatter" }], layout: {} } }));
  const [heatmap, contour, scatter] = decoded.figure.data;
  assert.deepEqual(heatmap.z, z);
  assert.equal(contour.z, heatmap.z);
  assert.equal(scatter.z, undefined);
});

test("each ready kernel's fields become views of the body; a failed kernel's stay none; a wrong size is an error", () => {
  const body = new Uint8Array(20).map((_, i) => i);
  const lattice = { nx: 2, ny: 2, axes: { log_gamma: [0, 1], log_C: [0, 1, 2] },
                    kernels: [{ name: "rbf", fields: { log_gamma: [0, 8], log_C: [8, 12] } }, { name: "poly", fields: null }] };
  unpackLattice(lattice, body);
  const [rbf, poly] = lattice.kernels;
  assert.deepEqual([...rbf.fields.log_gamma], [0, 1, 2, 3, 4, 5, 6, 7]);
  assert.deepEqual([...rbf.fields.log_C], [8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19]);
  assert.equal(rbf.fields.log_C.buffer, body.buffer);  // a view, not a copy
  assert.equal(poly.fields, null);
  const wrong = { nx: 2, ny: 2, axes: { log_gamma: [0, 1] }, kernels: [{ name: "rbf", fields: { log_gamma: [0, 4] } }] };
  assert.throws(() => unpackLattice(wrong, body), /the rbf lattice has the wrong size/);
});
