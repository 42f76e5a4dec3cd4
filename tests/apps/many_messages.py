"""A page that sends 2,000 messages of 10 kB on a click of "go", under the app's server settings
(kernelviz.ui.server and .streamlit/config.toml), for tests/test_sessions_release.py: Streamlit drops
a browser that has 500 messages waiting for it, and a browser that stops reading for seconds while a
run goes on is then left "running" for good. "again" reruns the page's one message of 10 kB, which
Streamlit's message cache would send as a reference to the browser's copy."""

import streamlit as st

from kernelviz.ui import server

server.keep_slow_browsers()
st.button("go", key="go")
st.button("again", key="again")
for i in range(2000 if st.session_state.get("go") else 1):
    st.text(f"{i} " + "x" * 10_000)
