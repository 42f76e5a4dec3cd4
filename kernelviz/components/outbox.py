"""Python's side of a component's outbox (``kernelviz/components/outbox.js``): the numbered entries
of a page's browser that Python has not applied yet.

Streamlit keeps only the latest value of a component's state when requests meet, and Python
changes the data itself (Undo, Clear): a whole list sent against an older state lost either the
browser's change or Python's. The browser therefore sends every entry Python has not applied,
numbered in the order they were made, under its page's token; Python applies those numbered past
the last one it applied, once each and in order, on top of whatever it holds.
"""

from __future__ import annotations

from typing import Mapping

#: A token is the browser's own random name for one load of a component's module: short text.
MAX_TOKEN = 64


def unapplied(state, applied: Mapping[str, int], field: str) -> tuple[list, dict[str, int]] | None:
    """The entries of ``state[field]`` (rows ``[number, …]``) numbered past what ``applied`` says
    for the state's token, oldest first, and what is applied once they are (only this token kept:
    one page sends at a time).

    None for a state that is not well formed — a token that is not short text, or entries that are
    not lists starting with a whole number ≥ 1 (the state comes from the browser, which a person
    can change). The entries' other fields are the caller's to check.
    """
    if not isinstance(state, dict):
        return None
    token, rows = state.get("token"), state.get(field)
    if not isinstance(token, str) or not 0 < len(token) <= MAX_TOKEN or not isinstance(rows, list):
        return None
    if not all(isinstance(row, list) and row and isinstance(row[0], (int, float)) and not isinstance(row[0], bool)
               and row[0] >= 1 and float(row[0]).is_integer() for row in rows):
        return None
    done = int(applied.get(token, 0))
    fresh = sorted((row for row in rows if row[0] > done), key=lambda row: row[0])
    return fresh, {token: int(fresh[-1][0]) if fresh else done}
