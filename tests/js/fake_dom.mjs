// A small stand-in for the browser under node --test, for the components' modules that touch the
// page: elements (a tree, selectors, events, dataset, classes), canvases whose 2-d context records
// what is asked of it, the observers, animation frames, and a fake plotly.js. It lays nothing out:
// what the code reads of sizes and boxes is what a test sets.

const VOID = new Set(["input", "br", "img"]);  // elements with no closing tag

// One compound selector ("svg.main-svg", ".kv-live-control", 'g.annotation[data-index="2"]', "output").
function matches(element, selector) {
  const parts = /^(\w[\w-]*)?((?:\.[\w-]+)*)((?:\[[\w-]+="[^"]*"\])*)$/.exec(selector.trim());
  if (!parts) throw new Error(`the fake DOM reads no selector ${selector}`);
  const [, tag, classes, attributes] = parts;
  if (tag && element.tagName !== tag.toUpperCase()) return false;
  if (classes && !classes.slice(1).split(".").every((c) => element.classList.contains(c))) return false;
  for (const [, name, value] of attributes.matchAll(/\[([\w-]+)="([^"]*)"\]/g)) {
    if (element.getAttribute(name) !== value) return false;
  }
  return true;
}

export class FakeElement extends EventTarget {
  constructor(tag) {
    super();
    this.tagName = tag.toUpperCase();
    this.children = [];
    this.parentNode = null;
    this.dataset = {};
    this.style = {};
    this.className = "";
    this.hidden = false;
    this.text = "";
    this.attributes = {};
    this.box = { left: 0, top: 0, width: 0, height: 0 };  // getBoundingClientRect(), as a test sets it
    this.clientWidth = 0;
    this.scrollTop = 0;
    this.classList = {
      contains: (name) => this.className.split(/\s+/).includes(name),
      add: (name) => { if (!this.classList.contains(name)) this.className = `${this.className} ${name}`.trim(); },
      remove: (name) => { this.className = this.className.split(/\s+/).filter((c) => c && c !== name).join(" "); },
      toggle: (name, on = !this.classList.contains(name)) => {
        if (on) this.classList.add(name);
        else this.classList.remove(name);
        return on;
      },
    };
  }

  // as in a browser, text set replaces the children; read, it is theirs too
  get textContent() { return this.text + this.children.map((child) => child.textContent).join(""); }
  set textContent(text) {
    this.replaceChildren();
    this.text = String(text);
  }

  get parentElement() { return this.parentNode instanceof FakeElement ? this.parentNode : null; }
  get nextSibling() { return this.sibling(1); }
  get previousSibling() { return this.sibling(-1); }
  sibling(step) {
    const siblings = this.parentNode ? this.parentNode.children : [];
    return siblings[siblings.indexOf(this) + step] || null;
  }

  getAttribute(name) {
    if (name.startsWith("data-")) {
      const key = name.slice(5).replace(/-(\w)/g, (_, c) => c.toUpperCase());
      return key in this.dataset ? String(this.dataset[key]) : null;
    }
    return name in this.attributes ? this.attributes[name] : null;
  }
  setAttribute(name, value) {
    if (name === "class") this.className = value;
    else if (name.startsWith("data-")) this.dataset[name.slice(5).replace(/-(\w)/g, (_, c) => c.toUpperCase())] = value;
    else {
      this.attributes[name] = value;
      if (["type", "min", "max", "step", "value", "role"].includes(name)) this[name] = value;
    }
  }

  insertBefore(child, reference) {
    if (child.parentNode) child.remove();
    const at = reference ? this.children.indexOf(reference) : -1;
    this.children.splice(at < 0 ? this.children.length : at, 0, child);
    child.parentNode = this;
    return child;
  }
  appendChild(child) { return this.insertBefore(child, null); }
  append(...children) { children.forEach((child) => this.appendChild(child)); }
  replaceChildren(...children) {
    [...this.children].forEach((child) => child.remove());
    this.append(...children);
  }
  remove() {
    if (!this.parentNode) return;
    this.parentNode.children.splice(this.parentNode.children.indexOf(this), 1);
    this.parentNode = null;
  }

  // Descendants matching a selector list of compound selectors, ":scope > x" for children only.
  querySelectorAll(selector) {
    if (selector.startsWith(":scope >")) {
      const own = selector.slice(":scope >".length);
      return this.children.filter((child) => child instanceof FakeElement && matches(child, own));
    }
    const found = [];
    const visit = (element) => element.children.forEach((child) => {
      if (!(child instanceof FakeElement)) return;
      if (matches(child, selector)) found.push(child);
      visit(child);
    });
    visit(this);
    return found;
  }
  querySelector(selector) { return this.querySelectorAll(selector)[0] || null; }
  // The element itself or its nearest ancestor that matches (one compound selector).
  closest(selector) {
    for (let element = this; element; element = element.parentElement) if (matches(element, selector)) return element;
    return null;
  }

  getBoundingClientRect() { return { ...this.box, right: this.box.left + this.box.width, bottom: this.box.top + this.box.height }; }

  // Well-formed markup of elements and text, as the components write it.
  set innerHTML(markup) {
    this.replaceChildren();
    const open = [this];
    for (const [, closing, tag, attributes] of markup.matchAll(/<(\/?)(\w+)([^>]*)>/g)) {
      if (closing) {
        open.pop();
        continue;
      }
      const element = createElement(tag);
      for (const [, name, value] of attributes.matchAll(/([\w-]+)(?:="([^"]*)")?/g)) element.setAttribute(name, value ?? "");
      open.at(-1).appendChild(element);
      if (!VOID.has(tag)) open.push(element);
    }
  }
}

function createElement(tag) {
  return tag === "canvas" ? new FakeCanvas() : new FakeElement(tag);
}

// A canvas; its 2-d context records each call and each property set, in order, in `calls`.
class FakeCanvas extends FakeElement {
  constructor() {
    super("canvas");
    this.width = 300;
    this.height = 150;
    this.context = null;
  }
  getContext() {
    if (!this.context) this.context = recordingContext();
    return this.context;
  }
}

export function recordingContext() {
  const calls = [];
  const state = { calls, measureText: (text) => ({ width: 6 * text.length }),
                  createImageData: (width, height) => new FakeImageData(new Uint8ClampedArray(width * height * 4), width, height),
                  getImageData: (x, y, width, height) => {
                    const image = rastered(calls, x, y, width, height);
                    calls.push(["getImageData", x, y, width, height]);
                    return image;
                  } };
  return new Proxy(state, {
    get(target, name) {
      if (name in target) return target[name];
      return (...args) => { calls.push([name, ...args]); };
    },
    set(target, name, value) {
      target[name] = value;
      calls.push([`${name}=`, value]);
      return true;
    },
  });
}

// What the canvas would hold of (x, y, width, height) in device pixels, as far as a fake can tell:
// each path stroked or filled leaves one opaque pixel at its centre (an arc's, or the mean of its
// points), in its colour when that is "#rrggbb" (else black), through the transform set last.
function rastered(calls, x, y, width, height) {
  const data = new Uint8ClampedArray(width * height * 4);
  let transform = [1, 0, 0, 1, 0, 0];
  let points = [];
  const style = {};
  for (const [name, ...args] of calls) {
    if (name === "setTransform") transform = args;
    else if (name === "beginPath") points = [];
    else if (name === "arc") points = [[args[0], args[1]]];
    else if (name === "moveTo" || name === "lineTo") points.push(args);
    else if (name === "strokeStyle=" || name === "fillStyle=") style[name] = args[0];
    else if ((name === "stroke" || name === "fill") && points.length) {
      const [u, v] = [0, 1].map((c) => points.reduce((sum, point) => sum + point[c], 0) / points.length);
      const px = Math.floor(transform[0] * u + transform[4]) - x;
      const py = Math.floor(transform[3] * v + transform[5]) - y;
      if (px < 0 || py < 0 || px >= width || py >= height) continue;
      const colour = String(style[name === "stroke" ? "strokeStyle=" : "fillStyle="]);
      const rgb = /^#[0-9a-f]{6}$/i.test(colour) ? [1, 3, 5].map((i) => parseInt(colour.slice(i, i + 2), 16)) : [0, 0, 0];
      data.set([...rgb, 255], 4 * (py * width + px));
    }
  }
  return new FakeImageData(data, width, height);
}

class FakeImageData {
  constructor(data, width, height) { Object.assign(this, { data, width, height }); }
}

class FakeObserver {
  constructor(callback) {
    this.callback = callback;
    this.observed = [];
    FakeObserver.made.push(this);
  }
  observe(target, options) { this.observed.push([target, options]); }
  disconnect() { this.observed = []; }
}
FakeObserver.made = [];

// Puts the fake page in place of the browser's globals; `uninstall()` takes it away again.
export function install({ devicePixelRatio = 1, innerHeight = 900 } = {}) {
  const frames = new Map();
  let frameCount = 0;
  const document = Object.assign(new EventTarget(), {
    body: new FakeElement("body"),
    baseURI: "http://localhost:8501/",
    createElement,
    createTextNode: (text) => ({ nodeType: 3, textContent: text }),
    querySelectorAll: (selector) => document.body.querySelectorAll(selector),
    querySelector: (selector) => document.body.querySelector(selector),
  });
  const window = Object.assign(new EventTarget(), { devicePixelRatio, innerHeight, scrollY: 0 });
  Object.assign(globalThis, {
    document, window, ImageData: FakeImageData, ResizeObserver: FakeObserver, MutationObserver: FakeObserver,
    getComputedStyle: () => ({ color: "rgb(49, 51, 63)" }),
    requestAnimationFrame: (callback) => { frameCount += 1; frames.set(frameCount, callback); return frameCount; },
    cancelAnimationFrame: (id) => frames.delete(id),
  });
  FakeObserver.made = [];
  return {
    document, window, observers: FakeObserver.made,
    // runs the animation frames asked for so far
    flushFrames() {
      const due = [...frames.values()];
      frames.clear();
      due.forEach((callback) => callback(0));
    },
  };
}

export function uninstall() {
  for (const name of ["document", "window", "ImageData", "ResizeObserver", "MutationObserver", "getComputedStyle",
                      "requestAnimationFrame", "cancelAnimationFrame"]) delete globalThis[name];
}

// A linear axis as plotly.js keeps it in _fullLayout: `length` pixels from `offset` for [lo, hi]
// (a y axis upside down, as on the screen).
export function drawnAxis(letter, offset, length, [lo, hi]) {
  const l2p = letter === "x" ? (v) => ((v - lo) / (hi - lo)) * length : (v) => ((hi - v) / (hi - lo)) * length;
  const p2l = letter === "x" ? (p) => lo + (p / length) * (hi - lo) : (p) => hi - (p / length) * (hi - lo);
  return { _offset: offset, _length: length, l2p, p2l };
}

// plotly.js as far as the plot component uses it: react() draws into the element what Plotly would
// leave there (its private fields, its SVG layers) and gives it `on`; `emit` plays an event.
export function fakePlotly({ layout: drawn = () => ({}) } = {}) {
  const plotly = {
    reacted: [],
    purged: [],
    react(root, data, layout, config) {
      plotly.reacted.push({ root, data, layout, config });
      root._fullLayout = { width: layout.width || 700, height: layout.height || 450, font: { size: 12 },
                           xaxis: drawnAxis("x", 80, 500, [0, 1]), yaxis: drawnAxis("y", 100, 300, [0, 1]),
                           ...drawn(layout, data) };
      root._fullData = data.map((trace) => ({ ...trace, visible: trace.visible ?? true }));
      root.data = data;
      root.layout = layout;
      // as plotly.js writes each axis's type into the layout it is given
      for (const key of Object.keys(layout)) if (/^[xy]axis\d*$/.test(key)) layout[key].type ??= "linear";
      drawAnnotations(root, layout.annotations || []);
      drawTitle(root, layout.title);
      if (!root.querySelector(".svg-container")) {
        const container = new FakeElement("div");
        container.className = "svg-container";
        for (const layer of ["drawing", "info", "hover"]) {
          const svg = new FakeElement("svg");
          svg.className = `main-svg ${layer}`;
          if (layer === "hover") svg.appendChild(Object.assign(new FakeElement("g"), { className: "hoverlayer" }));
          container.appendChild(svg);
        }
        root.appendChild(container);
        root.handlers = {};
        root.on = (name, handler) => { (root.handlers[name] ||= []).push(handler); };
      }
      return Promise.resolve(root);
    },
    purge(root) { plotly.purged.push(root); },
    emit(root, name, event) { return (root.handlers[name] || []).map((handler) => handler(event)); },
  };
  return plotly;
}

// Plotly's annotations as it draws them: g.annotation[data-index] > text.annotation-text, whose text
// nodes are the words between the text's tags.
function drawAnnotations(root, annotations) {
  for (const old of root.querySelectorAll("g.annotation")) old.remove();
  annotations.forEach((annotation, index) => {
    const group = new FakeElement("g");
    group.className = "annotation";
    group.setAttribute("data-index", String(index));
    const text = new FakeElement("text");
    text.className = "annotation-text";
    text.childNodes = String(annotation.text ?? "").split(/<[^>]*>/).filter((w) => w).map((nodeValue) => ({ nodeType: 3, nodeValue }));
    group.appendChild(text);
    root.appendChild(group);
  });
}

// The figure's title as Plotly draws it: g.g-gtitle > text.gtitle, its text nodes the words between
// the tags (none for a figure without a title).
// plotly.js keeps a drawn title's element (its class and properties too) and writes the new words into it.
function drawTitle(root, title) {
  const words = typeof title === "string" ? title : title && title.text;
  const drawn = root.querySelector("text.gtitle");
  if (!words) {
    for (const old of root.querySelectorAll("g.g-gtitle")) old.remove();
    return;
  }
  const leaves = String(words).split(/<[^>]*>/).filter((w) => w).map((nodeValue) => ({ nodeType: 3, nodeValue }));
  if (drawn) {
    drawn.childNodes = leaves;
    return;
  }
  const group = new FakeElement("g");
  group.className = "g-gtitle";
  const text = new FakeElement("text");
  text.className = "gtitle";
  text.childNodes = leaves;
  group.appendChild(text);
  root.appendChild(group);
}

// kernelviz.components.plot.payload's layout: the header's length (4 bytes, little-endian), the header, the body.
export function payload(header, body = []) {
  const json = new TextEncoder().encode(JSON.stringify(header));
  const bytes = new Uint8Array(4 + json.length + body.length);
  new DataView(bytes.buffer).setUint32(0, json.length, true);
  bytes.set(json, 4);
  bytes.set(body, 4 + json.length);
  return bytes;
}
