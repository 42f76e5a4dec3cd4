"""A resumable store of finished cells: one small JSON file per cell.

Why one file per cell rather than an append-only JSONL log: a cell is written to a temporary
file in the same folder, flushed to disk, then renamed over its final name
(``os.replace``, atomic on POSIX and Windows). A run killed at any instant therefore leaves
every cell either complete or absent, never half-written, with no log to repair and no
record that depends on the ones before it; two processes writing different cells never
touch the same file. A file that is nonetheless damaged (disk error, a hand edit, a
truncated copy) costs only that cell.

Every file carries a format tag, the cell's key and a SHA-256 of its key and result. On
reading, a file is trusted only if it parses, has our format tag, its key hashes to its
own file name, and its checksum matches; otherwise it is *reported* (``problems``) and
treated as missing, so the cell is computed again — a corrupt or foreign file is never
used. Files in the store that are not ours by name are reported and left untouched.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

__all__ = ["CellKey", "ResultStore", "FORMAT"]

#: Written into every cell file; a file without it is not ours.
FORMAT = "kernelviz-reproduce-cell/1"


@dataclass(frozen=True)
class CellKey:
    """What identifies a result: (paper, table, data set, split, model, cell, data, protocol).

    ``split`` names the outer split and the settings that shape it (e.g. ``"cv10-seed0"``,
    ``"fold3/5-seed0"``); ``cell`` names the parameter cell or the grid within it.

    ``data`` is the SHA-256 of the arrays the cell was computed on
    (:func:`kernelviz.reproduce.datasets.digest`) and ``protocol`` the settings that shape every
    result (:meth:`kernelviz.reproduce.runner.Settings.fingerprint`). Without them a key named
    only the row, so a run on another file under the same row name, or with other settings the
    split and cell names do not spell out, read the earlier run's results and reported them as
    its own. ``code`` is the version of the code that computed the cell
    (:func:`kernelviz._codeversion.code_version`): a cell of other code is another
    computation's, so it is never read for this one. Keys of stores written before these fields
    existed have them empty, and their digest leaves empty fields out, so such files keep their
    names and still read as cells; no run asks for them again, since every run's keys carry all
    three: they are stale, and their cells are computed again.
    """

    paper: str
    table: str
    dataset: str
    split: str
    model: str
    cell: str
    data: str = ""
    protocol: str = ""
    code: str = ""

    def digest(self) -> str:
        fields = {name: value for name, value in asdict(self).items() if value != "" or name not in _ADDED}
        return hashlib.sha256(_canonical(fields).encode()).hexdigest()[:32]


#: Fields added to CellKey after cells were first stored; left out of the digest when empty.
_ADDED = ("data", "protocol", "code")


_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def _numbers(text):
    """The text with its numbers taken out, and the numbers."""
    return _NUMBER.sub("#", text), [float(v) for v in _NUMBER.findall(text)]


def _close(a, b):
    return a[0] == b[0] and len(a[1]) == len(b[1]) and all(
        x == y or abs(x - y) <= 1e-12 * max(abs(x), abs(y)) for x, y in zip(a[1], b[1]))


def _canonical(value) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=True)


def _checksum(key: dict, result: dict) -> str:
    return hashlib.sha256(_canonical({"key": key, "result": result}).encode()).hexdigest()


def _safe(part: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in part) or "_"


class ResultStore:
    """Cells on disk under ``root``: ``root/<paper>/<table>/<data set>/<digest>.json``.

    Parameters
    ----------
    root : str or Path
        The folder (created when the first cell is written).
    on_problem : callable, optional
        Called with a one-line description of each untrustworthy file met; the lines are
        also kept in :attr:`problems`.
    """

    def __init__(self, root, on_problem=None):
        self.root = Path(root)
        self.on_problem = on_problem
        self.problems = []
        self.written = 0  # cells this object has written (what an interrupted run says it kept)

    def _path(self, key: CellKey) -> Path:
        return self.root / _safe(key.paper) / _safe(key.table) / _safe(key.dataset) / f"{key.digest()}.json"

    def _report(self, path, reason):
        line = f"{path}: {reason}; skipped (the cell will be computed again)"
        if line not in self.problems:
            self.problems.append(line)
            if self.on_problem is not None:
                self.on_problem(line)

    def _read(self, path: Path, expected: CellKey | None = None):
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            self._report(path, f"not readable JSON ({type(exc).__name__})")
            return None
        if not isinstance(record, dict) or record.get("format") != FORMAT:
            self._report(path, "not a kernelviz result (no or another format tag)")
            return None
        try:
            key = CellKey(**record["key"])
            result, checksum = record["result"], record["sha256"]
        except (KeyError, TypeError):
            self._report(path, "a kernelviz result with missing fields")
            return None
        if f"{key.digest()}.json" != path.name or (expected is not None and key != expected):
            self._report(path, "its key does not match its file name (moved or copied from elsewhere)")
            return None
        if _checksum(record["key"], result) != checksum:
            self._report(path, "checksum mismatch (the file was changed or damaged)")
            return None
        return key, result

    def get(self, key: CellKey):
        """The stored result of ``key``, or None when absent or not trustworthy."""
        path = self._path(key)
        if not path.exists():
            return None
        found = self._read(path, key)
        return None if found is None else found[1]

    def put(self, key: CellKey, result: dict) -> None:
        """Write ``result`` (a JSON-serialisable dict) for ``key``, atomically."""
        key_dict = asdict(key)
        record = {"format": FORMAT, "key": key_dict, "result": result, "sha256": _checksum(key_dict, result)}
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=".tmp-", suffix=".json", dir=path.parent)
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                stream.write(json.dumps(record, allow_nan=True))
                stream.flush()
                os.fsync(stream.fileno())
            os.replace(temporary, path)
            self.written += 1
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise

    def get_close(self, key: CellKey):
        """The stored result whose key equals ``key`` but for numbers in its ``cell`` text that are
        equal to within 1e-12 relative, or None. Only for reading cells of earlier code
        (``Settings.earlier_code``): another numpy printed ``logspace(-5, 2, 8)[0]`` as
        9.999999999999999e-06 where today's prints 1e-05, and the keys spell the grid in text.
        The folder's keys are read once and kept."""
        folder = self._path(key).parent
        if not hasattr(self, "_folders"):
            self._folders = {}
        if folder not in self._folders:
            found = {}
            for path in folder.glob("*.json") if folder.is_dir() else ():
                read = self._read(path)
                if read is not None:
                    found[read[0]] = read[1]
            self._folders[folder] = found
        wanted = _numbers(key.cell)
        for other, result in self._folders[folder].items():
            if dataclasses.replace(other, cell=key.cell) == key and _close(_numbers(other.cell), wanted):
                return result
        return None

    def get_or_compute(self, key: CellKey, compute):
        """The stored result of ``key``, or ``compute()``'s, stored as soon as it returns."""
        result = self.get(key)
        if result is None:
            result = compute()
            self.put(key, result)
        return result

    def scan(self):
        """Every trustworthy cell as ``{CellKey: result}``; untrustworthy files go to :attr:`problems`.

        Temporary files of a write that was interrupted (``.tmp-*``) are not results and are
        ignored silently: they never replaced a cell.
        """
        cells = {}
        if not self.root.exists():
            return cells
        for path in sorted(self.root.rglob("*")):
            if path.is_dir() or path.name.startswith(".tmp-"):
                continue
            if path.suffix != ".json" or len(path.stem) != 32:
                self._report(path, "not a result file of this store (unexpected name)")
                continue
            found = self._read(path)
            if found is not None:
                cells[found[0]] = found[1]
        return cells
