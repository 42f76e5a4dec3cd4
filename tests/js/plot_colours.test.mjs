// Unit tests of the canvas painters' colours (kernelviz/components/plot/colours.js), under node
// --test: every colour Plotly takes read as [r, g, b], and colour scales as Plotly interpolates them.
import assert from "node:assert/strict";
import { test } from "node:test";

import { colourScale, parseColour } from "../../kernelviz/components/plot/colours.js";

test("a colour the painter cannot read is an error, never black", () => {
  assert.deepEqual(parseColour("black"), [0, 0, 0]);
  assert.throws(() => parseColour("not-a-colour"), /not-a-colour/);
  assert.throws(() => parseColour("#abcd"), /#abcd/);
  assert.throws(() => colourScale([[0, "hsl(0, 0%, 50%)"], [1, "white"]]), /hsl/);
});

test("colour scales interpolate hex and rgb stops", () => {
  assert.deepEqual(colourScale([[0, "#000000"], [1, "rgb(200, 100, 50)"]])(0.5), [100, 50, 25]);
  assert.deepEqual(colourScale([[0, "#102030"], [1, "#ffffff"]])(-1), [16, 32, 48]);
});
