"""Data for the reproductions: a bundled name, a generator, or a CSV / LIBSVM path.

Breiman's twonorm, ringnorm and waveform (Breiman, *Bias, variance and arcing
classifiers*, 1996) are not files but distributions; the generators below follow his
definitions, as used by Rätsch's benchmark collection that the CKSVMNDA and MCPM papers
draw on. ``ripley-all`` is Ripley's training and test files together (the 1250 points the
RWM paper cross-validates over).
"""
from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .. import data as _data
from ..data import io as _io

__all__ = ["GENERATORS", "FileSpec", "datasets_folder", "resolve", "twonorm", "ringnorm", "waveform",
           "describe_source", "digest"]

#: The variable naming the folder of the benchmark files (default: ``shared/datasets`` beside the
#: repository, where the project keeps them with their provenance in ``SOURCES.md``).
DATASETS_VARIABLE = "KERNELVIZ_DATASETS"


def datasets_folder() -> Path:
    """Where the benchmark files of :class:`FileSpec` sources are looked for."""
    chosen = os.environ.get(DATASETS_VARIABLE, "").strip()
    return Path(chosen) if chosen else Path(__file__).resolve().parents[3] / "shared" / "datasets"


@dataclass(frozen=True)
class FileSpec:
    """A benchmark data set read from public files by the general reader
    (:func:`kernelviz.data.io.read_table`): which files, and the reader's options, and what a
    report should say about the columns (``about``: identifiers kept or dropped, edits).

    ``files`` are names in :func:`datasets_folder`; ``options`` go to ``read_table``.
    """

    files: tuple
    options: dict = field(default_factory=dict, hash=False, compare=False)
    about: str = ""

    def paths(self):
        return [datasets_folder() / f for f in self.files]

    def missing(self):
        """The files that are not there (a reason the row is not run)."""
        return [str(p) for p in self.paths() if not p.is_file()]

    def __str__(self):
        return "+".join(self.files)

_TWONORM_DIM = 20


def twonorm(n_samples, random_state=0):
    """Two 20-d unit-covariance Gaussians with means ±(a, …, a), a = 2/√20; balanced classes ±1."""
    rng = np.random.default_rng(random_state)
    y = np.where(np.arange(n_samples) % 2 == 0, 1.0, -1.0)
    a = 2.0 / np.sqrt(_TWONORM_DIM)
    X = rng.standard_normal((n_samples, _TWONORM_DIM)) + (y * a)[:, None]
    return X, y


def ringnorm(n_samples, random_state=0):
    """Class +1: N(0, 4 I); class −1: N((a, …, a), I), a = 1/√20; 20-d, balanced."""
    rng = np.random.default_rng(random_state)
    y = np.where(np.arange(n_samples) % 2 == 0, 1.0, -1.0)
    Z = rng.standard_normal((n_samples, _TWONORM_DIM))
    X = np.where((y > 0)[:, None], 2.0 * Z, Z + 1.0 / np.sqrt(_TWONORM_DIM))
    return X, y


def waveform(n_samples, random_state=0):
    """Breiman's 21-d waveform: each class a random convex mix of two of three triangular waves plus
    unit noise; two classes as in Rätsch's copy: class 1 (+1) against classes 2 and 3 merged (−1)."""
    rng = np.random.default_rng(random_state)
    t = np.arange(1, 22)
    waves = np.maximum(6 - np.abs(t[None, :] - np.array([[11], [15], [7]])), 0).astype(float)
    pairs = ((0, 1), (0, 2), (1, 2))
    classes = rng.integers(0, 3, n_samples)
    u = rng.random(n_samples)[:, None]
    first = waves[[pairs[c][0] for c in classes]]
    second = waves[[pairs[c][1] for c in classes]]
    X = u * first + (1 - u) * second + rng.standard_normal((n_samples, 21))
    return X, np.where(classes == 0, 1.0, -1.0)


#: name -> (generator, number of points the benchmark draws): sized as Rätsch's realisations.
GENERATORS = {
    "twonorm": (twonorm, 7400),
    "ringnorm": (ringnorm, 7400),
    "waveform": (waveform, 5000),
}


def _ripley_all():
    train, test = _data.load("ripley"), _data.load("ripley-test")
    return _data.Dataset(X=np.vstack([train.X, test.X]), y=np.concatenate([train.y, test.y]), name="ripley-all",
                         feature_names=list(train.feature_names))


def resolve(source, random_state=0, n_samples=None):
    """The labeled points of ``source``: a generator, ``ripley-all``, a bundled sample or a file path.

    Returns
    -------
    X : ndarray (n, d), y : ndarray (n,), name : str

    Raises
    ------
    ValueError
        When the source is none of those, or has points without a label.
    """
    if isinstance(source, FileSpec):
        absent = source.missing()
        if absent:
            raise ValueError(f"{', '.join(absent)} not found: the benchmark files are looked for in "
                             f"{datasets_folder()} (set {DATASETS_VARIABLE} to the folder that holds them).")
        if all(f.endswith(".libsvm") for f in source.files) and len(source.files) == 1:
            ds = _data.read(source.paths()[0])
        else:
            ds, _ = _io.read_table(source.paths(), **source.options)
        return ds.X, ds.y, ds.name
    source = str(source)
    if source in GENERATORS:
        generate, default_size = GENERATORS[source]
        X, y = generate(n_samples or default_size, random_state=random_state)
        return X, y, source
    if source == "ripley-all":
        ds = _ripley_all()
    elif source in _data.samples():
        ds = _data.load(source)
    elif Path(source).is_file():
        ds = _data.read(source)
    else:
        raise ValueError(
            f"{source!r} is neither a bundled sample ({', '.join(_data.samples())}), a generator "
            f"({', '.join(GENERATORS)}, ripley-all) nor an existing CSV / LIBSVM file."
        )
    if ds.y is None or not ds.labeled_mask.all():
        raise ValueError(f"{source!r} has points without a label; the papers' protocols need every point labeled.")
    return ds.X, ds.y, ds.name


def describe_source(source):
    """How the report names where a data set came from."""
    if isinstance(source, FileSpec):
        if source.missing():
            return f"files {', '.join(source.files)} (not found in {datasets_folder()})"
        if source.files[0].endswith(".libsvm"):
            info = {"identifiers": [], "kept_rows": {}, "categorical": [], "missing_rows": 0}
        else:
            _, info = _io.read_table(source.paths(), **source.options)
        said = [f"file{'s' if len(source.files) > 1 else ''} {', '.join(source.files)} (../shared/datasets, "
                "provenance in its SOURCES.md)"]
        if info["identifiers"]:
            said.append(f"identifier column(s) {', '.join(info['identifiers'])} dropped")
        if info["kept_rows"]:
            said.append("rows where " + ", ".join(f"{c} = {v}" for c, v in info["kept_rows"].items()))
        if info["categorical"]:
            said.append(f"text attributes {', '.join(info['categorical'])} coded 0, 1, … in sorted order")
        if info["missing_rows"]:
            said.append(f"{info['missing_cells']} missing cell(s) in {info['missing_rows']} row(s) "
                        + ("imputed (median / most frequent value over all rows)" if info["imputed"]
                           else "dropped"))
        if source.about:
            said.append(source.about)
        return "; ".join(said)
    if source in GENERATORS:
        return f"generated ({source}, {GENERATORS[source][1]} points per draw)"
    if source == "ripley-all":
        return "bundled ripley + ripley-test (1250 points)"
    if source in _data.samples():
        return f"bundled sample {source!r}"
    return f"file {source}"


def digest(X, y):
    """SHA-256 (hex) of the points and labels a run uses: each array's dtype, shape and bytes.

    Why the arrays and not the source's name or file: a stored result belongs to the numbers it
    was computed on. A file edited in place, another file under the same row name, a different
    subset or draw — each gives other arrays and so another digest, and the store never hands
    back a result computed on other data. Labels that are not numbers (strings, objects) are
    hashed as text, since an object array's bytes are memory addresses.
    """
    sha = hashlib.sha256()
    for array in (np.asarray(X), np.asarray(y)):
        if array.dtype.kind in "OUS":
            array = array.astype(str)
        array = np.ascontiguousarray(array)
        sha.update(f"{array.dtype.str}{array.shape};".encode())
        sha.update(array.tobytes())
    return sha.hexdigest()
