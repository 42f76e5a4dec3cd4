"""kernelviz.markdown: people's text shown as text in Markdown and in Plotly labels."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kernelviz.markdown import escape, plotly_text

NASTY = ["[click here](https://example.com)", "![x](http://127.0.0.1:9/t.png)", "<img src=x onerror=alert(1)>",
         ":red[alarm] :material/home:", "$x^2$", "**bold** _it_ `code`", "# heading", "- item", "a@b.example",
         "www.example.com", "&lt;b&gt;", "| a | b |", "line one\n===", "back\\slash"]


@pytest.mark.parametrize("text", NASTY)
def test_no_markup_survives_escaping(text):
    shown = escape(text)
    # every ASCII punctuation character is preceded by a backslash: nothing can open a construct
    assert not re.search(r"(?<!\\)(?:\\\\)*[\[\]()<>!*_`#|$:&@~.=-]", shown.replace("\\\\", "")), shown
    assert "\n" not in shown


@given(st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Zl", "Zp", "Cc"))))
def test_escaping_then_reading_gives_the_text_back(text):
    # CommonMark: a backslash before ASCII punctuation shows the character itself
    assert re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", escape(text)) == text


def test_plotly_text_shows_tags_instead_of_following_them():
    assert plotly_text('<a href="https://example.com">x</a> & y') == '&lt;a href="https://example.com"&gt;x&lt;/a&gt; &amp; y'
