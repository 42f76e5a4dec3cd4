"""The app's Streamlit pieces, one module per concern; ``app.py`` wires them together.

Only the app imports this package: the rest of kernelviz never imports Streamlit.
"""

import faulthandler
import signal
from pathlib import Path

# `kill -USR1 PID` writes the stack of every thread of the app's server to its stderr: what a page
# that stays "running" is waiting for (benchmarks/bench_sessions.py asks for it when a session is stuck).
if hasattr(signal, "SIGUSR1"):
    faulthandler.register(signal.SIGUSR1, all_threads=True)

#: The app's tab icon (◎ in the app's colour), shipped with the package so the app works offline.
ICON_PATH = Path(__file__).with_name("icon.png")
