"""A tiny app around the scrub component, for the browser test and the benchmark.

Default data (moons, n = 500, RBF / Mahalanobis RBF / CkRBF / RWM) prepared as the app
does, the decision lattice at log γ = log C = 0 computed once per server. The page counts
its own script runs and shows the last committed value, so a test can check that dragging
causes no run and that a release commits.

Query parameters: ``kind=similarity`` shows the similarity lattice around the data point
nearest the centre instead; ``lattice=none`` sends an empty lattice (the component's
"preparing" state); ``n=<points>`` changes the number of points.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import streamlit as st

from kernelviz import figures as fg
from kernelviz import lattice as kvlattice
from kernelviz import views as kvviews
from kernelviz.components.scrub import scrub

st.set_page_config(page_title="kernelviz scrub demo", layout="wide")


@st.cache_resource(show_spinner=False)
def default_lattice(n_samples: int, kind: str):
    kernels, prep, grid = kvlattice.default_inputs(n_samples=n_samples)
    if kind == "similarity":
        reference = kvviews.default_reference(prep)
        grid = fg.grid_over(prep.X_view, 80, extra=np.array([reference]))
        lattice = kvlattice.Lattice.similarity(list(kernels), grid, log_gamma=0.0, reference=reference)
    else:
        lattice = kvlattice.Lattice.decision(list(kernels), grid, log_gamma=0.0, log_C=0.0)
    return kvlattice.LatticeJob(lattice, kernels, prep).result(), prep


st.session_state["runs"] = st.session_state.get("runs", 0) + 1
kind = st.query_params.get("kind", "decision")
lattice, prep = default_lattice(int(st.query_params.get("n", 500)), kind)
if st.query_params.get("lattice") == "none":
    lattice = dataclasses.replace(lattice, codes={}, failed={}, filled={})
committed = st.session_state.setdefault("committed", {"log_gamma": 0.0, "log_C": 0.0})


def commit(value: dict) -> None:
    committed.update({axis: value[axis] for axis in ("log_gamma", "log_C") if value[axis] is not None})


scrub(lattice, prep, log_gamma=committed["log_gamma"], log_C=None if kind == "similarity" else committed["log_C"],
      key="scrub", on_commit=commit)
st.text(f"script runs: {st.session_state['runs']} · committed: "
        f"log γ = {committed['log_gamma']:g}, log C = {committed['log_C']:g}")
