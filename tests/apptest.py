"""One way to open the app headless (Streamlit's AppTest) for every test file.

A test states only the link it opens (its query parameters); the app's path, how long a run
may take and how the link is set live here, so they cannot drift apart between files.
"""

from __future__ import annotations

import re
from pathlib import Path

from streamlit.testing.v1 import AppTest

from kernelviz.outside import WORD_JOINER

APP = str(Path(__file__).resolve().parent.parent / "app.py")


def open_app(query: dict | None = None, *, timeout: float = 120, run: bool = True) -> AppTest:
    """The app opened with the link ``query``; ``run=False`` leaves it unrun, for a test that
    sets session state first."""
    at = AppTest.from_file(APP, default_timeout=timeout)
    for key, value in (query or {}).items():
        at.query_params[key] = value
    return at.run() if run else at


def assert_clean(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [unescaped(e.value) for e in at.error]


def unescaped(text: str) -> str:
    """What a person reads: Markdown's backslash escapes removed, the invisible word joiners
    that keep addresses from becoming links (kernelviz.outside) too."""
    return re.sub(r"\\(.)", r"\1", text).replace(WORD_JOINER, "")


def cancel_at_ckrbf(monkeypatch) -> None:
    """The Cancel click lands while CkRBF's kernel is being fitted: RBF finished, no CkRBF column did."""
    from kernelviz.ui import grid_jobs

    search = grid_jobs.GridJob._search

    def cancelled_while_ckrbf_is_fitted(job, name):
        if name == "ckrbf":
            job.cancel()
            return
        search(job, name)

    monkeypatch.setattr(grid_jobs.GridJob, "_search", cancelled_while_ckrbf_is_fitted)
