"""The Kernel matrix view: each kernel's Gram matrix on the data, rows ordered by cluster then
class, its eigenvalue spectrum and whether it is positive semi-definite on these points."""

from __future__ import annotations

import streamlit as st

from kernelviz import figures as fg
from kernelviz import lessons, registry
from kernelviz import pipeline
from kernelviz.ui import caches, takeaway, teach
from kernelviz.ui.page import busy
from kernelviz.ui.views.shared import require_kernels, show_panels
from kernelviz.pipeline import Prepared


def show(prep: Prepared, values: dict, partition) -> None:
    import pandas as pd

    if not require_kernels(values):
        return
    names = values["kernels"]
    X, breaks = pipeline.gram_points(prep, partition)
    gamma = 10.0 ** values["log_gamma"]

    def summary(name):
        K = pipeline.at_gamma(caches.get_kernel(name, prep, values, partition), gamma)(X)
        return pipeline.gram_summary(name, K, breaks)

    with busy("Computing Gram matrices and their spectra …"):
        summaries = show_panels(names, summary)
    teach.report(lessons.gram_results(summaries))
    n = len(prep.y)
    subsample = (f" (every {n / pipeline.GRAM_MAX_POINTS:.1f}-th of {n} points)"
                 if n > pipeline.GRAM_MAX_POINTS else "")
    fig = fg.gram_figure([s.panel for s in summaries],
                         title=f"Gram matrices at γ = {gamma:.3g}, rows ordered by cluster then class{subsample}")
    takeaway.chart(fig, key="gram_chart")
    st.caption("White lines separate the clusters of the partition. A kernel that knows the clusters shows "
               "brighter blocks on the diagonal.")
    spectra = {s.panel.name: s.eigenvalues for s in summaries}
    spectrum = fg.spectrum_figure(spectra)
    takeaway.chart(spectrum, key="spectrum_chart")
    takeaway.downloads(spectrum, "spectrum")
    st.dataframe(pd.DataFrame([s.row for s in summaries]), hide_index=True, width="stretch")
    st.caption(psd_note())
    takeaway.downloads(fig, "kernel_matrix")


def psd_note() -> str:
    """Which kernels a theorem makes positive semi-definite on any points, as their rows in
    ``kernelviz.registry`` say (docs/MATH.md §7), and which it does not."""
    proven = [facts.label for facts in registry.KERNELS.values() if facts.psd_proven]
    unproven = [facts.label for facts in registry.KERNELS.values() if not facts.psd_proven]
    return (f"{', '.join(proven[:-1])} and {proven[-1]} are PSD by a theorem; {' and '.join(unproven)} need not be "
            "— libsvm tolerates mild indefiniteness. The diagonal range shows each kernel's scale.")
