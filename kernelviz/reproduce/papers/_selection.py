"""Random train/test partitions with model selection inside the training part (MCPM and
CKSVMNDA papers): each (partition, model) is one stored cell."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, StratifiedKFold, StratifiedShuffleSplit

from ... import data as _data
from ..runner import Measurement, require_folds
from ..store import CellKey


@dataclass(frozen=True)
class Column:
    """A table column: an estimator and the grid searched for it (empty: nothing to choose)."""

    estimator: object
    grid: dict


def partitions(y, n_train, repetitions, seed):
    """``repetitions`` stratified random (train, test) partitions with ``n_train`` training points."""
    splitter = StratifiedShuffleSplit(n_splits=repetitions, train_size=n_train, random_state=seed)
    return list(splitter.split(np.zeros(len(y)), y))


def _fit_and_score(column, X, y, train, test, inner_folds, seed, n_jobs):
    Xs = _data.scale(X, "zscore", fit_on=X[train])
    if column.grid:
        search = GridSearchCV(clone(column.estimator), column.grid, error_score="raise", n_jobs=n_jobs,
                              cv=StratifiedKFold(n_splits=inner_folds, shuffle=True, random_state=seed))
        model = search.fit(Xs[train], y[train]).best_estimator_
        chosen = {k: (v.item() if hasattr(v, "item") else v) for k, v in search.best_params_.items()}
    else:
        model, chosen = clone(column.estimator).fit(Xs[train], y[train]), {}
    result = {"accuracy": float(np.mean(model.predict(Xs[test]) == y[test])), "chosen": chosen,
              "capped_fits": int(np.any(getattr(model, "max_iter_reached_", False))), "fits": 1}
    if hasattr(model, "alpha_"):
        result["alpha"] = float(model.alpha_)
    return result


def run_partitions(context, paper, table_id, row, X, y, columns, splits, inner_folds, protocol, selection,
                   notes=(), variant=""):
    """One cell per (partition, column); returns the table's measurements for the row (a check
    experiment when ``variant`` names one)."""
    require_folds(y[splits[0][0]], inner_folds, paper, table_id, row, "inner CV folds (in the training part)")
    tracker = context.tracker(row + (f" ({variant})" if variant else ""), len(splits) * len(columns))
    seed = context.settings.seed
    out = []
    for name, column in columns.items():
        cells = []
        for r, (train, test) in enumerate(splits):
            key = CellKey(paper, table_id, row + (f"[{variant}]" if variant else ""), f"partition{r}/{len(splits)}-n{len(train)}+{len(test)}-seed{seed}",
                          name, repr(sorted((k, list(map(float, v))) for k, v in column.grid.items()))
                          + f"|inner={inner_folds}")
            cells.append(tracker.cell(context.store, key, lambda train=train, test=test, column=column:
                                      _fit_and_score(column, X, y, train, test, inner_folds, seed,
                                                     context.settings.n_jobs)))
        capped = sum(c["capped_fits"] for c in cells) / sum(c["fits"] for c in cells)
        metrics = ["accuracy"] + (["alpha"] if "alpha" in cells[0] else [])
        for metric in metrics:
            out.append(Measurement(paper, table_id, row, name, metric, [c[metric] for c in cells], protocol,
                                   selection, context.source(row), capped, variant=variant, notes=list(notes)))
    return out


def fmt(values):
    return "{" + ", ".join(f"{v:g}" for v in values) + "}"
