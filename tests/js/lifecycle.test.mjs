// Unit tests of the components' one lifecycle (kernelviz/components/lifecycle.js), under node --test.
import assert from "node:assert/strict";
import { test } from "node:test";

import { mount } from "../../kernelviz/components/lifecycle.js";

test("one view per element, created once and updated in place", () => {
  const views = new WeakMap();
  const parent = {};
  let created = 0;
  const create = () => ({ id: ++created });
  const first = mount(views, parent, create);
  const second = mount(views, parent, create);
  assert.equal(created, 1);
  assert.equal(first.view, second.view);
  assert.notEqual(mount(views, {}, create).view, first.view);  // another element, another view
});

test("only the latest call's cleanup tears the view down (Streamlit calls the previous one after the next began)", () => {
  const views = new WeakMap();
  const parent = {};
  const disposed = [];
  const first = mount(views, parent, () => ({}));
  const second = mount(views, parent, () => ({}));
  assert.ok(!first.isLatest() && second.isLatest());
  first.cleanup((view) => disposed.push(view))();
  assert.deepEqual(disposed, []);
  assert.ok(views.has(parent));
  second.cleanup((view) => disposed.push(view))();
  assert.deepEqual(disposed, [second.view]);
  assert.ok(!views.has(parent));
  assert.notEqual(mount(views, parent, () => ({})).view, second.view);  // mounted again: a fresh view
});
