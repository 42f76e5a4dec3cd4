"""The ``kernelviz`` command line.

``kernelviz grid DATA ...`` runs cross-validated (C, γ) grid searches for several
kernels, writes the scores (JSON, with a CSV beside it) and prints the best score and
the P_f AUC of each kernel; ``kernelviz app`` starts the Streamlit app.

``grid`` checks everything it can before the long part starts: every numeric option and the
output path (naming the option that is wrong), the labels, the number
of folds against the smallest class, the grids, and the unsupervised fit of every
kernel. If a kernel's grid search still fails later, the kernels finished before it
are printed and written (marked incomplete) and the command exits with code 2 naming
the kernel that failed.

Errors are reported as one line on stderr with exit code 2, never as a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import joblib
import numpy as np
import pandas as pd
from tqdm import tqdm

from . import _diskcache, _validation
from . import data as _data
from . import evaluation as _evaluation
from . import kernels as _kernels
from . import _dask
from .reproduce import command as _reproduce

#: app.py sits at the top of the repository, next to the package directory.
APP_PATH = Path(__file__).resolve().parent.parent / "app.py"

EXIT_ERROR = 2

#: Most values on one axis of the (C, γ) grid: a finer log grid tells nothing more, and the
#: scores (one per cell and fold) of a much larger one would not fit in memory.
MAX_GRID_VALUES = 100

#: libsvm counts iterations in a C int, and partitions take their number of components as one.
MAX_C_INT = 2**31 - 1

#: Seeds go to numpy and scikit-learn, which take 0 to 2³² − 1.
MAX_SEED = 2**32 - 1


class CommandError(Exception):
    """A problem with the user's command or input, reported without a traceback."""


# ----------------------------------------------------------------------------- parsing
def log_grid(text):
    """Parse ``start:stop:count`` into ``count`` log-spaced values (or a comma list).

    Parameters
    ----------
    text : str
        ``"1e-2:1e4:7"`` → 10⁻², 10⁻¹, …, 10⁴; ``"0.1,1,10"`` → those values.

    Returns
    -------
    ndarray of float
    """
    try:
        if ":" in text:
            start, stop, count = text.split(":")
            start, stop, count = float(start), float(stop), int(count)
            if start <= 0 or stop <= 0 or count < 1:
                raise ValueError
        else:
            values = [float(value) for value in text.split(",")]
            count = len(values)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a grid: use start:stop:count with positive start and stop (e.g. 1e-2:1e4:7), "
            "or a comma-separated list of positive numbers."
        ) from None
    if count > MAX_GRID_VALUES:  # checked before the values are made: 10⁸ of them exhaust memory
        raise argparse.ArgumentTypeError(
            f"{text!r} has {count:,} values; use at most {MAX_GRID_VALUES} per axis (the search fits "
            "every cell of the grid once per fold)."
        )
    if ":" in text:
        values = np.logspace(np.log10(start), np.log10(stop), count)
    else:
        values = np.array(values)
    if not np.all(np.isfinite(values)) or np.any(values <= 0):
        raise argparse.ArgumentTypeError(f"{text!r}: every grid value must be a positive number.")
    return values


def kernel_list(text):
    """Parse ``rbf,mrbf,ckrbf`` into a list of known kernel names."""
    names = [name.strip() for name in text.split(",") if name.strip()]
    unknown = [name for name in names if name not in _kernels.names()]
    if not names or unknown:
        raise argparse.ArgumentTypeError(
            f"unknown kernel(s) {', '.join(unknown) or '(none given)'}; choose from {', '.join(_kernels.names())}."
        )
    return names


def column_list(text):
    """argparse type: ``--categorical``'s comma-separated columns, 0-based numbers or feature names
    (names are matched against the data once it is read: :func:`categorical_columns`)."""
    columns = [column.strip() for column in text.split(",")]
    if not all(columns):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a list of columns: use comma-separated 0-based column numbers or feature names, "
            "e.g. 1,2,5 or sex,thal.")
    return columns


def unit_interval(text):
    """argparse type: a weight from 0 to 1 (α and β of the categorical distance, docs/MATH.md §4.6.1)."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a weight: use a number from 0 to 1.")
    return value


def _whole_number(text, minimum, complaint, maximum=MAX_C_INT):
    """An integer from ``minimum`` to ``maximum`` read from ``text``, or argparse's error.

    ``complaint`` is the error for text that is not a whole number or is below
    ``minimum``; a value above ``maximum`` gets its own.
    """
    try:
        value = int(text)
    except ValueError:
        value = minimum - 1
    if value < minimum:
        raise argparse.ArgumentTypeError(complaint)
    if value > maximum:
        raise argparse.ArgumentTypeError(f"{text!r} is more than {maximum:,}, the largest value this option takes.")
    return value


def positive_int(text):
    """argparse type: an integer from 1 to 2³¹ − 1 (libsvm's and the partitions' C int)."""
    return _whole_number(text, 1, f"{text!r} is not a positive integer.")


def fold_count(text):
    """argparse type: a number of cross-validation folds, an integer ≥ 2."""
    return _whole_number(text, 2, f"{text!r} is not a number of folds: use a whole number of at least 2.")


def seed(text):
    """argparse type: a seed for numpy and scikit-learn, an integer from 0 to 2³² − 1."""
    complaint = f"{text!r} is not a seed: use a whole number from 0 to {MAX_SEED}."
    return _whole_number(text, 0, complaint, maximum=MAX_SEED)


def worker_count(text):
    """argparse type: joblib's ``n_jobs``, 1 to the number of cores, or negative (-1: all cores)."""
    cores = joblib.cpu_count()
    complaint = (f"{text!r} is not a number of workers: use 1 to {cores} (this machine's cores), or -1 for all "
                 "of them (-2 for all but one, ...).")
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(complaint) from None
    if value == 0:
        raise argparse.ArgumentTypeError(complaint)
    if value > cores:  # each worker is a process; more than the cores only slows the search down
        raise argparse.ArgumentTypeError(
            f"{value} workers is more than this machine's {cores} cores; use at most {cores}, or -1 for all.")
    return value


def build_parser():
    """The argparse parser with the ``grid`` and ``app`` commands."""
    folder = _diskcache.default_folder()
    parser = argparse.ArgumentParser(
        prog="kernelviz", description="See data-dependent SVM kernels at work.",
        epilog=f"Grid searches and live previews are kept in the disk cache at {folder if folder else '(off)'}, shared by every "
               "session and kept across restarts: set KERNELVIZ_CACHE_DIR (or --cache-dir) to move it, 'off' to "
               f"keep none; KERNELVIZ_CACHE_BYTES bounds it (default {_diskcache.DEFAULT_MAX_BYTES >> 20} MB, least "
               "recently used out first).")
    parser.add_argument("--cache-dir", metavar="DIR",
                        help=f"the disk cache's folder (now: {folder if folder else 'off'}); 'off' keeps none")
    commands = parser.add_subparsers(dest="command", required=True, metavar="{grid,app,reproduce,warm}")

    grid = commands.add_parser(
        "grid", help="cross-validated (C, gamma) grid searches and the P_f AUC table",
        description="Cross-validated (C, gamma) grid search for each kernel; prints the best score and the "
                    "P_f(alpha) AUC of each, writes the scores as JSON (and CSV beside it).")
    grid.add_argument("data", metavar="DATA",
                      help=f"a bundled sample ({', '.join(_data.samples())}) or a CSV / LIBSVM file")
    grid.add_argument("--kernels", type=kernel_list, default=["rbf", "mrbf", "ckrbf"],
                      help="comma-separated kernel names (default: rbf,mrbf,ckrbf)")
    grid.add_argument("--C", dest="Cs", type=log_grid, default=log_grid("1e-2:1e4:7"), metavar="GRID",
                      help="C grid as start:stop:count, log-spaced (default: 1e-2:1e4:7)")
    grid.add_argument("--gamma", dest="gammas", type=log_grid, default=log_grid("1e-3:1e3:7"), metavar="GRID",
                      help="gamma grid as start:stop:count, log-spaced (default: 1e-3:1e3:7)")
    grid.add_argument("--cv", type=fold_count, default=10,
                      help="number of stratified folds, at least 2 (default: 10)")
    grid.add_argument("--scale", choices=["none", "minmax", "zscore"], default="minmax",
                      help="feature scaling, fitted on all points (default: minmax)")
    grid.add_argument("--seed", type=seed, default=0, help="seed of the folds and of the partitions (default: 0)")
    grid.add_argument("--out", type=Path, metavar="FILE.json",
                      help="write the results as JSON here, and as CSV with the same name")
    grid.add_argument("--n-jobs", type=worker_count, default=-1,
                      help="local parallel workers, -1 for all cores (default: -1); with --scheduler every "
                           "cluster worker is used")
    grid.add_argument("--scheduler", metavar="ADDRESS",
                      help="run on the Dask cluster at ADDRESS (e.g. tcp://10.0.0.5:8786); needs kernelviz[dask]")
    grid.add_argument("--normalize", choices=["paper", "unit"],
                      help="CkRBF kernel scale: 'paper' (Algorithm 1) or 'unit' (see docs/MATH.md §6)")
    grid.add_argument("--n-components", type=positive_int, metavar="K",
                      help="clusters / mixture components for the kernels that have a partition")
    grid.add_argument("--max-iter", type=positive_int, default=_evaluation.DEFAULT_MAX_ITER,
                      help=f"libsvm iteration cap per fit (default: {_evaluation.DEFAULT_MAX_ITER})")
    grid.add_argument("--categorical", type=column_list, metavar="COLUMNS",
                      help="categorical attributes, set apart by the kernels that can (rbf, gmm, rwm, lap: "
                           "docs/MATH.md §4.6.1): comma-separated 0-based column numbers or feature names")
    grid.add_argument("--categorical-coding", choices=list(_kernels.CATEGORICAL_CODINGS),
                      help="'codes': each named column holds one attribute's category values; 'one-hot': the "
                           "named columns are already indicator columns (default: codes)")
    grid.add_argument("--continuous-weight", type=unit_interval, metavar="ALPHA",
                      help="weight α of the continuous part of the distance, 0 to 1 (default: 1)")
    grid.add_argument("--categorical-weight", type=unit_interval, metavar="BETA",
                      help="weight β of the categorical mismatches, 0 to 1 (default: 1)")

    app = commands.add_parser("app", help="start the Streamlit app (extra options go to 'streamlit run')",
                              description="Start the kernelviz app in the browser; extra options (e.g. "
                                          "--server.port 8600) go to 'streamlit run'.")
    app.set_defaults(streamlit_args=[])
    _reproduce.add_parser(commands)
    warm = commands.add_parser(
        "warm", help="compute what pages need (grid searches, live lattices) into the disk cache, e.g. before class",
        description="Compute the grid searches and the live preview's lattices of the pages LINK opens and keep "
                    "them in the disk cache, so that every session opens those pages at once, their sliders live "
                    "from the start. LINK is a page's link (a full URL or its query string); a lesson link "
                    "without a step warms every step of the lesson.")
    warm.add_argument("links", nargs="*", metavar="LINK", help="page links, e.g. '?lesson=ckrbf' or "
                                                                "'http://localhost:8501/?view=grid&kernels=rbf'")
    warm.add_argument("--lessons", action="store_true", help="warm every step of every lesson")
    warm.add_argument("--searches-only", action="store_true",
                      help="grid searches only, no live lattices (how the package's shipped entries are made: "
                           "a lattice is megabytes)")
    return parser


# ----------------------------------------------------------------------------- grid
def load_dataset(source):
    """A bundled sample by name, else a CSV / LIBSVM file."""
    if source.strip().lower() in _data.samples():
        return _data.load(source)
    path = Path(source)
    if not path.is_file():
        raise CommandError(f"{source!r} is neither a bundled sample ({', '.join(_data.samples())}) nor a file.")
    return _data.read(path)


def categorical_columns(columns, ds):
    """``--categorical``'s columns as 0-based numbers: numbers stay, names are looked up in the data."""
    names = list(ds.feature_names or ())
    numbers = []
    for column in columns:
        if column.isdigit():
            numbers.append(int(column))
        elif column in names:
            numbers.append(names.index(column))
        else:
            known = f"its features are {', '.join(names)}" if names else "it has no feature names"
            raise CommandError(f"--categorical: {column!r} is not a column of {ds.name!r} ({known}); "
                               "use 0-based column numbers or these names.")
    return numbers


#: The options of the categorical distance (``rbf``, ``gmm``, ``rwm``, ``lap``).
CATEGORICAL_OPTIONS = ("categorical", "categorical_coding", "continuous_weight", "categorical_weight")


def kernel_parameters(name, args):
    """The command-line options that apply to this kernel."""
    accepted = _kernels.parameters(name)
    options = {"normalize": args.normalize, "n_components": args.n_components,
               **{option: getattr(args, option) for option in CATEGORICAL_OPTIONS}}
    return {key: value for key, value in options.items() if key in accepted and value is not None}


def note_categorical_options(args):
    """On stderr: which chosen kernels ignore the categorical options (they treat every column as continuous)."""
    if all(getattr(args, option) is None for option in CATEGORICAL_OPTIONS):
        return
    ignoring = [name for name in args.kernels if "categorical" not in _kernels.parameters(name)]
    if ignoring:
        print(f"note: {', '.join(ignoring)} {'treats' if len(ignoring) == 1 else 'treat'} every column as "
              "continuous; the categorical options apply to rbf, gmm, rwm and lap.", file=sys.stderr)


def _describe(exc):
    """An exception as one line: the message, with its type unless it is a ValueError."""
    text = str(exc)
    if not text:
        return type(exc).__name__
    return text if isinstance(exc, (ValueError, CommandError)) else f"{type(exc).__name__}: {text}"


def fit_kernels(args, X, X_unlabeled):
    """Every kernel with its unsupervised part fitted, before any grid search starts.

    The fit is the step that depends on the data (clusters, mixtures, graphs) and so the
    one a kernel is most likely to fail at; doing them all first means that a failing
    third kernel stops the command before the first one's grid search is run.
    """
    fitted = {}
    with tqdm(total=len(args.kernels), unit="kernel", desc="fitting kernels", file=sys.stderr, leave=False) as bar:
        for name in args.kernels:
            bar.set_postfix_str(name)
            try:
                fitted[name] = _evaluation.fit_kernel(
                    name, X, X_unlabeled=X_unlabeled if len(X_unlabeled) else None, random_state=args.seed,
                    gamma=float(args.gammas[0]), **kernel_parameters(name, args))
            except Exception as exc:  # noqa: BLE001 -- reported with the kernel's name
                raise CommandError(f"kernel {name!r} cannot be fitted on this data: {_describe(exc)}") from None
            bar.update()
    return fitted


def run_grids(args, kernels, X, y):
    """One :func:`~kernelviz.evaluation.grid_search` per fitted kernel, under one progress bar.

    Returns
    -------
    results : dict of str to GridResult
        The kernels whose grid search finished, in order.
    failure : (str, BaseException) or None
        The kernel whose grid search failed (or was interrupted), and why; the kernels
        after it were not run.
    """
    results = {}
    total = len(kernels) * len(args.Cs) * len(args.gammas) * args.cv
    with tqdm(total=total, unit="fit", desc="grid search", file=sys.stderr) as bar:
        for name, kernel in kernels.items():
            bar.set_postfix_str(name)
            finished_before = bar.n

            def progress(done, _total, start=finished_before):
                bar.update(start + done - bar.n)

            try:
                results[name] = _evaluation.grid_search(
                    kernel, X, y, args.Cs, args.gammas, cv=args.cv, random_state=args.seed,
                    n_jobs=-1 if args.scheduler else args.n_jobs, progress=progress, max_iter=args.max_iter)
            except (Exception, KeyboardInterrupt) as exc:  # noqa: BLE001 -- the finished kernels are kept
                return results, (name, exc)
    return results, None


def summary_table(results, auc_table):
    """Best cell, P_f AUC, capped cells and capped fits per kernel, as a DataFrame."""
    rows = []
    for name, result in results.items():
        C, gamma, score = result.best
        rows.append({"kernel": name, "best score": score, "C": C, "gamma": gamma,
                     "P_f AUC": auc_table[name]["auc"], "AUC/(1-a0)": auc_table[name]["normalized_auc"],
                     "capped cells": result.n_capped_cells, "capped fits": result.n_capped_fits})
    return pd.DataFrame(rows)


def write_outputs(path, ds, args, results, auc_table, alpha0, n_labeled, n_unlabeled, failure=None):
    """The results as JSON at ``path`` and as CSV (one row per kernel and cell) beside it.

    ``complete`` is false when ``failure`` names a kernel whose grid search failed; the
    JSON then holds the kernels finished before it, and ``failed`` says which and why.
    """
    csv_path = path.with_suffix(".csv")
    document = {
        "data": ds.name, "n_labeled": n_labeled, "n_unlabeled": n_unlabeled, "scale": args.scale,
        "cv": args.cv, "seed": args.seed, "max_iter": args.max_iter,
        "Cs": args.Cs.tolist(), "gammas": args.gammas.tolist(), "alpha0": alpha0,
        "kernels_requested": list(args.kernels), "complete": failure is None,
        "failed": None if failure is None else {"kernel": failure[0], "error": _describe(failure[1])},
        "kernels": {name: {**result.to_dict(), "auc": auc_table[name]["auc"],
                           "normalized_auc": auc_table[name]["normalized_auc"]}
                    for name, result in results.items()},
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=2))
    pd.concat([result.to_frame() for result in results.values()]).to_csv(csv_path, index=False)
    return csv_path


def check_output(path, option="--out"):
    """Refuse a ``grid --out`` that cannot be written, before any work: a directory (for the
    JSON or for the CSV beside it), a folder that is a file, a device (``/dev/full`` accepts
    the open and fails at the first write), a place without permission or space.

    The checks themselves are :func:`kernelviz._validation.check_output_path`, the one check
    of every output option; nothing is created and an existing file is left as it was.
    """
    for target in (path, path.with_suffix(".csv")):
        if target.is_dir():
            raise CommandError(f"{option}: {str(target)!r} is a directory; name a .json file (the CSV is written "
                               "beside it).")
    for target in (path, path.with_suffix(".csv")):
        try:
            _validation.check_output_path(target, option)
        except ValueError as exc:
            raise CommandError(str(exc)) from None


def command_grid(args):
    """``kernelviz grid``: grid searches, the summary table, and the output files.

    Everything that can be checked is checked before the grid searches start (and before
    their progress bar): the output name, the data and its labels, the folds against
    the smallest class, the grids, the scheduler, and every kernel's unsupervised fit.
    """
    if args.out is not None:
        if args.out.suffix.lower() == ".csv":
            raise CommandError("--out names the JSON file (the CSV is written beside it); use a .json name.")
        check_output(args.out)
    ds = load_dataset(args.data)
    if ds.y is None or not ds.labeled_mask.any():
        raise CommandError(f"{args.data!r} has no labels; a grid search needs labeled points.")
    if args.categorical is not None:
        args.categorical = categorical_columns(args.categorical, ds)
    note_categorical_options(args)
    X_all = _data.scale(ds.X, args.scale)  # fitted on every point, as the unsupervised models see them
    mask = ds.labeled_mask
    X, y, X_unlabeled = X_all[mask], ds.y[mask], X_all[~mask]
    X, y, args.Cs, args.gammas, args.max_iter, _ = _evaluation.check_grid_inputs(
        X, y, args.Cs, args.gammas, cv=args.cv, max_iter=args.max_iter, X_unlabeled=X_unlabeled)

    with contextlib.ExitStack() as stack:
        client = stack.enter_context(_dask.client(args.scheduler)) if args.scheduler else None
        kernels = fit_kernels(args, X, X_unlabeled)  # here, before the cluster takes over joblib
        if client is not None:
            stack.enter_context(joblib.parallel_backend("dask", client=client))
        results, failure = run_grids(args, kernels, X, y)

    if results:
        auc_table, alpha0 = _evaluation.pf_auc(results)
        table = summary_table(results, auc_table)
        print(f"{ds.name}: {len(y)} labeled points, {len(X_unlabeled)} unlabeled, {X.shape[1]} features; "
              f"{args.cv}-fold CV, {len(args.Cs)} x {len(args.gammas)} grid")
        print(table.to_string(index=False, float_format=lambda v: f"{v:.4g}"))
        print(f"alpha0 = {alpha0:.4f} (the worst score over all grids; the P_f AUC integrates over [alpha0, 1])")
        n_capped = sum(result.n_capped_cells for result in results.values())
        if n_capped:
            print(f"{n_capped} cell(s) had libsvm fits stopped at max_iter={args.max_iter}; they are flagged as "
                  "'capped' in the output.")
        if args.out is not None:
            csv_path = write_outputs(args.out, ds, args, results, auc_table, alpha0, len(y), len(X_unlabeled),
                                     failure)
            print(f"wrote {args.out} and {csv_path}" + ("" if failure is None else " (incomplete)"))

    if failure is not None:
        name, exc = failure
        if isinstance(exc, KeyboardInterrupt):
            raise exc
        kept = ""
        if results:
            kept = f"; the finished kernels ({', '.join(results)}) are shown above"
            kept += f" and written to {args.out}" if args.out is not None else ""
        skipped = list(kernels)[len(results) + 1:]
        not_run = f"; not run: {', '.join(skipped)}" if skipped else ""
        raise CommandError(f"the grid search of kernel {name!r} failed: {_describe(exc)}{kept}{not_run}.")
    return 0


# ----------------------------------------------------------------------------- app
def command_app(args):
    """``kernelviz app``: ``streamlit run app.py`` on localhost; returns Streamlit's exit code."""
    if not APP_PATH.is_file():
        raise CommandError(f"the app is not installed: {APP_PATH} is missing (run from a source checkout).")
    extra = list(args.streamlit_args)
    if not any(arg.startswith("--server.address") for arg in extra):
        extra = ["--server.address", "localhost", *extra]
    # from the app's folder: Streamlit reads .streamlit/config.toml from the working directory
    return subprocess.call([sys.executable, "-m", "streamlit", "run", str(APP_PATH), *extra], cwd=APP_PATH.parent)


# ----------------------------------------------------------------------------- warm
def command_warm(args):
    """``kernelviz warm``: the pages' grid searches and live lattices into the disk cache, under one progress bar."""
    from .lessons import names as lesson_names
    from .pipeline import warm as _warm

    links = list(args.links) + ([f"?lesson={name}" for name in lesson_names()] if args.lessons else [])
    if not links:
        raise CommandError("name at least one page link to warm (or --lessons for every lesson).")
    cache = _diskcache.cache()
    if cache.folder is None:
        raise CommandError("the disk cache is off (KERNELVIZ_CACHE_DIR=off): there is nowhere to keep the results.")
    counts = _warm.warm(links, bar=lambda total: tqdm(total=total, unit="result", desc="warming", file=sys.stderr),
                        lattices=not args.searches_only)
    def many(count: int, what: str) -> str:
        return f"{count} {what}{'' if count == 1 else ('es' if what.endswith('h') else 's')}"

    print(f"{many(counts['searched'], 'grid search')} and {many(counts['lattices'], 'live lattice')} computed, "
          f"{counts['stored already']} stored already, in {cache.folder}")
    return 0


# ----------------------------------------------------------------------------- entry point
def main(argv=None):
    """Run the command line; returns the exit code (0 on success, 2 on errors).

    Parameters
    ----------
    argv : list of str, optional
        Arguments without the program name; ``sys.argv[1:]`` by default.
    """
    parser = build_parser()
    try:
        # Unknown options are Streamlit's for "app" (argparse cannot pass "--x" through as a
        # positional remainder); for "grid" they are an error.
        args, unknown = parser.parse_known_args(argv)
        if args.command == "app":
            args.streamlit_args = unknown
        elif unknown:
            parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    except SystemExit as exit_request:  # --help, or argparse already printed the usage error
        return exit_request.code
    if args.cache_dir is not None:
        # the app's server is started with this environment, so it reads the same folder
        os.environ["KERNELVIZ_CACHE_DIR"] = args.cache_dir
        _diskcache.CACHE = None
    commands = {"grid": command_grid, "app": command_app, "reproduce": _reproduce.run, "warm": command_warm}
    try:
        return commands[args.command](args)
    except KeyboardInterrupt as exc:  # Ctrl-C; reproduce also turns SIGTERM into this and says what it kept
        detail = str(exc)
        print("kernelviz: interrupted" + (f": {detail}" if detail else ""), file=sys.stderr)
        return 128 + getattr(exc, "signum", signal.SIGINT)
    except (CommandError, ValueError, OSError, MemoryError) as exc:
        print(f"kernelviz: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except Exception as exc:  # the promise is "never a traceback": say what failed, in one line
        print(f"kernelviz: unexpected error ({type(exc).__name__}): {exc}", file=sys.stderr)
        return EXIT_ERROR
