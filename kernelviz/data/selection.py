"""Which labeled points keep their labels: all, a stratified fraction, k per class
at random, or k per class in the dense regions (the RWM paper's first experiment)."""

from __future__ import annotations

import warnings

import numpy as np

from .._validation import check_points, check_seed
from .dataset import UNLABELED
from .scaling import scale

SELECTIONS = ("all", "fraction", "per_class", "dense_per_class")

_DENSITY_FIT_POINTS = 1000  # most points the density model of "dense_per_class" is fitted on
_PEAK_RATIO = 20.0  # a density peak this many times lower than the class's highest is a fringe
_NEIGHBOURS = 10  # neighbours that vote on a point's class / set its neighbourhood radius
_HILL_POINTS = 2000  # only a class's densest points are sorted into hills; the picks come from them


def select_labeled(y, how, value=None, X=None, random_state=0, total=None):
    """Choose which labeled points keep their labels (the rest act as unlabeled).

    Parameters
    ----------
    y : array-like of shape (n,)
        Labels, ``UNLABELED`` for points without one (those are never selected).
    how : {"all", "fraction", "per_class", "dense_per_class"}
        * ``"all"``: every labeled point (``value`` is ignored).
        * ``"fraction"``: ``value`` in (0, 1]; stratified: in each class
          ``max(1, round(value × class size))`` points at random.
        * ``"per_class"``: ``value`` = k; k points at random in each class (all of a
          class that has fewer).
        * ``"dense_per_class"``: ``value`` = k; k points in each class lying in
          high-density regions, spread over them (needs ``X``; see Notes).
    value : float or int
        The fraction or k, as above.
    X : array-like of shape (n, d), optional
        The points; required for ``"dense_per_class"``.
    random_state : int, default=0
        Seed; the same seed gives the same selection.
    total : int, optional
        ``"dense_per_class"`` only: at least this many points. A class with fewer than k
        points gives all it has; the shortfall is made up by the densest points not yet
        chosen, of any class (the RWM paper asks for 4 × the number of classes in total).

    Returns
    -------
    ndarray of shape (n,), bool
        True for the points that keep their label (see :func:`hide_labels`).

    Notes
    -----
    ``"dense_per_class"`` follows the RWM paper's first experiment, where the few
    labeled points are taken where the density p(x) of the unsupervised mixture model
    is high. Here p(x) comes from a variational Bayesian Gaussian mixture
    (scikit-learn's ``BayesianGaussianMixture``, Dirichlet-process prior, at most ten
    components, full covariances) fitted on *all* points of ``X`` after z-scoring (a
    random 1000 of them when there are more); labels play no part in that fit.

    The picks should also be spread over the regions of a class rather than crowd
    into its single densest spot, and should not sit where another class dominates.
    So, for each class (among its 2000 densest points):

    1. Its *own* points are those where it is the most frequent label among the 10
       nearest labeled points.
    2. Each own point hangs from its nearest denser own point, unless that point is
       more than twice as far away as the point's 10th nearest neighbour (it then lies
       across a gap of low density). Points that hang from nothing are density peaks
       (as in Rodriguez & Laio's density-peak clustering); the points hanging, directly
       or not, from the same peak form a *hill*.
    3. Hills whose peak is at least 1/20 of the highest peak are the class's dense
       regions, visited in turn (densest peak first), each giving its densest
       not-yet-chosen point. Lower hills, then the class's points in another class's
       territory, are used only when the regions run out.

    With a single dense region (a tight core in a wide halo) the k picks are the k
    densest points of that core; with several, they sit at the peaks of up to k of
    them.
    """
    if y is None:
        raise ValueError("There are no labels to select from.")
    y = np.asarray(y, dtype=np.float64)
    if y.ndim != 1:
        raise ValueError(f"y must be 1-D; got shape {y.shape}.")
    if how not in SELECTIONS:
        raise ValueError(
            f"Unknown selection {how!r}; choose one of: {', '.join(SELECTIONS)}."
        )
    labeled = y != UNLABELED
    if how == "all":
        return labeled
    rng = np.random.default_rng(check_seed(random_state))
    classes = np.unique(y[labeled])
    if how == "fraction":
        if isinstance(value, bool) or not isinstance(value, (int, float, np.number)) \
                or not 0 < value <= 1:
            raise ValueError(f"The fraction of labeled points must be in (0, 1]; got {value!r}.")
    else:
        if isinstance(value, bool) or not isinstance(value, (int, float, np.number)) \
                or not float(value).is_integer() or value < 1:
            raise ValueError(
                f"The number of labeled points per class must be a whole number >= 1; "
                f"got {value!r}."
            )
        value = int(value)

    mask = np.zeros(len(y), dtype=bool)
    if how == "dense_per_class":
        if X is None:
            raise ValueError("Selecting points in dense regions needs the points X.")
        X = check_points(X, name="X", min_points=0, allow_1d=False)
        if len(X) != len(y):
            raise ValueError(f"X has {len(X)} points but y has {len(y)} labels.")
        # z-scores, so that no feature dominates the density or the distances
        Z = scale(X, "zscore")
        log_density = _mixture_log_density(Z, random_state)
        for label in classes:
            order = _dense_spread_order(Z, y, label, log_density)
            mask[order[:value]] = True
        if total is not None and mask.sum() < total:
            rest = np.flatnonzero(labeled & ~mask)
            rest = rest[np.argsort(-log_density[rest], kind="stable")]
            mask[rest[: total - int(mask.sum())]] = True
        return mask

    for label in classes:
        members = np.flatnonzero(y == label)
        if how == "fraction":
            count = max(1, round(value * len(members)))
        else:
            count = min(value, len(members))
        mask[rng.choice(members, size=count, replace=False)] = True
    return mask


def _mixture_log_density(Z, random_state):
    """log p(z) under a variational Bayesian Gaussian mixture fitted on Z."""
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.mixture import BayesianGaussianMixture
    from threadpoolctl import threadpool_limits

    # The fit's cost grows with n while a density ranking does not need every point.
    fit_points = Z
    if len(Z) > _DENSITY_FIT_POINTS:
        rng = np.random.default_rng(random_state)
        fit_points = Z[rng.choice(len(Z), _DENSITY_FIT_POINTS, replace=False)]
    n, d = fit_points.shape
    # enough points per component for a full covariance to be estimable
    n_components = max(1, min(10, n // (2 * (d + 1))))
    model = BayesianGaussianMixture(
        n_components=n_components,
        weight_concentration_prior_type="dirichlet_process",
        covariance_type="full",
        tol=1e-3,
        max_iter=100,
        random_state=random_state,
    )
    # A mixture that has not fully converged still ranks points by density. One BLAS /
    # OpenMP thread: on a busy machine spinning threads made this fit 50 times slower.
    with warnings.catch_warnings(), threadpool_limits(limits=1):
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(fit_points)
        return model.score_samples(Z)


def _dense_spread_order(Z, y, label, log_density):
    """Points of class ``label`` in the order ``dense_per_class`` picks them."""
    from sklearn.neighbors import NearestNeighbors

    members = np.flatnonzero(y == label)
    members = members[np.argsort(-log_density[members], kind="stable")]
    candidates = members[:_HILL_POINTS]

    labeled = np.flatnonzero(y != UNLABELED)
    n_votes = min(_NEIGHBOURS, len(labeled))
    voters = NearestNeighbors(n_neighbors=n_votes).fit(Z[labeled])
    votes = y[labeled][voters.kneighbors(Z[candidates], return_distance=False)]
    counts = np.stack([(votes == c).sum(axis=1) for c in np.unique(y[labeled])], axis=1)
    own = candidates[(votes == label).sum(axis=1) == counts.max(axis=1)]

    order = []
    if len(own):
        peak_of = own[_density_peaks(Z[own])]
        peaks = list(dict.fromkeys(peak_of))  # in density order, as ``own`` is
        highest = log_density[peaks[0]]
        hills = [own[peak_of == peak] for peak in peaks]  # each densest point first
        is_region = [log_density[peak] >= highest - np.log(_PEAK_RATIO) for peak in peaks]
        for wanted in (True, False):
            queues = [hill for hill, region in zip(hills, is_region) if region == wanted]
            for rank in range(max(map(len, queues), default=0)):
                order.extend(queue[rank] for queue in queues if rank < len(queue))
    chosen = set(order)
    order.extend(i for i in members if i not in chosen)  # the rest, densest first
    return np.array(order, dtype=int)


def _density_peaks(points):
    """For points sorted from dense to sparse, the index of the peak each hangs from."""
    from scipy.spatial.distance import cdist

    n = len(points)
    if n == 1:
        return np.zeros(1, dtype=int)
    distances = cdist(points, points)
    neighbour_radius = np.partition(distances, min(_NEIGHBOURS, n - 1), axis=1)[
        :, min(_NEIGHBOURS, n - 1)]
    # only denser points (earlier in the order) can be a parent
    distances[np.triu_indices(n)] = np.inf
    nearest_denser = np.argmin(distances, axis=1)
    gap = distances[np.arange(n), nearest_denser]
    parent = np.where(gap <= 2 * neighbour_radius, nearest_denser, np.arange(n))
    while True:  # pointer jumping: each pass halves the remaining path lengths
        grandparent = parent[parent]
        if np.array_equal(grandparent, parent):
            return parent
        parent = grandparent


def hide_labels(y, keep):
    """A copy of ``y`` with ``UNLABELED`` wherever ``keep`` is False.

    Parameters
    ----------
    y : array-like of shape (n,)
    keep : array-like of shape (n,), bool
        Typically the result of :func:`select_labeled`.
    """
    y = np.array(y, dtype=np.float64)
    keep = np.asarray(keep, dtype=bool)
    if keep.shape != y.shape:
        raise ValueError(f"keep has shape {keep.shape} but y has shape {y.shape}.")
    y[~keep] = UNLABELED
    return y
