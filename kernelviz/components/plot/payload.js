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

// Each kernel's fields from their [offset, size] spans into views of the payload's body.
export function unpackLattice(lattice, body) {
  const size = lattice.nx * lattice.ny;
  for (const kernel of lattice.kernels) {
    if (!kernel.fields) continue;
    for (const axis of Object.keys(kernel.fields)) {
      const [offset, length] = kernel.fields[axis];
      if (length !== size * lattice.axes[axis].length) throw new Error(`the ${kernel.name} lattice has the wrong size`);
      kernel.fields[axis] = body.subarray(offset, offset + length);
    }
  }
}
