"""Results that outlast a server: a folder of entries named by the specs' digests.

Grid searches and the live preview's lattices take seconds to minutes; kept only in one
server's memory they were gone after a restart, and a lecturer who computed the lessons before
class found them cold. :class:`DiskCache` keeps them in a folder shared by every session and
every server on the machine:

- **keyed by content and code**: a key is a digest of the specs a result depends on (the data's
  spec names uploaded or drawn points by their content), of :data:`FORMAT` and of the source of
  the modules that compute it, so a stored result is never reused for other data, nor read by
  other code;
- **bounded**: at most ``max_bytes`` (default :data:`DEFAULT_MAX_BYTES`); a write beyond it
  removes the least recently used entries (a hit touches its entry's time);
- **safe with several writers**: an entry is written to a file of its own and renamed into
  place (``os.replace`` is atomic), so a reader sees a whole entry or none; two servers that
  compute the same entry both write the same bytes; a file removed under a reader is a miss;
- **checked**: each entry carries a SHA-256 of its payload; a damaged or truncated entry is a
  miss, removed, and recomputed by the caller.

The folder is ``$KERNELVIZ_CACHE_DIR``, else ``~/.cache/kernelviz`` (``kernelviz --help`` shows
the one in use); ``KERNELVIZ_CACHE_BYTES`` sets the bound, and ``KERNELVIZ_CACHE_DIR=off``
switches the disk off (results then live in memory only). Entries are pickles: the folder is
trusted as the user's own files are (the app never reads a cache a visitor can upload into).
"""

from __future__ import annotations

import hashlib
import os
import pickle
import uuid
from pathlib import Path
from typing import Any, Callable

from kernelviz import _codeversion

#: Bumped whenever a stored entry's layout changes (the code computing it is in every key already), so that
#: older entries are never read as today's.
FORMAT = "kernelviz-cache-1"
#: The default bound on the folder's size.
DEFAULT_MAX_BYTES = 1 << 30
#: What starts every entry file; then 32 bytes of SHA-256 of the payload; then the payload.
MAGIC = b"KVCACHE1"
#: Entry files end with this; anything else in the folder (others' temporary files) is left alone.
SUFFIX = ".entry"
#: A write removes the least recently used entries until the folder is under this share of the bound,
#: so that every write does not scan the folder again.
LOW_WATER = 0.9


def default_folder() -> Path | None:
    """The folder of :data:`CACHE` from the environment; None when switched off."""
    setting = os.environ.get("KERNELVIZ_CACHE_DIR", "").strip()
    if setting.lower() == "off":
        return None
    if setting:
        return Path(setting).expanduser()
    base = os.environ.get("XDG_CACHE_HOME", "").strip() or Path.home() / ".cache"
    return Path(base) / "kernelviz"


def default_max_bytes() -> int:
    text = os.environ.get("KERNELVIZ_CACHE_BYTES", "").strip()
    if not text:
        return DEFAULT_MAX_BYTES
    try:
        value = int(text)
    except ValueError:
        raise ValueError(f"KERNELVIZ_CACHE_BYTES must be a whole number of bytes, not {text!r}.") from None
    if value <= 0:
        raise ValueError(f"KERNELVIZ_CACHE_BYTES must be positive, not {value}.")
    return value


def key(*parts: Any, code: str) -> str:
    """The key of a result that depends on ``parts`` (specs and plain values, stable ``repr``) and is
    computed by module ``code``: the key carries the version of the source of every module ``code``
    reaches (:func:`kernelviz._codeversion.code_version`), so a result stored by other code is never
    read — an edit to a kernel, the solver or a generator is a miss, not an old pickle read as new."""
    version = _codeversion.code_version(code, cells=False)
    return hashlib.sha256(repr((FORMAT, version) + parts).encode()).hexdigest()[:40]


class DiskCache:
    """A bounded folder of checked entries, least recently used out first.

    Parameters
    ----------
    folder : path or None
        Where the entries live (created on first write). None keeps nothing of its own.
    max_bytes : int
        The bound on the entries' total size.
    read_only : sequence of paths
        Folders of entries read after ``folder`` and never written nor evicted: the entries
        shipped with the package (:data:`SHIPPED`, the lessons' grid searches).
    """

    def __init__(self, folder: str | os.PathLike | None, max_bytes: int = DEFAULT_MAX_BYTES,
                 read_only: tuple = ()):
        if max_bytes <= 0:
            raise ValueError(f"The cache's size bound must be positive, not {max_bytes}.")
        self.folder = None if folder is None else Path(folder)
        self.max_bytes = int(max_bytes)
        self.read_only = tuple(Path(f) for f in read_only if self.folder is None or Path(f) != self.folder)

    def _path(self, name: str, folder: Path | None = None) -> Path:
        if len(name) < 8 or not all(c in "0123456789abcdef" for c in name):
            raise ValueError(f"A cache key is a hexadecimal digest (kernelviz._diskcache.key), not {name!r}.")
        return (folder or self.folder) / f"{name}{SUFFIX}"

    def get(self, name: str, default: Any = None) -> Any:
        """The entry ``name``, or ``default`` when there is none or it is damaged (then removed
        from the writable folder)."""
        missing = object()
        if self.folder is not None:
            value = self._read(self._path(name), writable=True, default=missing)
            if value is not missing:
                return value
        for folder in self.read_only:
            value = self._read(self._path(name, folder), writable=False, default=missing)
            if value is not missing:
                return value
        self._path(name, Path("."))  # a bad key is refused even when no folder is set
        return default

    def _read(self, path: Path, writable: bool, default: Any) -> Any:
        try:
            blob = path.read_bytes()
        except OSError:
            return default
        payload = blob[len(MAGIC) + 32:]
        if blob[:len(MAGIC)] != MAGIC or hashlib.sha256(payload).digest() != blob[len(MAGIC):len(MAGIC) + 32]:
            if writable:
                self._remove(path)
            return default
        try:
            value = pickle.loads(payload)
        except Exception:  # noqa: BLE001 -- a class renamed since it was stored: recomputed like a damaged entry
            if writable:
                self._remove(path)
            return default
        if writable:
            try:
                os.utime(path)  # least recently *used*: a hit makes the entry young again
            except OSError:
                pass
        return value

    def put(self, name: str, value: Any) -> None:
        """Store ``value`` as entry ``name`` (atomically), then keep the folder within its bound.

        A folder that cannot be written (read-only, full) costs the result's persistence, never
        the result: the error is swallowed and the caller goes on with its value.
        """
        if self.folder is None:
            return
        path = self._path(name)
        payload = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        blob = MAGIC + hashlib.sha256(payload).digest() + payload
        if len(blob) > self.max_bytes:
            return  # larger than the whole cache: kept in memory only
        temporary = self.folder / f".{name}.{os.getpid()}.{uuid.uuid4().hex}.tmp"
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            temporary.write_bytes(blob)
            os.replace(temporary, path)
        except OSError:
            self._remove(temporary)
            return
        self.evict()

    def get_or_compute(self, name: str, compute: Callable[[], Any]) -> Any:
        """The entry ``name``; computed by ``compute()`` and stored when missing or damaged."""
        missing = object()
        value = self.get(name, missing)
        if value is missing:
            value = compute()
            self.put(name, value)
        return value

    def entries(self) -> list[tuple[Path, int, float]]:
        """(path, size, last use) of every entry, oldest use first."""
        if self.folder is None or not self.folder.is_dir():
            return []
        found = []
        for path in self.folder.glob(f"*{SUFFIX}"):
            try:
                stat = path.stat()
            except OSError:  # removed by another server meanwhile
                continue
            found.append((path, stat.st_size, stat.st_mtime))
        return sorted(found, key=lambda entry: entry[2])

    def size(self) -> int:
        return sum(size for _, size, _ in self.entries())

    def evict(self) -> int:
        """Remove least recently used entries while the folder is over its bound; how many went."""
        entries = self.entries()
        total = sum(size for _, size, _ in entries)
        if total <= self.max_bytes:
            return 0
        removed = 0
        for path, size, _ in entries:
            if total <= LOW_WATER * self.max_bytes:
                break
            if self._remove(path):
                removed += 1
            total -= size  # gone, by us or by another server
        return removed

    @staticmethod
    def _remove(path: Path) -> bool:
        try:
            path.unlink()
            return True
        except OSError:
            return False


#: Entries shipped with the package, read after the user's folder: the lessons' grid searches, made
#: by ``kernelviz --cache-dir kernelviz/shipped_cache warm --lessons --searches-only`` (tests/test_teach.py checks
#: that every heavy lesson step finds its searches here, and recomputes one).
SHIPPED = Path(__file__).with_name("shipped_cache")


def open_default() -> DiskCache:
    """The cache of the environment's folder and bound (:func:`default_folder`, ``KERNELVIZ_CACHE_BYTES``),
    with the package's shipped entries behind it."""
    return DiskCache(default_folder(), default_max_bytes(), read_only=(SHIPPED,))


#: The process's cache, read from the environment at first use (tests point it at a folder of their own).
CACHE: DiskCache | None = None


def cache() -> DiskCache:
    global CACHE
    if CACHE is None:
        CACHE = open_default()
    return CACHE
