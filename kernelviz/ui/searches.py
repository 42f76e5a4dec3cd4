"""The grid searches the Grid search and P_f views show, kernel by kernel: a lesson's search
shipped with the package, one finished in this session, one running in the background
(``kernelviz.ui.grid_jobs``), or one waiting for its button.

A search is stored in the session under ``caches.grid_key`` (the data, the grid's spec and the
kernel's spec), so going back to settings already searched shows their results at once, and in
the disk cache under ``pipeline.search_key`` (the same specs), so that another session, or this
one after the server's restart, finds it too.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from kernelviz import figures as fg
from kernelviz import pipeline
from kernelviz.outside import message, plain
from kernelviz.ui import caches, grid_jobs, session_end
from kernelviz.ui.page import fail_and_restore, session
from kernelviz.pipeline import Prepared


def start_grids(prep: Prepared, values: dict, names: list[str], partition) -> None:
    """Grid-search ``names`` in the background (kernelviz.ui.grid_jobs): the page stays usable.

    The grid's kernels use the very partition the other views show (fitted on every point).
    """
    grid = pipeline.GridSpec.from_settings(values)
    params = {name: pipeline.kernel_params(name, partition, values["normalize"]) for name in names}
    disk_keys = {name: pipeline.search_key(pipeline.KernelSpec.from_settings(name, values), grid, prep)
                 for name in names}
    job = grid_jobs.GridJob(names, prep, np.array(grid.log_Cs), np.array(grid.log_gammas), grid.cv, grid.cv_seed,
                            params, disk_keys)
    grid_jobs.start(session_end.store(), {name: caches.grid_key(name, prep, values) for name in names}, job)


def stored_grids(prep: Prepared, values: dict, names: list[str]) -> tuple[dict, dict]:
    """(name → finished search, name → why it failed) of the kernels searched with these settings:
    in this session, else on disk (finished by another session, or before the server's restart)."""
    grid = pipeline.GridSpec.from_settings(values)
    stored = {}
    for n in names:
        key = caches.grid_key(n, prep, values)
        stored[n] = session().stored_grid(key)
        if stored[n] is None:
            stored[n] = pipeline.stored_search(pipeline.KernelSpec.from_settings(n, values), grid, prep)
            if stored[n] is not None:
                session().store_grid(key, stored[n])
    found = {n: grid for n, grid in stored.items() if grid is not None}
    return ({n: g for n, g in found.items() if not isinstance(g, pipeline.GridFailure)},
            {n: g for n, g in found.items() if isinstance(g, pipeline.GridFailure)})


def check_grid_settings(prep: Prepared, values: dict) -> bool:
    """Refuse folds the labeled points cannot fill: say why, and go back to the grid settings that worked."""
    try:
        pipeline.check_folds(prep, values["cv"])
    except ValueError as err:
        # the folds are what the labeled points cannot fill: the other grid settings stay
        fail_and_restore("grid", ("cv",), err)
        st.error(plain(err))
        return False
    session().remember_good("grid", pipeline.STAGES["grid"])
    return True


def searches_note(labels: list[str], fits: int, cancelled: bool, figure_kept: bool) -> str:
    """What the page says above the button of searches not done: never searched, or cancelled
    (and whether the figure below holds what finished)."""
    names = ", ".join(labels)
    if not cancelled:
        return (f"{names}: not searched yet with these settings ({fits} SVM fits). It runs in the background: "
                "the other views stay usable.")
    kept = "; the figure shows what finished, marked incomplete" if figure_kept else ""
    return (f"{names}: the search was cancelled{kept}. Searching again takes {fits} SVM fits, in the background: "
            "the other views stay usable.")


def ensure_grids(prep: Prepared, values: dict, names: list[str], button_key: str, partition,
                 draw_partial=None, run_label: str = "Run grid search", label=fg.kernel_label,
                 start_on_open: bool = False) -> dict:
    """The finished searches of ``names`` (on disk too: a lesson's shipped ones included); the others run in the
    background (their cells so far go to ``draw_partial(grids, complete=False)``) or wait for the button.
    ``label(name)`` names a kernel in the page's sentences (P_f's other scale is its own curve).
    With ``start_on_open`` the missing ones start at once, unless the person cancelled them."""
    if not check_grid_settings(prep, values):
        return {}
    grid_jobs.hand_over(session_end.store(), session().store_grid)
    grids, failures = stored_grids(prep, values, names)
    for name, reason in failures.items():
        st.warning(message("**{label}** could not be grid-searched: {reason}", label=label(name),
                           reason=reason))
    missing = [n for n in names if n not in grids and n not in failures]
    if missing:
        session_job = grid_jobs.current(session_end.store())
        ours = session_job is not None and session_job.covers({n: caches.grid_key(n, prep, values) for n in missing})
        if start_on_open and not ours:
            # a view that is nothing but the searches' summary computes when opened; a search the
            # person cancelled stays cancelled (its button below starts it again)
            start_grids(prep, values, missing, partition)
            session_job, ours = grid_jobs.current(session_end.store()), True
        if ours and session_job.running:
            grid_jobs.show_running(session_end.store(), draw_partial or (lambda found, complete: None))
            return {}
        grid = pipeline.GridSpec.from_settings(values)
        fits = len(missing) * len(grid.log_Cs) * len(grid.log_gammas) * grid.cv
        stopped = ours and session_job.job.cancelled
        # after a Cancel, one figure of everything that finished, marked incomplete, whether the
        # stop fell inside a kernel's columns or between two kernels
        kept = {**grids, **session_job.job.partial()} if stopped and draw_partial is not None else {}
        st.info(searches_note([label(n) for n in missing], fits, stopped, bool(kept)))
        st.button(run_label, key=button_key, type="primary", on_click=start_grids,
                  args=(prep, values, missing, partition))
        if kept:
            draw_partial(kept, complete=False)
            return {}
    return grids
