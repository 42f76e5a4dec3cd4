"""Streamlit custom components of the app (front-end files ship inside the package: no CDN)."""

from __future__ import annotations

import re
from pathlib import Path

#: ``import { a, b } from "./x.js";`` — an import of another module of the app's components, by a
#: path relative to the importing file.
_IMPORT = re.compile(r'^import\s*\{([^}]*)\}\s*from\s*"(\.{1,2}/[\w./-]+\.js)";[ \t]*$', re.MULTILINE)
#: ``export function f`` …: the declaration stays, without its ``export``.
_EXPORTED_DECLARATION = re.compile(r"^export (?=(?:const|function|let|class) +(\w+))", re.MULTILINE)
#: ``export { a, b };``: the names are declared in the module already, the list goes.
_EXPORT_LIST = re.compile(r"^export\s*\{([^}]*)\}[ \t]*;?[ \t]*(?:\n|\Z)", re.MULTILINE)
#: An import or export statement, a dynamic ``import(…)`` excepted (an expression, not a statement).
_STATEMENT = re.compile(r"^[ \t]*(?:import\b(?!\s*\()|export\b).*$", re.MULTILINE)
_DEFAULT_EXPORT = re.compile(r"^export default\b", re.MULTILINE)


def _names(listed: str, module: Path) -> set[str]:
    """The names of an import's or an export list's braces; a renaming (``a as b``) is refused:
    one text has one name for each declaration."""
    names = {name.strip() for name in listed.split(",") if name.strip()}
    renamed = sorted(name for name in names if not re.fullmatch(r"\w+", name))
    if renamed:
        raise ValueError(f"{module.name} renames {', '.join(renamed)}: one text cannot hold two names of a declaration")
    return names


def module_text(path: Path) -> str:
    """The text Streamlit receives for the component module at ``path``: the modules it imports put
    in place of their imports, recursively.

    Streamlit takes a component's JavaScript as one text, which cannot import a file beside it;
    the files stay ES modules, so the JS unit tests (node --test) import them as they are. A module
    is put in place of the first import of it met, depth first, so each stands once and after the
    modules it imports (a top-level ``const`` may use what they declare); a later import of it is
    dropped. Every module's exports become plain declarations: only the component's default export
    is the component's. All the modules share one scope, so their top-level names must differ.

    Raises ValueError for what one text cannot hold: modules that import each other (a cycle), an
    import of a file that is not there or of a name the module does not export, a renaming, a
    default export of an imported module, and any other import or export statement (a default or
    namespace import, a bare specifier, ``export … from``).
    """
    entry = Path(path).resolve()
    exports: dict[Path, set[str]] = {}  # of every module put in place so far

    def text_of(module: Path, importers: tuple[Path, ...]) -> str:
        source = module.read_text(encoding="utf-8")
        exported = set(_EXPORTED_DECLARATION.findall(source))
        for listed in _EXPORT_LIST.findall(source):
            exported |= _names(listed, module)
        if module != entry and _DEFAULT_EXPORT.search(source):
            raise ValueError(f"{module.name} has a default export: only the component's own module may")
        text = _EXPORT_LIST.sub("", _EXPORTED_DECLARATION.sub("", source))
        for statement in _STATEMENT.findall(_IMPORT.sub("", text)):
            if not (module == entry and _DEFAULT_EXPORT.match(statement)):
                raise ValueError(f"{module.name} has an import or export that cannot be put in place: {statement.strip()}")
        chain = (*importers, module)

        def put_in_place(match: re.Match) -> str:
            imported = (module.parent / match.group(2)).resolve()
            if imported in chain:
                cycle = " → ".join(p.name for p in (*chain[chain.index(imported):], imported))
                raise ValueError(f"import cycle {cycle}: one text cannot hold modules that import each other")
            if not imported.is_file():
                raise ValueError(f"{module.name} imports {match.group(2)}, which is not there")
            body = ""
            if imported not in exports:
                body = text_of(imported, chain)
            missing = sorted(_names(match.group(1), module) - exports[imported])
            if missing:
                raise ValueError(f"{module.name} imports {', '.join(missing)} from {imported.name}, which does not export it")
            return body

        text = _IMPORT.sub(put_in_place, text)
        exports[module] = exported
        return text

    return text_of(entry, ())
