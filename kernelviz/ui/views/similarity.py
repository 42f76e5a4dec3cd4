"""The Similarity view: each kernel's similarity to one reference point (×), as level curves of
the distance inside its exponent or shaded, with the Gaussians it measures with.

A scrub view: its body is the page's fragment (``page.scrub_view_body``), and the figure is its
own live preview — the γ slider above it repaints the panels from a lattice (``kernelviz.ui.live``).
"""

from __future__ import annotations

import streamlit as st

from kernelviz import figures as fg
from kernelviz import pipeline
from kernelviz import state as kvstate
from kernelviz.ui import caches, takeaway
from kernelviz.ui.page import busy, queue_and_rerun
from kernelviz.ui.views.shared import (explain_regularised, live_preview, require_kernels, scrub_chart, selected_points,
                                       show_panels)
from kernelviz.ui.widgets import choice, number_input
from kernelviz.pipeline import Prepared



def show(prep: Prepared, values: dict, partition) -> None:
    if st.session_state.get("ref_x") is None or st.session_state.get("ref_y") is None:
        # Their inputs are not drawn yet in this run, so they can be set directly.
        st.session_state.update(centre_reference(prep))
    if not require_kernels(values):
        controls(prep)
        return
    names = values["kernels"]
    reference = (float(st.session_state["ref_x"]), float(st.session_state["ref_y"]))
    grid = fg.field_grid("similarity", prep.X_view, reference,
                         resolution=caches.resolution(fg.FIELD_RESOLUTION["similarity"]))
    gkey = caches.evaluation_grid_key(grid)

    def panel(name):
        kernel = caches.get_kernel(name, prep, values, partition)
        return caches.similarity_panel(name, prep.key, caches.kernel_cache_key(name, values), gkey,
                                       values["log_gamma"], reference, kernel, prep, grid)

    with busy("Evaluating the kernels around the reference point …"):
        panels = show_panels(names, panel)
    preview = live_preview("similarity", prep, values, partition, panels, grid, reference=reference)
    fig = fg.similarity_figure(panels, grid, reference, prep.X_view, prep.y, prep.labeled, mode=values["sim_mode"],
                               classes=prep.legend_classes, level_labels=not caches.previewing())
    fig, event = scrub_chart(fig, panels, preview, key="similarity_chart", prep=prep)
    controls(prep)
    explain_regularised(panels)
    clicked = selected_points(event)
    if clicked:
        x, y = (kvstate.within("ref_x", float(clicked[0][axis])) for axis in ("x", "y"))
        if (x, y) != (round(reference[0], 4), round(reference[1], 4)):
            queue_and_rerun({"ref_x": x, "ref_y": y})
    st.caption(
        "Click a point of the data to move the reference (×). Dissimilarity is the distance inside each kernel's "
        "exponent, √(−ln(k(r,y)/√(k(r,r)k(y,y)))/γ): Euclidean for RBF, Mahalanobis for Mahalanobis RBF, "
        "Δ for GMM and RWM; CkRBF's includes its normaliser. Kernels measure in different units, so each panel "
        "spaces its curves for its own range (labels give the values); grey ellipses are the Gaussians "
        "(1 Mahalanobis unit) the kernel uses.")
    if not caches.previewing():  # the figure's files wait for the point's release
        takeaway.downloads(fig, "similarity")


def controls(prep: Prepared) -> None:
    """What to show and the reference point: under the figure, which comes first on the screen
    (their values, read above, are the session's)."""
    c1, c2, c3, c4 = st.columns([2, 1, 1, 1], vertical_alignment="bottom")
    choice("radio", "Show", "sim_mode", where=c1, horizontal=True)
    number_input("reference x", "ref_x", where=c2, step=0.1, format="%.3f")
    number_input("reference y", "ref_y", where=c3, step=0.1, format="%.3f")
    if c4.button("Centre point", help="Put the reference on the data point nearest the centre."):
        queue_and_rerun(centre_reference(prep))


def centre_reference(prep: Prepared) -> dict:
    """The reference on the data point nearest the centre, within the coordinate inputs' bounds."""
    rx, ry = pipeline.default_reference(prep)
    return {"ref_x": rx, "ref_y": ry}
