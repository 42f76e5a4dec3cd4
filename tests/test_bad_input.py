"""Bad input that used to escape (issue 29): each case gives a clear message in the page, keeps
the person's data and settings, and never shows a traceback."""

from __future__ import annotations

import pytest

from kernelviz import state as kvstate

from apptest import assert_clean, open_app, unescaped


def errors(at) -> str:
    return " ".join(unescaped(e.value) for e in at.error)


def test_a_link_number_with_digit_separators_or_other_scripts_digits_is_refused_in_the_page():
    at = open_app(dict(view="data", data_seed="1_000", n_components="٣", log_C="１", gen_params="n_samples:40"))
    assert not at.exception
    shown = errors(at)
    for name in ("data_seed", "n_components", "log_C"):
        assert f"link's {name}" in shown and "digits 0-9" in shown, (name, shown)
        assert at.session_state[name] == kvstate.BY_NAME[name].default
    assert at.session_state["gen_params"] == {"n_samples": 40}  # the rest of the link still applies
