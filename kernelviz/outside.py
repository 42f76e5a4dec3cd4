"""Text from outside, shown as plain text: the one way a file, column or class name, a link's
value or an error that quotes them reaches the page.

Every text element of Streamlit (``st.error``, ``st.caption``, ``st.markdown``, widget and
button labels, expander titles …) renders GitHub-flavoured Markdown with Streamlit's own
directives (``:red[…]``, ``:material/…:``) and maths (``$…$``). Two things make outside text
live there, and :func:`plain` undoes both:

* **Markdown syntax** (links, images, emphasis, HTML, headings): CommonMark lets a backslash
  escape any ASCII punctuation character and shows the character itself, so escaping every one
  leaves no construct that could start, and the text reads the same.
* **Emoji**: an alert takes a leading emoji for its icon; a word joiner before it keeps it text.
* **Autolinks**: GFM turns ``https://…``, ``www.…`` and ``name@host`` into links *after* the
  escapes are resolved (remark-gfm finds them in the parsed text), so a backslash cannot stop
  them. An invisible WORD JOINER (U+2060) inside each trigger — ``h⁠ttp``, ``w⁠ww``, ``@⁠`` —
  breaks the pattern the autolinker looks for and changes nothing a reader sees.

What a reader must see exactly is made visible first (:func:`visible`): line breaks become
spaces (a line of its own could start a heading, list or table), other control characters,
code points no font can draw and the bidirectional controls that could reorder the sentence around a name (a file called
``harmless‮txt.exe``) are written as ``<U+202E>``.

Plotly titles, legends and hover text understand a little HTML (``<a href>``, ``<b>`` …), never
Markdown: :func:`plotly_text` is the same text for them. Generated Python code takes outside
text only as a ``repr()`` literal (kernelviz.codegen), never inside a comment or docstring. A
file the app offers for download gets :func:`file_name`: the same safe name in the browser's
save dialog and in the script that reads the file.
"""

from __future__ import annotations

import html
import re
import unicodedata

__all__ = ["plain", "message", "plotly_text", "visible", "file_name", "WORD_JOINER"]

#: Invisible, zero-width, and not whitespace or punctuation: an autolink cannot start or run through it.
WORD_JOINER = "\u2060"
_ASCII_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")
# What GFM's literal autolinks start from (www., http://, https://) or run through (the @ of
# name@host, mailto: and xmpp: included), each cut by a word joiner.
_AUTOLINK_TRIGGERS = re.compile(r"(?i)(?<=w)(?=ww)|(?<=h)(?=ttp)|(?<=@)")
#: Characters that reorder the text around them (Unicode's explicit bidirectional formatting).
BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


#: Control characters, and code points no font can draw (unassigned, private, lone surrogates).
_WRITTEN_OUT_CATEGORIES = frozenset({"Cc", "Cn", "Co", "Cs"})


def _shown_char(c: str) -> str:
    if c in "\r\n\t\v\f\x1c\x1d\x1e\x85\u2028\u2029":
        return " "
    if c in BIDI_CONTROLS or unicodedata.category(c) in _WRITTEN_OUT_CATEGORIES:
        return f"<U+{ord(c):04X}>"
    return c


def visible(text) -> str:
    """``text`` on one line, its control, bidirectional and undrawable characters written out (``<U+202E>``):
    what :func:`plain` and :func:`plotly_text` show a reader."""
    text = str(text)
    if text.isprintable() and not BIDI_CONTROLS.intersection(text):
        return text
    return "".join(map(_shown_char, text))


def plain(text) -> str:
    """Markdown that shows ``text`` exactly as :func:`visible` writes it: no link, image,
    emphasis, HTML, heading, directive or autolink can come out of it."""
    escaped = _AUTOLINK_TRIGGERS.sub(WORD_JOINER, _ASCII_PUNCTUATION.sub(r"\\\1", visible(text)))
    # Streamlit's alerts take an emoji at the very start of their text for their icon
    return WORD_JOINER + escaped if escaped[:1] > "\x7f" else escaped


def message(template: str, /, **outside) -> str:
    """``template`` (the app's own Markdown, with ``{name}`` fields) with every field filled by
    outside text shown through :func:`plain`: ``message("**{name}** is left out: {why}", ...)``.

    Only the template's own words may carry Markdown; a value never does.
    """
    return template.format(**{name: plain(value) for name, value in outside.items()})


def plotly_text(text) -> str:
    """``text`` for a Plotly title, legend entry or hover label: its HTML-like tags shown, not followed."""
    return html.escape(visible(text), quote=False)


#: The longest stem :func:`file_name` keeps: far below every file system's limit, and readable.
FILE_STEM_MAX = 60
_UNSAFE_IN_FILE_NAMES = re.compile(r"[^A-Za-z0-9_-]+")


def file_name(stem, extension: str) -> str:
    """A download's file name made from ``stem`` (a data set's name): ASCII letters, digits,
    ``-`` and ``_`` (not first or last), runs of anything else as one ``_``, at most
    :data:`FILE_STEM_MAX` of them; ``data`` when nothing is left.

    Browsers rewrite a name they find unsafe (quotes, slashes, newlines, leading dots, non-ASCII
    in some systems) when they save it; a script that reads the file must name exactly what was
    saved, so only characters no browser changes are kept.
    """
    safe = _UNSAFE_IN_FILE_NAMES.sub("_", str(stem)).strip("_-")[:FILE_STEM_MAX].strip("_-")
    return f"{safe or 'data'}.{extension}"
