"""A tiny app around the scrub component, for the browser test and the benchmark.

Default data (moons, n = 500, RBF / Mahalanobis RBF / CkRBF / RWM) prepared as the app
does, the decision lattice at log γ = log C = 0 computed once per server. The page counts
its own script runs and shows the last committed value, so a test can check that dragging
causes no run and that a release commits.

Query parameters: ``lattice=none`` sends an empty lattice (the component's "preparing"
state); ``n=<points>`` changes the number of points.
"""

from __future__ import annotations

import streamlit as st

from kernelviz import lattice as kvlattice
from kernelviz.components.scrub import scrub

st.set_page_config(page_title="kernelviz scrub demo", layout="wide")


@st.cache_resource(show_spinner=False)
def default_lattice(n_samples: int):
    kernels, prep, grid = kvlattice.default_inputs(n_samples=n_samples)
    lattice = kvlattice.Lattice.decision(list(kernels), grid, log_gamma=0.0, log_C=0.0)
    for item in kvlattice.decision_fields(lattice, kernels, prep):
        lattice.add(item)
    return lattice, prep


st.session_state["runs"] = st.session_state.get("runs", 0) + 1
lattice, prep = default_lattice(int(st.query_params.get("n", 500)))
if st.query_params.get("lattice") == "none":
    lattice = kvlattice.Lattice.decision(lattice.names, lattice.grid, lattice.log_gamma, lattice.log_C)
committed = st.session_state.setdefault("committed", {"log_gamma": 0.0, "log_C": 0.0})
scrub(lattice, prep, log_gamma=committed["log_gamma"], log_C=committed["log_C"], key="scrub",
      on_commit=lambda value: committed.update(log_gamma=value["log_gamma"], log_C=value["log_C"]))
st.text(f"script runs: {st.session_state['runs']} · committed: "
        f"log γ = {committed['log_gamma']:g}, log C = {committed['log_C']:g}")
