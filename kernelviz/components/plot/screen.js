// The figure laid out for the screen (arrange.js), again when the screen or the room above it
// changes, and once a run is over.

import { arrangePanels } from "./arrange.js";
import { PLOTLY } from "./plotly_access.js";
import { restoreTitles } from "./support.js";
import { drawnAs } from "./titles.js";

// The box a figure of small multiples may fill: the column's width, and the screen's height below
// the figure's top (all of it, less a little, where the figure starts lower than half the screen),
// never under 55 % of the screen.
function screenBox(view) {
  const screen = window.innerHeight || 900;
  // the figure's top in the page as it stands scrolled to its start (Streamlit scrolls its main
  // section, not the window)
  let top = view.root.getBoundingClientRect().top + (window.scrollY || 0);
  for (let e = view.root.parentElement; e; e = e.parentElement) top += e.scrollTop || 0;
  const room = top < screen / 2 ? screen - top - 16 : screen * 0.9;
  return { width: Math.round(view.root.clientWidth), height: Math.round(Math.max(room, screen * 0.55)) };
}

// The room the figure was laid out for, unless the screen's box moved from it by more than a margin:
// a line above the figure that comes or goes after it was drawn must not change the panels' size at
// the next layout (a panel shown alone and back again), only a real change of the room does.
function sameRoom(box, old) {
  return Boolean(old) && Math.abs(box.width - old.width) < 2 && Math.abs(box.height - old.height) < 8;
}

// The figure Plotly draws: the split figure, its small multiples laid out for the screen.
export function arranged(view) {
  const figure = view.split;
  const box = screenBox(view);
  if (!sameRoom(box, view.box)) view.box = box;
  view.root.dataset.box = `${view.box.width}x${view.box.height}`;  // the room it was laid out for
  const result = arrangePanels(figure, view.box, view.solo);
  if (!result) {
    // a view's own figure (the page's first) of another kind — curves, heatmaps — fills the screen's
    // height below it as the small multiples do; the figures under it keep their own height
    const own = document.querySelector(".kv-plot") === view.root;
    const height = Number(figure.layout.height) || 450;
    const filled = own && height < view.box.height ? view.box.height : height;
    return { ...figure, layout: { ...figure.layout, width: view.box.width, height: filled } };
  }
  view.root.dataset.panels = `${result.rows}x${result.cols}`;
  const revision = `${figure.layout.datarevision}${view.solo === null ? "" : `-alone${view.solo}`}`;
  return { ...figure, data: result.data, layout: { ...result.layout, width: view.box.width, datarevision: revision } };
}

// The figure laid out again (a new screen size, a panel shown alone): the element says
// data-arranging="1" until Plotly has drawn it.
export function redrawArranged(view) {
  if (!window.Plotly || !view.split) return;
  view.root.dataset.solo = view.solo === null ? "" : String(view.solo);
  view.root.dataset.arranging = "1";
  const figure = arranged(view);
  view.root.style.minHeight = `${figure.layout.height || 450}px`;
  view.given = drawnAs(figure);
  view.drawn = view.drawn.then(() => {
    restoreTitles(view.root);  // as before every Plotly.react (plot.js)
    return window.Plotly.react(view.root, figure.data, figure.layout, view.payload.config);
  })
    .finally(() => { view.root.dataset.arranging = "0"; });
}

// While the script runs, the elements above the figure come and go (a "Fitting the SVMs …" note,
// a lesson's sentence filled in last): the figure is laid out again once, when the run is over,
// not at each of them (each a Plotly.react of 50–100 ms inside a committed step).
function scriptRunning(view) {
  const app = document.querySelector('[data-testid="stApp"]');
  if (!app || app.getAttribute("data-test-script-state") !== "running") return false;
  if (!view.runEnd) {
    view.runEnd = new MutationObserver(() => {
      if (app.getAttribute("data-test-script-state") === "running") return;
      view.runEnd.disconnect();
      view.runEnd = null;
      fitToScreen(view);
    });
    view.runEnd.observe(app, { attributes: true, attributeFilter: ["data-test-script-state"] });
  }
  return true;
}

export function fitToScreen(view) {
  const full = PLOTLY.layout(view.root);
  if (!window.Plotly || !full || !view.split || view.root.clientWidth === 0 || scriptRunning(view)) return;
  if (sameRoom(screenBox(view), view.box)) return;
  redrawArranged(view);
}
