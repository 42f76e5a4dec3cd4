"""A setting's widget: keyed by the setting's name, bounded, labeled and explained as
``kernelviz.state`` and ``kernelviz.registry`` say, and not drawn when the teacher's link hides it
(its value is then the session's)."""

from __future__ import annotations

import streamlit as st

from kernelviz import state as kvstate
from kernelviz.ui import teach


def number_input(label: str, name: str, where=None, **kwargs):
    """A number input bounded like its setting (``kvstate.bounds``), so the link can always hold its value."""
    if teach.hidden(name):
        return st.session_state.get(name)
    lo, hi = kvstate.bounds(name)
    return (where or st).number_input(label, min_value=lo, max_value=hi, key=name,
                                      help=kvstate.BY_NAME[name].widget_help(), **kwargs)


def slider(label: str, name: str, where=None, **kwargs):
    """A slider (a range slider for a range setting) spanning its setting's bounds."""
    if teach.hidden(name):
        return st.session_state.get(name)
    lo, hi = kvstate.bounds(name)
    return (where or st).slider(label, lo, hi, key=name, help=kvstate.BY_NAME[name].widget_help(), **kwargs)


def choice(widget: str, label: str, name: str, where=None, **kwargs):
    """A radio, select box, multiselect or segmented control over a setting's choices,
    labeled and explained as ``kernelviz.registry`` says."""
    if teach.hidden(name):
        return st.session_state.get(name)
    setting = kvstate.BY_NAME[name]
    options = kwargs.pop("options", setting.choices())
    return getattr(where or st, widget)(label, options, key=name, format_func=setting.label,
                                        help=setting.widget_help(), **kwargs)


def toggle(label: str, name: str, where=None) -> bool:
    """An on/off switch for a ``bool`` setting."""
    if teach.hidden(name):
        return st.session_state.get(name)
    return (where or st).toggle(label, key=name, help=kvstate.BY_NAME[name].widget_help())
