"""Text from people, shown safely: the app's messages are Markdown, and a value someone typed
into a link or a file name must read as text, never run as a link, an image or HTML.

Streamlit renders ``st.error`` / ``st.info`` / ``st.markdown`` … as GitHub-flavoured Markdown
with its own directives (``:red[…]``, ``:material/…:``) and maths (``$…$``), and turns bare
addresses (``https://…``, ``www.…``, ``name@host``) into links. CommonMark lets a backslash
escape any ASCII punctuation character and shows the character itself, so escaping every one
of them leaves no construct that could start — the text reads the same.

Plotly titles, axis titles and hover text understand a little HTML (``<a href>``, ``<b>`` …);
:func:`plotly_text` makes a name plain text there.
"""

from __future__ import annotations

import html
import re

_ASCII_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")


def escape(text: str) -> str:
    """``text`` as Markdown that shows exactly ``text``: every ASCII punctuation mark escaped,
    line breaks as spaces (a line of its own could start a heading, list or table)."""
    return _ASCII_PUNCTUATION.sub(r"\\\1", " ".join(str(text).splitlines()))


def plotly_text(text: str) -> str:
    """``text`` for a Plotly title or label: its HTML-like tags shown, not followed."""
    return html.escape(str(text), quote=False)
