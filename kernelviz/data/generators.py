"""Seeded toy data generators: blobs, moons, circles, XOR, spirals, anisotropic
Gaussians, the RWM paper's concentric classes and the MCPM paper's mixture."""

from __future__ import annotations

import math

import numpy as np

from .._validation import check_seed
from .dataset import MAX_ROWS

GENERATORS = {
    "blobs": {"n_samples": 300, "noise": 0.0, "n_classes": 2, "n_features": 2,
              "cluster_std": 1.0, "separation": 4.0},
    "moons": {"n_samples": 300, "noise": 0.1},
    "circles": {"n_samples": 300, "noise": 0.05, "factor": 0.5},
    "xor": {"n_samples": 400, "noise": 0.0, "cluster_std": 0.35},
    "spirals": {"n_samples": 400, "noise": 0.05, "n_arms": 2, "turns": 1.5},
    "anisotropic": {"n_samples": 300, "noise": 0.0, "n_classes": 2, "cluster_std": 0.3,
                    "stretch": 5.0, "angle": 30.0, "separation": 1.5},
    "concentric": {"n_samples": 800, "noise": 0.0, "n_features": 2,
                   "inner_variance": 0.07, "outer_variance": 1.93},
    "mixture": {"n_samples": 600, "noise": 0.0, "n_classes": 2, "clusters_per_class": 4,
                "n_features": 2, "cluster_std": 0.4, "extent": 4.0},
}
"""Generator name -> its parameters with their default values (ints are ints, floats
are floats, so a widget type can be read off the value). ``noise`` is always the
standard deviation of Gaussian jitter added to every coordinate."""

GENERATOR_DESCRIPTIONS = {
    "blobs": "Isotropic Gaussian blobs, one per class, centred on a circle of radius "
             "`separation`.",
    "moons": "Two interleaving half circles.",
    "circles": "Two concentric rings; the inner radius is `factor` times the outer one.",
    "xor": "Four Gaussian blobs at (±1, ±1); opposite corners share a class.",
    "spirals": "Interleaved spiral arms, one class per arm, each winding `turns` times.",
    "anisotropic": "Parallel elongated Gaussians (long axis `stretch` × `cluster_std`, "
                   "rotated by `angle` degrees), `separation` apart across their short "
                   "axis: a case for Mahalanobis distances.",
    "concentric": "A tight Gaussian class inside a wide one, both centred at the origin "
                  "(the RWM paper's Fig. 1: variances 0.07 and 1.93).",
    "mixture": "A mixture of randomly placed and shaped Gaussians, `clusters_per_class` "
               "per class, centres uniform in [-extent, extent]^d (the MCPM paper's toy).",
}
"""Generator name -> one sentence for the app."""

PARAMETER_LIMITS = {
    "n_samples": (int, 2, MAX_ROWS, False),
    "noise": (float, 0.0, math.inf, False),
    "n_classes": (int, 2, 20, False),
    "n_features": (int, 1, 100, False),  # with MAX_ROWS: at most MAX_CELLS values
    "cluster_std": (float, 0.0, math.inf, True),
    "separation": (float, 0.0, math.inf, False),
    "factor": (float, 0.0, 1.0, True),
    "n_arms": (int, 2, 10, False),
    "turns": (float, 0.0, 10.0, True),
    "stretch": (float, 1.0, math.inf, False),
    "angle": (float, -math.inf, math.inf, False),
    "inner_variance": (float, 0.0, math.inf, True),
    "outer_variance": (float, 0.0, math.inf, True),
    "clusters_per_class": (int, 1, 100, False),
    "extent": (float, 0.0, math.inf, False),
}
"""Generator parameter -> (type, lowest, highest, whether the lowest value itself is
excluded); :func:`make` enforces these, the app can use them as widget bounds."""


def make(kind, n_samples=None, noise=None, random_state=0, **params):
    """Generate a toy data set.

    Parameters
    ----------
    kind : str
        One of ``GENERATORS``: "blobs", "moons", "circles", "xor", "spirals",
        "anisotropic", "concentric", "mixture".
    n_samples : int, optional
        Total number of points, split as evenly as possible between the classes.
        Default: the generator's own (``GENERATORS[kind]["n_samples"]``).
    noise : float, optional
        Standard deviation of Gaussian jitter added to every coordinate. Default: the
        generator's own.
    random_state : int or None, default=0
        Seed; the same seed gives the same data. ``None`` draws a fresh seed.
    **params
        The generator's other parameters (see ``GENERATORS[kind]`` for the names and
        defaults, ``GENERATOR_DESCRIPTIONS[kind]`` for what they do).

    Returns
    -------
    X : ndarray of shape (n_samples, d)
    y : ndarray of shape (n_samples,)
        Float labels 0, 1, …, K - 1, in shuffled order.
    """
    if kind not in GENERATORS:
        raise ValueError(f"Unknown generator {kind!r}; choose one of: {', '.join(GENERATORS)}.")
    unknown = sorted(set(params) - set(GENERATORS[kind]))
    if unknown:
        valid = ", ".join(GENERATORS[kind])
        raise ValueError(
            f"Generator {kind!r} has no parameter {', '.join(map(repr, unknown))}; its "
            f"parameters are: {valid}."
        )
    settings = dict(GENERATORS[kind])
    settings.update(params)
    if n_samples is not None:
        settings["n_samples"] = n_samples
    if noise is not None:
        settings["noise"] = noise
    settings = {key: _check_parameter(kind, key, value) for key, value in settings.items()}
    n_samples = settings.pop("n_samples")
    noise = settings.pop("noise")
    n_classes = settings.get("n_classes", settings.get("n_arms", 2))
    if n_samples < n_classes:
        raise ValueError(
            f"n_samples={n_samples} is too few for {n_classes} classes; give at least one "
            "point per class."
        )
    rng = np.random.default_rng(check_seed(random_state))
    class_sizes = _even_split(n_samples, n_classes)
    per_class = _GENERATOR_FUNCTIONS[kind](rng, class_sizes, **settings)
    X = np.concatenate(per_class)
    y = np.concatenate([np.full(len(points), float(c)) for c, points in enumerate(per_class)])
    if noise > 0:
        X = X + rng.normal(scale=noise, size=X.shape)
    order = rng.permutation(len(X))
    return X[order], y[order]


def _check_parameter(kind, key, value):
    kind_of, low, high, low_excluded = PARAMETER_LIMITS[key]
    problem = None
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        problem = "must be a number"
    elif not math.isfinite(value):
        problem = "must be finite"
    elif kind_of is int and not float(value).is_integer():
        problem = "must be a whole number"
    elif value < low or value > high or (low_excluded and value == low):
        lower = f"> {low}" if low_excluded else f">= {low}"
        problem = f"must be {lower}" + (f" and <= {high}" if math.isfinite(high) else "")
    if problem:
        raise ValueError(f"Generator {kind!r}: {key}={value!r} {problem}.")
    return kind_of(value)


def _even_split(total, parts):
    """``parts`` integers summing to ``total``, differing by at most one."""
    return [total // parts + (i < total % parts) for i in range(parts)]


def _circle_points(count, n_features, radius):
    """``count`` points evenly on a circle in the first two coordinates (a line in 1-D)."""
    centres = np.zeros((count, n_features))
    if n_features == 1:
        centres[:, 0] = radius * np.linspace(-1, 1, count)
    else:
        angles = 2 * np.pi * np.arange(count) / count
        centres[:, 0] = radius * np.cos(angles)
        centres[:, 1] = radius * np.sin(angles)
    return centres


def _blobs(rng, sizes, n_classes, n_features, cluster_std, separation):
    centres = _circle_points(n_classes, n_features, separation)
    return [centre + cluster_std * rng.standard_normal((size, n_features))
            for centre, size in zip(centres, sizes)]


def _moons(rng, sizes):
    upper = rng.uniform(0, np.pi, sizes[0])
    lower = rng.uniform(0, np.pi, sizes[1])
    return [np.column_stack([np.cos(upper), np.sin(upper)]),
            np.column_stack([1 - np.cos(lower), 0.5 - np.sin(lower)])]


def _circles(rng, sizes, factor):
    rings = []
    for radius, size in zip((1.0, factor), sizes):
        angles = rng.uniform(0, 2 * np.pi, size)
        rings.append(radius * np.column_stack([np.cos(angles), np.sin(angles)]))
    return rings


def _xor(rng, sizes, cluster_std):
    corners = {0: [(1, 1), (-1, -1)], 1: [(-1, 1), (1, -1)]}
    classes = []
    for label, size in enumerate(sizes):
        parts = [np.array(corner) + cluster_std * rng.standard_normal((part, 2))
                 for corner, part in zip(corners[label], _even_split(size, 2))]
        classes.append(np.concatenate(parts))
    return classes


def _spirals(rng, sizes, n_arms, turns):
    arms = []
    for arm, size in enumerate(sizes):
        # radius grows linearly with the angle; start a little off the centre so the
        # arms do not all meet in one point
        t = rng.uniform(0.1, 1.0, size)
        angle = 2 * np.pi * (turns * t + arm / n_arms)
        arms.append(t[:, None] * np.column_stack([np.cos(angle), np.sin(angle)]))
    return arms


def _rotation(angle_degrees):
    a = np.deg2rad(angle_degrees)
    return np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])


def _anisotropic(rng, sizes, n_classes, cluster_std, stretch, angle, separation):
    rotation = _rotation(angle)
    axes = np.array([stretch * cluster_std, cluster_std])
    offsets = (np.arange(n_classes) - (n_classes - 1) / 2) * separation
    return [(np.array([0.0, offset]) + axes * rng.standard_normal((size, 2))) @ rotation.T
            for offset, size in zip(offsets, sizes)]


def _concentric(rng, sizes, n_features, inner_variance, outer_variance):
    return [np.sqrt(variance) * rng.standard_normal((size, n_features))
            for variance, size in zip((inner_variance, outer_variance), sizes)]


def _mixture(rng, sizes, n_classes, clusters_per_class, n_features, cluster_std, extent):
    classes = []
    for size in sizes:
        clusters = []
        for part in _even_split(size, clusters_per_class):
            centre = rng.uniform(-extent, extent, n_features)
            # a random orientation and axis lengths between 0.5 and 1.5 × cluster_std
            q, r = np.linalg.qr(rng.standard_normal((n_features, n_features)))
            rotation = q * np.sign(np.diag(r))
            axes = cluster_std * rng.uniform(0.5, 1.5, n_features)
            clusters.append(centre + (axes * rng.standard_normal((part, n_features))) @ rotation.T)
        classes.append(np.concatenate(clusters))
    return classes


_GENERATOR_FUNCTIONS = {
    "blobs": _blobs,
    "moons": _moons,
    "circles": _circles,
    "xor": _xor,
    "spirals": _spirals,
    "anisotropic": _anisotropic,
    "concentric": _concentric,
    "mixture": _mixture,
}
