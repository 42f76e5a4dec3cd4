"""The Partition view: the clusters or mixture components the data-dependent kernels measure with,
their responsibilities over the plane, and a table of their weights and sizes."""

from __future__ import annotations

import numpy as np
import streamlit as st

from kernelviz import crossings
from kernelviz import figures as fg
from kernelviz import registry
from kernelviz.ui import caches, takeaway
from kernelviz.ui.views.shared import editable_chart
from kernelviz.pipeline import Prepared

#: Cells along the longer side of the responsibilities' grid.
PARTITION_RESOLUTION = 90


def show(prep: Prepared, values: dict, partition) -> None:
    import pandas as pd

    grid = fg.grid_over(prep.X_view, caches.resolution(PARTITION_RESOLUTION))
    means, covs = prep.view_gaussians(partition.means_, partition.covariances_)
    R_grid = partition.predict_proba(prep.to_model(grid.points))
    R_points = partition.predict_proba(prep.X_model)
    method, k = registry.label(registry.PARTITIONS, partition.method), partition.n_components_
    # where the most responsible component changes, found between the grid points (the regions'
    # borders); a dragged point's frames draw them along the cells, as the boundaries' lines
    borders = None if caches.previewing() else crossings.class_crossings(
        grid.xs, grid.ys, grid.reshape(R_grid.argmax(axis=1)),
        lambda points: partition.predict_proba(prep.to_model(points)).argmax(axis=1))
    fig = fg.partition_figure(prep.X_view, prep.y, prep.labeled, means, covs, grid, R_grid, R_points,
                              classes=prep.legend_classes, region_crossings=borders,
                              title=f"{method}: {k} component{'s' if k > 1 else ''} "
                                    "— ellipses at 1, 2 and 3 Mahalanobis units")
    editable_chart(fig, "partition_chart", prep)
    table = pd.DataFrame({
        "component": np.arange(partition.n_components_),
        "weight": np.round(partition.weights_, 3),
        "points": np.bincount(partition.predict(prep.X_model), minlength=partition.n_components_),
        "ε (regularisation)": [f"{e:.1e}" if e else "—" for e in partition.epsilons_],
    })
    c1, c2 = st.columns([2, 3])
    c1.dataframe(table, hide_index=True, width="stretch")
    with c2:
        st.caption("Shaded regions: the component with the largest responsibility. Hover over a point or a "
                   "region for the responsibilities ρ(x, k). Labels are not used: the partition is fitted on "
                   "every point. k-means gives hard (0/1) responsibilities.")
        for note in partition.notes_:
            st.info(note)
    if not caches.previewing():  # the figure's files wait for the point's release
        takeaway.downloads(fig, "partition")

