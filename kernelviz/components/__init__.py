"""Streamlit custom components of the app (front-end files ship inside the package: no CDN)."""

from __future__ import annotations

import re
from pathlib import Path

#: ``import { a, b } from "./x.js";`` — a component's import of a module of its own package.
_IMPORT = re.compile(r'^import\s*\{[^}]*\}\s*from\s*"(\.{1,2}/[\w./-]+\.js)";\s*$', re.MULTILINE)
_EXPORT = re.compile(r"^export (?=(const|function|let|class) )", re.MULTILINE)


def module_text(path: Path) -> str:
    """The text Streamlit receives for the component module at ``path``: each module it imports, and
    each module those import, put in place of the first import of it (later ones go: a module is
    put in once).

    Streamlit takes a component's JavaScript as one text, which cannot import a file beside it;
    the files stay ES modules, so the JS unit tests (node --test) import them as they are. An
    imported module's own exports become plain declarations: only the component's default export
    is the component's.
    """
    path = Path(path).resolve()
    inlined: set[Path] = set()

    def text_of(module: Path, importers: tuple[Path, ...]) -> str:
        def inline(match: re.Match) -> str:
            imported = (module.parent / match.group(1)).resolve()
            if imported in importers or imported == module:
                raise ValueError(f"{imported.name} and {module.name} import each other: they cannot be put in place")
            if imported in inlined:
                return ""
            inlined.add(imported)
            return _EXPORT.sub("", text_of(imported, importers + (module,)))

        return _IMPORT.sub(inline, module.read_text(encoding="utf-8"))

    text = text_of(path, ())
    if re.search(r"^import\b", text, re.MULTILINE):
        raise ValueError(f"{path.name} has an import that cannot be put in place")
    return text
