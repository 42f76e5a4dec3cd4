"""The Grid search view: each kernel's cross-validated accuracy over a (log γ, log C) grid, with
the Keerthi–Lin path; a click on a cell opens Decision boundaries there. The searches run in the
background (``kernelviz.ui.searches``), so the other views stay usable meanwhile."""

from __future__ import annotations

import numpy as np
import streamlit as st

from kernelviz import figures as fg
from kernelviz import pipeline
from kernelviz import state as kvstate
from kernelviz.ui import live, takeaway, teach
from kernelviz.ui.page import queue_and_rerun
from kernelviz.ui.searches import ensure_grids
from kernelviz.ui.views.shared import require_kernels, require_two_classes, selected_points
from kernelviz.ui.widgets import number_input, slider
from kernelviz.pipeline import Prepared


def show(prep: Prepared, values: dict, partition) -> None:
    import pandas as pd

    grid_controls()
    if not require_kernels(values) or not require_two_classes(prep):
        return
    names = values["kernels"]

    def draw_partial(found: dict, complete: bool) -> None:
        takeaway.chart(grid_figure(found, values, complete), key="grid_partial_chart")

    grids = ensure_grids(prep, values, names, "run_grid", partition, draw_partial)
    if not grids:
        return
    teach.report(pipeline.pf_curves({name: result.scores for name, (result, _) in grids.items()})[0])
    fig = grid_figure(grids, values)
    event = takeaway.chart(fig, key="grid_chart", selectable=True)
    open_clicked_cell(fig, event, values)
    st.caption("★ best cell; black outlines: the cells tied with it, where several share the best score. "
               "Grey rings: the Keerthi–Lin path (the line through the best linear-SVM C̃ with slope −1); "
               "red ring: the best cell on it — one line search instead of the whole grid. "
               "Click a cell to open Decision boundaries for that kernel at its (C, γ).")
    frames = pd.concat([result.to_frame() for result, _ in grids.values()], ignore_index=True)
    st.download_button("Download scores (CSV)", frames.to_csv(index=False), file_name="grid_scores.csv",
                       mime="text/csv")
    takeaway.downloads(fig, "grid_search")


def grid_controls() -> None:
    """The grid's axes and folds, above the figure."""
    c1, c2, c3, c4, c5 = st.columns([3, 3, 1.4, 1, 1])
    slider("log₁₀ C range", "grid_log_C", where=c1)
    slider("log₁₀ γ range", "grid_log_gamma", where=c2)
    number_input("steps per axis", "grid_steps", step=1, where=c3)
    number_input("CV folds", "cv", step=1, where=c4)
    number_input("fold seed", "cv_seed", step=1, where=c5)


def grid_figure(grids: dict, values: dict, complete: bool = True):
    """The searches' heatmaps (``complete=False``: some columns are not searched yet)."""
    grid = pipeline.GridSpec.from_settings(values)
    log_Cs, log_gammas = np.array(grid.log_Cs), np.array(grid.log_gammas)
    panels = pipeline.grid_panels(grids, log_Cs, log_gammas)
    title = f"Mean {values['cv']}-fold CV accuracy over (log γ, log C)"
    if not complete:
        title += " — incomplete: blank columns are not searched yet"
    return fg.grid_search_figure(panels, log_Cs, log_gammas, title=title)


def open_clicked_cell(fig, event, values: dict) -> None:
    """A click on a heatmap cell opens Decision boundaries there, that kernel's panel first."""
    points = selected_points(event)
    signature = repr([(p.get("x"), p.get("y"), p.get("curve_number")) for p in points])
    cell = live.clicked_cell(fig, points)
    if cell is None or signature == st.session_state.get("_grid_click"):
        return
    st.session_state["_grid_click"] = signature  # a selection outlives its run: act on each click once
    name, log_gamma, log_C = cell
    kernels = [name] + [n for n in values["kernels"] if n != name]
    queue_and_rerun({"view": "boundaries", "kernels": kernels, "log_gamma": kvstate.within("log_gamma", log_gamma),
                     "log_C": kvstate.within("log_C", log_C)})
