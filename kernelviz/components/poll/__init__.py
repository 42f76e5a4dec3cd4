"""The poll component: reruns the fragment it is drawn in, a while after each of its runs, until
a run says that what it waited for is finished.

A Streamlit v2 component (``st.components.v2``, no iframe) that draws nothing. Streamlit's own
``st.fragment(run_every=…)`` keeps its timer until a run of the whole page ends it, or a run of a
fragment the poller was drawn in, and a tick that came after its element had gone wrote into a
place that was no more (the page lost its connection). This timer lives in the element and stops
when the element goes; it asks for the next run only once the last one has arrived, never while a
script runs (a tick during the page's run carried the sidebar's values from before that run), and,
given ``watch``, only while the page has an element that waits (the live preview's watcher,
:func:`kernelviz.ui.live.watcher`, ticks while a figure's lattice is being prepared).

When a run passes ``finished``, the browser dispatches the document event ``kv-finished`` with it
(poll.js, ../events.js): the figure of that kind (``kernelviz.components.plot``) then asks for its own view's
run, which a component's trigger reruns alone — a page rerun from a fragment made the browser
forget the sidebar's widgets (streamlit/streamlit#11266).
"""

from __future__ import annotations

import functools
import itertools
from pathlib import Path

from kernelviz.components import module_text
from kernelviz.protocol import Finished, PollData

FRONTEND = Path(__file__).resolve().parent
COMPONENT_NAME = "kernelviz.poll"
_RUNS = itertools.count()


@functools.cache
def _renderer():
    import streamlit as st

    return st.components.v2.component(COMPONENT_NAME, js=module_text(FRONTEND / "poll.js"))


def poll_data(run: int, every: float, finished: Finished | None = None, watch: str | None = None) -> PollData:
    """What the browser side reads: ``run`` (a new one each time: the same data again would not
    call the browser side), the pause, ``finished`` and ``watch``."""
    return {"run": int(run), "every_ms": round(every * 1000), "finished": finished, "watch": watch}


def poll(*, key: str, every: float, finished: Finished | None = None, watch: str | None = None) -> None:
    """Rerun the current fragment ``every`` seconds after this run has reached the browser; with
    ``finished`` ({"kind", "signal"}), the page is told, and without ``watch`` no run follows.
    With ``watch`` (a CSS selector), a run is asked for only while the page has an element it
    selects, and the timer goes on after ``finished``."""
    import streamlit as st

    # nothing to see: its place (and the gap before it) is hidden
    st.html(f"<style>.st-key-{key} {{ display: none; }}</style>")
    _renderer()(key=key, data=poll_data(next(_RUNS), every, finished, watch), on_tick_change=lambda: None)
