"""``kernelviz warm LINK``: compute before class what a page will need, into the disk cache.

A link (a full URL or its query string) names a page: its settings, or a lesson step. The
expensive results a page needs — its grid searches (the Grid search and P_f(α) views, and the
lesson steps that show them) and its live preview's lattice (Decision boundaries and Similarity:
every kernel's field at every γ, and C, of the sliders' lattice) — are computed here and stored in
the disk cache (:mod:`kernelviz._diskcache`), which every session of every server on this machine
reads: the page then opens at once, its sliders live from the start. A lesson link without a step
warms every step of the lesson.

The lattice a page asks for is named by what its figure drew (:func:`kernelviz.lattice.page_kernels`,
:func:`kernelviz.lattice.page_lattice`, :func:`kernelviz.figures.field_grid`): the same functions
here, so the warmed lattice is the one the page finds.
"""

from __future__ import annotations

import sys
import urllib.parse
from typing import Any, Callable, Mapping

from kernelviz import _diskcache, lessons
from kernelviz import figures as fg
from kernelviz import state as kvstate
from kernelviz.pipeline.data import default_reference, prepared
from kernelviz.pipeline.fit import fit_kernel, partition_of
from kernelviz.pipeline.search import grid_search, stored_search
from kernelviz.pipeline.specs import GridSpec, KernelSpec

__all__ = ["SEARCH_VIEWS", "LIVE_VIEWS", "pages", "searches", "lattice_request", "warm"]

#: The views whose page needs grid searches.
SEARCH_VIEWS = ("grid", "pf")
#: The views whose figure is its own live preview, and the kind of its lattice.
LIVE_VIEWS = {"boundaries": "decision", "similarity": "similarity"}


def _query(link: str) -> dict[str, list[str]]:
    text = link.strip()
    if "://" in text or text.startswith("/"):
        text = urllib.parse.urlsplit(text).query
    return urllib.parse.parse_qs(text.lstrip("?"), keep_blank_values=True)


def pages(link: str) -> list[tuple[str, dict[str, Any]]]:
    """(what the page is, its settings) of each page ``link`` opens: one, or every step of a lesson.

    Raises
    ------
    ValueError
        For a link that names no lesson step that exists, or settings a page cannot hold.
    """
    query = _query(link)
    if "lesson" in query:
        lesson_name = query["lesson"][-1]
        lesson = lessons.get(lesson_name)
        numbers = [int(lessons.from_link(query)[1])] if "step" in query else range(1, len(lesson.steps) + 1)
        return [(f"{lesson_name} step {k}", lesson.step(k).applied()) for k in numbers]
    values, problems = kvstate.parse({name: raw for name, raw in query.items()})
    if problems:
        raise ValueError(" ".join(problems))
    return [(f"{values['view']} view", values)]


def searches(values: Mapping[str, Any]) -> list[tuple[KernelSpec, GridSpec]]:
    """The grid searches a page of settings ``values`` shows (none outside the search views)."""
    if values["view"] not in SEARCH_VIEWS:
        return []
    _check_source(values)
    grid = GridSpec.from_settings(values)
    return [(KernelSpec.from_settings(name, values), grid) for name in values["kernels"]]


def _check_source(values: Mapping[str, Any]) -> None:
    if values["source"] not in ("generator", "sample"):
        raise ValueError(f"A link to {values['source']} data cannot be warmed: the data are not in the link. "
                         "Open the page once; what it computes is kept for every session from then on.")


def lattice_request(values: Mapping[str, Any], prep, partition):
    """The live lattice a page of settings ``values`` asks for, as ``(empty lattice, kernels, its disk
    key)``; None outside the live views. Its figure draws a panel for each kernel that can be fitted
    and each model (one whose panel then fails asks for another lattice: a miss, computed by the page)."""
    from kernelviz import lattice as kvlattice  # imports scikit-learn

    kind = LIVE_VIEWS.get(values["view"])
    if kind is None:
        return None
    _check_source(values)
    fitted = {}
    for name in values["kernels"]:
        try:
            fitted[name] = fit_kernel(KernelSpec.from_settings(name, values), prep, partition)
        except ValueError:
            continue  # the page leaves it out, saying why
    drawn = list(fitted) + (list(values["models"]) if kind == "decision" else [])
    reference = None
    if kind == "similarity":
        given = (values.get("ref_x"), values.get("ref_y"))
        reference = tuple(map(float, given)) if None not in given else default_reference(prep)
    kernels, specs = kvlattice.page_kernels(kind, values, drawn, fitted.__getitem__)
    lattice = kvlattice.page_lattice(kind, prep, list(kernels), fg.field_grid(kind, prep.X_view, reference),
                                     values["log_gamma"], values["log_C"] if kind == "decision" else None, reference)
    return lattice, kernels, kvlattice.disk_key(lattice, prep.key, [specs[name] for name in kernels])


def warm(links: list[str], report: Callable[[str], None] = lambda text: print(text, file=sys.stderr),
         bar: Callable[[int], Any] | None = None, lattices: bool = True) -> dict[str, int]:
    """Compute every grid search and live lattice the pages of ``links`` need that is not stored yet.

    Parameters
    ----------
    links : list of str
    report : callable
        Receives one line per page (what it needs, what was stored already).
    bar : callable, optional
        ``bar(total)`` → a progress bar (``update()``, ``set_postfix_str()``, context manager),
        e.g. ``tqdm``; none by default.
    lattices : bool
        Whether to compute the live lattices too (the package's shipped entries hold searches only:
        a lattice is megabytes).

    Returns
    -------
    dict
        ``{"searched": …, "lattices": …, "stored already": …, "pages": …}``.
    """
    plan = []
    for link in links:
        for page, values in pages(link):
            needed = [("search", kernel, grid) for kernel, grid in searches(values)]
            if lattices and values["view"] in LIVE_VIEWS:
                needed.append(("lattice", None, None))
            if not needed:
                report(f"{page}: nothing to warm; its figure is computed when opened (about a second).")
            plan.extend((page, values, *item) for item in needed)
    counts = {"searched": 0, "lattices": 0, "stored already": 0, "pages": len({p for p, *_ in plan})}
    prepared_of = {}
    todo = []
    for page, values, what, kernel, grid in plan:
        data_key = tuple(sorted((k, repr(values[k])) for k in kvstate.BY_NAME if k in values))
        if data_key not in prepared_of:
            prep = prepared(values)
            prepared_of[data_key] = (prep, partition_of(values, prep))
        prep, partition = prepared_of[data_key]
        if what == "search":
            if stored_search(kernel, grid, prep) is not None:
                counts["stored already"] += 1
                continue
            todo.append((page, kernel.name, lambda k=kernel, g=grid, p=prep, q=partition: grid_search(k, g, p, q),
                         ("search", kernel, grid, prep.key)))
            continue
        request = lattice_request(values, prep, partition)
        lattice, kernels, key = request
        if _diskcache.cache().get(key) is not None:
            counts["stored already"] += 1
            continue
        todo.append((page, "live lattice", lambda r=request, p=prep: _fill(*r, p), ("lattice", key)))
    seen = set()
    with (bar(len(todo)) if bar is not None else _NoBar()) as progress:
        for page, name, compute, digest in todo:
            progress.set_postfix_str(f"{page}: {name}")
            if digest not in seen:  # two steps showing the same search or lattice
                compute()
                counts["searched" if digest[0] == "search" else "lattices"] += 1
                seen.add(digest)
            progress.update()
    return counts


def _fill(lattice, kernels, key, prep) -> None:
    """Fill ``lattice`` as the page's job does, which keeps it in the disk cache once complete."""
    from kernelviz.lattice import LatticeJob

    job = LatticeJob(lattice, kernels, prep, disk_key=key)
    if not job.result(timeout=None).complete:
        raise RuntimeError(f"the live lattice of {sorted(kernels)} did not complete")


class _NoBar:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def update(self, n: int = 1) -> None:
        pass

    def set_postfix_str(self, text: str) -> None:
        pass
