"""What several views share: panels that fail one at a time, the live preview of the scrub views,
the points a click selected, and the check that an SVM has two classes to separate."""

from __future__ import annotations

import os

import numpy as np
import streamlit as st

from kernelviz import figures as fg
from kernelviz import pipeline
from kernelviz.outside import message
from kernelviz.ui import caches, edits, live, streamlit_private, takeaway, teach
from kernelviz.ui.page import rerun_page
from kernelviz.pipeline import Prepared


def require_kernels(values: dict) -> bool:
    """Whether the settings name a kernel; if not, say where to choose one."""
    if not values["kernels"]:
        st.info("Choose at least one kernel in the sidebar.")
        return False
    return True


def require_two_classes(prep: Prepared) -> bool:
    train_classes = np.unique(prep.y[prep.train])
    if len(train_classes) < 2:
        st.info("An SVM needs labeled training points of at least two classes: label more points "
                "(sidebar, *Labeled points*) or draw points of both classes.")
        return False
    return True


#: Threads that compute a view's panels side by side (:func:`kernelviz.pipeline.each_or_reason` says
#: what two gain on two cores); more would take the cores the browser and the lattice jobs need.
PANEL_WORKERS = min(2, os.cpu_count() or 1)


def show_panels(names: list, compute, label=fg.kernel_label) -> list:
    """Each name's panel; a name that fails gets a warning in its place, the others still show.

    The panels are computed side by side (:data:`PANEL_WORKERS`), each as part of this run. When
    every one fails there is nothing to show: a ValueError then takes the view's error path (message,
    and the last model settings that worked).
    """
    panels, reasons = pipeline.each_or_reason(names, streamlit_private.in_this_run(compute), workers=PANEL_WORKERS)
    if names and not panels:
        raise ValueError(" ".join(f"{label(n)}: {r}" for n, r in reasons.items()))
    for name, reason in reasons.items():
        st.warning(message("**{label}** is left out: {reason}", label=label(name), reason=reason))
    return list(panels.values())


#: Per chart, the live preview its last settled run sent: a figure whose point is being dragged keeps it.
LAST_PREVIEW_KEY = "_live_last_preview"


def live_preview(kind: str, prep: Prepared, values: dict, partition, panels, grid: fg.Grid,
                 reference=None) -> live.Preview | None:
    """What makes the view's figure its own live preview: the lattice of the kernels and models that
    drew a panel, on the figure's own grid (kernelviz.ui.live); a model previews from its own panel
    function with the settings it was drawn with (kernelviz.lattice.Model).

    While a point is dragged (``caches.previewing``) no lattice is asked for — the data change at
    every frame — and the figure keeps the sliders of its last settled run (the pointer is busy: they
    do not move meanwhile), so that the figure does not jump under it."""
    from kernelviz.lattice import page_kernels  # the lattice imports scikit-learn: first needed here

    if caches.previewing():
        kept = st.session_state.get(LAST_PREVIEW_KEY, {}).get(kind)
        if kept is None:
            return None
        st.session_state[live.SCRUB_SHOWN_KEY] = True
        return live.Preview({**kept, "waiting": False}, lambda: None)

    kernels, specs = page_kernels(kind, values, [p.name for p in panels],
                                  lambda name: caches.get_kernel(name, prep, values, partition))
    names = [name for name in kernels if name in values["kernels"]]
    context = (prep.key, tuple((name, caches.kernel_cache_key(name, values)) for name in names),
               tuple(specs[name] for name in kernels if name not in values["kernels"]),
               caches.evaluation_grid_key(grid), reference)
    # each panel's subplot, and whether its f = ±1 are margins (an SVM's): its tints saturate otherwise
    axes = {p.name: {**fg.panel_axes(i), "margins": getattr(p, "margins", True)} for i, p in enumerate(panels)}
    preview = live.live_preview(kind, prep=prep, kernels=kernels, grid=grid, context=context,
                                log_gamma=values["log_gamma"], log_C=values["log_C"] if kind == "decision" else None,
                                reference=reference, axes=axes, locked=st.session_state.get("hide") or (), specs=specs)
    st.session_state.setdefault(LAST_PREVIEW_KEY, {})[kind] = preview.payload if preview else None
    return preview


def scrub_chart(fig, panels, preview: live.Preview | None, key: str, prep: Prepared):
    """A scrub view's figure, drawn as its own live preview (its sliders commit through
    :func:`commit_live`) whose points can be edited (kernelviz.ui.edits), the open lesson's panels
    highlighted, with the preview's status line under it: (the figure drawn, the chart's click event)."""
    fig = teach.highlighted(fig, [p.name for p in panels])
    event = editable_chart(fig, key, prep, live=preview and preview.payload, on_commit=commit_live)
    if preview:
        preview.status()
    return fig, event


def editable_chart(fig, key: str, prep: Prepared, **live_args):
    """A figure whose points can be dragged, added and removed (kernelviz.ui.edits), the controls
    for that under it (the figure comes first on the screen): the chart's click event."""
    event = takeaway.chart(fig, key=key, selectable=True, data_on_canvas=True, edit=edits.browser_edit(prep),
                           on_edit=edits.received, **live_args)
    edits.controls(prep)
    return event


def commit_live(value: dict) -> None:
    """A release of a slider above a figure: the value becomes the setting, and the view's body reruns
    (the whole page while a lesson is open: its sentence, above the view, comes from the view's numbers)."""
    live.commit(value)
    if teach.lesson_open():
        rerun_page()


def explain_regularised(panels) -> None:
    """Under panels whose kernel had to regularise a flat cluster: what that does to the map."""
    if any(panel.regularised for panel in panels):
        st.info(pipeline.REGULARISATION_EXPLANATION)


def selected_points(event) -> list[dict]:
    """The points of a chart selection event; Streamlit gives an attribute dict, tests a plain dict."""
    if not event:
        return []
    selection = event["selection"] if "selection" in event else {}
    return list(selection.get("points", []) or [])
