"""The disk cache (kernelviz._diskcache): entries that outlast a server, bounded, checked, shared."""

from __future__ import annotations

import multiprocessing
import os

import numpy as np
import pytest

from kernelviz import _diskcache, lattice, pipeline
from kernelviz import state as kvstate

pytestmark = pytest.mark.unit


def name(i) -> str:
    return _diskcache.key("test", i, code="kernelviz._diskcache")


def test_an_entry_comes_back_whole_from_another_cache_object(tmp_path):
    value = {"scores": np.arange(12.0).reshape(3, 4), "path": None}
    _diskcache.DiskCache(tmp_path).put(name(1), value)
    again = _diskcache.DiskCache(tmp_path).get(name(1))  # as a restarted server opens it
    np.testing.assert_array_equal(again["scores"], value["scores"])
    assert again["path"] is None
    assert _diskcache.DiskCache(tmp_path).get(name(2), "missing") == "missing"


@pytest.mark.parametrize("damage", ["flip", "truncate", "garbage"])
def test_a_damaged_entry_is_a_miss_and_is_removed(tmp_path, damage):
    cache = _diskcache.DiskCache(tmp_path)
    cache.put(name(1), list(range(1000)))
    (path,) = tmp_path.glob("*.entry")
    blob = bytearray(path.read_bytes())
    if damage == "flip":
        blob[-10] ^= 0xFF
    elif damage == "truncate":
        blob = blob[:len(blob) // 2]
    else:
        blob = bytearray(b"not an entry at all")
    path.write_bytes(bytes(blob))
    calls = []
    assert cache.get_or_compute(name(1), lambda: calls.append(1) or "recomputed") == "recomputed"
    assert calls == [1]
    assert cache.get(name(1)) == "recomputed"  # stored anew


def test_the_folder_keeps_within_its_bound_least_recently_used_out_first(tmp_path):
    payload = bytes(10_000)
    cache = _diskcache.DiskCache(tmp_path, max_bytes=45_000)
    for i in range(4):
        cache.put(name(i), payload)
        os.utime(tmp_path / f"{name(i)}.entry", (1000 + i, 1000 + i))  # distinct, ordered use times
    assert cache.get(name(0)) == payload  # the oldest is used again: now the youngest
    cache.put(name(4), payload)  # over the bound: the least recently used go
    assert cache.size() <= 45_000 * _diskcache.LOW_WATER
    kept = {i for i in range(5) if cache.get(name(i)) is not None}
    assert 0 in kept and 4 in kept and 1 not in kept


def _writer(folder, start, count, max_bytes):
    cache = _diskcache.DiskCache(folder, max_bytes=max_bytes)
    for i in range(start, start + count):
        cache.put(name(i % 12), np.full(2000, i % 12))  # the same entries as the other writer, too
        value = cache.get(name((i + 5) % 12))
        assert value is None or (value == (i + 5) % 12).all()


def test_two_servers_writing_at_once_never_leave_a_damaged_entry(tmp_path):
    context = multiprocessing.get_context("spawn")
    writers = [context.Process(target=_writer, args=(tmp_path, k * 7, 60, 120_000)) for k in range(2)]
    for writer in writers:
        writer.start()
    for writer in writers:
        writer.join(120)
    assert [w.exitcode for w in writers] == [0, 0]
    cache = _diskcache.DiskCache(tmp_path, max_bytes=120_000)
    assert cache.size() <= 120_000
    for i in range(12):
        value = cache.get(name(i))
        assert value is None or (value == i).all()
    assert not list(tmp_path.glob("*.tmp"))  # no temporary file left behind


def test_off_keeps_nothing_and_bad_bounds_are_refused(monkeypatch, tmp_path):
    monkeypatch.setenv("KERNELVIZ_CACHE_DIR", "off")
    cache = _diskcache.open_default()
    cache.put(name(1), 1)
    assert cache.get(name(1)) is None
    monkeypatch.setenv("KERNELVIZ_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("KERNELVIZ_CACHE_BYTES", "a lot")
    with pytest.raises(ValueError, match="KERNELVIZ_CACHE_BYTES"):
        _diskcache.open_default()
    with pytest.raises(ValueError, match="hexadecimal"):
        _diskcache.DiskCache(tmp_path).get("../../etc/passwd")


def test_a_grid_search_is_stored_once_and_never_reused_for_other_data(monkeypatch, tmp_path):
    monkeypatch.setattr(_diskcache, "CACHE", _diskcache.DiskCache(tmp_path))
    values = kvstate.defaults()
    values.update(gen_params={"n_samples": 50}, kernels=("rbf",), grid_steps=3, cv=3)
    kernels, prep, _ = lattice.default_inputs(50, ("rbf",), resolution=10)
    spec, grid = pipeline.KernelSpec.from_settings("rbf", values), pipeline.GridSpec.from_settings(values)
    runs = []
    search = pipeline.search_kernel

    def counted(*args, **kwargs):
        runs.append(args[0])
        return search(*args, **kwargs)

    monkeypatch.setattr(pipeline.search, "search_kernel", counted)
    first = pipeline.grid_search(spec, grid, prep, None)
    again = pipeline.grid_search(spec, grid, prep, None)  # another session, or after a restart
    assert runs == ["rbf"]
    np.testing.assert_array_equal(first[0].fold_scores, again[0].fold_scores)
    other = pipeline.prepared({**values, "data_seed": 7})
    assert pipeline.search_key(spec, grid, other) != pipeline.search_key(spec, grid, prep)
    pipeline.grid_search(spec, grid, other, None)
    assert runs == ["rbf", "rbf"]


def test_warm_computes_a_pages_searches_once_and_a_lesson_link_warms_its_steps(monkeypatch, tmp_path):
    from kernelviz.pipeline import warm

    monkeypatch.setattr(_diskcache, "CACHE", _diskcache.DiskCache(tmp_path))
    link = "http://localhost:8501/?view=grid&kernels=rbf,mrbf&grid_steps=3&cv=2&gen_params=n_samples:40"
    lines = []
    assert warm.warm([link], report=lines.append) == {"searched": 2, "lattices": 0, "stored already": 0, "pages": 1}
    assert warm.warm([link.split("?", 1)[1]], report=lines.append) == {"searched": 0, "lattices": 0, "stored already": 2,
                                                                       "pages": 1}
    # what the app finds for that page is the stored search
    (_, values), = warm.pages(link)
    prep = pipeline.prepared(values)
    spec, grid = pipeline.KernelSpec.from_settings("rbf", values), pipeline.GridSpec.from_settings(values)
    assert pipeline.stored_search(spec, grid, prep) is not None
    steps = warm.pages("?lesson=ckrbf")
    assert [page for page, _ in steps] == [f"ckrbf step {k}" for k in range(1, len(steps) + 1)]
    assert warm.pages("?lesson=ckrbf&step=5")[0][0] == "ckrbf step 5"
    assert warm.searches(warm.pages("?view=boundaries")[0][1]) == []
    with pytest.raises(ValueError, match="no lesson"):
        warm.pages("?lesson=nope")
    with pytest.raises(ValueError, match="cannot be warmed"):
        warm.searches(warm.pages("?view=grid&source=upload")[0][1])


def test_kernelviz_help_names_the_cache_folder(monkeypatch, tmp_path, capsys):
    from kernelviz import cli

    monkeypatch.setenv("KERNELVIZ_CACHE_DIR", str(tmp_path / "here"))
    monkeypatch.setenv("COLUMNS", "1000")  # one line per paragraph: the path is not wrapped at its hyphens
    assert cli.main(["--help"]) == 0
    assert f"disk cache at {tmp_path / 'here'}" in capsys.readouterr().out


@pytest.mark.app
def test_another_session_finds_a_search_this_one_finished():
    """A search stored by one session answers another at once (the same server, or the next one)."""
    from _charts import figures
    from apptest import assert_clean, open_app

    query = dict(view="grid", kernels="rbf", gen_params="n_samples:40", grid_steps="3", cv="2")
    first = open_app(query)
    next(b for b in first.button if b.label == "Run grid search").click()
    first.run()
    first.session_state["_computed"]["_grid_job"].job.result(300)  # the job stores its search as it ends
    assert len(_diskcache.CACHE.entries()) == 1
    second = open_app(query)  # a new session: nothing in its own store
    assert_clean(second)
    assert not [b for b in second.button if b.label == "Run grid search"]
    (figure,) = figures(second)
    assert "CV accuracy" in figure["layout"]["title"]["text"]


@pytest.mark.parametrize("edited_module", ["kernelviz.kernels", "kernelviz._svm", "kernelviz.data.generators"])
def test_a_result_of_other_code_is_never_read(monkeypatch, tmp_path, edited_module):
    """A stored lattice or grid search is keyed by the source of every module that computes it (the
    kernels reached as ``kv.kernels``, the SVM solver, and the generator that made the data, which a
    generated data set's key names by its settings only): after an edit it is computed again, where a
    pickle of the old code would otherwise be read as today's result."""
    from kernelviz import _codeversion

    values = kvstate.defaults()
    values.update(gen_params={"n_samples": 50}, kernels=("rbf",), grid_steps=3, cv=3)
    kernels, prep, grid = lattice.default_inputs(50, ("rbf",), resolution=10)
    spec, search_grid = pipeline.KernelSpec.from_settings("rbf", values), pipeline.GridSpec.from_settings(values)
    live = lattice.Lattice.decision(list(kernels), grid, log_gamma=0.3, log_C=0.5)

    def keys():
        return pipeline.search_key(spec, search_grid, prep), lattice.disk_key(live, prep.key, [spec])

    before = keys()
    assert before == keys()
    real = _codeversion._path

    def edited(module):
        path = real(module)
        if module == edited_module:
            copy = tmp_path / "edited.py"
            copy.write_bytes(path.read_bytes() + b"\n# an edit\n")
            return copy
        return path

    monkeypatch.setattr(_codeversion, "_path", edited)
    after = keys()
    assert after[0] != before[0] and after[1] != before[1]


def test_the_code_version_parses_one_module_at_a_time(monkeypatch):
    """Sessions ask for their first lattice's key at once; CPython 3.11's ``ast.parse`` is not safe
    from several threads at a time (a server's log: "SystemError: AST constructor recursion depth
    mismatch", in a page's run). The modules' sources are parsed under one lock."""
    import ast
    import threading
    import time

    from kernelviz import _codeversion

    inside, overlaps = [0], []
    parse = ast.parse

    def slow_parse(*args, **kwargs):
        inside[0] += 1
        overlaps.append(inside[0])
        time.sleep(0.002)  # long enough for another thread to enter, were nothing to stop it
        try:
            return parse(*args, **kwargs)
        finally:
            inside[0] -= 1

    monkeypatch.setattr(_codeversion.ast, "parse", slow_parse)
    _codeversion.modules.cache_clear()
    threads = [threading.Thread(target=_codeversion.code_version, args=("kernelviz.lattice",), kwargs={"cells": False})
               for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    _codeversion.modules.cache_clear()
    assert overlaps and max(overlaps) == 1
