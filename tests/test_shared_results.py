"""The app's shared results (kernelviz.ui.caches.SharedResults): one bound in bytes over every cached
function, least recently used out first, each result computed once however many sessions ask."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from kernelviz.ui import caches

pytestmark = pytest.mark.unit

MB = 1 << 20


def block(mb: int) -> dict:
    return {"values": np.zeros(mb * MB, dtype=np.uint8)}


def test_past_the_bound_the_least_recently_used_go_and_a_hit_counts_as_a_use():
    results = caches.SharedResults(max_bytes=100 * MB)
    made = []

    def get(key):
        return results.get("panel", (key,), lambda: made.append(key) or block(40))

    get("a"), get("b")
    get("a")  # a hit: "b" is now the least recently used
    get("c")  # 120 MB: one of the three goes
    assert made == ["a", "b", "c"]
    assert results.holdings() == {"panel": (2, 80 * MB)}
    get("a"), get("c")
    assert made == ["a", "b", "c"], "kept: computed once"
    get("b")
    assert made == ["a", "b", "c", "b"], "the one that went is computed again"


def test_the_newest_result_stays_even_when_it_alone_is_past_the_bound():
    results = caches.SharedResults(max_bytes=10 * MB)
    results.get("families", ("x",), lambda: block(4))
    big = results.get("families", ("y",), lambda: block(30))
    assert results.holdings() == {"families": (1, 30 * MB)}
    assert results.get("families", ("y",), lambda: pytest.fail("recomputed")) is big


def test_sessions_asking_at_once_wait_for_one_computation():
    results = caches.SharedResults(max_bytes=100 * MB)
    started, release, calls = threading.Event(), threading.Event(), []

    def compute():
        calls.append(1)
        started.set()
        release.wait(30)
        return block(1)

    got = []
    threads = [threading.Thread(target=lambda: got.append(results.get("kernel", (1,), compute))) for _ in range(4)]
    for thread in threads:
        thread.start()
    started.wait(30)
    release.set()
    for thread in threads:
        thread.join(30)
    assert len(calls) == 1 and len(got) == 4 and all(g is got[0] for g in got)


def test_a_result_that_raises_is_not_kept():
    results = caches.SharedResults(max_bytes=100 * MB)

    def fails():
        raise ValueError("cannot fit")

    with pytest.raises(ValueError):
        results.get("kernel", ("k",), fails)
    assert results.holdings() == {}
    assert results.get("kernel", ("k",), lambda: "fitted") == "fitted"


def test_cached_functions_share_the_one_store_keyed_by_their_named_arguments(monkeypatch):
    results = caches.SharedResults(max_bytes=100 * MB)
    monkeypatch.setattr(caches, "RESULTS", results)
    calls = []

    @caches._cached
    def panel(name: str, log_gamma: float, _data):
        calls.append((name, log_gamma))
        return {"field": np.full(10, log_gamma)}

    first = panel("rbf", 0.5, object())
    assert panel("rbf", 0.5, object()) is first, "arguments named _… are not part of the key"
    panel("rbf", 1.0, None)
    assert calls == [("rbf", 0.5), ("rbf", 1.0)]
    assert results.holdings() == {panel.__qualname__: (2, 160)}
    with caches.transient():
        panel("rbf", 0.5, None)
    assert len(calls) == 3, "a transient run computes past the store"
    panel.clear()
    assert results.holdings() == {}


def test_a_sessions_end_says_in_the_server_log_where_the_shared_memory_is(monkeypatch):
    from kernelviz.ui import session_end

    results = caches.SharedResults(max_bytes=256 * MB)
    monkeypatch.setattr(caches, "RESULTS", results)
    assert session_end.held_line().endswith("hold 0 MB of 256 MB: nothing")
    results.get("gamma_families", ("a",), lambda: block(12))
    results.get("boundary_panel", ("a", 0.5), lambda: block(1))
    results.get("gamma_families", ("b",), lambda: block(12))
    assert session_end.held_line() == ("kernelviz: a session ended; shared results hold 25 MB of 256 MB: "
                                       "gamma_families 2 (24 MB), boundary_panel 1 (1 MB)")


def test_a_session_arriving_while_a_result_is_being_stored_waits_for_it(monkeypatch):
    """Between a computation's end and its result's entry (its bytes being counted) a session asking
    for the same result waits for that entry rather than computing it again."""
    results = caches.SharedResults(max_bytes=100 * MB)
    calls, late = [], []
    counted = caches.array_bytes

    def compute():
        calls.append(1)
        return block(1)

    def counting(result):
        if not late:  # the first result's count: a second session asks now
            late.append(threading.Thread(target=lambda: results.get("kernel", ("k",), compute)))
            late[0].start()
            late[0].join(0.5)  # a second computation, were it allowed, would be done by now
        return counted(result)

    monkeypatch.setattr(caches, "array_bytes", counting)
    results.get("kernel", ("k",), compute)
    late[0].join(30)
    assert len(calls) == 1
