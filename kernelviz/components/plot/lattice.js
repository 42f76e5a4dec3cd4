// Where the live preview's sliders stand in the lattice: which of its fields shows their values,
// and whether that is the figure's own picture.

export const LIVE_AXES = ["log_gamma", "log_C"];

export function nearestIndex(values, value) {
  let best = 0;
  for (let i = 1; i < values.length; i += 1) {
    if (Math.abs(values[i] - value) < Math.abs(values[best] - value)) best = i;
  }
  return best;
}

// 10^log as Python's f"{value:.3g}" prints it, as the figures' titles say γ and C: the sliders, the
// preview's note and a previewed title then say the same number the committed figure will.
export function formatPower(log) {
  const value = 10 ** log;
  if (value === 0 || !Number.isFinite(value)) return String(value);
  const exponent = Number(value.toExponential(2).split("e")[1]);  // after rounding to three digits
  if (exponent < -4 || exponent >= 3) {
    const mantissa = value.toExponential(2).split("e")[0].replace(/\.?0+$/, "");
    return `${mantissa}e${exponent < 0 ? "-" : "+"}${String(Math.abs(exponent)).padStart(2, "0")}`;
  }
  const fixed = value.toFixed(Math.max(0, 2 - exponent));
  return fixed.includes(".") ? fixed.replace(/\.?0+$/, "") : fixed;
}

// The figure's own index of each axis (where its picture holds).
export function figureIndex(live, axis) {
  return nearestIndex(live.lattice.axes[axis], live[axis]);
}

export function previewing(view) {
  const live = view.live;
  return LIVE_AXES.some((axis) => live.lattice.axes[axis] && view.index[axis] !== figureIndex(live, axis));
}

// Which stored field shows the sliders' (γ, C): the γ lattice holds the lattice's C only, the C
// lattice the lattice's γ only. Anything else is not in the lattice (null).
export function currentField(view) {
  const { lattice } = view.live;
  const gammaHome = nearestIndex(lattice.axes.log_gamma, lattice.log_gamma);
  if (!lattice.axes.log_C) return { axis: "log_gamma", index: view.index.log_gamma };
  const cHome = nearestIndex(lattice.axes.log_C, lattice.log_C);
  if (view.index.log_C === cHome) return { axis: "log_gamma", index: view.index.log_gamma };
  if (view.index.log_gamma === gammaHome) return { axis: "log_C", index: view.index.log_C };
  return null;
}

export function previewNote(view) {
  const { live } = view;
  const at = (source) => LIVE_AXES.filter((axis) => live.lattice.axes[axis])
    .map((axis) => `${axis === "log_gamma" ? "γ" : "C"} = ${formatPower(source(axis))}`).join(", ");
  const preview = at((axis) => live.lattice.axes[axis][view.index[axis]]);
  const figure = at((axis) => live[axis]);
  if (live.lattice.kind !== "decision") return `Preview at ${preview}: release to label its level curves.`;
  return `Preview at ${preview}: its support vectors and scores; release to fit there (the table, hidden meanwhile, is still at ${figure}).`;
}
