// Small multiples sized from the screen (kernelviz/components/plot/screen.js hands every figure
// through here before Plotly draws it).
//
// kernelviz.figures lays out equal-aspect panels in paper fractions for a page ~1000 px wide, and
// marks them in `layout.meta.kv_panels` = {count, equal, titles: [annotation index per panel]}.
// Here they are laid out again in pixels, for the box the figure has on this screen: the number of
// rows that gives the largest panels (four kernels in one row on a wide screen, 2 × 2 where one
// row would make them small), each row's title block as tall as its text (a model's title runs to
// six lines: the next row starts below it, never over its ticks), the legend under the last row's
// ticks, and the figure no taller than its panels need. With `solo`, one panel fills the figure
// alone (a click on its title), the others hidden.

// Share of a font size a title's smaller lines take (kernelviz.figures.boundary_title: 11 of 14 px).
const SMALL_LINE = 0.85;
const LINE_HEIGHT = 1.3;

function fontSize(font, fallback) {
  return Number(font && font.size) || fallback;
}

function lines(text) {
  return String(text || "").split(/<br\s*\/?>/i);
}

// The pixel height of a panel title's block: its first line at the title's size, the others smaller.
function titleHeight(annotation, base) {
  if (!annotation || annotation.visible === false) return 0;
  const size = fontSize(annotation.font, base + 2);
  const count = lines(annotation.text).length;
  return Math.ceil(size * LINE_HEIGHT * (1 + SMALL_LINE * (count - 1)) + 6);
}

function axisKey(ref) {
  return `${ref[0]}axis${ref.slice(1)}`;
}

function panelRefs(index) {
  const suffix = index === 0 ? "" : String(index + 1);
  return { x: `x${suffix}`, y: `y${suffix}` };
}

// The legend's height below the panels: its entries' text laid out in rows of the plot width.
function legendHeight(data, layout, width) {
  if (layout.showlegend === false) return 0;
  const size = fontSize(layout.legend && layout.legend.font, fontSize(layout.font, 12));
  const names = data.filter((t) => t.showlegend !== false && t.name && t.visible !== false
                                   && !(t.type === "heatmap" || t.type === "contour") ).map((t) => String(t.name));
  if (!names.length) return 0;
  const entry = (name) => name.replace(/<[^>]*>/g, "").length * size * 0.55 + 3.2 * size;
  let rows = 1;
  let used = 0;
  for (const name of names) {
    const w = entry(name);
    if (used && used + w > width) {
      rows += 1;
      used = 0;
    }
    used += w;
  }
  return Math.ceil(rows * size * 1.6 + 10);
}

function range(axis) {
  const r = axis && axis.range;
  return Array.isArray(r) && r.length === 2 ? Math.abs(Number(r[1]) - Number(r[0])) : NaN;
}

// The best grid for `count` panels of aspect `aspect` (height / width) in `room`: {rows, cols, side}
// where side is a panel's width in pixels. The largest panels win; among grids whose panels are
// nearly as large (within ROWS_TOLERANCE), the one that fills more of the box's height (more rows:
// four panels of 238 px in a row leave half a laptop's screen empty, 2 × 2 of 181 px fill it, and
// the class sees the figure, not a strip).
const ROWS_TOLERANCE = 0.75;

function bestGrid(count, aspect, room) {
  const grids = [];
  for (let rows = 1; rows <= count; rows += 1) {
    const cols = Math.ceil(count / rows);
    if (rows > 1 && Math.ceil(count / (rows - 1)) === cols) continue;  // the same columns with fewer rows
    // the panels share their axes: only the left column writes the y tick labels, and only the
    // lowest panel of each column the x ones (a row above a gap in the last row keeps its own)
    const gapY = count % cols === 0 ? room.gapShared : room.gapY;
    const across = (room.width - (cols - 1) * room.gapX) / cols;
    const down = (room.height - rows * room.title - (rows - 1) * gapY) / rows;
    grids.push({ rows, cols, gapY, side: Math.max(Math.min(across, down / aspect), 0) });
  }
  const largest = Math.max(...grids.map((g) => g.side));
  const near = grids.filter((g) => g.side >= ROWS_TOLERANCE * largest);
  const filled = (g) => g.rows * g.side * aspect;
  return near.reduce((best, g) => (filled(g) > filled(best) + 0.5 ? g : best));
}

// The figure's layout and traces (a hidden panel's not drawn) for a box of `width` × `height` pixels at most.
// Returns null for a figure without marked equal-aspect panels (it is drawn as it was made).
function arrangePanels(figure, { width, height }, solo = null) {
  const layout = figure.layout || {};
  const marked = layout.meta && layout.meta.kv_panels;
  if (!marked || !marked.equal || !(width > 0) || !(height > 0)) return null;
  const count = Number(marked.count) || 1;
  const titles = marked.titles || [];
  const shown = solo !== null && solo >= 0 && solo < count ? [solo] : [...Array(count).keys()];
  const hidden = new Set(count > shown.length ? [...Array(count).keys()].filter((i) => !shown.includes(i)) : []);
  const base = fontSize(layout.font, 12);
  const first = layout[axisKey(panelRefs(0).x)] || {};
  const firstY = layout[axisKey(panelRefs(0).y)] || {};
  const aspect = Math.min(Math.max(range(firstY) / range(first) || 1, 0.25), 4);
  const tick = fontSize(first.tickfont, base);
  const annotations = (layout.annotations || []).map((a) => ({ ...a }));
  const title = Math.max(0, ...shown.map((i) => titleHeight(annotations[titles[i]], base)));
  const heading = layout.title && layout.title.text ? Math.ceil(fontSize(layout.title.font, base + 6) * 2.2) : 8;
  const colourBar = figure.data.some((t) => t.showscale === true && t.visible !== false);
  const xTitle = first.title && first.title.text ? tick * 1.6 : 0;
  const margin = { l: Math.ceil(tick * 3.4 + 8 + (firstY.title && firstY.title.text ? tick * 1.6 : 0)),
                   r: colourBar ? Math.ceil(tick * 7) : 16, t: heading, b: 0 };
  const ticks = Math.ceil(tick * 1.9 + 6 + xTitle);  // an x axis's tick labels (and title) under its panel
  const plotWidth = width - margin.l - margin.r;
  const legend = legendHeight(figure.data, layout, plotWidth);
  margin.b = ticks + legend + 6;
  const room = { width: plotWidth, height: height - margin.t - margin.b, title, gapX: Math.ceil(tick + 8),
                 gapY: ticks + 4, gapShared: Math.ceil(tick * 0.8) };
  const grid = bestGrid(shown.length, aspect, room);
  const side = Math.max(grid.side, 60);
  const panelHeight = side * aspect;
  const plotHeight = Math.ceil(grid.rows * (title + panelHeight) + (grid.rows - 1) * grid.gapY);
  const blockWidth = grid.cols * side + (grid.cols - 1) * room.gapX;
  const left = Math.max((plotWidth - blockWidth) / 2, 0);
  const out = { ...layout, height: plotHeight + margin.t + margin.b, margin: { ...(layout.margin || {}), ...margin },
                annotations };
  const unit = (v) => Math.min(Math.max(v, 0), 1);
  for (let i = 0; i < count; i += 1) {
    const refs = panelRefs(i);
    const [xk, yk] = [axisKey(refs.x), axisKey(refs.y)];
    const note = titles[i] !== undefined ? annotations[titles[i]] : null;
    // a hidden panel takes the place of the one shown, invisible: the panels' axes match the first
    // one's, whose scale anchor holds the units equal, so all keep the same size
    const k = hidden.has(i) ? 0 : shown.indexOf(i);
    const [row, col] = [Math.floor(k / grid.cols), k % grid.cols];
    const x0 = left + col * (side + room.gapX);
    const top = row * (title + panelHeight + grid.gapY) + title;
    const visible = !hidden.has(i);
    const lowest = k + grid.cols >= shown.length;
    out[xk] = { ...layout[xk], visible, domain: [unit(x0 / plotWidth), unit((x0 + side) / plotWidth)],
                showticklabels: lowest };
    out[yk] = { ...layout[yk], visible, domain: [unit(1 - (top + panelHeight) / plotHeight), unit(1 - top / plotHeight)],
                showticklabels: col === 0 };
    if (note && !visible) note.visible = false;
    else if (note) {
      Object.assign(note, { x: (x0 + side / 2) / plotWidth, y: 1 - top / plotHeight, yanchor: "bottom", visible: true,
                            captureevents: true,
                            hovertext: solo === null ? "Show this panel alone (Esc: all panels)" : "Back to all panels (Esc)" });
    }
  }
  // the legend under the last row's tick labels, in the plot area's fraction
  out.legend = { ...(layout.legend || {}), orientation: "h", yanchor: "top", y: -(ticks / plotHeight), xanchor: "center", x: 0.5 };
  const hiddenRefs = new Set([...hidden].flatMap((i) => Object.values(panelRefs(i))));
  const onHidden = (item) => hiddenRefs.has(item.xaxis || "x") || hiddenRefs.has(item.yaxis || "y");
  out.shapes = (layout.shapes || []).map((shape) => {
    const xref = String(shape.xref || "").split(" ")[0];
    const yref = String(shape.yref || "").split(" ")[0];
    return hiddenRefs.has(xref) || hiddenRefs.has(yref) ? { ...shape, visible: false } : shape;
  });
  // a hidden panel's traces are not drawn; the legend entries they carried pass to the same traces
  // of a panel that shows
  const entry = (trace) => `${trace.legendgroup ?? ""}|${trace.name ?? ""}`;
  const handed = new Set(figure.data.filter((t) => onHidden(t) && t.showlegend !== false).map(entry));
  const data = figure.data.map((trace) => {
    if (onHidden(trace)) return { ...trace, visible: false };
    if (handed.has(entry(trace)) && trace.showlegend === false) {
      handed.delete(entry(trace));
      return { ...trace, showlegend: true };
    }
    return trace;
  });
  return { layout: out, data, rows: grid.rows, cols: grid.cols, side };
}

export { arrangePanels, bestGrid, legendHeight, titleHeight };
