"""A tiny app of one figure that is its own live preview, for the browser test and the benchmark.

Default data (moons, n = 500, RBF / Mahalanobis RBF / CkRBF / RWM) prepared as the app does,
the decision lattice at log γ = log C = 0 computed once per server, and the boundary figure
at the committed values (:func:`kernelviz.ui.live.preview_payload` makes it the preview). The
page counts its own script runs and shows the last committed value, so a test can check that
dragging causes no run and that a release commits.

Query parameters: ``kind=similarity`` shows the similarity figure and lattice around the data
point nearest the centre instead; ``lattice=none`` sends an empty lattice (nothing to preview
yet); ``n=<points>`` changes the number of points.
"""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import streamlit as st

from kernelviz import figures as fg
from kernelviz import lattice as kvlattice
from kernelviz import pipeline
from kernelviz.components import plot
from kernelviz.ui import live

st.set_page_config(page_title="kernelviz live preview demo", layout="wide")


@st.cache_resource(show_spinner=False)
def default_lattice(n_samples: int, kind: str):
    kernels, prep, grid = kvlattice.default_inputs(n_samples=n_samples)
    if kind == "similarity":
        reference = pipeline.default_reference(prep)
        grid = fg.grid_over(prep.X_view, 80, extra=np.array([reference]))
        lattice = kvlattice.Lattice.similarity(list(kernels), grid, log_gamma=0.0, reference=reference)
    else:
        lattice = kvlattice.Lattice.decision(list(kernels), grid, log_gamma=0.0, log_C=0.0)
    return kvlattice.LatticeJob(lattice, kernels, prep).result(), kernels, prep


@st.cache_data(show_spinner=False)
def figure(n_samples: int, kind: str, log_gamma: float, log_C: float) -> dict:
    lattice, kernels, prep = default_lattice(n_samples, kind)
    grid = lattice.grid
    if kind == "similarity":
        panels = [pipeline.similarity_panel(name, kernel, prep, grid, log_gamma, lattice.reference)
                  for name, kernel in kernels.items()]
        fig = fg.similarity_figure(panels, grid, lattice.reference, prep.X_view, prep.y, prep.labeled)
    else:
        panels = [pipeline.boundary_panel(name, kernel, prep, grid, log_gamma, log_C) for name, kernel in kernels.items()]
        fig = fg.boundary_figure(panels, grid, title=f"Decision boundaries at γ = {10 ** log_gamma:.3g}, C = {10 ** log_C:.3g}")
    return json.loads(fig.to_json())  # plain JSON: the app's own path (takeaway.chart) needs a page


st.session_state["runs"] = st.session_state.get("runs", 0) + 1
kind = st.query_params.get("kind", "decision")
n = int(st.query_params.get("n", 500))
lattice, kernels, _ = default_lattice(n, kind)
if st.query_params.get("lattice") == "none":
    lattice = dataclasses.replace(lattice, codes={}, scales={}, failed={}, filled={})
committed = st.session_state.setdefault("committed", {"log_gamma": 0.0, "log_C": 0.0})


def commit(value: dict) -> None:
    committed.update({axis: value[axis] for axis in ("log_gamma", "log_C") if value[axis] is not None})


axes = {name: fg.panel_axes(i) for i, name in enumerate(kernels)}
preview = live.preview_payload(lattice, committed["log_gamma"], None if kind == "similarity" else committed["log_C"],
                               axes)
plot.plot(figure(n, kind, committed["log_gamma"], committed["log_C"]), key="figure", data_on_canvas=True,
          live=preview, on_commit=commit)
st.text(f"script runs: {st.session_state['runs']} · committed: "
        f"log γ = {committed['log_gamma']:g}, log C = {committed['log_C']:g}")
