"""The decision function taken apart, under the Decision boundaries view.

f(x) = Σ αᵢ yᵢ k(xᵢ, x) + b: at the chosen point (``ref_x`` / ``ref_y`` — a click on the
boundaries, or the Similarity view's reference) the largest terms under each kernel, and a
build-up of f from its support-vector bumps, largest |αᵢ| first. The SVMs are refitted here
exactly as ``views.boundary_panel`` fits them (the same Gram matrix, C and iteration cap), so
the terms add up to the f the panels draw.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from kernelviz import anatomy
from kernelviz import figures as fg
from kernelviz import pipeline
from kernelviz.outside import plain
from kernelviz.ui import caches, takeaway
from kernelviz.ui.widgets import number_input

#: How many terms get a bar of their own.
TOP_TERMS = 8
#: The section's expander state (closed by default, see :func:`section`).
BOX_KEY = "anatomy_open"


def section(prep: pipeline.Prepared, values: dict, kernels: dict, kernel_keys: dict, grid: fg.Grid) -> None:
    """The point's terms under every kernel, and the build-up of one kernel's f.

    ``kernels`` maps the kernels shown to their fitted objects, ``kernel_keys`` to their cache
    keys (``kernelviz.ui.caches``).

    The section is computed and drawn only while its expander is open (opening it reruns the
    page), and it starts closed: open, every γ or C step refitted each SVM once more for the
    terms and drew their figure after the boundaries, 0.15–0.2 s of the browser's time per step
    and per switch to this view.
    """
    if not kernels or len(np.unique(prep.y[prep.train])) != 2:
        return  # the terms are those of a two-class SVM
    X_train, y_train = prep.X_model[prep.train], prep.y[prep.train]

    def svm_of(name):
        return caches.fitted_svm(name, prep.key, kernel_keys[name], values["log_gamma"], values["log_C"],
                                 kernels[name], prep)

    box = st.expander("The decision function taken apart: f(x) = Σ αᵢ yᵢ k(xᵢ, x) + b", key=BOX_KEY,
                      on_change="rerun")
    if not box.open:
        return
    with box:
        c1, c2, c3 = st.columns([3, 1, 1])
        c1.caption("Click a point on the boundaries, or type it: its largest terms show which support vectors "
                   "pull it which way, under each kernel. Hatched bars: αᵢ at its bound C; plain bars: free.")
        number_input("point x", "ref_x", where=c2, step=0.1, format="%.3f")
        number_input("point y", "ref_y", where=c3, step=0.1, format="%.3f")
        rx, ry = st.session_state.get("ref_x"), st.session_state.get("ref_y")
        if rx is not None and ry is not None:
            x = prep.to_model(np.array([[float(rx), float(ry)]]))[0]
            terms = {}
            for name in kernels:
                svc, kernel = svm_of(name)
                terms[name] = anatomy.decision_terms(svc, kernel, X_train, x)
            figure = fg.decision_terms_figure(terms, (float(rx), float(ry)), top=TOP_TERMS,
                                              class_names=prep.class_names)
            takeaway.chart(figure, key="terms_chart")
        if st.toggle("Build f up from its bumps (largest |αᵢ| first)", key="buildup_on"):
            name = st.selectbox("Kernel", list(kernels), format_func=fg.kernel_label, key="buildup_kernel")
            svc, kernel = svm_of(name)
            try:
                buildup = anatomy.bump_buildup(svc, kernel, X_train, prep.to_model(grid.points))
            except ValueError as err:
                st.info(plain(err))
                return
            figure = fg.buildup_figure(buildup, grid, prep.X_view[prep.train], y_train, name=name,
                                       class_names=prep.class_names)
            takeaway.chart(figure, key="buildup_chart")
