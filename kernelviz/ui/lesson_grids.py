"""The lessons' grid searches, computed once before release and shipped with the package.

The heavy lesson steps (a Grid search or P_f(α) view: rbf-basics 6, ckrbf 5–6, rwm 7) each
need one to three grid searches of 49 cells × 5 folds — 16 s to over two minutes on the
shared 2-core machine. A lesson has to come up within a few seconds, so their fold scores are
computed by ``python -m kernelviz.ui.lesson_grids`` and stored in ``lesson_grids.npz`` next to
this file. The app takes a stored grid only when every setting the search depends on equals
the step's (:func:`store_key`), so a visitor who changes a setting gets a fresh search, and
``tests/test_teach.py`` recomputes one stored grid and compares it cell by cell.

Nothing here imports Streamlit.
"""

from __future__ import annotations

import functools
import hashlib
import json
import sys
from pathlib import Path
from typing import Any, Mapping

import numpy as np

import kernelviz as kv
from kernelviz import lessons, pipeline, registry

STORE = Path(__file__).with_name("lesson_grids.npz")

#: The fields of a ``kv.evaluation.GridResult`` that are stored; the rest are rebuilt on load.
FIELDS = ("Cs", "gammas", "fold_scores", "capped_folds")
#: The Keerthi–Lin path is rebuilt from its linear SVM's best C̃ alone (stored as ``KEY/C_tilde``,
#: absent when the line misses the grid): the linear SVM's cross-validation over every C is the
#: slow part of the path (about 4 s on fourclass), and with C̃ given only its one C is refitted.
PATH_FIELD = "C_tilde"


def store_key(name: str, values: Mapping[str, Any]) -> str | None:
    """What identifies kernel ``name``'s search under these settings; None for uploaded or drawn data."""
    if values["source"] not in ("generator", "sample"):
        return None
    # the stages' settings in kernelviz.pipeline's order: the shipped searches' keys depend on it
    relevant = pipeline.STAGES["data"] + pipeline.STAGES["grid"]
    facts = registry.kernel(name)
    relevant += pipeline.STAGES["partition"] if facts.uses_partition else ()
    relevant += ("normalize",) if facts.has_scale else ()
    described = [name] + [[setting, _plain(values[setting])] for setting in relevant]
    return hashlib.sha1(json.dumps(described, sort_keys=True).encode()).hexdigest()[:16]


def _plain(value):
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in sorted(value.items())}
    if isinstance(value, (np.integer, np.floating)):
        return value.item()
    return value


def heavy_steps() -> list[tuple[str, int]]:
    """(lesson, step number) of every step that shows a grid search."""
    return [(name, k) for name in lessons.names() for k, step in enumerate(lessons.get(name).steps, start=1)
            if step.view in ("grid", "pf")]


@functools.lru_cache(maxsize=1)
def stored_keys(store: Path = STORE) -> frozenset[str]:
    """The keys (:func:`store_key`) of the searches in ``store``."""
    if not store.is_file():
        return frozenset()
    with np.load(store) as stored:
        return frozenset(entry.split("/")[0] for entry in stored.files)


def load(name: str, values: Mapping[str, Any], prep: pipeline.Prepared, partition, store: Path = STORE):
    """The stored search of kernel ``name`` under ``values`` as ``views.grid_search`` returns it
    (result, Keerthi–Lin path), or None when none is stored for exactly these settings."""
    key = store_key(name, values)
    if key not in stored_keys(store):
        return None
    with np.load(store) as stored:
        arrays = {field: stored[f"{key}/{field}"] for field in FIELDS}
        C_tilde = stored[f"{key}/{PATH_FIELD}"] if f"{key}/{PATH_FIELD}" in stored.files else None
    params = pipeline.kernel_params(name, partition, values["normalize"])
    result = kv.evaluation.GridResult(
        kernel=name, **arrays, cv=values["cv"], random_state=values["cv_seed"],
        max_iter=kv.evaluation.DEFAULT_MAX_ITER, kernel_params=params,
        fitted_kernel=pipeline.fit_kernel(pipeline.KernelSpec.from_settings(name, values), prep, partition))
    if C_tilde is None:
        return result, None  # as views.grid_search: the line misses this grid
    X, y = prep.X_model[prep.labeled], prep.y[prep.labeled]
    path = kv.evaluation.keerthi_lin(X, y, result.Cs, result.gammas, scores=result, cv=values["cv"],
                                     random_state=values["cv_seed"], linear_Cs=np.atleast_1d(C_tilde))
    return result, path


def search(name: str, values: Mapping[str, Any]):
    """Kernel ``name``'s grid search under ``values`` as the app runs it: (result, Keerthi–Lin path or None)."""
    prep = pipeline.prepared(values)
    partition = pipeline.partition_of(values, prep)
    return pipeline.grid_search(pipeline.KernelSpec.from_settings(name, values), pipeline.GridSpec.from_settings(values),
                                prep, partition)


def precompute(store: Path = STORE) -> dict[str, np.ndarray]:
    """Run every heavy step's searches and write them to ``store``."""
    arrays = {}
    for lesson, k in heavy_steps():
        values = lessons.get(lesson).step(k).applied()
        for name in values["kernels"]:
            key = store_key(name, values)
            if f"{key}/fold_scores" in arrays:
                continue  # a later step showing the same search (ckrbf 6 reuses step 5's RBF)
            print(f"{lesson} step {k}: {name} …", file=sys.stderr, flush=True)
            result, path = search(name, values)
            arrays.update({f"{key}/{field}": getattr(result, field) for field in FIELDS})
            if path is not None:
                arrays[f"{key}/{PATH_FIELD}"] = np.float64(path.C_tilde)
    np.savez_compressed(store, **arrays)
    return arrays


if __name__ == "__main__":
    precompute()
