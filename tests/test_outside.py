"""kernelviz.outside: outside text shown as plain text in Markdown, Plotly labels and file names.

What the browser finally draws from :func:`plain` is checked in a real page by
tests/test_outside_browser.py; here, the Markdown source itself.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kernelviz.outside import WORD_JOINER, file_name, message, plain, plotly_text, visible

from _hostile import FRAGMENTS, hostile_text

pytestmark = pytest.mark.unit

_UNESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")


def shown_text(markdown: str) -> str:
    """What CommonMark shows of an all-escaped text: each escaped character itself, the joiners invisible."""
    return _UNESCAPE.sub(r"\1", markdown).replace(WORD_JOINER, "")


@pytest.mark.parametrize("text", FRAGMENTS)
def test_no_markup_survives(text):
    shown = plain(text)
    # every ASCII punctuation character is preceded by a backslash: nothing can open a construct
    assert not re.search(r"(?<!\\)(?:\\\\)*[\[\]()<>!*_`#|$:&@~.=-]", shown.replace("\\\\", "")), shown
    assert "\n" not in shown and "\r" not in shown


@given(hostile_text)
def test_plain_shows_exactly_the_visible_text(text):
    assert shown_text(plain(text)) == visible(text)


@given(hostile_text)
def test_no_autolink_can_start(text):
    """GFM links ``www.``, ``http(s)://`` and ``name@host`` after the escapes are read: none of
    those patterns may remain in the text the autolinker sees."""
    seen = _UNESCAPE.sub(r"\1", plain(text))
    assert not re.search(r"(?i)www|http|@[\w-]", seen), seen


@given(hostile_text)
def test_visible_text_has_one_line_and_no_reordering_characters(text):
    shown = visible(text)
    assert not re.search("[\n\r\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c\x00-\x1f\x7f]", shown)


def test_controls_are_written_out_and_line_breaks_are_spaces():
    assert visible("gpj\u202eexe.txt") == "gpj<U+202E>exe.txt"
    assert visible("a\r\nb\x1bc") == "a  b<U+001B>c"
    assert visible("plain ü 漢字") == "plain ü 漢字"


def test_message_keeps_the_template_markdown_and_makes_values_plain():
    assert message("**{label}** is left out: {why}", label="**x**", why="see www.evil.example") == (
        "**\\*\\*x\\*\\*** is left out: see w" + WORD_JOINER + "ww\\.evil\\.example")


def test_plotly_text_shows_tags_instead_of_following_them():
    assert plotly_text('<a href="https://example.com">x</a> & y') == '&lt;a href="https://example.com"&gt;x&lt;/a&gt; &amp; y'
    assert plotly_text("a\nb\u202e") == "a b&lt;U+202E&gt;"


@given(hostile_text, st.sampled_from(["csv", "libsvm", "png"]))
def test_file_names_are_safe_everywhere(stem, extension):
    name = file_name(stem, extension)
    # no leading dot (hidden), dash (an option to a shell command) or underscore
    assert re.fullmatch(r"[A-Za-z0-9]([A-Za-z0-9_-]{0,58}[A-Za-z0-9])?\." + extension, name), name


def test_file_names_keep_what_is_already_safe():
    assert file_name("heart_scale", "csv") == "heart_scale.csv"
    assert file_name("my data (v2).final", "csv") == "my_data_v2_final.csv"
    assert file_name('"""', "csv") == "data.csv"
