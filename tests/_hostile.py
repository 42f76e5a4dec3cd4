"""Hostile text for the property-based tests of every place outside text reaches: file, column
and class names, link values.

Each example is built from fragments an attacker or an unlucky file would bring — quotes,
triple quotes, newlines, ``\\N{…}``, backslashes, Markdown, HTML, bare addresses, e-mail
addresses, bidirectional controls — glued by arbitrary text, sometimes repeated to
10,000 characters.
"""

from __future__ import annotations

from hypothesis import strategies as st

FRAGMENTS = (
    '"', "'", '"""', "'''", "\n", "\r\n", "\\N{y}", "\\", "\\x41", "{", "}", "%s", "{0}",
    "[fix](https://evil.example)", "![i](https:evil.example)", "**b**", "_i_", "`code`", "# heading", "- item",
    "<img src=x onerror=alert(1)>", "<script>alert(1)</script>", "</script>", "<a href='https://evil.example'>a</a>",
    "see https://evil.example/fix now", "www.evil.example", "mail@evil.example", "mailto:a@b.co",
    "<https://e.example>", "javascript:alert(1)", ":red[alarm]", ":material/home:", "$x^2$", "&amp;", "&#60;b&#62;",
    "\u202e", "\u2066", "\u200f", "\x00", "\x1b[31m", "\t", "| a | b |", "x\"\"\"and __import__('os').system('touch PWNED')or\"\"\"",
    "ü", "漢字", "🙂", " ", ".", "..", "/", "C:\\", "?", "#", "&", "=", "%22",
)

#: Outside text: one to eight fragments and free text, sometimes repeated to 10,000 characters.
hostile_text = st.one_of(
    st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=8)), min_size=1, max_size=8).map("".join),
    st.sampled_from(FRAGMENTS).map(lambda f: (f * (10_000 // len(f) + 1))[:10_000]),
)
