"""The Decision boundaries view: one SVM per kernel (and the other models of ``kv.models``) at the
settings' γ and C, drawn side by side, with their accuracies.

A scrub view: its body is the page's fragment (``page.scrub_view_body``), and the figure is its
own live preview — the γ and C sliders above it repaint the panels from a lattice
(``kernelviz.ui.live``); their release commits the value and reruns this body. docs/DESIGN.md
("One γ change, from the slider to the pixels") follows one such step through this module.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

import kernelviz as kv
from kernelviz import figures as fg
from kernelviz import lessons
from kernelviz import pipeline
from kernelviz import state as kvstate
from kernelviz.ui import anatomy, caches, takeaway, teach
from kernelviz.ui.page import busy, open_view, queue_and_rerun
from kernelviz.ui.views.shared import (explain_regularised, live_preview, require_two_classes, scrub_chart,
                                       selected_points, show_panels)
from kernelviz.pipeline import Prepared

#: The figure's title; mid-drag the figure writes the dragged γ and C into it (figures.TITLE_META).
TITLE = "Decision boundaries at γ = {gamma}, C = {C}"


def show(prep: Prepared, values: dict, partition) -> None:
    import pandas as pd

    names = values["kernels"]
    if not names and not values["models"]:
        st.info("Choose at least one kernel or model in the sidebar.")
        return
    if not require_two_classes(prep):
        return
    grid = fg.field_grid("decision", prep.X_view, resolution=caches.resolution(fg.FIELD_RESOLUTION["decision"]))
    gkey = caches.evaluation_grid_key(grid)

    def kernel_panel(name):
        kernel = caches.get_kernel(name, prep, values, partition)
        return caches.boundary_panel(name, prep.key, caches.kernel_cache_key(name, values), gkey,
                                     values["log_gamma"], values["log_C"], kernel, prep, grid)

    def other_panel(name):
        return caches.model_panel(name, prep.key, gkey, values["log_gamma"], values["log_C"],
                                  values["partition_seed"], values["log_eta"], values["unit_kernel"], prep, grid)

    with busy("Fitting the SVMs …"):
        # one list, so that the view fails as a whole only when no kernel and no model works
        tagged = [("kernel", n) for n in names] + [("model", n) for n in values["models"]]
        panels = show_panels(tagged, lambda t: (kernel_panel if t[0] == "kernel" else other_panel)(t[1]),
                             label=lambda t: fg.kernel_label(t[1]))
    preview = live_preview("decision", prep, values, partition, panels, grid)
    truth = np.where(prep.y_true == kv.data.UNLABELED, np.nan, prep.y_true)[prep.unlabeled]
    fig = fg.boundary_figure(panels, grid, X_unlabeled=prep.X_view[prep.unlabeled], y_unlabeled=truth,
                             title=TITLE.format(gamma=f"{10 ** values['log_gamma']:.3g}", C=f"{10 ** values['log_C']:.3g}"),
                             live_title=TITLE,
                             support_vectors=values["show_support"], margins=values["show_margins"],
                             test_points=values["show_test"], class_names=prep.class_names)
    fig, event = scrub_chart(fig, panels, preview, key="boundary_chart", prep=prep)
    reference_from_click(event)
    teach.report(lessons.boundary_results(panels))
    explain_regularised(panels)
    st.dataframe(pd.DataFrame(pipeline.accuracy_table(panels)), hide_index=True, width="stretch",
                 column_config={name: st.column_config.NumberColumn(format="percent")
                                for name in ("train accuracy", "test accuracy", "accuracy on hidden labels")})
    st.caption("Solid line: the decision boundary f = 0; dashed: the margins f = ±1. Support vectors are ringed, or "
               "boxed when α is at its bound C, larger for larger |α|; hollow markers are held-out test points. Small points are unlabeled: only "
               "the kernels' unsupervised parts see them; they are tinted faintly by their hidden class when "
               "the data have one, and *accuracy on hidden labels* is the accuracy on them — the semi-supervised score. "
               "Fit time: Gram matrix plus libsvm.")
    if caches.previewing():
        return  # the figure's files and the anatomy wait for the point's release
    takeaway.downloads(fig, "boundaries")
    drawn = [n for n in names if n in {p.name for p in panels}]
    anatomy.section(prep, values, {n: caches.get_kernel(n, prep, values, partition) for n in drawn},
                    {n: caches.kernel_cache_key(n, values) for n in drawn}, grid)


def reference_from_click(event) -> None:
    """A click on a point of the boundaries sets the Similarity view's reference point there;
    a button then opens Similarity around it."""
    clicked = selected_points(event)
    if clicked:
        x, y = (kvstate.within("ref_x", float(clicked[0][axis])) for axis in ("x", "y"))
        if (x, y) != (st.session_state.get("ref_x"), st.session_state.get("ref_y")):
            queue_and_rerun({"ref_x": x, "ref_y": y})
        st.button(f"Similarity around ({x:.3g}, {y:.3g})", key="open_similarity", on_click=open_view,
                  args=("similarity",), help="Open the Similarity view with this point as its reference.")
