"""Data for the reproductions: a bundled name, a generator, or a CSV / LIBSVM path.

Breiman's twonorm, ringnorm and waveform (Breiman, *Bias, variance and arcing
classifiers*, 1996) are not files but distributions; the generators below follow his
definitions, as used by Rätsch's benchmark collection that the CKSVMNDA and MCPM papers
draw on. ``ripley-all`` is Ripley's training and test files together (the 1250 points the
RWM paper cross-validates over).
"""
from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from .. import data as _data

__all__ = ["GENERATORS", "resolve", "twonorm", "ringnorm", "waveform", "describe_source", "digest"]

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
