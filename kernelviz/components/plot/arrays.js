// A figure's arrays as the canvas painters read them: Plotly takes a list, a typed array or its
// base64 form, and an attribute may be one value for all points or one per point.

const TYPED = { f8: Float64Array, f4: Float32Array, i4: Int32Array, u4: Uint32Array, i2: Int16Array,
                u2: Uint16Array, i1: Int8Array, u1: Uint8Array, u1c: Uint8ClampedArray };

export function isArray(value) {
  return Array.isArray(value) || ArrayBuffer.isView(value);
}

// A figure's array as plotly.js takes it: a list, or Plotly's base64 {dtype, bdata[, shape]}
// (rows of a 2-d one as lists).
export function arrayOf(value) {
  if (!value || typeof value !== "object" || typeof value.bdata !== "string" || !TYPED[value.dtype]) return value;
  const text = atob(value.bdata);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i += 1) bytes[i] = text.charCodeAt(i);
  const flat = new TYPED[value.dtype](bytes.buffer);
  const shape = String(value.shape || "").split(",").map(Number);
  if (shape.length !== 2) return flat;
  return Array.from({ length: shape[0] }, (_, i) => Array.from(flat.subarray(i * shape[1], (i + 1) * shape[1])));
}

// Point i's value of an attribute that is one value for all points or one per point.
export function pick(value, i, fallback) {
  const v = isArray(value) ? value[i] : value;
  return v === undefined || v === null ? fallback : v;
}

export function first(value) {
  return isArray(value) ? value[0] : value;
}
