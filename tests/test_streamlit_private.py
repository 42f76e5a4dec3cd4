"""Streamlit's private parts that kernelviz.ui.streamlit_private uses: each test fails when a
Streamlit release moves or renames one (run under ``make newest`` before a bound moves)."""

from __future__ import annotations

import asyncio
import dataclasses
import inspect

import pytest

from kernelviz.ui import streamlit_private

pytestmark = pytest.mark.unit


def test_the_run_context_says_fragment_runs_and_history_navigation():
    from streamlit.runtime.scriptrunner import get_script_run_ctx
    from streamlit.runtime.scriptrunner_utils.script_run_context import ScriptRunContext

    fields = {field.name for field in dataclasses.fields(ScriptRunContext)}
    assert {"fragment_ids_this_run", "is_history_navigation", "session_id"} <= fields
    assert "suppress_warning" in inspect.signature(get_script_run_ctx).parameters
    # run bare (no script running): neither
    assert streamlit_private.fragment_run() is False
    assert streamlit_private.history_navigation() is False


def test_the_connection_queue_is_where_it_is_held():
    from streamlit.runtime import Runtime, get_instance  # noqa: F401  (both used by hold_messages)
    from streamlit.web.server.starlette import starlette_websocket

    assert isinstance(starlette_websocket.WEBSOCKET_MAX_SEND_QUEUE_SIZE, int)
    source = inspect.getsource(starlette_websocket)
    assert "_send_queue" in source and "WEBSOCKET_MAX_SEND_QUEUE_SIZE" in source
    # asyncio's own private bound, which hold_messages raises on a queue already made
    queue = asyncio.Queue(maxsize=3)
    queue._maxsize = 5
    assert queue.maxsize == 5
    before = starlette_websocket.WEBSOCKET_MAX_SEND_QUEUE_SIZE
    try:
        streamlit_private.hold_messages(12_345)  # run bare: the module's bound alone
        assert starlette_websocket.WEBSOCKET_MAX_SEND_QUEUE_SIZE == 12_345
    finally:
        starlette_websocket.WEBSOCKET_MAX_SEND_QUEUE_SIZE = before


def test_streamlit_ships_one_plotly_chunk_that_defines_plotly():
    (chunk,) = streamlit_private.plotly_chunk_files()
    assert "Plotly" in chunk.read_text(encoding="utf-8", errors="replace")[:2_000_000]


def test_a_function_run_in_another_thread_belongs_to_this_run_and_sees_its_context_variables():
    from streamlit.testing.v1 import AppTest

    def script():
        import contextvars
        import threading

        import streamlit as st

        from kernelviz.ui import streamlit_private

        flag = contextvars.ContextVar("flag", default="unset")
        flag.set("set by the run")

        def work():
            st.session_state["seen"] = flag.get()  # needs this run's context, in any thread

        threads = [threading.Thread(target=streamlit_private.in_this_run(work)) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        st.write(st.session_state["seen"])

    at = AppTest.from_function(script).run()
    assert not at.exception and at.markdown[0].value == "set by the run"


def test_a_thread_lent_to_a_run_carries_none_of_it_afterwards():
    """The panels' threads live on between runs and sessions: a run's context left on one would keep
    a closed session's state alive, and give its next computation the wrong session."""
    from streamlit.testing.v1 import AppTest

    def script():
        import threading

        import streamlit as st
        from streamlit.runtime.scriptrunner import get_script_run_ctx

        from kernelviz.ui import streamlit_private

        # called in a thread that had no context, as a pool's thread has none
        wrapped = streamlit_private.in_this_run(lambda: get_script_run_ctx(suppress_warning=True) is not None)
        result = {}

        def pooled():
            result["inside"] = wrapped()
            result["after"] = get_script_run_ctx(suppress_warning=True)

        thread = threading.Thread(target=pooled)
        thread.start()
        thread.join()
        st.write(f"{result['inside']} {result['after']}")

    at = AppTest.from_function(script).run()
    assert not at.exception and at.markdown[0].value == "True None"
