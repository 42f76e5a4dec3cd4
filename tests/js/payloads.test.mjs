// The payloads Python sends the components, read as the components read them. The fixtures are written
// by Python's own producers (python -m kernelviz.components.payloads --write tests/js/fixtures;
// tests/test_payloads.py fails when they are stale), with schema.json, the keys each payload type of
// kernelviz.components.payloads declares: every object here must carry its type's required keys and
// no key its type does not declare, so a key renamed on one side only fails here, not in a browser.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { decode, unpackLattice } from "../../kernelviz/components/plot/payload.js";

const FIXTURES = new URL("./fixtures/", import.meta.url);
const SCHEMA = JSON.parse(readFileSync(new URL("schema.json", FIXTURES), "utf-8"));

function assertKeys(object, type, where) {
  assert.ok(SCHEMA[type], `schema.json declares no ${type}`);
  const { required, optional } = SCHEMA[type];
  const keys = Object.keys(object);
  assert.deepEqual(required.filter((key) => !keys.includes(key)), [], `${where} (${type}) lacks required keys`);
  assert.deepEqual(keys.filter((key) => !required.includes(key) && !optional.includes(key)), [],
                   `${where} (${type}) has keys its type does not declare`);
}

function assertLiveKeys(live) {
  assertKeys(live, "LivePreview", "live");
  assertKeys(live.lattice, "BrowserLattice", "live.lattice");
  assertKeys(live.lattice.codec, "BrowserCodec", "live.lattice.codec");
  for (const kernel of live.lattice.kernels) {
    assertKeys(kernel, "BrowserKernel", `kernel ${kernel.name}`);
    for (const [axis, packed] of Object.entries(kernel.support || {})) {
      if (packed) assertKeys(packed, "BrowserSupport", `kernel ${kernel.name}'s support vectors along ${axis}`);
    }
  }
  for (const panel of [...live.panels, ...live.held]) assertKeys(panel, "Panel", `panel ${panel.name}`);
}

// A payload as a protobuf bytes field arrives: a Uint8Array viewing part of a larger buffer, not from
// its start (decode must honour the view's offset).
function payloadOf(name) {
  const file = readFileSync(new URL(name, FIXTURES));
  const message = new Uint8Array(file.length + 11);
  message.set(file, 7);
  return message.subarray(7, 7 + file.length);
}

test("the plot payload's header, live preview, lattice, kernels, codec and panels have their declared keys", () => {
  const { payload } = decode(payloadOf("plot_payload.bin"));
  assertKeys(payload, "PlotHeader", "header");
  assertLiveKeys(payload.live);
  assert.ok(payload.live.panels.length && payload.live.held.length);  // both kinds of panel are in the fixture
  assert.equal(payload.live.lattice.sent, undefined);
});

test("a z sent once is the same array in every trace that shares it", () => {
  const { payload } = decode(payloadOf("plot_payload.bin"));
  const [heatmap, contour] = payload.figure.data;
  assert.deepEqual([heatmap.type, contour.type], ["heatmap", "contour"]);
  assert.equal(typeof heatmap.z.bdata, "string");
  assert.equal(contour.z, heatmap.z);
});

test("each ready kernel's field is a view of the payload's body, one value per lattice value and cell", () => {
  const data = payloadOf("plot_payload.bin");
  const { payload, body } = decode(data);
  const { lattice } = payload.live;
  const spans = JSON.parse(JSON.stringify(lattice.kernels.map((kernel) => kernel.fields)));
  unpackLattice(lattice, body);
  const ready = lattice.kernels.filter((kernel) => !kernel.failed);
  assert.ok(ready.length);
  for (const [k, kernel] of lattice.kernels.entries()) {
    if (kernel.failed) continue;
    assert.deepEqual(Object.keys(kernel.fields).sort(), Object.keys(lattice.axes).sort());
    for (const [axis, field] of Object.entries(kernel.fields)) {
      assert.ok(field instanceof Uint8Array, `${kernel.name} ${axis}`);
      assert.equal(field.length, lattice.axes[axis].length * lattice.nx * lattice.ny);
      assert.equal(field.buffer, data.buffer, "a view, not a copy");
      assert.equal(field.byteOffset, body.byteOffset + spans[k][axis][0]);
    }
  }
});

test("each value's support vectors and the training points come as typed arrays, value after value", () => {
  const { payload, body } = decode(payloadOf("plot_payload.bin"));
  const { lattice } = payload.live;
  unpackLattice(lattice, body);
  // tests/js/write_fixtures.py: three training points; at value i the first i % 3 + 1 are support
  // vectors, |α| from 1 down to 0.25, the first at the bound C; accuracies train 1 − i/100, test 0.5
  assert.deepEqual([...lattice.points], [0, 0.5, 1, -0.5, -1, 0]);
  const rbf = lattice.kernels.find((kernel) => kernel.name === "rbf");
  const packed = rbf.support.log_C;
  assert.deepEqual(packed.counts, lattice.axes.log_C.map((_, i) => i % 3 + 1));
  assert.ok(packed.index instanceof Uint16Array && packed.alpha instanceof Float32Array && packed.bounded instanceof Uint8Array);
  assert.deepEqual([...packed.index.slice(0, 6)], [0, 0, 1, 0, 1, 2]);
  assert.deepEqual([...packed.alpha.slice(0, 6)], [1, 1, 0.25, 1, 0.625, 0.25]);
  assert.deepEqual([...packed.bounded.slice(0, 6)], [1, 1, 0, 1, 0, 0]);
  assert.deepEqual(rbf.accuracy.log_C[1], [0.99, 0.5, null]);
  assert.deepEqual(lattice.support_marker, { free: "circle-open", bounded: "square-open", size: 10, grow: 14 });
  const failed = lattice.kernels.find((kernel) => kernel.failed);
  assert.deepEqual([failed.support, failed.accuracy], [null, null]);
});

test("a failed kernel has no fields and says why", () => {
  const { payload, body } = decode(payloadOf("plot_payload.bin"));
  unpackLattice(payload.live.lattice, body);
  const failed = payload.live.lattice.kernels.filter((kernel) => kernel.failed);
  assert.equal(failed.length, 1);
  assert.equal(failed[0].fields, null);
  assert.equal(failed[0].scales, null);
  assert.match(failed[0].failed, /\S/);
});

test("a lattice the browser has already comes as its id, marked sent, with no fields and no body", () => {
  const { payload, body } = decode(payloadOf("plot_payload_sent.bin"));
  const full = decode(payloadOf("plot_payload.bin")).payload;
  assertKeys(payload, "PlotHeader", "header");
  assertLiveKeys(payload.live);
  const { lattice } = payload.live;
  assert.equal(lattice.sent, true);
  assert.equal(lattice.id, full.live.lattice.id);
  assert.deepEqual(lattice.kernels.map((kernel) => kernel.fields), lattice.kernels.map(() => null));
  assert.deepEqual(lattice.kernels.map((kernel) => kernel.support), lattice.kernels.map(() => null));
  assert.equal(lattice.points, null);
  assert.equal(body.length, 0);
});

test("the drawing canvas's data and each style have their declared keys", () => {
  const data = JSON.parse(readFileSync(new URL("draw_data.json", FIXTURES), "utf-8"));
  assertKeys(data, "DrawData", "draw data");
  assert.ok(data.styles.length);
  for (const style of data.styles) assertKeys(style, "DrawStyle", `style ${style.name}`);
  // every point's label has a style to paint it with (draw.js looks it up by label)
  for (const [, , label] of data.points) assert.ok(data.styles.some((style) => style.label === label), String(label));
});

test("the poll component's data and what finished have their declared keys", () => {
  const data = JSON.parse(readFileSync(new URL("poll_data.json", FIXTURES), "utf-8"));
  assertKeys(data, "PollData", "poll data");
  assertKeys(data.finished, "Finished", "finished");
});
