"""One person's session of the app: what a run hands to the next, over a plain mapping.

Streamlit reruns the whole script on every click and keeps only ``st.session_state``
between runs. Four mechanisms live on top of it, and they live here, in one class:

* **pending values** — a widget's value cannot change after the widget is drawn in a
  run, so a view that wants to set one (a click that moves the reference point, a
  restore after an error) queues it, and the next run applies it before any widget;
* **flash messages** — sentences for the person that stay queued until a run completes,
  so a run that reruns the script does not take them off the page before anyone read them;
* **last-good snapshots** — per stage (data, partition, model, grid), the settings of the
  last run in which that stage worked, so an impossible setting can be undone;
* **carry-over** — Streamlit forgets a widget's value when the widget is not drawn in a
  completed run; writing each such setting back to itself keeps the settings of the views
  that are not open.

The class works over any ``MutableMapping``: ``st.session_state`` in the app, a ``dict`` in
the tests. Nothing here imports Streamlit.
"""

from __future__ import annotations

import copy
import logging
import types
from collections import OrderedDict
from typing import Any, Callable, Iterable, Mapping, MutableMapping

import numpy as np

_LOG = logging.getLogger(__name__)

_STARTED = "_session_started"
_PENDING = "_pending"
_FLASH = "_flash"
_LAST_GOOD = "_last_good"
_GRIDS = "_grids"
_GOOD_DATA = "_last_good_data"
_FRAGMENT_RERUN = "_fragment_rerun"
_OUTSIDE = "_outside_fragment"
_FORGOTTEN = "_forgotten_by_browser"
_WRITTEN = "_written_by_app"

#: Finished grid searches a session keeps (least recently used go first): a search holds a
#: score table and a fitted kernel, and a person compares a handful of them at a time.
MAX_STORED_GRIDS = 12


class Session:
    """The run-to-run state of one app session, stored in ``store``.

    Parameters
    ----------
    store : MutableMapping
        Where the session lives (``st.session_state``, or a ``dict``).
    is_setting : callable
        Whether a key of ``store`` holds a setting that must survive runs in which its
        widget is not drawn.
    always_drawn : iterable of str
        Settings whose widgets are drawn on every completed run. They are never written
        back: a script-side write makes Streamlit push the run's (older) value to the
        browser, which loses slider steps the person made while the view was computing.
    computed : MutableMapping, optional
        Where the finished grid searches are kept (``store`` when None). The app keeps them
        with the session's other results, released when the session disconnects
        (:mod:`kernelviz.ui.session_end`).
    forgotten_as : Mapping, optional
        For always-drawn settings: the value the browser sends for the setting's widget once it
        has forgotten it (the widget's own default — its first option, its lower bound, nothing
        selected); see :func:`restore_forgotten`.
    never_chosen : Mapping, optional
        For settings whose widget a person cannot empty (the view switch): the value the browser
        sends once it has forgotten the widget, which is therefore never the person's.
    """

    def __init__(self, store: MutableMapping, *, is_setting: Callable[[str], bool], always_drawn: Iterable[str],
                 computed: MutableMapping | None = None, forgotten_as: Mapping[str, Any] | None = None,
                 never_chosen: Mapping[str, Any] | None = None):
        self.store = store
        self.is_setting = is_setting
        self.always_drawn = frozenset(always_drawn)
        self.computed = store if computed is None else computed
        self.forgotten_as = dict(forgotten_as or {})
        self.never_chosen = dict(never_chosen or {})

    # ------------------------------------------------------------------ start

    @property
    def started(self) -> bool:
        return bool(self.store.get(_STARTED))

    def start(self, values: Mapping[str, Any], messages: Iterable[str] = ()) -> None:
        """The first run: the settings in place, and the sentences to show about them."""
        self.store.update(values)
        self.store[_FLASH] = list(messages)
        self.store[_PENDING] = {}
        self.store[_LAST_GOOD] = {}
        self.store[_STARTED] = True

    # ------------------------------------------------------------------ pending values and carry-over

    def queue(self, values: Mapping[str, Any], message: str | None = None) -> None:
        """Set ``values`` at the start of the next run (and say ``message`` then)."""
        self.store[_PENDING].update(values)
        if message:
            self.flash(message)

    def begin_run(self) -> None:
        """Apply the queued values, then keep every setting alive (see the module's notes).

        After :func:`mark_fragment_rerun` the always-drawn settings are written back too:
        when a fragment reruns the whole page, the browser forgets the values of the widgets
        outside the fragment (streamlit/streamlit#11266), and a write is what sends them again.
        """
        everything = bool(self.store.pop(_FRAGMENT_RERUN, False))
        # the run a fragment's guard asked for starts from the values it put back: the browser's
        # next request is the one to check
        restored = [] if everything else restore_forgotten(self.store, self.forgotten_as, self.never_chosen)
        self.store.pop(_WRITTEN, None)
        if restored:
            _LOG.warning("a page run got settings the browser had forgotten (%s); the page's values were kept",
                         ", ".join(sorted(restored)))
        pending = self.store[_PENDING]
        self.store.update(pending)
        pending.clear()
        for key in list(self.store.keys()):
            if (everything or key not in self.always_drawn) and self.is_setting(key):
                self.store[key] = self.store[key]

    # ------------------------------------------------------------------ flash messages

    def flash(self, message: str) -> None:
        self.store[_FLASH].append(message)

    def messages(self) -> list[str]:
        """The sentences waiting to be shown (a copy: showing them does not take them off)."""
        return list(self.store[_FLASH])

    def shown(self, count: int) -> None:
        """A run completed after showing the first ``count`` messages: they are done."""
        del self.store[_FLASH][:count]

    # ------------------------------------------------------------------ last-good snapshots

    def remember_good(self, stage: str, names: Iterable[str]) -> None:
        """The settings ``names`` worked for ``stage``: snapshot them."""
        self.store[_LAST_GOOD][stage] = {n: copy.deepcopy(self.store.get(n)) for n in names}

    def last_good(self, stage: str) -> dict | None:
        return self.store[_LAST_GOOD].get(stage)

    @property
    def last_good_data(self) -> Any:
        """The prepared data of the last run whose data worked (``None`` before any did)."""
        return self.store.get(_GOOD_DATA)

    def remember_good_data(self, prepared: Any) -> None:
        self.store[_GOOD_DATA] = prepared

    def to_restore(self, stage: str, names: Iterable[str], fallback: Mapping[str, Any]) -> dict:
        """Which of ``names`` to set back, and to what, after ``stage`` failed: those that differ
        from the stage's last good snapshot (``fallback`` — the defaults — before the stage
        ever worked). Settings outside ``names`` are never touched."""
        good = self.last_good(stage) or fallback
        return {n: good[n] for n in names if n in good and not _same(self.store.get(n), good[n])}

    # ------------------------------------------------------------------ finished grid searches

    def stored_grid(self, key) -> Any:
        """A finished grid search of this session, or ``None`` (it then counts as recently used)."""
        grids = self.computed.setdefault(_GRIDS, OrderedDict())
        if key not in grids:
            return None
        grids.move_to_end(key)
        return grids[key]

    def store_grid(self, key, grid) -> None:
        """Keep a finished grid search; beyond :data:`MAX_STORED_GRIDS` the least recently used goes."""
        grids = self.computed.setdefault(_GRIDS, OrderedDict())
        grids[key] = grid
        grids.move_to_end(key)
        while len(grids) > MAX_STORED_GRIDS:
            grids.popitem(last=False)


def remember_outside(store: MutableMapping, names: Iterable[str]) -> None:
    """At the end of a page run: the values of the settings whose widgets are drawn outside every
    fragment (the sidebar's, the view switch), as the page drew them (see :func:`keep_outside`)."""
    store[_OUTSIDE] = {name: copy.deepcopy(store[name]) for name in names if name in store}
    store.pop(_WRITTEN, None)  # written during this run (a link followed): drawn, so no longer a change


def write_settings(store: MutableMapping, values: Mapping[str, Any]) -> None:
    """Set settings from a widget's callback (a preset, a lesson step, Leave, a view button): the app's
    own change, which the run that follows takes as it is. One click may move several settings to
    their widgets' defaults and switch the view, which from the browser alone would be a forgetting
    (:func:`restore_forgotten`)."""
    store.update(values)
    store.setdefault(_WRITTEN, set()).update(values)


def keep_outside(store: MutableMapping, accept: Iterable[str] = (),
                 never_chosen: Mapping[str, Any] | None = None) -> list[str]:
    """At the start of a fragment's run: put back each setting drawn outside the fragment that the
    browser's request changed, and return their names.

    Such a widget cannot change in a fragment's run — a person changing it reruns the page — but
    after a fragment reran the whole page the browser may have forgotten those widgets' values
    (streamlit/streamlit#11266), and it then sends them at their defaults (a minimum, a first
    option, an empty selection) with the next request, here a fragment's. Taken as they come, they
    replaced the person's settings at the next page run: seen in ``benchmarks/bench_sessions.py``
    under load, where sessions lost their kernels and stopped drawing any figure.

    A setting in ``accept`` keeps the request's value instead: the view switch, which the browser
    was not seen to forget there, came in a fragment's request twice in one run of that benchmark,
    and putting it back lost the person's click (the page stayed on the old view). Unless the
    request holds its ``never_chosen`` value, which only a forgetting browser sends: the view
    switch empty, seen in CI on 2026-11-29 (the page then drew no view).
    """
    kept = store.get(_OUTSIDE) or {}
    written = store.pop(_WRITTEN, None) or set()
    never_chosen = never_chosen or {}
    changed = [name for name, value in kept.items() if not _same(store.get(name), value)]
    for name in changed:
        forgotten = name in never_chosen and _same(store.get(name), never_chosen[name])
        # the person's (the view switch) or a callback's: the page run the caller asks for draws it
        if (name in accept and not forgotten) or name in written:
            kept[name] = copy.deepcopy(store[name])
            continue
        store.setdefault(_FORGOTTEN, {})[name] = copy.deepcopy(store.get(name))  # what the browser sends while it has forgotten
        store[name] = copy.deepcopy(kept[name])
    return changed


def restore_forgotten(store: MutableMapping, forgotten_as: Mapping[str, Any] | None = None,
                      never_chosen: Mapping[str, Any] | None = None) -> list[str]:
    """At the start of a page run: put back the settings the browser sent at values it had forgotten
    (streamlit/streamlit#11266), and return their names. Three signs tell a forgetting:

    * **A value no person can choose** (``never_chosen``: the view switch empty), every time.

    * **A setting at its widget's own default** (``forgotten_as``), changed from what the page drew,
      **beside another change**: two or more such settings at once, or one beside a view switch.
      A person changes one widget per request; the browser forgets them all together
      (``scaling=none&test_fraction=0&n_components=1&kernels=`` in ``benchmarks/bench_sessions.py``)
      or one at a time (a view switch that came with ``kernels=``). This holds whenever it comes:
      the browser was seen to forget again after a repair. What the app's own callbacks wrote
      (:func:`write_settings`) is not the browser's and is taken as it is.
    * **The value a fragment's run found forgotten** (:func:`keep_outside`) still in the request.
      The page run that a fragment's guard asks for writes the settings back, but the browser can
      go on sending its forgotten values, and a page run takes what it is sent: a view switch then
      arrived with no kernels and the page drew nothing. Each such single forgetting is repaired
      once: a request with any other value (the browser repaired, or the person's own choice) ends
      it, and so does the repair, so a person who picks that very value again keeps it.
    """
    forgotten = store.get(_FORGOTTEN) or {}
    kept = store.get(_OUTSIDE) or {}
    forgotten_as = forgotten_as or {}
    never_chosen = never_chosen or {}
    written = store.get(_WRITTEN) or set()
    changed = {name for name, value in kept.items()
               if not _same(store.get(name), value) and name not in written}
    emptied = [name for name in changed if name in never_chosen and _same(store.get(name), never_chosen[name])]
    at_defaults = sorted(name for name in changed if name in forgotten_as and _same(store.get(name), forgotten_as[name]))
    switched = changed - set(forgotten_as) - set(emptied)  # the view switch, to another view: the person's
    restored = emptied + (at_defaults if len(at_defaults) >= 2 or (at_defaults and switched) else [])
    for name, sent in list(forgotten.items()):
        if name in changed and _same(store.get(name), sent):
            restored.append(name)
        del forgotten[name]
    restored = sorted(set(restored))
    for name in restored:
        store[name] = copy.deepcopy(kept[name])
    return restored


def mark_fragment_rerun(store: MutableMapping) -> None:
    """Say that a fragment is about to rerun the whole page (call just before ``st.rerun()``)."""
    store[_FRAGMENT_RERUN] = True


def _same(a, b) -> bool:
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return list(a) == list(b)
    return a == b


def describe_values(values: Mapping[str, Any]) -> str:
    """``{"gp:moons:noise": 0.1, "kernels": ["rbf"]}`` → ``"noise = 0.1, kernels = rbf"``: what a
    restore message names (a generator parameter by its own name, not its widget key)."""
    def show(value) -> str:
        return ", ".join(map(str, value)) if isinstance(value, (list, tuple)) else str(value)

    return ", ".join(f"{name.rsplit(':', 1)[-1]} = {show(value)}" for name, value in values.items())


def _arrays(obj: Any) -> Iterable[np.ndarray]:
    """Every NumPy array reachable from ``obj``, once each: in attributes, dataclass fields, dicts,
    lists and tuples (object arrays' items too); modules, classes and functions are not entered."""
    seen: set[int] = set()
    pending = [obj]
    while pending:
        item = pending.pop()
        if id(item) in seen or isinstance(item, (type, types.ModuleType, types.FunctionType, types.MethodType)):
            continue
        seen.add(id(item))
        if isinstance(item, np.ndarray):
            yield item
            if item.dtype == object:
                pending.extend(item.ravel())
        elif isinstance(item, Mapping):
            pending.extend(item.values())
        elif isinstance(item, (list, tuple, set, frozenset)):
            pending.extend(item)
        elif hasattr(item, "__dict__"):
            pending.extend(vars(item).values())


def read_only(obj: Any) -> Any:
    """Make every NumPy array reachable from ``obj`` read-only, and return ``obj``.

    What the app caches is one object shared by every session: a write into one of its arrays would
    change another person's view.
    """
    for array in _arrays(obj):
        array.flags.writeable = False
    return obj


def array_bytes(obj: Any) -> int:
    """The bytes of the NumPy arrays reachable from ``obj`` (a view counts its own extent): what a
    cached result holds, as far as it matters — the rest of a result is small beside its arrays."""
    return sum(array.nbytes for array in _arrays(obj))
