"""Every use of Streamlit's private parts, in one place.

kernelviz needs a few things Streamlit has no public API for; each is wrapped here, named for
what the app needs, and checked by ``tests/test_streamlit_private.py``, which fails when a
Streamlit release moves or renames the part (run ``make newest`` before a bound in
pyproject.toml moves):

- the run's context: whether this run is a fragment's own (:func:`fragment_run`) and whether the
  browser's Back / Forward started it (:func:`history_navigation`), and a function that runs in
  another thread as part of this run (:func:`in_this_run`);
- the browser connection's send queue, which Streamlit caps at 500 messages and then drops the
  browser (:func:`hold_messages`);
- the plotly.js chunk Streamlit's own Plotly element loads (:func:`plotly_chunk_files`), which the
  plot component imports instead of a CDN copy.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
from pathlib import Path


def _context():
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    return get_script_run_ctx(suppress_warning=True)


def in_this_run(function):
    """``function``, callable from any thread as part of the running script: with this run's context
    (``st.session_state`` and the elements work there) and the caller's context variables as they
    stand now (``caches.transient``). Wrap in the script's own thread; each call runs in a copy, and
    leaves the calling thread's context as it found it (a pool's thread, lent to many runs of many
    sessions, keeps none of them)."""
    from streamlit.runtime.scriptrunner import add_script_run_ctx
    from streamlit.runtime.scriptrunner_utils.script_run_context import SCRIPT_RUN_CONTEXT_ATTR_NAME

    run, variables = _context(), contextvars.copy_context()

    def in_run(*args, **kwargs):
        thread = threading.current_thread()
        before = _context()
        add_script_run_ctx(thread, run)
        try:
            return variables.copy().run(function, *args, **kwargs)
        finally:  # add_script_run_ctx(thread, None) would attach the current context again
            setattr(thread, SCRIPT_RUN_CONTEXT_ATTR_NAME, before)

    return in_run


def fragment_run() -> bool:
    """Whether the running script is a fragment's own run (not the page's)."""
    context = _context()
    return bool(context is not None and getattr(context, "fragment_ids_this_run", None))


def history_navigation() -> bool:
    """Whether the browser's Back or Forward started this run (Streamlit says so only in the run's context)."""
    context = _context()
    return bool(context is not None and context.is_history_navigation)


def hold_messages(limit: int) -> None:
    """Let the browser connection of this run (and every connection made from now on) hold ``limit``
    messages before Streamlit gives the browser up. Run bare, or under AppTest, there is none."""
    from streamlit.runtime import Runtime, get_instance
    from streamlit.web.server.starlette import starlette_websocket

    starlette_websocket.WEBSOCKET_MAX_SEND_QUEUE_SIZE = limit
    context = _context()
    if context is None or not Runtime.exists():
        return
    client = get_instance().get_client(context.session_id)
    queue = getattr(client, "_send_queue", None)  # an agent's client has none, AppTest's a mock
    if isinstance(queue, asyncio.Queue) and 0 < queue.maxsize < limit:
        queue._maxsize = limit


def plotly_chunk_files() -> list[Path]:
    """The plotly.js chunks of the installed Streamlit's front end (``static/js/PlotlyChart.<hash>.js``)."""
    import streamlit

    return sorted((Path(streamlit.__file__).parent / "static" / "static" / "js").glob("PlotlyChart.*.js"))
