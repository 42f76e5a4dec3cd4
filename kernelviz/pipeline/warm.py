"""``kernelviz warm LINK``: compute before class what a page will need, into the disk cache.

A link (a full URL or its query string) names a page: its settings, or a lesson step. The
expensive results a page needs — its grid searches (the Grid search and P_f(α) views, and the
lesson steps that show them) — are computed here and stored in the disk cache
(:mod:`kernelviz._diskcache`), which every session of every server on this machine reads: the
page then opens at once. A lesson link without a step warms every step of the lesson.
"""

from __future__ import annotations

import sys
import urllib.parse
from typing import Any, Callable, Mapping

from kernelviz import lessons
from kernelviz import state as kvstate
from kernelviz.pipeline.data import prepared
from kernelviz.pipeline.fit import partition_of
from kernelviz.pipeline.search import grid_search, stored_search
from kernelviz.pipeline.specs import GridSpec, KernelSpec

__all__ = ["SEARCH_VIEWS", "pages", "searches", "warm"]

#: The views whose page needs grid searches.
SEARCH_VIEWS = ("grid", "pf")


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
    if values["source"] not in ("generator", "sample"):
        raise ValueError(f"A link to {values['source']} data cannot be warmed: the data are not in the link. "
                         "Open the page and run its search once; it is kept for every session from then on.")
    grid = GridSpec.from_settings(values)
    return [(KernelSpec.from_settings(name, values), grid) for name in values["kernels"]]


def warm(links: list[str], report: Callable[[str], None] = lambda text: print(text, file=sys.stderr),
         bar: Callable[[int], Any] | None = None) -> dict[str, int]:
    """Compute every search the pages of ``links`` need that is not stored yet.

    Parameters
    ----------
    links : list of str
    report : callable
        Receives one line per page (what it needs, what was stored already).
    bar : callable, optional
        ``bar(total)`` → a progress bar (``update()``, ``set_postfix_str()``, context manager),
        e.g. ``tqdm``; none by default.

    Returns
    -------
    dict
        ``{"searched": …, "stored already": …, "pages": …}``.
    """
    plan = []
    for link in links:
        for page, values in pages(link):
            needed = searches(values)
            if not needed:
                report(f"{page}: no grid search; its figure is computed when opened (about a second).")
            plan.extend((page, values, kernel, grid) for kernel, grid in needed)
    counts = {"searched": 0, "stored already": 0, "pages": len({p for p, *_ in plan})}
    prepared_of = {}
    todo = []
    for page, values, kernel, grid in plan:
        key = (page, kernel.name)
        data_key = tuple(sorted((k, repr(values[k])) for k in kvstate.BY_NAME if k in values))
        if data_key not in prepared_of:
            prep = prepared(values)
            prepared_of[data_key] = (prep, partition_of(values, prep))
        prep, partition = prepared_of[data_key]
        if stored_search(kernel, grid, prep) is not None:
            counts["stored already"] += 1
            continue
        todo.append((key, kernel, grid, prep, partition))
    seen = set()
    with (bar(len(todo)) if bar is not None else _NoBar()) as progress:
        for (page, name), kernel, grid, prep, partition in todo:
            progress.set_postfix_str(f"{page}: {name}")
            digest = (kernel, grid, prep.key)
            if digest not in seen:  # two steps showing the same search
                grid_search(kernel, grid, prep, partition)
                counts["searched"] += 1
                seen.add(digest)
            progress.update()
    return counts


class _NoBar:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def update(self, n: int = 1) -> None:
        pass

    def set_postfix_str(self, text: str) -> None:
        pass
