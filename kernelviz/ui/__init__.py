"""The app's Streamlit pieces, one module per concern; ``app.py`` wires them together.

Only the app imports this package: the rest of kernelviz never imports Streamlit.
"""
