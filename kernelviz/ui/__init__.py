"""The app's Streamlit pieces, one module per concern; ``app.py`` wires them together.

Only the app imports this package: the rest of kernelviz never imports Streamlit.
"""

from pathlib import Path

from kernelviz.ui import server  # noqa: F401  (the server process's settings, at the app's first import)

#: The app's tab icon (◎ in the app's colour), shipped with the package so the app works offline.
ICON_PATH = Path(__file__).with_name("icon.png")
