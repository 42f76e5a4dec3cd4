"""The search stage: cross-validated grid searches, the Keerthi–Lin path, and P_f(α) curves."""

from __future__ import annotations

import dataclasses
from typing import Callable, Iterator, Mapping

import numpy as np

import kernelviz as kv
from kernelviz import _diskcache
from kernelviz import figures as fg
from kernelviz.lessons import LEVEL_AUC
from kernelviz.pipeline.data import Prepared
from kernelviz.pipeline.fit import kernel_params
from kernelviz.pipeline.specs import GridSpec, KernelSpec

__all__ = ['GridFailure', 'check_folds', 'search_columns', 'search_kernel', 'search_key', 'stored_search',
           'store_search', 'keerthi_lin_path', 'grid_panels', 'pf_curves',
           'scale_sentence', 'grid_search']

# ============================================================================ grid search and P_f

class GridFailure(str):
    """Why a kernel's grid search failed: the app keeps it in place of the result, so the
    same search is not run again in vain (a class of this module, so that it stays the same
    class across the app's reruns)."""


def check_folds(prep: Prepared, cv: int) -> None:
    """Refuse a fold count the labeled points cannot fill.

    Stratified k-fold cross-validation puts points of every class in each of the ``cv``
    folds, so each class needs at least ``cv`` labeled points (training and test points
    alike: the grid search cross-validates on all labeled points).

    Raises
    ------
    ValueError
        Naming the smallest class, its size and the largest fold count that works.
    """
    labels, counts = np.unique(prep.y[prep.labeled], return_counts=True)
    if len(labels) < 2:
        raise ValueError("The grid search needs labeled points of at least two classes.")
    smallest = int(counts.min())
    name = prep.shown_class_names.get(float(labels[counts.argmin()]), f"class {labels[counts.argmin()]:g}")
    if smallest < 2:
        raise ValueError(f"Cross-validation needs at least two labeled points in every class, but {name} has "
                         f"{smallest}: label more points (sidebar, *Labeled points*).")
    if cv > smallest:
        raise ValueError(f"{cv}-fold cross-validation needs at least {cv} labeled points in every class, but "
                         f"{name} has only {smallest}: choose at most {smallest} folds, or label more points.")


def search_columns(name: str, prep: Prepared, log_Cs: np.ndarray, log_gammas: np.ndarray, cv: int, seed: int,
                   params: dict) -> Iterator:
    """The one grid-search loop: one kernel's cross-validated search, one γ column at a time.

    The kernel's unsupervised part is fitted once (on the labeled and unlabeled points, with
    ``seed``); each column is ``kv.evaluation.grid_search`` at that γ over every C. The folds
    depend only on the labels and the seed, so the finished search has the scores of one call over
    the whole grid (``tests/test_grid_jobs.py`` compares them).

    Yields
    ------
    kv.evaluation.GridResult
        After each column, the search so far: NaN in the columns not searched yet. The last one
        yielded is the whole search. A caller that stops iterating stops the search there.
    """
    X, y = prep.X_model[prep.labeled], prep.y[prep.labeled]
    X_unlabeled = prep.X_model[prep.unlabeled]
    kernel = kv.evaluation.fit_kernel(name, X, X_unlabeled if len(X_unlabeled) else None, random_state=seed,
                                      **params)
    Cs, gammas = 10.0 ** np.asarray(log_Cs, dtype=float), 10.0 ** np.asarray(log_gammas, dtype=float)
    fold_scores = np.full((len(Cs), len(gammas), cv), np.nan)
    capped = np.zeros(fold_scores.shape, dtype=bool)
    for j, gamma in enumerate(gammas):
        column = kv.evaluation.grid_search(kernel, X, y, Cs=Cs, gammas=[gamma], cv=cv, random_state=seed, n_jobs=1)
        fold_scores[:, j], capped[:, j] = column.fold_scores[:, 0], column.capped_folds[:, 0]
        yield dataclasses.replace(column, gammas=gammas, fold_scores=fold_scores.copy(), capped_folds=capped.copy())


def search_kernel(name: str, prep: Prepared, log_Cs: np.ndarray, log_gammas: np.ndarray, cv: int, seed: int,
                  params: dict, progress: Callable[[int, int], None] | None = None) -> tuple:
    """Cross-validated accuracy of one kernel over a (C, γ) grid, and its Keerthi–Lin path.

    Parameters
    ----------
    name : str
    prep : Prepared
        Trains on all labeled points; the unlabeled ones go to the kernel's unsupervised part.
    log_Cs, log_gammas : array
        log₁₀ of the grid's axes.
    cv, seed : int
        Number of folds and their seed.
    params : dict
        Further kernel arguments (see :func:`kernel_params`).
    progress : callable, optional
        ``progress(fits done, fits in all)`` after each γ column.

    Returns
    -------
    (result, path)
        The search (:func:`search_columns`' last result), and the ``keerthi_lin`` path or None
        when that line misses the grid.
    """
    per_column, total = len(log_Cs) * cv, len(log_Cs) * len(log_gammas) * cv
    result = None
    for done, result in enumerate(search_columns(name, prep, log_Cs, log_gammas, cv, seed, params), start=1):
        if progress is not None:
            progress(done * per_column, total)
    return result, keerthi_lin_path(prep, result)


def keerthi_lin_path(prep: Prepared, result):
    """The ``keerthi_lin`` path over a finished grid search's cells, or None when the line misses the grid."""
    X, y = prep.X_model[prep.labeled], prep.y[prep.labeled]
    try:
        return kv.evaluation.keerthi_lin(X, y, result.Cs, result.gammas, scores=result, cv=result.cv,
                                         random_state=result.random_state)
    except ValueError:
        return None  # the line misses this grid: the heatmap is shown without it


def grid_panels(grids: Mapping[str, tuple], log_Cs: np.ndarray, log_gammas: np.ndarray) -> list[fg.GridPanel]:
    """Heatmap panels of finished grid searches, with the Keerthi–Lin path in (log γ, log C).

    Parameters
    ----------
    grids : mapping of name → (result, path)
        As :func:`grid_search` returns.
    log_Cs, log_gammas : array
        The grid's axes.

    Returns
    -------
    list of fg.GridPanel
    """
    panels = []
    for name, (result, path) in grids.items():
        kl = kl_best = None
        if path is not None:
            kl = np.array([[log_gammas[j], log_Cs[i]] for i, j in path.cells])
            i, j = path.best_cell
            kl_best = (log_gammas[j], log_Cs[i])
        note = f"{result.n_capped_fits} fits hit the iteration cap" if result.n_capped_fits else ""
        panels.append(fg.GridPanel(name, result.scores, kl, kl_best, result.capped, note))
    return panels


def _pf_standing(name: str, aucs: Mapping[str, float], data_name: str, other: str) -> str:
    """Where ``name``'s P_f AUC stands among ``aucs``, and what showing the ``other`` scale will tell."""
    label = fg.kernel_label(name)
    rivals = {n: a for n, a in aucs.items() if n != name}
    if name not in aucs or not rivals:
        return (f"Show the {other} scale next to it to see how much this constant alone moves {label}'s curve "
                f"on {data_name}.")
    best = max(rivals, key=rivals.get)
    own, theirs = aucs[name], rivals[best]
    numbers = f"{own:.3f} against {fg.kernel_label(best)}'s {theirs:.3f}"
    if own - theirs >= LEVEL_AUC:
        return (f"On {data_name} {label}'s P_f AUC leads ({numbers}): show the {other} scale next to it to see "
                "how much of that lead is this constant alone.")
    if theirs - own >= LEVEL_AUC:
        return (f"On {data_name} {label}'s P_f AUC trails ({numbers}): there is no lead to explain here; show "
                f"the {other} scale next to it to see whether the constant helps or hurts.")
    return (f"On {data_name} {label}'s P_f AUC is level ({numbers}) with the best of the others: show the "
            f"{other} scale next to it to see whether the constant moves it.")


def pf_curves(scores: Mapping[str, np.ndarray], n_alphas: int = 401) -> tuple[dict, float, np.ndarray, dict]:
    """P_f(α) curves of grid scores from the worst score of all grids up to 1.

    Parameters
    ----------
    scores : mapping of name → array
        Each kernel's grid of CV accuracies.
    n_alphas : int

    Returns
    -------
    table : dict
        ``kv.evaluation.pf_auc``'s per-kernel AUC, normalised AUC and best score.
    alpha0 : float
        The worst score of all grids.
    alphas : array of shape (n_alphas,)
    curves : dict of name → (alphas, P_f values)
    """
    table, alpha0 = kv.evaluation.pf_auc(scores)
    alphas = np.linspace(alpha0, 1.0, n_alphas)
    curves = {name: (alphas, kv.evaluation.pf_curve(s, alphas)) for name, s in scores.items()}
    return table, alpha0, alphas, curves




def scale_sentence(data_name: str, normalize: str, normaliser_range: tuple[float, float] | None,
                   scores: np.ndarray, other_scores: np.ndarray | None, *, name: str = "ckrbf",
                   aucs: Mapping[str, float] | None = None) -> str:
    """Why CkRBF's P_f curve moves with the scale switch, with this data's numbers.

    Parameters
    ----------
    data_name : str
        The data set shown.
    normalize : {"paper", "unit"}
        The scale of ``scores``.
    normaliser_range : (float, float) or None
        Smallest and largest det(Σₓ+Σᵧ)^(−½) factor of the fitted CkRBF, when known.
    scores : array
        CkRBF's grid scores at this scale.
    other_scores : array or None
        Its scores on the same grid at the other scale, when that search has been run.
    name : str
        The scaled kernel (``"ckrbf"`` or ``"ckrbf-radial"``).
    aucs : mapping of kernel name → P_f AUC, optional
        The AUCs the page shows; the sentence says whether ``name`` leads, trails or is level
        with the best of the others, and speaks of a lead only when there is one.

    Returns
    -------
    str
        Markdown. The comparison of the two scales is stated only when both grids exist.
    """
    size = f"{normaliser_range[0]:.3g} to {normaliser_range[1]:.3g}" if normaliser_range else "—"
    text = (f"**Why the CkRBF curve moves when you switch the scale.** With the paper's scale every CkRBF value "
            f"carries the factor det(Σₓ+Σᵧ)^(−½) (here {size}). Multiplying a kernel by a constant c is the "
            f"same as multiplying C by c, so on a fixed (C, γ) grid the paper's scale slides CkRBF's good region "
            f"towards small C — the grid then simply contains more of it. The unit scale divides that constant out")
    if other_scores is None:
        other = "unit" if normalize == "paper" else "paper's"
        return text + ". " + _pf_standing(name, aucs or {}, data_name, other)
    paper, unit = (scores, other_scores) if normalize == "paper" else (other_scores, scores)
    table, alpha0 = kv.evaluation.pf_auc({"paper": paper, "unit": unit})
    return text + (f": on {data_name}, CkRBF's P_f AUC (from α₀ = {alpha0:.3f}, the worse of the two grids) is "
                   f"{table['paper']['auc']:.3f} with the paper's scale and {table['unit']['auc']:.3f} with the "
                   f"unit scale; best accuracy {100 * table['paper']['best']:.1f}% and "
                   f"{100 * table['unit']['best']:.1f}%.")



def search_key(kernel: KernelSpec, grid: GridSpec, prep: Prepared) -> str:
    """The disk cache's name of kernel ``kernel``'s search over ``grid`` on ``prep`` (the data's spec,
    by ``prep.key``): what a search stored by any session or server is found under."""
    return _diskcache.key("grid search", prep.key, kernel, grid, code=__name__)


def stored_search(kernel: KernelSpec, grid: GridSpec, prep: Prepared):
    """The stored (result, path) of this search, or None when no session or server has finished it."""
    return _diskcache.cache().get(search_key(kernel, grid, prep))


def store_search(kernel: KernelSpec, grid: GridSpec, prep: Prepared, search: tuple) -> None:
    """Keep a finished (result, path) for every session and for the next start of the server."""
    _diskcache.cache().put(search_key(kernel, grid, prep), search)


def grid_search(kernel: KernelSpec, grid: GridSpec, prep: Prepared, partition, progress=None) -> tuple:
    """Kernel ``kernel``'s cross-validated search over ``grid``: (result, Keerthi–Lin path or None),
    from the disk cache when any session or server finished it before."""
    stored = stored_search(kernel, grid, prep)
    if stored is not None:
        return stored
    params = kernel_params(kernel.name, partition, kernel.normalize)
    search = search_kernel(kernel.name, prep, np.array(grid.log_Cs), np.array(grid.log_gammas), grid.cv,
                           grid.cv_seed, params, progress=progress)
    store_search(kernel, grid, prep, search)
    return search
