// Unit tests of the canvas painters' colours (kernelviz/components/plot/colours.js), under node
// --test: every colour Plotly takes read as [r, g, b], and colour scales as Plotly interpolates them.
import assert from "node:assert/strict";
import { test } from "node:test";

import { background, colourScale, parseColour, rgb } from "../../kernelviz/components/plot/colours.js";

test("named, #hex and rgb() / rgba() colours are read as [r, g, b]", () => {
  assert.deepEqual(parseColour("white"), [255, 255, 255]);
  assert.deepEqual(parseColour(" RebeccaPurple "), [102, 51, 153]);  // names are case-blind, spaces trimmed
  assert.deepEqual(parseColour("#abc"), [170, 187, 204]);
  assert.deepEqual(parseColour("#0A0b0C"), [10, 11, 12]);
  assert.deepEqual(parseColour("rgb(1, 2, 3)"), [1, 2, 3]);
  assert.deepEqual(parseColour("rgba(10,20,30,0.5)"), [10, 20, 30]);  // the canvas paints the alpha apart
  assert.deepEqual(parseColour("rgb(12.5, 0, 255)"), [12.5, 0, 255]);
});

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

test("a scale with steps has no colour between them; beyond its ends it keeps its end colours", () => {
  // kernelviz.figures' discrete scale of three classes: two stops at each step
  const scale = colourScale([[0, "red"], [1 / 3, "red"], [1 / 3, "lime"], [2 / 3, "lime"], [2 / 3, "blue"], [1, "blue"]]);
  assert.deepEqual(scale(0.2), [255, 0, 0]);
  assert.deepEqual(scale(0.5), [0, 255, 0]);
  assert.deepEqual(scale(0.9), [0, 0, 255]);
  assert.deepEqual(scale(2), [0, 0, 255]);
  assert.deepEqual(colourScale([[0, "#000"], [0.5, "#fff"], [1, "#000"]])(0.75), [127.5, 127.5, 127.5]);
});

test("the plot area's background: its own colour, else the paper's, else white", () => {
  assert.equal(background({ plot_bgcolor: "#E5ECF6", paper_bgcolor: "white" }), "#E5ECF6");
  assert.equal(background({ plot_bgcolor: "rgba(0, 0, 0, 0)", paper_bgcolor: "#fafafa" }), "#fafafa");
  assert.equal(background({ plot_bgcolor: "transparent", paper_bgcolor: "rgba(0,0,0,0.0)" }), "#ffffff");
  assert.equal(background({}), "#ffffff");
  assert.equal(background({ plot_bgcolor: "rgba(0,0,0,0.5)" }), "rgba(0,0,0,0.5)");  // half transparent still shows
});

test("[r, g, b] as CSS writes it, rounded", () => {
  assert.equal(rgb([1.4, 2.5, 254.6]), "rgb(1,3,255)");
  assert.equal(rgb(parseColour("teal")), "rgb(0,128,128)");
});
