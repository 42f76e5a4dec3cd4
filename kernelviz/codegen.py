"""The "Python code" of a view: a short script that recomputes the view's numbers with kernelviz.

:func:`script` turns the app's settings (the values of :data:`kernelviz.state.SETTINGS`)
into the text of a runnable script: the data, the labeled subset and the held-out test
points, the partition, the kernels, the fits and the scores, each step as the app takes
it, printed as ``what: value`` lines. It is meant to be read — and pasted into a notebook —
so it holds only the steps the current view needs and names every number it uses.

Uploaded or drawn data cannot be written into code: for those the script reads a CSV
file, the one :func:`data_download` makes (the app offers it beside the code). That file
holds the unscaled features and every known label, so the script's own choice of labeled
points is the app's.
"""

from __future__ import annotations

import dataclasses
from typing import Mapping

import kernelviz as kv
from kernelviz import pipeline, registry
from kernelviz import state as kvstate
from kernelviz.outside import file_name

#: Views that have numbers to reproduce (the Theory view has none).
VIEWS = tuple(view for view, facts in registry.VIEWS.items() if facts.code)
#: Sources whose data reach the script through the CSV file of :func:`data_download`.
FILE_SOURCES = ("upload", "drawn")
#: How many of the points nearest the reference the Similarity script prints.
NEAREST_POINTS = 5



def data_download(prep: pipeline.Prepared) -> tuple[str, str]:
    """The CSV file a script of uploaded or drawn data reads: (file name, text).

    Unscaled features and every label the data have (hidden ones included, unlabeled points
    left empty), as ``kv.data.to_csv`` writes them; ``kv.data.read`` gives back the same numbers.

    Parameters
    ----------
    prep : kernelviz.pipeline.Prepared
        The data as the app prepared them.

    Returns
    -------
    (str, str)
        The file's name (:func:`kernelviz.outside.file_name` of the data's name: the name the
        browser saves it under is the name the script reads) and its text.
    """
    ds = kv.data.Dataset(prep.X_raw, prep.y_true, name=prep.name, feature_names=list(prep.feature_names))
    return file_name(prep.name, "csv"), kv.data.to_csv(ds)


def script(settings: Mapping, data_file: str | None = None) -> str:
    """A runnable script that prints the numbers of the view ``settings["view"]``.

    Parameters
    ----------
    settings : mapping
        Settings of :data:`kernelviz.state.SETTINGS` (as the app's ``current_settings``
        gives them); one left out takes its default, as in a link.
    data_file : str, optional
        For uploaded or drawn data: the CSV file the script reads (the name
        :func:`data_download` gives). Ignored for generated and bundled data.

    Returns
    -------
    str
        Python source.

    Raises
    ------
    ValueError
        For the Theory view (it has no numbers), uploaded / drawn data without ``data_file`` (a
        non-empty ``str``), ``settings`` that is not a mapping, or a setting
        :func:`kernelviz.state.validate` refuses (a generator parameter the generator
        does not have among them): only checked values are written into code.
    """
    settings = _checked(settings)
    view = settings["view"]
    if view not in VIEWS:
        raise ValueError(f"The {view!r} view has no numbers to reproduce; code is written for the views "
                         f"{', '.join(VIEWS)}.")
    if settings["source"] in FILE_SOURCES and not (isinstance(data_file, str) and data_file):
        raise ValueError(f"{settings['source'].capitalize()} data cannot be written into code: pass the name of the "
                         "CSV file the script should read (kernelviz.codegen.data_download makes it).")
    blocks = [_header(settings, data_file), _data(settings, data_file)]
    if view in ("partition", "kernel") or any(registry.kernel(name).uses_partition for name in settings["kernels"]):
        blocks.append(_partition(settings))
    blocks.append(_BODIES[view](settings))
    return "\n\n".join(blocks) + "\n"


# ----------------------------------------------------------------------------- shared steps


def _checked(settings: Mapping) -> dict:
    """``settings`` with every setting validated as a link's value would be: the script is made
    of typed values and names from fixed tables, never of text as it came in."""
    if not isinstance(settings, Mapping):
        raise ValueError(f"settings must map setting names to values (kernelviz.state.defaults() gives every one); "
                         f"got {type(settings).__name__}.")
    checked = {**kvstate.defaults(), **{name: kvstate.validate(name, value) if name in kvstate.BY_NAME else value
                                        for name, value in settings.items()}}
    if checked.get("source") == "generator":
        _, problems = pipeline.check_generator_params(checked["generator"], checked.get("gen_params", {}))
        if problems:
            raise ValueError(" ".join(problems))
    return checked



def _number(value) -> str:
    """A Python literal for a setting's number (``repr`` reads back as the same float)."""
    return repr(int(value)) if isinstance(value, int) and not isinstance(value, bool) else repr(float(value))


def _header(settings: Mapping, data_file: str | None) -> str:
    view = settings["view"]
    two_class_models = view == "boundaries" and any(kv.models.MODELS[m][2] for m in settings["models"])
    imports = ["import numpy as np"]
    imports += [line for needed, line in (
        (two_class_models, "from sklearn.multiclass import OneVsOneClassifier"),
        (view == "boundaries" and bool(settings["kernels"]), "from sklearn.svm import SVC"),
    ) if needed]
    reads = ("\nIt reads DATA_FILE, the data file the app offers beside this code."
             if settings["source"] in FILE_SOURCES else "")
    title = registry.label(registry.VIEWS, view)
    return (f'"""kernelviz, {title} view: the numbers the app shows for these settings.{reads}"""\n'
            + "\n".join(imports) + "\n\nimport kernelviz as kv\nfrom kernelviz import pipeline")


def _spec(spec, **names: str) -> str:
    """A spec of kernelviz.pipeline as code: each field a literal (``repr``), or the name given."""
    fields = [f"{f.name}={names.get(f.name) or repr(getattr(spec, f.name))}" for f in dataclasses.fields(spec)]
    return f"pipeline.{type(spec).__name__}(\n    " + ",\n    ".join(fields) + ",\n)"


def _data(settings: Mapping, data_file: str | None) -> str:
    """The data as the app prepares them, by the same step (kernelviz.pipeline)."""
    lines = ["# The data as the app prepares them (kernelviz.pipeline): made or read, scaled, projected onto",
             "# their first two principal components when they have more, labels hidden, a test part held out."]
    if settings["source"] in FILE_SOURCES:
        # the name only as a literal: a file name is outside text (kernelviz.outside)
        spec = pipeline.DataSpec.from_settings(settings, identity="file")
        lines += [f"DATA_FILE = {str(data_file)!r}",
                  f"data = {_spec(spec, origin='DATA_FILE')}",
                  "prep = pipeline.prepare(data, kv.data.read(DATA_FILE))"]
    else:
        lines += [f"data = {_spec(pipeline.DataSpec.from_settings(settings))}",
                  "prep = pipeline.prepare(data)"]
    lines += [
        "X, X_view = prep.X_model, prep.X_view  # what the models see; what the plots show",
        "y, y_true = prep.y, prep.y_true  # kv.data.UNLABELED where a label is hidden / was never known",
        "labeled, train, test, hidden = prep.labeled, prep.train, prep.test, prep.hidden",
        "classes = prep.classes",
        'print("points:", len(X))',
        'print("classes:", classes.tolist())',
        'print("training points per class:", [int(np.sum(train & (y == c))) for c in classes])',
        'print("test points per class:", [int(np.sum(test & (y == c))) for c in classes])',
        'print("unlabeled points:", int(np.sum(~labeled)))']
    return "\n".join(lines)


def _partition(settings: Mapping) -> str:
    return ("# The partition, fitted on every point (labels are never used); CkRBF, GMM and RWM measure with it.\n"
            f"partition = pipeline.fit_partition({_spec(pipeline.PartitionSpec.from_settings(settings))}, prep)")


def _gamma(settings: Mapping) -> str:
    return f"gamma = 10.0 ** {_number(settings['log_gamma'])}  # γ = {10.0 ** settings['log_gamma']:.3g}"


def _gamma_and_C(settings: Mapping) -> str:
    return _gamma(settings) + f"\nC = 10.0 ** {_number(settings['log_C'])}  # C = {10.0 ** settings['log_C']:.3g}"


def _kernel_arguments(name: str, settings: Mapping, as_dict: bool = False) -> str:
    """The arguments besides γ that the app gives kernel ``name`` (its kernelviz.pipeline.KernelSpec):
    ``", partition=partition, normalize='paper'"``, or as a dict's items."""
    spec = pipeline.KernelSpec.from_settings(name, settings)
    params = {}
    if spec.partition is not None:
        params["partition"] = "partition"
    if spec.normalize is not None:
        params["normalize"] = repr(spec.normalize)
    if as_dict:
        return ", ".join(f"{key!r}: {value}" for key, value in params.items())
    return "".join(f", {key}={value}" for key, value in params.items())


def _kernels(settings: Mapping) -> str:
    """The fitted kernels at γ: their unsupervised part sees every point, never a label."""
    rows = [f"    {name!r}: kv.kernels.make({name!r}, gamma=gamma{_kernel_arguments(name, settings)}).fit(X),"
            for name in settings["kernels"]]
    return "kernels = {\n" + "\n".join(rows) + "\n}"


# ----------------------------------------------------------------------------- the views


def _data_body(settings: Mapping) -> str:
    return ('print("feature means:", X.mean(axis=0).tolist())\n'
            'print("feature standard deviations:", X.std(axis=0).tolist())')


def _partition_body(settings: Mapping) -> str:
    return ('print("components:", partition.n_components_)\n'
            'print("weights:", partition.weights_.tolist())\n'
            'print("points per component:", np.bincount(partition.predict(X), '
            'minlength=partition.n_components_).tolist())\n'
            'print("means:", partition.means_.tolist())\n'
            'print("regularisation ε per component:", partition.epsilons_.tolist())')


def _similarity_body(settings: Mapping) -> str:
    if settings["ref_x"] is None or settings["ref_y"] is None:
        reference = ["# The reference: the data point nearest the centre of the data (rounded as the app shows it).",
                     "centre = X_view.mean(axis=0)",
                     "nearest_centre = X_view[np.argmin(((X_view - centre) ** 2).sum(axis=1))]",
                     "reference = np.array([round(float(v), 4) for v in nearest_centre])"]
    else:
        reference = [f"reference = np.array([{_number(settings['ref_x'])}, {_number(settings['ref_y'])}])"]
    lines = [_gamma(settings),
             _kernels(settings), *reference]
    lines += ["# The map is the plot's plane; with every feature fitted, its points are taken back into the",
              "# feature space (the plane through the data's mean spanned by the two components).",
              "reference_model = prep.to_model(reference[None])[0]",
              "on_map = prep.to_model(X_view)"]
    return "\n".join([
        *lines,
        f"nearest = np.argsort(((X_view - reference) ** 2).sum(axis=1))[:{NEAREST_POINTS}]",
        "for name, kernel in kernels.items():",
        "    # Dissimilarity: the distance inside the kernel's exponent, √(−ln(k(r,x)/√(k(r,r)k(x,x)))/γ).",
        "    k_rx = kernel(reference_model[None], on_map)[0]",
        "    k_rr = kernel(reference_model[None])[0, 0]",
        "    k_xx = np.diag(kernel(on_map))",
        "    similarity = k_rx / np.sqrt(np.abs(k_rr) * np.abs(k_xx))",
        "    # an indefinite kernel (LAP) can give a similarity ≤ 0: its dissimilarity is undefined (nan) or infinite",
        "    with np.errstate(divide=\"ignore\", invalid=\"ignore\"):",
        "        dissimilarity = np.sqrt(np.maximum(-np.log(np.minimum(similarity, 1.0)), 0.0) / gamma)",
        f'    print(name, "dissimilarity to the {NEAREST_POINTS} points nearest the reference:", '
        "dissimilarity[nearest].tolist())",
        '    print(name, "median dissimilarity:", np.nanmedian(dissimilarity))',
    ])


def _boundaries_body(settings: Mapping) -> str:
    lines = [_gamma_and_C(settings), "", "def report(name, predict):",
             '    print(name, "train accuracy:", np.mean(predict(X[train]) == y[train]))',
             "    if test.any():",
             '        print(name, "test accuracy:", np.mean(predict(X[test]) == y[test]))']
    if settings["label_how"] != "all":
        lines += ["    if hidden.any():  # the semi-supervised score",
                  '        print(name, "accuracy on hidden labels:", np.mean(predict(X[hidden]) == y_true[hidden]))']
    if settings["kernels"]:
        lines += ["", "# One SVM per kernel on the precomputed Gram matrix of the training points.",
                  _kernels(settings),
                  "for name, kernel in kernels.items():",
                  f"    svm = SVC(kernel=\"precomputed\", C=C, max_iter={pipeline.SVM_MAX_ITER:_})"
                  ".fit(kernel(X[train]), y[train])",
                  "    report(name, lambda points: svm.predict(kernel(points, X[train])))",
                  '    print(name, "support vectors:", len(svm.support_))']
    if settings["models"]:
        lines += ["", "# The other models, with γ and C where they take them (and the unlabeled points).",
                  "X_unlabeled = X[~labeled] if np.any(~labeled) else None"]
        binary_only = False
        rows = []
        for name in settings["models"]:
            cls, _, two_classes = kv.models.MODELS[name]
            accepted = cls().get_params()
            params = {"gamma": "gamma", "C": "C", "random_state": str(settings["partition_seed"]),
                      "eta": f"10 ** {_number(settings['log_eta'])}"}
            if name in pipeline.UNIT_KERNEL_MODELS:
                params["kernel"] = repr(settings["unit_kernel"])
            args = ", ".join(f"{k}={v}" for k, v in params.items() if k in accepted)
            rows.append(f"    {name!r}: kv.models.{cls.__name__}({args}),")
            binary_only = binary_only or two_classes
        lines += ["models = {", *rows, "}", "for name, model in models.items():"]
        if binary_only:
            two_class_models = tuple(n for n in settings["models"] if kv.models.MODELS[n][2])
            lines += [f"    if name in {two_class_models!r} and len(np.unique(y[train])) > 2:",
                      "        # a two-class model meets more classes one pair at a time (one-vs-one), as in the app",
                      "        with_unlabeled = kv.models.WithUnlabeled(estimator=model, X_unlabeled=X_unlabeled)",
                      "        pairs = OneVsOneClassifier(with_unlabeled)",
                      "        model = pairs.fit(X[train], y[train])",
                      "    else:",
                      "        model.fit(X[train], y[train], X_unlabeled=X_unlabeled)"]
        else:
            lines.append("    model.fit(X[train], y[train], X_unlabeled=X_unlabeled)")
        lines.append("    report(name, model.predict)")
    return "\n".join(lines)


def _kernel_body(settings: Mapping) -> str:
    return "\n".join([
        _gamma(settings),
        _kernels(settings),
        f"# At most {pipeline.GRAM_MAX_POINTS} points (evenly spaced), ordered by cluster, then class, then position.",
        f"pick = np.arange(len(X)) if len(X) <= {pipeline.GRAM_MAX_POINTS} else "
        f"np.linspace(0, len(X) - 1, {pipeline.GRAM_MAX_POINTS}).round().astype(int)",
        "order = pick[np.lexsort((X_view[pick, 0], y[pick], partition.predict(X[pick])))]",
        "for name, kernel in kernels.items():",
        "    K = kernel(X[order])",
        "    report = kv.kernels.psd_report(K)",
        '    print(name, "smallest eigenvalue:", report["min_eig"])',
        '    print(name, "largest eigenvalue:", report["max_eig"])',
        '    print(name, "negative eigenvalues:", report["n_negative"])',
        '    print(name, "diagonal range:", [float(K.diagonal().min()), float(K.diagonal().max())])',
    ])


def _grid_axis(name: str, bounds, steps: int) -> str:
    lo, hi = bounds
    if lo == hi:
        return f"{name} = np.array([{_number(lo)}])"
    return f"{name} = np.linspace({lo}, {hi}, {steps})"


def _searches(settings: Mapping) -> str:
    rows = [f"    {name!r}: {{{_kernel_arguments(name, settings, as_dict=True)}}}," for name in settings["kernels"]]
    return "\n".join([
        f"# Mean {settings['cv']}-fold cross-validated accuracy over a grid of log₁₀ C (rows) and log₁₀ γ (columns),",
        "# on every labeled point (training and held-out alike).",
        _grid_axis("log_Cs", settings["grid_log_C"], settings["grid_steps"]),
        _grid_axis("log_gammas", settings["grid_log_gamma"], settings["grid_steps"]),
        "X_unlabeled = X[~labeled] if np.any(~labeled) else None",
        "kernel_params = {", *rows, "}",
        "results = {name: kv.evaluation.grid_search(name, X[labeled], y[labeled], Cs=10.0 ** log_Cs, "
        "gammas=10.0 ** log_gammas,",
        f"                                           cv={settings['cv']}, random_state={settings['cv_seed']}, "
        "X_unlabeled=X_unlabeled, **params)",
        "           for name, params in kernel_params.items()}",
    ])


def _grid_body(settings: Mapping) -> str:
    return "\n".join([
        _searches(settings),
        "for name, result in results.items():",
        '    print(name, "accuracy grid:", result.scores.tolist())',
        "    i, j = np.unravel_index(np.argmax(result.scores), result.scores.shape)",
        '    print(name, "best accuracy:", result.scores[i, j])',
        '    print(name, "best cell (log10 C, log10 gamma):", [float(log_Cs[i]), float(log_gammas[j])])',
    ])


def _pf_body(settings: Mapping) -> str:
    return "\n".join([
        _searches(settings),
        "# P_f(α): the share of grid cells scoring at least α; its area from α₀ (the worst score of all grids) up.",
        "table, alpha0 = kv.evaluation.pf_auc({name: result.scores for name, result in results.items()})",
        'print("alpha0:", alpha0)',
        "for name, row in table.items():",
        '    print(name, "P_f AUC:", row["auc"])',
        '    print(name, "AUC / (1 - alpha0):", row["normalized_auc"])',
        '    print(name, "best accuracy:", row["best"])',
    ])


_BODIES = {"data": _data_body, "partition": _partition_body, "similarity": _similarity_body,
           "boundaries": _boundaries_body, "kernel": _kernel_body, "grid": _grid_body, "pf": _pf_body}
