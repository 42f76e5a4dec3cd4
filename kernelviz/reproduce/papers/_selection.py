"""Random train/test partitions with model selection inside the training part (MCPM and
CKSVMNDA papers): each (partition, model) is one stored cell."""
from __future__ import annotations

import time
from dataclasses import dataclass
from itertools import product

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import clone
from sklearn.model_selection import ParameterGrid, StratifiedKFold, StratifiedShuffleSplit

from ... import data as _data
from ... import evaluation as _evaluation
from ...models._base import fresh_stages
from ..runner import Measurement, class_counts, part, plain, require_folds


@dataclass(frozen=True)
class Column:
    """A table column: an estimator and the grid searched for it (empty: nothing to choose)."""

    estimator: object
    grid: dict


def partitions(y, n_train, repetitions, seed):
    """``repetitions`` stratified random (train, test) partitions with ``n_train`` training points."""
    splitter = StratifiedShuffleSplit(n_splits=repetitions, train_size=n_train, random_state=seed)
    return list(splitter.split(np.zeros(len(y)), y))


#: Parameters that only a model's later stages read, the last varying fastest: CKSVMNDA builds its
#: scatter matrices from (γ, κ), then Θ from η, then the SVM from C (docs/MATH.md §8.8), and keeps
#: each stage for the fits that follow (kernelviz.models.discriminant's stage memo).
LATE_PARAMETERS = ("eta", "C")


def _stage_order(grid):
    """``grid``'s candidates with :data:`LATE_PARAMETERS` varying fastest, and ``choose(scores)``
    (the candidates' mean scores, in that order): the index of the candidate read and the tied
    candidates' parameters, by :func:`kernelviz.evaluation.best_cell` over the grid's axes (C
    first, then the other names in sorted order; each axis in its grid's order): of the candidates
    with the best mean score, the one nearest the centre of their plateau. GridSearchCV's own rule,
    the first in its order, reads the smallest values of any plateau that reaches them.

    The order is for speed only (the choice does not depend on it)."""
    late = [k for k in LATE_PARAMETERS if k in grid]
    names = [k for k in sorted(grid) if k not in late] + late
    candidates = [dict(zip(names, values)) for values in product(*(grid[k] for k in names))]
    axes = (["C"] if "C" in grid else []) + [k for k in sorted(grid) if k != "C"]
    where = [tuple(_index(grid[k], c[k]) for k in axes) for c in candidates]

    def choose(scores):
        table = np.full([len(grid[k]) for k in axes], np.nan)
        for index, score in zip(where, scores):
            table[index] = score
        chosen, tied = _evaluation.best_cell(table)
        return where.index(chosen), [{k: plain(grid[k][i]) for k, i in zip(axes, t)} for t in tied]

    return candidates, choose


def _index(values, value):
    """The position of ``value`` in a grid's ``values``."""
    return next(i for i, v in enumerate(values) if v == value)


def _search(estimator, candidates, X, y, cv, n_jobs):
    """Each candidate's mean accuracy over ``cv``'s folds (GridSearchCV's ``mean_test_score``:
    a fresh clone per fit, ``score`` on the validation fold, the folds' plain mean).

    One fold at a time, every candidate in turn, where GridSearchCV runs each candidate over every
    fold: its order changes the fold at every fit, so a model's stage memo had to hold the stages
    of all folds at once, and on German's 560-point folds (about 18 MB of stages per fold and η)
    it held too few: each of a cell's 1,200 fits rebuilt its scatter matrices (about 320 s per
    cell). Fold by fold, each stage is built once per fold. Folds run in parallel with ``n_jobs``.
    """
    def fold_scores(train, test):
        return [clone(estimator).set_params(**params).fit(X[train], y[train]).score(X[test], y[test])
                for params in candidates]

    scores = Parallel(n_jobs=n_jobs)(delayed(fold_scores)(train, test) for train, test in cv.split(X, y))
    return np.mean(scores, axis=0)


def _fit_and_score(column, X, y, train, test, inner_folds, seed, n_jobs):
    """The column's accuracy on one partition, with its parameters chosen on the training part.

    The final model is fitted apart from the search, so that its training and its test are timed
    the same way for every column (the MCPM paper's time columns): CPU seconds of this process
    (``time.process_time``, which a loaded machine's other jobs do not inflate) for ``fit`` on the
    training part at the chosen parameters and for ``predict`` on the test part. Model selection
    is not counted, as the paper's times are those of one training; the timed fit computes every
    stage of it (:func:`kernelviz.models._base.fresh_stages`).
    """
    Xs = _data.scale(X, "zscore", fit_on=X[train])
    params, plateau = {}, []
    if column.grid:
        candidates, choose = _stage_order(column.grid)
        scores = _search(column.estimator, candidates, Xs[train], y[train],
                         StratifiedKFold(n_splits=inner_folds, shuffle=True, random_state=seed), n_jobs)
        index, plateau = choose(scores)
        params = candidates[index]
    chosen = {k: plain(v) for k, v in params.items()}
    model = clone(column.estimator).set_params(**params)
    with fresh_stages():  # its own training whole: no stage another column's fit left in a memo
        started = time.process_time()
        model.fit(Xs[train], y[train])
        fitted = time.process_time()
    predicted = model.predict(Xs[test])
    tested = time.process_time()
    result = {"accuracy": float(np.mean(predicted == y[test])), "chosen": chosen, "plateau": plateau,
              "predicted": class_counts(predicted),
              "capped_fits": int(np.any(getattr(model, "max_iter_reached_", False))), "fits": 1,
              "train_seconds": fitted - started, "test_seconds": tested - fitted}
    if hasattr(model, "alpha_"):
        result["alpha"] = float(model.alpha_)
    return result


def _estimator(column):
    """The column's estimator and its parameters, for the cell key: a changed parameter (clusters
    per class, a kernel's scale) is another protocol, whose cells are not this one's."""
    params = column.estimator.get_params(deep=False)
    return f"{type(column.estimator).__name__}({', '.join(f'{k}={params[k]!r}' for k in sorted(params))})"


def run_partitions(context, paper, table_id, row, X, y, columns, splits, inner_folds, protocol, selection,
                   notes=(), variant="", times=False):
    """One cell per (partition, column); returns the table's measurements for the row (a check
    experiment when ``variant`` names one). ``times``: also each column's training and test CPU
    seconds per partition (metrics ``train_seconds``, ``test_seconds``; :data:`TIME_METRICS`)."""
    require_folds(y[splits[0][0]], inner_folds, paper, table_id, row, "inner CV folds (in the training part)")
    # each cell's work is the candidates its column searches, for the progress estimate
    costs = {name: (len(splits), len(ParameterGrid(column.grid))) for name, column in columns.items()}
    tracker = context.tracker(row + (f" ({variant})" if variant else ""), len(splits) * len(columns), costs)
    seed = context.settings.seed
    # partition by partition, every column in each: by a tenth of the cells (ten partitions or more)
    # every column has run, and the time left is the measured columns' (a kernel MPM on 6,660 Twonorm
    # points costs about 20 times a cluster model's cell with as many candidates)
    by_column = {name: [] for name in columns}
    for r, (train, test) in enumerate(splits):
        for name, column in columns.items():
            key = context.key(row, paper=paper, table=table_id, dataset=row + (f"[{variant}]" if variant else ""),
                              split=f"partition{r}/{len(splits)}-n{len(train)}+{len(test)}-seed{seed}", model=name,
                              cell=repr(sorted((k, list(map(float, v))) for k, v in column.grid.items()))
                              + f"|inner={inner_folds}|{_estimator(column)}")
            by_column[name].append(tracker.cell(context.store, key, lambda train=train, test=test, column=column:
                                                _fit_and_score(column, X, y, train, test, inner_folds, seed,
                                                               context.settings.n_jobs)))
    out = []
    for name, cells in by_column.items():
        column = columns[name]
        capped = sum(c["capped_fits"] for c in cells) / sum(c["fits"] for c in cells)
        # cells of earlier code (read with Settings.earlier_code) recorded no times
        timed = times and all(TIME_METRICS[0] in c for c in cells)
        metrics = ["accuracy"] + (["alpha"] if "alpha" in cells[0] else []) + (list(TIME_METRICS) if timed else [])
        parts = [part([len(train)], [y[test]], c["predicted"], c["chosen"], c.get("plateau"))
                 for (train, test), c in zip(splits, cells)]
        for metric in metrics:
            out.append(Measurement(paper, table_id, row, name, metric, [c[metric] for c in cells], protocol,
                                   selection, context.source(row), capped, variant=variant, notes=list(notes),
                                   parts=parts, grid={k: list(v) for k, v in column.grid.items()}))
    return out


#: The per-partition times a cell records (CPU seconds of one fit and of one prediction).
TIME_METRICS = ("train_seconds", "test_seconds")


def fmt(values):
    return "{" + ", ".join(f"{v:g}" for v in values) + "}"
