"""Tests of the ``kernelviz`` command line (kernelviz.cli)."""

import json
import re
import subprocess
import sys

import numpy as np
import pytest

import kernelviz as kv
from kernelviz import _dask, cli, evaluation

pytestmark = pytest.mark.unit

SMALL_GRID = ["--C", "1e-1:1e1:3", "--gamma", "1:1e2:3", "--cv", "3", "--n-jobs", "1"]


def test_grid_end_to_end_on_a_sample(tmp_path, capsys):
    out = tmp_path / "scores.json"
    code = cli.main(["grid", "ripley", "--kernels", "rbf,ckrbf", *SMALL_GRID, "--seed", "1", "--out", str(out)])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    document = json.loads(out.read_text())
    assert document["Cs"] == pytest.approx([0.1, 1.0, 10.0]) and document["gammas"] == pytest.approx([1, 10, 100])
    assert set(document["kernels"]) == {"rbf", "ckrbf"}
    ckrbf = document["kernels"]["ckrbf"]
    assert np.shape(ckrbf["scores"]) == (3, 3) and {"auc", "normalized_auc", "best", "capped"} <= set(ckrbf)
    assert ckrbf["best"]["score"] == np.max(ckrbf["scores"])
    assert ckrbf["n_capped_cells"] == int(np.sum(ckrbf["capped"])) == 0
    assert document["complete"] is True and document["failed"] is None

    # The same numbers as the Python API on the same scaled data.
    ds = kv.data.load("ripley")
    expected = evaluation.grid_search("ckrbf", kv.data.scale(ds.X, "minmax"), ds.y, [0.1, 1, 10], [1, 10, 100],
                                      cv=3, random_state=1)
    np.testing.assert_allclose(ckrbf["scores"], expected.scores, rtol=0, atol=1e-12)

    csv_lines = (tmp_path / "scores.csv").read_text().splitlines()
    assert csv_lines[0].startswith("kernel,C,gamma,score") and len(csv_lines) == 1 + 2 * 9
    assert "P_f AUC" in captured.out and "alpha0 =" in captured.out and "ckrbf" in captured.out
    assert "capped cells" in captured.out and "capped fits" in captured.out
    assert f"{document['alpha0']:.4f}" in captured.out
    assert "grid search" in captured.err  # the progress bar


def test_grid_on_a_file_with_unlabeled_rows(tmp_path, capsys):
    rng = np.random.default_rng(0)
    X = np.vstack((rng.normal(0, 1, (30, 2)), rng.normal(4, 1, (30, 2))))
    labels = np.repeat([0, 1], 30).astype(object)
    labels[::5] = ""  # every fifth point has no label
    path = tmp_path / "points.csv"
    path.write_text("x1,x2,label\n" + "".join(f"{a},{b},{c}\n" for (a, b), c in zip(X, labels)))
    code = cli.main(["grid", str(path), "--kernels", "mrbf,rwm", "--n-components", "2", "--scale", "zscore",
                     *SMALL_GRID])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "48 labeled points, 12 unlabeled" in captured.out


@pytest.mark.parametrize("argv, message", [
    (["grid", "no-such-file.csv"], "neither a bundled sample nor a file|nor a file"),
    (["grid", "fourclass", "--kernels", "rbf,bogus"], "unknown kernel"),
    (["grid", "fourclass", "--C", "1:0:3"], "not a grid"),
    (["grid", "fourclass", "--cv", "0"], "use a whole number of at least 2"),
    (["grid", "fourclass", "--cv", "1"], "use a whole number of at least 2"),
    (["grid", "fourclass", "--out", "scores.csv"], "JSON"),
])
def test_bad_input_exits_2_with_a_message(argv, message, capsys):
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert any(part in err for part in message.split("|")), err


@pytest.fixture
def no_search(monkeypatch):
    """Make reaching the kernel fits or the grid search a test failure."""
    def started(*args, **kwargs):
        raise AssertionError("the search started")
    monkeypatch.setattr(cli, "fit_kernels", started)
    monkeypatch.setattr(cli, "run_grids", started)


@pytest.mark.parametrize("options, message", [
    (["--seed", "-1"], "argument --seed: '-1' is not a seed"),
    (["--seed", "4294967296"], "argument --seed: '4294967296' is more than 4,294,967,295"),
    (["--n-jobs", "0"], "argument --n-jobs: '0' is not a number of workers"),
    (["--n-jobs", "100000"], "argument --n-jobs: 100000 workers"),
    (["--C", "1e-2:1e4:100000000"], "argument --C: '1e-2:1e4:100000000' has 100,000,000 values"),
    (["--gamma", ",".join(["1"] * 101)], "argument --gamma: .* has 101 values"),
    (["--max-iter", "10000000000"], "argument --max-iter: '10000000000' is more than"),
    (["--n-components", "10000000000"], "argument --n-components: '10000000000' is more than"),
    (["--categorical-weight", "1.5"], "argument --categorical-weight: '1.5' is not a weight: use a number from 0 to 1"),
    (["--continuous-weight", "nan"], "argument --continuous-weight: 'nan' is not a weight"),
    (["--categorical", "1,,2"], "argument --categorical: '1,,2' is not a list of columns"),
    (["--categorical", "x"], "--categorical: 'x' is not a column of 'ripley' \\(its features are xs, ys\\)"),
])
def test_bad_numbers_are_refused_before_the_search_naming_the_option(options, message, no_search, capsys):
    assert cli.main(["grid", "ripley", *SMALL_GRID, *options]) == 2
    err = capsys.readouterr().err
    assert re.search(message, err), err
    assert "Traceback" not in err and "the search started" not in err


def test_categorical_columns_by_name_or_number_reach_the_kernels_that_take_them(tmp_path, capsys):
    """--categorical (names or 0-based numbers) and the weights go to rbf as its categorical
    distance — the scores of grid_search with those parameters, not those of plain rbf — while
    ckrbf, which has no such distance, runs as before and a note says so."""
    out = tmp_path / "heart.json"
    grid = ["--C", "1,100", "--gamma", "0.1,1", "--cv", "3", "--n-jobs", "1"]
    assert cli.main(["grid", "heart", "--kernels", "rbf,ckrbf", *grid, "--categorical", "sex,12,chest_pain_type",
                     "--continuous-weight", "0.5", "--out", str(out)]) == 0
    assert "note: ckrbf treats every column as continuous" in capsys.readouterr().err
    kernels = json.loads(out.read_text())["kernels"]
    assert kernels["rbf"]["kernel_params"] == {"categorical": [1, 12, 2], "categorical_coding": "codes",
                                               "continuous_weight": 0.5, "categorical_weight": 1.0}
    assert not set(kernels["ckrbf"]["kernel_params"]) & set(cli.CATEGORICAL_OPTIONS)
    ds = kv.data.load("heart")
    X = kv.data.scale(ds.X, "minmax")
    Cs, gammas = [1.0, 100.0], [0.1, 1.0]
    apart = evaluation.grid_search("rbf", X, ds.y, Cs, gammas, cv=3, categorical=[1, 12, 2], continuous_weight=0.5)
    plain = evaluation.grid_search("rbf", X, ds.y, Cs, gammas, cv=3)
    np.testing.assert_array_equal(kernels["rbf"]["scores"], apart.scores)
    assert not np.array_equal(apart.scores, plain.scores)
    np.testing.assert_array_equal(kernels["ckrbf"]["scores"],
                                  evaluation.grid_search("ckrbf", X, ds.y, Cs, gammas, cv=3).scores)


def test_out_naming_a_directory_or_an_unwritable_place_is_refused_first(tmp_path, no_search, capsys):
    folder = tmp_path / "results.json"
    folder.mkdir()
    assert cli.main(["grid", "ripley", *SMALL_GRID, "--out", str(folder)]) == 2
    assert f"--out: {str(folder)!r} is a directory" in capsys.readouterr().err
    csv_folder = tmp_path / "beside.csv"  # where the CSV beside the JSON would go
    csv_folder.mkdir()
    assert cli.main(["grid", "ripley", *SMALL_GRID, "--out", str(tmp_path / "beside.json")]) == 2
    assert f"--out: {str(csv_folder)!r} is a directory" in capsys.readouterr().err
    a_file = tmp_path / "file.txt"
    a_file.write_text("not a folder")
    assert cli.main(["grid", "ripley", *SMALL_GRID, "--out", str(a_file / "scores.json")]) == 2
    err = capsys.readouterr().err
    assert f"--out: cannot write {str(a_file / 'scores.json')!r}" in err and "the search started" not in err
    assert not (tmp_path / "beside.json").exists()  # the check leaves nothing behind


def test_unreadable_file_exits_2_without_traceback(tmp_path, capsys):
    path = tmp_path / "broken.csv"
    path.write_bytes(b"\x89PNG\r\n\x1a\n not a table")
    assert cli.main(["grid", str(path), *SMALL_GRID]) == 2
    err = capsys.readouterr().err
    assert err.startswith("kernelviz: error:") and "Traceback" not in err


def test_too_many_folds_exits_2_before_any_work(capsys):
    ds = kv.data.load("fourclass")
    fewest = np.unique(ds.y, return_counts=True)[1].min()
    assert cli.main(["grid", "fourclass", "--kernels", "rbf", "--cv", "5000", "--n-jobs", "1"]) == 2
    err = capsys.readouterr().err
    assert f"cv=5000 folds need at least 5000 labeled points in every class" in err
    assert f"has only {fewest}. Use cv ≤ {fewest}." in err and "np." not in err
    assert "grid search" not in err and "fitting kernels" not in err  # no progress bar was started


def write_points(path, X, labels):
    path.write_text("x1,x2,label\n" + "".join(f"{a},{b},{c}\n" for (a, b), c in zip(X, labels)))
    return path


def test_input_is_checked_before_the_progress_bar(tmp_path, capsys):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 2))
    one_class = write_points(tmp_path / "one.csv", X, np.ones(40))
    assert cli.main(["grid", str(one_class), *SMALL_GRID]) == 2
    err = capsys.readouterr().err
    assert "single class (1)" in err and "grid search" not in err
    few = write_points(tmp_path / "few.csv", X, np.r_[np.zeros(38), 1.0, 1.0])
    assert cli.main(["grid", str(few), *SMALL_GRID]) == 2
    err = capsys.readouterr().err
    assert "cv=3 folds need at least 3 labeled points in every class, but class 1 has only 2. Use cv ≤ 2." in err
    assert "grid search" not in err


def test_a_kernel_that_cannot_be_fitted_stops_everything_up_front(tmp_path, capsys, monkeypatch):
    started = []
    monkeypatch.setattr(evaluation, "grid_search", lambda *args, **kwargs: started.append(args[0]))
    out = tmp_path / "scores.json"
    # rbf first: it would run fine, but ckrbf cannot make 500 clusters of 250 points.
    code = cli.main(["grid", "ripley", "--kernels", "rbf,ckrbf", "--n-components", "500", *SMALL_GRID,
                     "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and "kernel 'ckrbf' cannot be fitted on this data" in err and "Traceback" not in err
    assert started == [] and not out.exists()
    assert "grid search" not in err


def test_a_failing_kernel_keeps_the_finished_ones(tmp_path, capsys, monkeypatch):
    real_grid_search = evaluation.grid_search

    def failing_for_mrbf(kernel, *args, **kwargs):
        if kernel.name == "mrbf":
            raise MemoryError("no room for the Gram matrix")
        return real_grid_search(kernel, *args, **kwargs)

    monkeypatch.setattr(evaluation, "grid_search", failing_for_mrbf)
    out = tmp_path / "scores.json"
    code = cli.main(["grid", "ripley", "--kernels", "rbf,mrbf,ckrbf", *SMALL_GRID, "--out", str(out)])
    captured = capsys.readouterr()
    assert code == 2
    assert ("kernelviz: error: the grid search of kernel 'mrbf' failed: MemoryError: no room for the Gram matrix; "
            f"the finished kernels (rbf) are shown above and written to {out}; not run: ckrbf.") in captured.err
    assert "Traceback" not in captured.err
    document = json.loads(out.read_text())
    assert document["complete"] is False and set(document["kernels"]) == {"rbf"}
    assert document["failed"] == {"kernel": "mrbf", "error": "MemoryError: no room for the Gram matrix"}
    assert document["kernels_requested"] == ["rbf", "mrbf", "ckrbf"]
    assert len((tmp_path / "scores.csv").read_text().splitlines()) == 1 + 9
    assert "rbf" in captured.out and "(incomplete)" in captured.out


def test_interrupting_keeps_the_finished_kernels(tmp_path, capsys, monkeypatch):
    real_grid_search = evaluation.grid_search

    def interrupted_at_ckrbf(kernel, *args, **kwargs):
        if kernel.name == "ckrbf":
            raise KeyboardInterrupt
        return real_grid_search(kernel, *args, **kwargs)

    monkeypatch.setattr(evaluation, "grid_search", interrupted_at_ckrbf)
    out = tmp_path / "scores.json"
    assert cli.main(["grid", "ripley", "--kernels", "rbf,ckrbf", *SMALL_GRID, "--out", str(out)]) == 130
    assert "interrupted" in capsys.readouterr().err
    document = json.loads(out.read_text())
    assert document["complete"] is False and set(document["kernels"]) == {"rbf"}
    assert document["failed"] == {"kernel": "ckrbf", "error": "KeyboardInterrupt"}


def test_capped_cells_are_counted_in_the_table_and_the_json(tmp_path, capsys):
    out = tmp_path / "scores.json"
    assert cli.main(["grid", "ripley", "--kernels", "rbf", *SMALL_GRID, "--max-iter", "1", "--out", str(out)]) == 0
    captured = capsys.readouterr()
    rbf = json.loads(out.read_text())["kernels"]["rbf"]
    assert rbf["n_capped_cells"] == int(np.sum(rbf["capped"])) > 0
    assert rbf["n_capped_fits"] >= rbf["n_capped_cells"]
    assert f"{rbf['n_capped_cells']} cell(s) had libsvm fits stopped at max_iter=1" in captured.out


def test_scheduler_without_dask_exits_2(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "dask.distributed", None)  # makes the import fail
    assert cli.main(["grid", "ripley", *SMALL_GRID, "--scheduler", "tcp://127.0.0.1:1"]) == 2
    assert "kernelviz[dask]" in capsys.readouterr().err


def test_unreachable_scheduler_exits_2(monkeypatch, capsys):
    pytest.importorskip("dask.distributed")
    monkeypatch.setattr(_dask, "SCHEDULER_TIMEOUT", "1s")
    assert cli.main(["grid", "ripley", *SMALL_GRID, "--scheduler", "tcp://127.0.0.1:1"]) == 2
    err = capsys.readouterr().err
    assert "Dask scheduler" in err and "grid search" not in err and "fitting kernels" not in err


@pytest.mark.slow
def test_grid_on_a_dask_cluster_matches_local_run(tmp_path, capsys):
    distributed = pytest.importorskip("dask.distributed")
    local, remote = tmp_path / "local.json", tmp_path / "remote.json"
    assert cli.main(["grid", "ripley", "--kernels", "ckrbf", *SMALL_GRID, "--out", str(local)]) == 0
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as observer, distributed.get_task_stream(observer) as stream:
        assert cli.main(["grid", "ripley", "--kernels", "ckrbf", *SMALL_GRID, "--out", str(remote),
                         "--scheduler", cluster.scheduler_address]) == 0
        workers = set(observer.scheduler_info()["workers"])
    capsys.readouterr()
    scores = [json.loads(path.read_text())["kernels"]["ckrbf"]["scores"] for path in (local, remote)]
    assert scores[0] == scores[1]
    # The cluster's workers did the work: every task of the run, together every (C, γ, fold) once.
    tasks = json.loads(remote.read_text())["kernels"]["ckrbf"]["tasks"]
    fits = sorted((i, task["gamma_index"], task["fold"]) for task in tasks for i in task["C_indices"])
    assert fits == [(i, j, fold) for i in range(3) for j in range(3) for fold in range(3)]
    ran_on = [task["worker"] for task in stream.data if "_score_fold_" in task["key"]]
    assert len(ran_on) == sum(1 for task in tasks if task["C_indices"]) and set(ran_on) <= workers  # fit tasks
    built_on = [task["worker"] for task in stream.data if "_build_fold_gram" in task["key"]]
    assert len(built_on) == sum(1 for task in tasks if not task["C_indices"]) == 3 * 3 and set(built_on) <= workers


def test_app_runs_streamlit_on_localhost(monkeypatch):
    calls = []
    monkeypatch.setattr(cli, "APP_PATH", cli.APP_PATH.parent / "pyproject.toml")  # any existing file
    monkeypatch.setattr(subprocess, "call", lambda command, **options: calls.append((command, options)) or 0)
    assert cli.main(["app", "--server.port", "8600"]) == 0
    command, options = calls[0]
    assert command[1:4] == ["-m", "streamlit", "run"] and command[4].endswith("pyproject.toml")
    assert command[5:] == ["--server.address", "localhost", "--server.port", "8600"]
    # from the app's folder, so that its .streamlit/config.toml applies wherever the command is typed
    assert options["cwd"] == cli.APP_PATH.parent


def test_app_missing_exits_2(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(cli, "APP_PATH", tmp_path / "app.py")
    assert cli.main(["app"]) == 2
    assert "app.py" in capsys.readouterr().err


def test_help_and_module_entry_point(capsys):
    assert cli.main(["grid", "--help"]) == 0
    assert "start:stop:count" in capsys.readouterr().out
    done = subprocess.run([sys.executable, "-m", "kernelviz", "grid", "nowhere.libsvm"], capture_output=True,
                          text=True)
    assert done.returncode == 2 and "nowhere.libsvm" in done.stderr and "Traceback" not in done.stderr


def test_log_grid_parsing():
    np.testing.assert_allclose(cli.log_grid("1e-2:1e4:7"), 10.0 ** np.arange(-2, 5))
    np.testing.assert_allclose(cli.log_grid("0.5,2"), [0.5, 2.0])
    np.testing.assert_allclose(cli.log_grid("3:3:1"), [3.0])


# ----------------------------------------------------------------------------- output paths (issue 17)
@pytest.fixture
def no_reproduction(monkeypatch):
    """Make reaching a paper's run a test failure."""
    from kernelviz.reproduce import command

    def started(*args, **kwargs):
        raise AssertionError("the run started")
    monkeypatch.setattr(command, "run_paper", started)


def _reproduce(out):
    return ["reproduce", "cksvmnda", "--quick", "--row", "Heart", "--out", str(out)]


def test_reproduce_out_naming_a_file_or_a_device_is_refused_before_any_work(tmp_path, no_reproduction, capsys):
    a_file = tmp_path / "results.txt"
    a_file.write_text("my notes")
    assert cli.main(_reproduce(a_file)) == 2
    err = capsys.readouterr().err
    assert f"--out: {str(a_file)!r} is not a folder kernelviz can write reports into (it is a file)" in err
    assert "the run started" not in err and a_file.read_text() == "my notes"
    assert cli.main(_reproduce("/dev/null")) == 2
    err = capsys.readouterr().err
    assert "--out: '/dev/null' is not a folder kernelviz can write reports into (it is a device)" in err
    assert "the run started" not in err
    assert cli.main(_reproduce(a_file / "sub")) == 2  # a folder under a file can never be made
    err = capsys.readouterr().err
    assert f"--out: cannot write {str(a_file / 'sub')!r}: {str(a_file)!r} is a file, not a folder." in err
    assert "the run started" not in err


def test_reproduce_out_whose_cells_or_report_cannot_be_written_is_refused_first(tmp_path, no_reproduction, capsys):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "cells").write_text("not the store")
    assert cli.main(_reproduce(tmp_path / "a")) == 2
    err = capsys.readouterr().err
    assert f"--out: {str(tmp_path / 'a' / 'cells')!r} is not a folder kernelviz can keep its result store in" in err
    (tmp_path / "b" / "report.json").mkdir(parents=True)  # found only after the whole run, before this check
    assert cli.main(_reproduce(tmp_path / "b")) == 2
    err = capsys.readouterr().err
    assert f"--out: {str(tmp_path / 'b' / 'report.json')!r} is a folder; name a file." in err
    assert "the run started" not in err
    new = tmp_path / "new" / "deeper"
    from kernelviz.reproduce import command

    command.check_out(new)  # a folder that does not exist yet is fine, and the check does not make it
    assert not (tmp_path / "new").exists() and list(tmp_path.glob(".kernelviz-check-*")) == []


@pytest.mark.skipif(hasattr(__import__("os"), "geteuid") and __import__("os").geteuid() == 0,
                    reason="root may write into any folder")
def test_output_in_a_folder_without_write_permission_is_refused_first(tmp_path, no_reproduction, no_search,
                                                                        capsys):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        assert cli.main(_reproduce(locked)) == 2
        assert f"--out: cannot write {str(locked)!r}: Permission denied" in capsys.readouterr().err
        assert cli.main(_reproduce(locked / "new")) == 2
        assert f"--out: cannot write {str(locked / 'new')!r}: Permission denied" in capsys.readouterr().err
        assert cli.main(["grid", "ripley", *SMALL_GRID, "--out", str(locked / "scores.json")]) == 2
        assert f"--out: cannot write {str(locked / 'scores.json')!r}" in capsys.readouterr().err
    finally:
        locked.chmod(0o700)


@pytest.mark.parametrize("device", ["/dev/full", "/dev/null"])
def test_grid_out_naming_a_device_is_refused_before_the_search(device, no_search, capsys):
    """/dev/full opens fine and fails only at the first write, which came after the whole search."""
    if not __import__("os").path.exists(device):
        pytest.skip(f"no {device} here")
    assert cli.main(["grid", "ripley", *SMALL_GRID, "--out", device]) == 2
    err = capsys.readouterr().err
    assert f"--out: {device!r} is not a file kernelviz can write results into (it is a device)" in err
    assert "the search started" not in err and "Traceback" not in err


def test_grid_out_check_keeps_an_existing_file_and_leaves_nothing_behind(tmp_path, no_search, capsys):
    existing = tmp_path / "scores.json"
    existing.write_text("earlier results")
    cli.check_output(existing)
    cli.check_output(tmp_path / "new" / "scores.json")
    assert existing.read_text() == "earlier results" and not (tmp_path / "new").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["scores.json"]


def test_the_library_run_checks_its_store_folder_before_any_work(tmp_path, monkeypatch):
    from kernelviz.reproduce import run
    from kernelviz.reproduce.papers import _selection

    def started(*args, **kwargs):
        raise AssertionError("the run started")
    monkeypatch.setattr(_selection, "_fit_and_score", started)
    a_file = tmp_path / "store.txt"
    a_file.write_text("")
    with pytest.raises(ValueError, match=r"out: .*store.txt' is not a folder kernelviz can keep its result store in"):
        run("cksvmnda", rows=["Heart"], out=a_file)


def test_warm_computes_a_pages_lattice_and_searches_only_leaves_it(tmp_path):
    """``kernelviz warm LINK`` of a Decision boundaries page keeps its live lattice in the disk cache (the
    folder ``--cache-dir`` names); ``--searches-only``, as the package's shipped entries are made, does not."""
    link = "?view=boundaries&kernels=rbf&gen_params=n_samples:40"

    def warm(folder, *options):
        done = subprocess.run([sys.executable, "-m", "kernelviz", "--cache-dir", str(folder), "warm", link, *options],
                              capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    assert warm(tmp_path / "a") == f"0 grid searches and 1 live lattice computed, 0 stored already, in {tmp_path / 'a'}"
    assert len(list((tmp_path / "a").glob("*.entry"))) == 1
    assert warm(tmp_path / "a").startswith("0 grid searches and 0 live lattices computed, 1 stored already")
    assert warm(tmp_path / "b", "--searches-only").startswith("0 grid searches and 0 live lattices computed, 0 stored")
    assert not list((tmp_path / "b").glob("*.entry"))
