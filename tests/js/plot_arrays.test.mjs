// Unit tests of how the canvas painters read a figure's arrays (kernelviz/components/plot/arrays.js),
// under node --test: Plotly's base64 form decoded, per-point and shared attribute values.
import assert from "node:assert/strict";
import { test } from "node:test";

import { arrayOf, first, isArray, pick } from "../../kernelviz/components/plot/arrays.js";

// Plotly's base64 form of a typed array (plotly.py writes it so for numpy arrays).
const base64 = (typed, dtype, shape) => ({ dtype, bdata: Buffer.from(typed.buffer).toString("base64"), ...(shape ? { shape } : {}) });

test("Plotly's base64 arrays are decoded: 1-d as a typed array, 2-d as rows of lists", () => {
  const flat = arrayOf(base64(new Float64Array([1.5, -2, 1e-300]), "f8"));
  assert.ok(flat instanceof Float64Array);
  assert.deepEqual([...flat], [1.5, -2, 1e-300]);
  assert.deepEqual(arrayOf(base64(new Int32Array([1, 2, 3, 4, 5, 6]), "i4", "2, 3")), [[1, 2, 3], [4, 5, 6]]);
  assert.deepEqual([...arrayOf(base64(new Uint8Array([0, 255]), "u1"))], [0, 255]);
});

test("anything that is not Plotly's base64 form passes as it is", () => {
  const list = [1, 2];
  assert.equal(arrayOf(list), list);
  assert.equal(arrayOf(undefined), undefined);
  assert.equal(arrayOf("red"), "red");
  const unknown = { dtype: "c16", bdata: "AAAA" };  // a dtype plotly.js does not take
  assert.equal(arrayOf(unknown), unknown);
});

test("a point's value: its own from an array, the one value shared by all, or the fallback", () => {
  assert.equal(pick([4, 5, 6], 1, 0), 5);
  assert.equal(pick(new Float32Array([4, 5]), 1, 0), 5);
  assert.equal(pick("circle", 7, "square"), "circle");
  assert.equal(pick([4, null], 1, 9), 9);
  assert.equal(pick([4], 3, 9), 9);
  assert.equal(pick(undefined, 0, 9), 9);
  assert.equal(pick(0, 0, 9), 0);  // a value of 0 is a value
});

test("an attribute's first value, and what counts as an array", () => {
  assert.equal(first(["red", "blue"]), "red");
  assert.equal(first(new Uint8Array([7, 8])), 7);
  assert.equal(first("green"), "green");
  assert.ok(isArray([]) && isArray(new Float64Array(1)));
  assert.ok(!isArray("abc") && !isArray({ length: 2 }) && !isArray(null));
});
