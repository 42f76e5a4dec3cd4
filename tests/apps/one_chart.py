"""The smallest Streamlit app with one Plotly chart: the cold-start yardstick of benchmarks/bench_live.py."""

import numpy as np
import plotly.graph_objects as go
import streamlit as st

points = np.random.default_rng(0).normal(size=(300, 2))
st.plotly_chart(go.Figure(go.Scatter(x=points[:, 0], y=points[:, 1], mode="markers")))
