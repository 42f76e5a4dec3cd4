"""What a session computed, released when the session disconnects.

A session's live-preview lattices and their jobs (:mod:`kernelviz.ui.live`), its background
grid search (:mod:`kernelviz.ui.grid_jobs`) and its finished grid searches
(:meth:`kernelviz.session.Session.store_grid`) are kept in one mapping, :func:`store`, held
in ``st.session_state``. When the browser goes away, :func:`release` cancels the jobs and
empties the mapping.

Why not leave them to ``st.session_state``: Streamlit keeps a disconnected session, state and
all, for ``server.disconnectedSessionTTL`` (120 s) so that a reconnecting browser resumes it,
and drops it after that only when its store of sessions is next written, at a later
disconnect (streamlit/runtime/memory_session_storage.py: its TTL cache reaps on writes); the
last sessions to close stay until then. Measured with six closed sessions of Decision
boundaries: all six kept their lattices, and their lattice jobs went on computing for nobody.
A ``weakref.finalize`` on the session state would fire only at that late drop; a sweep of the
live session ids would need Streamlit's private session manager. A session-scoped
``st.cache_resource`` is cleared, its ``on_release`` called, when the session disconnects
(Streamlit's documented behaviour; the session is then kept for a reconnect): :func:`store`
enters the session's mapping into one, whose release is :func:`release`.

A browser that reconnects within the TTL keeps its settings and computes what was released
again: a lattice in seconds, a grid search when its button is clicked.
"""

from __future__ import annotations

import functools
import sys
import weakref
from typing import Callable, MutableMapping

from kernelviz.ui import server

#: Where ``st.session_state`` holds the session's :class:`Computed`.
KEY = "_computed"
#: What stops and drops a module's part of a session's :class:`Computed` (its jobs first): each
#: module that keeps something there adds its own (kernelviz.ui.live, kernelviz.ui.grid_jobs), so
#: this module needs none of theirs.
RELEASERS: list[Callable[[MutableMapping], None]] = []


class Computed(dict):
    """The session's lattices, jobs and grid searches: a ``dict`` that can be weakly referenced."""


def store() -> Computed:
    """This session's :class:`Computed`, watched for the session's end."""
    import streamlit as st

    computed = st.session_state.get(KEY)
    if computed is None:
        computed = st.session_state[KEY] = Computed()
    if st.runtime.exists():  # run bare (``python app.py``), the script has no session to end
        _watch()(id(computed), computed)
    return computed


def release(computed: MutableMapping) -> None:
    """The session ended: its jobs stop, and what it computed goes (see the module's notes).

    The containers are emptied in place: the last run's fragments and callbacks, which
    Streamlit keeps with the disconnected session, still refer to them.
    """
    for releaser in RELEASERS:
        releaser(computed)
    for value in computed.values():
        if isinstance(value, MutableMapping):
            value.clear()
    computed.clear()
    server.give_freed_memory_back()
    print(held_line(), file=sys.stderr, flush=True)


def held_line() -> str:
    """The server log's line at a session's end: what the shared results hold, and where (for a
    lecturer watching the server's memory, and benchmarks/bench_sessions.py)."""
    from kernelviz.ui import caches

    held = sorted(caches.RESULTS.holdings().items(), key=lambda item: -item[1][1])
    total = sum(size for _, (_, size) in held)
    parts = ", ".join(f"{name} {count} ({size / 2**20:.0f} MB)" for name, (count, size) in held)
    return (f"kernelviz: a session ended; shared results hold {total / 2**20:.0f} MB of "
            f"{caches.RESULTS.max_bytes / 2**20:.0f} MB: {parts or 'nothing'}")


@functools.cache
def _watch():
    """The session-scoped cache whose entry releases the session's mapping at the disconnect.

    One entry per session, keyed by the mapping's id: a new mapping (the session state cleared)
    releases the old one. The entry holds the mapping weakly: a run that ends just after the
    disconnect can enter it again, in a cache of the gone session that nothing clears any more.
    ``on_release`` runs in the server's thread, without the session's state: it gets the mapping.
    """
    import streamlit as st

    def watched(computed_id: int, _computed: Computed) -> weakref.ref:
        return weakref.ref(_computed)

    def released(ref: weakref.ref) -> None:
        computed = ref()
        if computed is not None:
            release(computed)

    return st.cache_resource(watched, scope="session", max_entries=1, on_release=released, show_spinner=False)
