"""The P_f (α) view: for each kernel, the share of its (γ, C) grid that reaches each accuracy α —
how easy the kernel is to tune — from the same searches as the Grid search view
(``kernelviz.ui.searches``). A kernel with the CkRBF scale can join at the other scale too."""

from __future__ import annotations

import streamlit as st

from kernelviz import figures as fg
from kernelviz import registry
from kernelviz import pipeline
from kernelviz.outside import plain
from kernelviz.ui import takeaway, teach
from kernelviz.ui.searches import ensure_grids
from kernelviz.ui.views.shared import require_kernels, require_two_classes
from kernelviz.pipeline import Prepared


def show(prep: Prepared, values: dict, partition) -> None:
    import pandas as pd

    if not require_kernels(values) or not require_two_classes(prep):
        return
    names = values["kernels"]
    scaled = [n for n in names if registry.kernel(n).has_scale]
    other = "unit" if values["normalize"] == "paper" else "paper"
    if scaled:
        st.markdown(f"CkRBF scale (sidebar): **{'as in the paper' if values['normalize'] == 'paper' else 'unit'}**. "
                    f"The other scale can join the plot as its own curve; the sidebar's setting stays as it is.")
    # P_f(α) is the searches' summary and shows nothing without them: it starts them when opened
    grids = ensure_grids(prep, values, names, "run_pf", partition, start_on_open=True)
    if not grids:
        return
    other_values = {**values, "normalize": other}
    other_grids = (ensure_grids(prep, other_values, scaled, "run_pf_other", partition,
                                run_label=f"Search CkRBF at the {other} scale too",
                                label=lambda name: other_scale_label(name, other))
                   if scaled else {})
    scores = {name: result.scores for name, (result, _) in grids.items()}
    scores.update({other_scale_label(name, other): result.scores for name, (result, _) in other_grids.items()})
    table, alpha0, alphas, curves = pipeline.pf_curves(scores)
    teach.report(table)
    lines = {**{name: fg.scale_line(name, values["normalize"]) for name in scaled},
             **{other_scale_label(name, other): fg.scale_line(name, other) for name in other_grids}}
    fig = fg.pf_figure(curves, alpha0, {n: t["auc"] for n, t in table.items()}, lines=lines)
    takeaway.chart(fig, key="pf_chart")
    st.dataframe(pd.DataFrame([{"kernel": fg.kernel_label(n), "AUC": t["auc"], "AUC / (1 − α₀)": t["normalized_auc"],
                                "best accuracy": t["best"]} for n, t in table.items()]),
                 hide_index=True, width="stretch",
                 column_config={"AUC": st.column_config.NumberColumn(format="%.3f"),
                                "AUC / (1 − α₀)": st.column_config.NumberColumn(format="%.3f"),
                                "best accuracy": st.column_config.NumberColumn(format="percent")})
    st.caption(f"α₀ = {alpha0:.3f}, the worst score of all grids compared: below it every curve is 1. "
               "A curve further right means more of the grid reaches that accuracy — the kernel is easier to tune.")
    if any(registry.kernel(n).has_scale for n in grids):
        st.markdown(scale_sentence(prep, values, grids, other_grids, {n: t["auc"] for n, t in table.items()}))
    curve_csv = pd.DataFrame({"alpha": alphas, **{n: c[1] for n, c in curves.items()}}).to_csv(index=False)
    st.download_button("Download P_f curves (CSV)", curve_csv, file_name="pf_curves.csv", mime="text/csv")
    takeaway.downloads(fig, "pf")


def other_scale_label(name: str, scale: str) -> str:
    """The P_f curve of a scaled kernel at the scale the sidebar does not use, as its legend names it."""
    return f"{fg.kernel_label(name)} ({scale} scale)"


def scale_sentence(prep: Prepared, values: dict, grids: dict, other_grids: dict, aucs: dict) -> str:
    """What the scale did to the first scaled kernel's search: the paper's normaliser det(Σx+Σy)^(−½)
    (``describe()`` gives it under either scale) and the two scales' scores."""
    name = next(n for n in grids if registry.kernel(n).has_scale)
    result, _ = grids[name]
    normaliser = None
    if result.fitted_kernel is not None:
        described = result.fitted_kernel.describe()
        normaliser = (described["normaliser min"], described["normaliser max"])
    other = other_grids.get(name)
    return pipeline.scale_sentence(plain(prep.name), values["normalize"], normaliser, result.scores,
                                  None if other is None else other[0].scores, name=name,
                                  aucs={n: a for n, a in aucs.items() if n in grids})
