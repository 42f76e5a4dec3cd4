"""Every kind of place the app shows outside text, fed the texts in $KERNELVIZ_HOSTILE_TEXTS (a
JSON list): tests/test_outside_browser.py reads what the browser drew of each."""

import json
import os

import plotly.graph_objects as go
import streamlit as st

from kernelviz.outside import file_name, message, plain, plotly_text

texts = json.loads(open(os.environ["KERNELVIZ_HOSTILE_TEXTS"], encoding="utf-8").read())
for i, text in enumerate(texts):
    with st.container(key=f"sink_{i}"):
        st.error(plain(text))
        st.warning(message("**{label}** is left out: {reason}", label="RBF", reason=text))
        st.info(message("{err} Meanwhile the views show the previous data ({name}).", err="No file.", name=text))
        st.caption(plain(text))
        st.markdown(message("**{name}**", name=text))
        st.button(plain(text), key=f"button_{i}")
        st.download_button(message("Download {name}", name=file_name(text, "csv")), "x", key=f"download_{i}",
                           file_name=file_name(text, "csv"), on_click="ignore")
        with st.expander(plain(text)):
            st.write("")
        st.plotly_chart(go.Figure(go.Scatter(x=[0, 1], y=[0, 1], name=plotly_text(text)),
                                  layout={"title": {"text": plotly_text(text)}, "showlegend": True,
                                          "xaxis": {"title": {"text": plotly_text(text)}}}),
                        key=f"chart_{i}")
