"""Streamlit custom components of the app (front-end files ship inside the package: no CDN)."""

from __future__ import annotations

import re
from pathlib import Path

#: ``import { a, b } from "./x.js";`` — a component's import of a module of its own package.
_IMPORT = re.compile(r'^import\s*\{[^}]*\}\s*from\s*"(\.{1,2}/[\w./-]+\.js)";\s*$', re.MULTILINE)
_EXPORT = re.compile(r"^export (?=(const|function|let|class) )", re.MULTILINE)


def module_text(path: Path) -> str:
    """The text Streamlit receives for the component module at ``path``: each module it imports
    (here, the shared points painter) put in place of its import.

    Streamlit takes a component's JavaScript as one text, which cannot import a file beside it;
    the files stay ES modules, so the JS unit tests (node --test) import them as they are. An
    imported module's own exports become plain declarations: only the component's default export
    is the component's.
    """
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    inlined: set[Path] = set()

    def inline(match: re.Match) -> str:
        module = (path.parent / match.group(1)).resolve()
        if module in inlined:
            return ""
        inlined.add(module)
        body = module.read_text(encoding="utf-8")
        if _IMPORT.search(body):
            raise ValueError(f"{module.name} imports another module: only one level is put in place")
        return _EXPORT.sub("", body)

    text = _IMPORT.sub(inline, text)
    if re.search(r"^import\b", text, re.MULTILINE):
        raise ValueError(f"{path.name} has an import that cannot be put in place")
    return text
