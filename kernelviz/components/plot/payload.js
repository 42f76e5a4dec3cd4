// The plot component's data decoded (its header declared in kernelviz/protocol.py, checked by
// tests/js/payloads.test.mjs): the JSON header, and each lattice field a view of the body.

const SAME_Z = "kv_same_z_as";

// The payload (kernelviz.components.plot.payload): the header's length as 4 bytes, little-endian,
// the header as UTF-8 JSON, then the lattice's raw codes, which the header points into.
export function decode(data) {
  const bytes = data instanceof ArrayBuffer ? new Uint8Array(data) : data;
  const length = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(0, true);
  const payload = JSON.parse(new TextDecoder().decode(bytes.subarray(4, 4 + length)));
  // a z sent once for the traces that share it (kernelviz.components.plot._shared_z): the same array in each
  const traces = (payload.figure && payload.figure.data) || [];
  for (const trace of traces) {
    if (trace.z && typeof trace.z === "object" && SAME_Z in trace.z) trace.z = traces[trace.z[SAME_Z]].z;
  }
  return { payload, body: bytes.subarray(4 + length) };
}

// How each packed part of a kernel's support vectors is stored (kernelviz.components.plot.SUPPORT_DTYPES).
const SUPPORT_PARTS = { index: Uint16Array, alpha: Float32Array, bounded: Uint8Array };

// A little-endian span of the body as a typed array of its own: the body starts anywhere in the
// message, so a Uint16Array or Float32Array cannot view it in place (their offsets must be aligned).
function copied(body, [offset, length], Type) {
  const out = new Type(length / Type.BYTES_PER_ELEMENT);
  const data = new DataView(body.buffer, body.byteOffset + offset, length);
  const read = { 1: (at) => data.getUint8(at), 2: (at) => data.getUint16(at, true), 4: (at) => data.getFloat32(at, true) };
  const get = read[Type.BYTES_PER_ELEMENT];
  for (let i = 0; i < out.length; i += 1) out[i] = get(i * Type.BYTES_PER_ELEMENT);
  return out;
}

// Each kernel's fields from their [offset, size] spans into views of the payload's body; its support
// vectors' parts and the training points (x, y pairs) into typed arrays.
export function unpackLattice(lattice, body) {
  const size = lattice.nx * lattice.ny;
  for (const kernel of lattice.kernels) {
    if (!kernel.fields) continue;
    for (const axis of Object.keys(kernel.fields)) {
      const [offset, length] = kernel.fields[axis];
      if (length !== size * lattice.axes[axis].length) throw new Error(`the ${kernel.name} lattice has the wrong size`);
      kernel.fields[axis] = body.subarray(offset, offset + length);
    }
    for (const packed of Object.values(kernel.support || {})) {
      if (!packed) continue;
      for (const [part, Type] of Object.entries(SUPPORT_PARTS)) packed[part] = copied(body, packed[part], Type);
      const total = packed.counts.reduce((sum, count) => sum + count, 0);
      if (packed.index.length !== total) throw new Error(`the ${kernel.name} support vectors have the wrong size`);
    }
  }
  if (lattice.points) lattice.points = copied(body, lattice.points, Float32Array);
}
