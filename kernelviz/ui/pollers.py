"""Polling fragments, drawn after the page's last widget.

A polling fragment (a running grid search's progress, rerun by ``run_every``; the live preview's
watcher, by its poll component, is drawn after them, :func:`kernelviz.ui.live.watcher`) starts its timer when the browser receives it, and each tick
sends the browser's widget values with it. Drawn where it shows — in the view, before the sidebar — a tick during
a slow run sent the values the browser held before the run, and they replaced the ones the
run had set: starting a lesson lost the step's data and kernels that way. So a view holds the
poller's place (:func:`hold`), and the page's run draws every held poller once its last widget
has gone out (:func:`draw_held`).

A run that ends early (a rerun asked meanwhile) leaves its requests behind, their places
belonging to that run: :func:`forget` at the start of each page run drops them. Drawn by a later
run into a place that had become an element of the page, a poller broke the page ("'setIn' cannot
be called on an ElementNode") and the session was stuck.
"""

from __future__ import annotations

import logging
from typing import Callable

_LOG = logging.getLogger(__name__)
#: Page settings whose change in a fragment's request is the person's (see kernelviz.session.keep_outside).
PERSONS_OWN = frozenset({"view"})
#: What those settings' widgets send once the browser has forgotten them, a value no person can
#: choose: the view switch requires a view and has no default, so only a forgetting empties it
#: (kernelviz.session.keep_outside; tests/test_session.py checks it against Streamlit's widget).
NEVER_CHOSEN = {"view": None}

#: Session key of the pollers held in this run: ``[(place, draw, arguments), …]``.
HELD_KEY = "_held_pollers"


def hold(place, draw: Callable[..., None], *arguments) -> None:
    """Keep ``place`` (an ``st.empty()`` or ``st.container()``) for ``draw(*arguments)``, drawn by :func:`draw_held`."""
    import streamlit as st

    st.session_state.setdefault(HELD_KEY, []).append((place, draw, arguments))


def draw_held() -> None:
    """Draw the pollers held in this run, each in its place (call after the run's last widget)."""
    import streamlit as st

    for place, draw, arguments in st.session_state.pop(HELD_KEY, []):
        with place.container():
            draw(*arguments)


def forget() -> None:
    """Drop what an earlier run held and did not draw (call at the start of a run that draws them)."""
    import streamlit as st

    st.session_state.pop(HELD_KEY, None)


def keep_page_settings() -> None:
    """Call first in every fragment: in a fragment's own run, the settings whose widgets the page
    draws outside the fragment keep the page's values (:func:`kernelviz.session.keep_outside`);
    when the browser's request had changed any, the page reruns, so that those widgets show the
    session's values again."""
    import streamlit as st

    from kernelviz.session import keep_outside, mark_fragment_rerun
    from kernelviz.ui.streamlit_private import fragment_run

    if not fragment_run():
        return  # the page's run: its widgets are drawn with what the browser sent
    emptied = {name for name in PERSONS_OWN if name in st.session_state and st.session_state[name] == NEVER_CHOSEN[name]}
    changed = keep_outside(st.session_state, accept=PERSONS_OWN, never_chosen=NEVER_CHOSEN)
    if changed:
        # a line in the server's log: benchmarks/bench_sessions.py counts them beside lost actions
        taken = sorted(set(changed) & PERSONS_OWN - emptied)
        kept = sorted(set(changed) - set(taken))
        _LOG.warning("a fragment's run got changed page settings (%s); the page's values were kept%s",
                     ", ".join(kept) or "none", f", the request's taken for {', '.join(taken)}" if taken else "")
        mark_fragment_rerun(st.session_state)
        st.rerun()
