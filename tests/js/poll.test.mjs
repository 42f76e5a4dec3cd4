// Unit tests of the poll component (kernelviz/components/poll/poll.js), under node --test: it asks for
// the next run only after the last one arrived, stops when its element goes, and tells the page
// (not the server) when the wait is over.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { mock, test } from "node:test";

import { FINISHED_EVENT } from "../../kernelviz/components/events.js";
import poll from "../../kernelviz/components/poll/poll.js";

const FIXTURE = JSON.parse(readFileSync(new URL("fixtures/poll_data.json", import.meta.url), "utf-8"));

function setUp() {
  globalThis.document = new EventTarget();
  const app = { state: "notRunning", getAttribute: () => app.state };
  document.querySelector = (selector) => (selector === '[data-testid="stApp"]' ? app : null);
  document.app = app;
  mock.timers.enable({ apis: ["setTimeout", "Date"] });
  const triggers = [];
  const heard = [];
  document.addEventListener(FINISHED_EVENT, (event) => heard.push(event.detail));
  const call = (parentElement, data) => poll({ data, parentElement,
                                              setTriggerValue: (name, value) => triggers.push([name, value]) });
  return { triggers, heard, call };
}

function tearDown() { mock.timers.reset(); delete globalThis.document; }

test("one tick a while after each run, and none before the run's data arrived", () => {
  const { triggers, call } = setUp();
  try {
    const element = {};
    call(element, { run: 1, every_ms: 500, finished: null });
    mock.timers.tick(499);
    assert.deepEqual(triggers, []);
    mock.timers.tick(1);
    assert.deepEqual(triggers, [["tick", 1]]);
    mock.timers.tick(5000);  // the run it asked for has not arrived: no second tick
    assert.equal(triggers.length, 1);
    call(element, { run: 2, every_ms: 500, finished: null });
    mock.timers.tick(500);
    assert.deepEqual(triggers, [["tick", 1], ["tick", 2]]);
  } finally { tearDown(); }
});

test("a run that comes before the tick replaces its timer; the element's going stops it", () => {
  const { triggers, call } = setUp();
  try {
    const element = {};
    call(element, { run: 1, every_ms: 500, finished: null });
    mock.timers.tick(300);
    const cleanup = call(element, { run: 2, every_ms: 500, finished: null });
    mock.timers.tick(300);
    assert.deepEqual(triggers, []);  // the first timer is gone, the second not due
    cleanup();
    mock.timers.tick(5000);
    assert.deepEqual(triggers, []);
  } finally { tearDown(); }
});

test("finished: no more ticks, and the page hears what finished", () => {
  const { triggers, heard, call } = setUp();
  try {
    const element = {};
    call(element, { run: 1, every_ms: 500, finished: null, watch: null });
    call(element, { ...FIXTURE, watch: null });
    mock.timers.tick(5000);
    assert.deepEqual(triggers, []);
    assert.deepEqual(heard, [FIXTURE.finished]);
  } finally { tearDown(); }
});

test("watching: ticks only while the page has what it watches, and goes on after finished", () => {
  const { triggers, heard, call } = setUp();
  try {
    const app = document.app;
    let waiting = false;  // whether a figure says its lattice is being prepared
    document.querySelector = (selector) => (selector === '[data-testid="stApp"]' ? app
      : selector === FIXTURE.watch && waiting ? {} : null);
    const element = {};
    call(element, { ...FIXTURE, run: 1, finished: null });
    mock.timers.tick(2000);
    assert.deepEqual(triggers, []);  // nothing waits: no run of the watcher
    waiting = true;
    mock.timers.tick(500);
    assert.deepEqual(triggers, [["tick", 1]]);
    call(element, FIXTURE);  // the run that found the lattice finished: the page hears it ...
    assert.deepEqual(heard, [FIXTURE.finished]);
    waiting = false;  // ... and the view's run sends the figure its lattice
    mock.timers.tick(2000);
    assert.deepEqual(triggers, [["tick", 1]]);
    waiting = true;  // a commit: the figure waits for another lattice, and the timer is still there
    mock.timers.tick(500);
    assert.deepEqual(triggers, [["tick", 1], ["tick", FIXTURE.run]]);
  } finally { tearDown(); }
});

test("no tick while a script runs: it waits until the page is idle", () => {
  const { triggers, call } = setUp();
  try {
    document.app.state = "running";
    call({}, { run: 1, every_ms: 500, finished: null });
    mock.timers.tick(2000);
    assert.deepEqual(triggers, []);
    document.app.state = "notRunning";
    mock.timers.tick(100);
    assert.deepEqual(triggers, [["tick", 1]]);
  } finally { tearDown(); }
});

test("no tick just after a person's input: Streamlit would send both as one run of the first one's fragment", () => {
  const { triggers, call } = setUp();
  try {
    call({}, { run: 1, every_ms: 500, finished: null });
    mock.timers.tick(400);
    document.dispatchEvent(new Event("pointerdown"));  // a click somewhere on the page
    mock.timers.tick(100);  // the tick is due, but the click was 100 ms ago
    assert.deepEqual(triggers, []);
    mock.timers.tick(300);
    assert.deepEqual(triggers, [["tick", 1]]);
  } finally { tearDown(); }
});
