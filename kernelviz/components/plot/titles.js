// A new figure that differs from the one drawn only in the words of its titles (the panels' titles,
// annotations: scores and fit times after a dragged point's refit or a committed γ step; the
// figure's own title: the γ and C it is at) gets those words written where Plotly drew them, not a
// Plotly.react: plotly.js counts an annotation's text as a "calc" change (annotations take part in
// autorange) and recomputes and draws the whole figure for it, and a new figure title alone costs
// the same relayout: 50–150 ms of the four-panel figure, most of a dragged point's frame or a
// committed γ step in the browser.
//
// Plotly writes a title such as "<b>RBF</b><br><span style='font-size:11px'>train 95%</span>" as one
// <text> whose leaf text nodes are the words between the tags, in order. Words are rewritten only
// where the tags are the same and every leaf still reads the text drawn; anything else (an entity,
// a tag more or less, a title Plotly drew otherwise) is left to Plotly.react.

const TAG = /<[^>]*>/g;

// The words between the tags, in order (what Plotly puts in text nodes), or null where Plotly would
// write something else than the words themselves (entities, line feeds).
export function words(text) {
  const source = String(text ?? "");
  if (/[&\n]/.test(source)) return null;
  return source.split(TAG).filter((part) => part !== "");
}

function tags(text) {
  return (String(text ?? "").match(TAG) || []).join("");
}

// What a figure handed to Plotly was, to compare the next one with: Plotly writes into the layout
// it is given (each axis's type, domains it constrained), so it is read before Plotly sees it.
// The figure's title is `layout.title`, a string or {text, font, …}.
const TITLE = "title";
const titleText = (layout) => (typeof layout.title === "string" ? layout.title : layout.title && layout.title.text);

function withoutWords(layout) {
  const annotations = (layout.annotations || []).map((a) => ({ ...a, text: tags(a.text) }));
  if (titleText(layout) === undefined) return { ...layout, annotations };
  const title = typeof layout.title === "string" ? { text: tags(layout.title) } : { ...layout.title, text: tags(layout.title.text) };
  return { ...layout, annotations, title };
}

export function drawnAs(figure) {
  const texts = new Map((figure.layout.annotations || []).map((a, index) => [index, a.text]));
  if (titleText(figure.layout) !== undefined) texts.set(TITLE, titleText(figure.layout));
  return { revision: figure.layout.datarevision, traces: figure.data.length,
           rest: JSON.stringify(withoutWords(figure.layout)), texts };
}

// [[key, new text], …] when the figure `next` is the one `drawn` (drawnAs) but for some titles'
// words (and that is all that changed), else null; a key is an annotation's index or "title" (the
// figure's). The data are compared by their revision, as Plotly does.
export function wordsOnly(drawn, next) {
  if (!drawn || !next) return null;
  const now = drawnAs(next);
  if (drawn.revision !== now.revision || drawn.traces !== now.traces || drawn.rest !== now.rest) return null;
  const changed = [];
  for (const [key, text] of now.texts) {
    if (drawn.texts.get(key) === text) continue;
    const before = words(drawn.texts.get(key));
    const after = words(text);
    if (!before || !after || before.length !== after.length) return null;
    changed.push([key, text]);
  }
  return changed;
}

// The text nodes under `node` that hold text, in document order (Plotly leaves empty ones around
// its tspans).
function textNodes(node, found = []) {
  for (const child of node.childNodes || []) {
    if (child.nodeType !== 3) textNodes(child, found);
    else if (child.nodeValue !== "") found.push(child);
  }
  return found;
}

// Where Plotly drew the title of `key`: an annotation's text, or the figure's title (text.gtitle).
function drawnTitle(root, key) {
  if (key === TITLE) return root.querySelector("text.gtitle");
  const group = root.querySelector(`g.annotation[data-index="${key}"]`);
  return group && group.querySelector("text.annotation-text");
}

// Plotly's own copy of the layout (`root.layout`, which its next react compares against) given the
// words written.
function keepInLayout(layout, key, text) {
  if (!layout) return;
  if (key !== TITLE) {
    if (layout.annotations && layout.annotations[key]) layout.annotations[key].text = text;
  } else if (typeof layout.title === "string") layout.title = text;
  else if (layout.title) layout.title.text = text;
}

// Write `changes` (from wordsOnly) into the titles Plotly drew in `root` as `drawn` says: true when
// every one was written, false (nothing written) when one of them is not drawn as expected.
// Plotly's own copy of the layout then holds the new words too.
export function writeWords(root, drawn, changes) {
  const plan = [];
  for (const [key, text] of changes) {
    const element = drawnTitle(root, key);
    const old = words(drawn.texts.get(key));
    const nodes = element ? textNodes(element) : [];
    if (!element || nodes.length !== old.length || nodes.some((node, k) => node.nodeValue !== old[k])) return false;
    plan.push([element, nodes, words(text), key, text]);
  }
  for (const [element, nodes, now, key, text] of plan) {
    nodes.forEach((node, k) => { node.nodeValue = now[k]; });
    element.setAttribute("data-unformatted", text);
    keepInLayout(root.layout, key, text);
  }
  return true;
}
