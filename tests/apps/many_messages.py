"""A page that sends 2,000 messages of 10 kB on a click, under the app's server settings
(kernelviz.ui.server), for tests/test_sessions_release.py: Streamlit drops a browser that has 500
messages waiting for it, and a browser that stops reading for seconds while a run goes on is
then left "running" for good."""

import streamlit as st

from kernelviz.ui import server

server.keep_slow_browsers()
st.button("go", key="go")
for i in range(2000 if st.session_state.get("go") else 1):
    st.text(f"{i} " + "x" * 10_000)
