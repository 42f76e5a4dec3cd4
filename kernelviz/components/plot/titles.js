// A new figure that differs from the one drawn only in the words of its annotations (the panels'
// titles: scores and fit times after a dragged point's refit or a committed γ step) gets those words
// written where Plotly drew them, not a Plotly.react: plotly.js counts an annotation's text as a
// "calc" change (annotations take part in autorange) and recomputes and draws the whole figure for
// it, 50–60 ms of the four-panel figure, most of a dragged point's frame in the browser.
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
export function drawnAs(figure) {
  const annotations = figure.layout.annotations || [];
  return { revision: figure.layout.datarevision, traces: figure.data.length,
           rest: JSON.stringify({ ...figure.layout, annotations: annotations.map((a) => ({ ...a, text: tags(a.text) })) }),
           texts: annotations.map((a) => a.text) };
}

// [[annotation index, new text], …] when the figure `next` is the one `drawn` (drawnAs) but for
// some annotations' words (and that is all that changed), else null. The data are compared by
// their revision, as Plotly does.
export function wordsOnly(drawn, next) {
  if (!drawn || !next) return null;
  const now = drawnAs(next);
  if (drawn.revision !== now.revision || drawn.traces !== now.traces || drawn.rest !== now.rest) return null;
  const changed = [];
  for (let i = 0; i < now.texts.length; i += 1) {
    if (drawn.texts[i] === now.texts[i]) continue;
    const before = words(drawn.texts[i]);
    const after = words(now.texts[i]);
    if (!before || !after || before.length !== after.length) return null;
    changed.push([i, now.texts[i]]);
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

// Write `changes` (from wordsOnly) into the annotations Plotly drew in `root` as `drawn` says:
// true when every one was written, false (nothing written) when one of them is not drawn as
// expected. Plotly's own copy of the layout (`root.layout`, which its next react compares
// against) then holds the new words too.
export function writeWords(root, drawn, changes) {
  const plan = [];
  for (const [index, text] of changes) {
    const group = root.querySelector(`g.annotation[data-index="${index}"]`);
    const element = group && group.querySelector("text.annotation-text");
    const old = words(drawn.texts[index]);
    const nodes = element ? textNodes(element) : [];
    if (!element || nodes.length !== old.length || nodes.some((node, k) => node.nodeValue !== old[k])) return false;
    plan.push([element, nodes, words(text), index, text]);
  }
  for (const [element, nodes, now, index, text] of plan) {
    nodes.forEach((node, k) => { node.nodeValue = now[k]; });
    element.setAttribute("data-unformatted", text);
    if (root.layout && root.layout.annotations && root.layout.annotations[index]) root.layout.annotations[index].text = text;
  }
  return true;
}
