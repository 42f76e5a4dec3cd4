"""The "Python code" of every view: run the script, and compare what it prints with what the app computes.

The app's numbers come from ``kernelviz.pipeline`` (data → partition → fitted kernels → grid
searches), the path the app takes, and the views' panels and P_f; the script's come
from a subprocess that runs the generated text with the public API. Every printed number
must agree to 1e-9, and every number the test expects must be printed.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import kernelviz as kv
from kernelviz import codegen, pipeline, registry
from kernelviz import figures as fg
from kernelviz import state

from _hostile import hostile_text

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parent.parent
#: The decision maps' resolution does not change any number the script prints: keep it small.
BOUNDARY_RESOLUTION = 12


# ----------------------------------------------------------------------------- the app's side


def settings_of(**changes) -> dict:
    """The app's settings: defaults with ``changes``, each validated as a link's value would be."""
    values = state.defaults()
    for name, value in changes.items():
        values[name] = state.validate(name, value)
    return values


def handed_in(values: dict, upload: bytes | None, name: str = "my-data") -> kv.data.Dataset | None:
    """The data the app hands to the pipeline: an upload (``name``: its file's stem) or a drawing."""
    if values["source"] == "upload":
        return kv.data.read(upload, name=name)
    if values["source"] == "drawn":
        return pipeline.drawn_dataset(values["points"])
    return None


class DataPoints:
    """Stands in for an evaluation grid whose points are the data points themselves."""

    def __init__(self, points):
        self.points = points


def app_numbers(values: dict, upload: bytes | None = None, name: str = "my-data") -> tuple[pipeline.Prepared, dict]:
    """What the app shows in ``values["view"]``, under the labels the script prints them with."""
    prep = pipeline.prepared(values, handed_in(values, upload, name), identity="test")
    view = values["view"]
    out = {"points": len(prep.y), "classes": prep.classes.tolist(),
           "training points per class": [int(np.sum(prep.train & (prep.y == c))) for c in prep.classes],
           "test points per class": [int(np.sum(prep.test & (prep.y == c))) for c in prep.classes],
           "unlabeled points": int(prep.unlabeled.sum())}
    if view == "data":
        out["feature means"] = prep.X_model.mean(axis=0).tolist()
        out["feature standard deviations"] = prep.X_model.std(axis=0).tolist()
        return prep, out
    partition = pipeline.partition_of(values, prep)
    kernels = {name: pipeline.fit_kernel(pipeline.KernelSpec.from_settings(name, values), prep, partition)
               for name in values["kernels"]}
    gamma = 10.0 ** values["log_gamma"]
    if view == "partition":
        out.update({"components": partition.n_components_, "weights": partition.weights_.tolist(),
                    "points per component": np.bincount(partition.predict(prep.X_model),
                                                        minlength=partition.n_components_).tolist(),
                    "means": partition.means_.tolist(),
                    "regularisation ε per component": partition.epsilons_.tolist()})
    elif view == "similarity":
        if values["ref_x"] is None:  # the Similarity view's centre_reference
            reference = tuple(round(v, 4) for v in pipeline.default_reference(prep))
        else:
            reference = (values["ref_x"], values["ref_y"])
        nearest = np.argsort(np.sum((prep.X_view - np.array(reference)) ** 2, axis=1))[:codegen.NEAREST_POINTS]
        for name, kernel in kernels.items():
            panel = pipeline.similarity_panel(name, kernel, prep, DataPoints(prep.X_view), values["log_gamma"], reference)
            out[f"{name} dissimilarity to the {codegen.NEAREST_POINTS} points nearest the reference"] = \
                panel.dissimilarity[nearest].tolist()
            out[f"{name} median dissimilarity"] = float(np.nanmedian(panel.dissimilarity))
    elif view == "boundaries":
        grid = fg.grid_over(prep.X_view, BOUNDARY_RESOLUTION)
        panels = [pipeline.boundary_panel(name, kernel, prep, grid, values["log_gamma"], values["log_C"])
                  for name, kernel in kernels.items()]
        panels += [pipeline.model_panel(name, prep, grid, values["log_gamma"], values["log_C"], values["partition_seed"],
                                     values["log_eta"], values["unit_kernel"])
                   for name in values["models"]]
        for panel in panels:
            out[f"{panel.name} train accuracy"] = panel.train_accuracy
            for label, value in (("test accuracy", panel.test_accuracy),
                                 ("accuracy on hidden labels", panel.hidden_accuracy)):
                if value is not None:
                    out[f"{panel.name} {label}"] = value
            if panel.support is not None:
                out[f"{panel.name} support vectors"] = len(panel.support)
    elif view == "kernel":
        X, breaks = pipeline.gram_points(prep, partition)
        for name, kernel in kernels.items():
            K = pipeline.at_gamma(kernel, gamma)(X)
            summary = pipeline.gram_summary(name, K, breaks)
            out[f"{name} smallest eigenvalue"] = summary.row["smallest eigenvalue"]
            out[f"{name} largest eigenvalue"] = summary.row["largest eigenvalue"]
            out[f"{name} negative eigenvalues"] = summary.row["negative eigenvalues"]
            out[f"{name} diagonal range"] = [K.diagonal().min(), K.diagonal().max()]
    elif view in ("grid", "pf"):
        grid = pipeline.GridSpec.from_settings(values)
        results = {name: pipeline.grid_search(pipeline.KernelSpec.from_settings(name, values), grid, prep, partition)[0]
                   for name in values["kernels"]}
        if view == "grid":
            for name, result in results.items():
                i, j = np.unravel_index(np.argmax(result.scores), result.scores.shape)
                out[f"{name} accuracy grid"] = result.scores.tolist()
                out[f"{name} best accuracy"] = result.scores.max()
                out[f"{name} best cell (log10 C, log10 gamma)"] = [grid.log_Cs[i], grid.log_gammas[j]]
        else:
            table, alpha0, _, _ = pipeline.pf_curves({name: r.scores for name, r in results.items()})
            out["alpha0"] = alpha0
            for name, row in table.items():
                out[f"{name} P_f AUC"] = row["auc"]
                out[f"{name} AUC / (1 - alpha0)"] = row["normalized_auc"]
                out[f"{name} best accuracy"] = row["best"]
    return prep, out


# ----------------------------------------------------------------------------- the script's side


def run_script(text: str, folder: Path) -> dict:
    """Run a generated script in ``folder`` (where its data file lies); its ``what: value`` lines as a dict."""
    path = folder / "view.py"
    path.write_text(text, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    done = subprocess.run([sys.executable, str(path)], cwd=folder, env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, f"the script failed:\n{done.stderr}\n--- script ---\n{text}"
    printed = {}
    for line in done.stdout.splitlines():
        label, sep, value = line.partition(": ")
        assert sep, f"the script printed a line that is not 'what: value': {line!r}"
        assert label not in printed, f"the script printed {label!r} twice"
        printed[label] = ast.literal_eval(value.replace("nan", "None"))
    return printed


def assert_same_numbers(printed: dict, expected: dict) -> None:
    assert sorted(printed) == sorted(expected)
    for label, value in expected.items():
        got = np.asarray(printed[label], dtype=float)
        want = np.asarray(value, dtype=float)
        assert got.shape == want.shape, label
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-9, err_msg=label)


def check_view(tmp_path: Path, upload: bytes | None = None, name: str = "my-data", **changes) -> dict:
    """Generate the view's script, run it, and compare with the app; returns the printed numbers."""
    values = settings_of(**changes)
    prep, expected = app_numbers(values, upload, name)
    data_file = None
    if values["source"] in codegen.FILE_SOURCES:
        data_file, text = codegen.data_download(prep)
        (tmp_path / data_file).write_text(text, encoding="utf-8")
    printed = run_script(codegen.script(values, data_file=data_file), tmp_path)
    assert_same_numbers(printed, expected)
    return printed


# ----------------------------------------------------------------------------- the tests


def test_defaults_data_view(tmp_path):
    printed = check_view(tmp_path)
    assert printed["points"] == 300  # moons' default size: the comparison saw real data


@pytest.mark.slow
def test_defaults_boundaries_with_every_default_kernel(tmp_path):
    printed = check_view(tmp_path, view="boundaries")
    assert {"rbf test accuracy", "ckrbf support vectors", "rwm train accuracy"} <= set(printed)


def test_generator_with_non_default_parameters_three_classes_and_two_class_models(tmp_path):
    # MPM is two-class only: on three classes both the app and the script go one-vs-one
    printed = check_view(tmp_path, view="boundaries", generator="blobs", data_seed=3,
                         gen_params={"n_samples": 90, "n_classes": 3, "cluster_std": 1.5},
                         kernels=["rbf", "ckrbf"], models=["MPM", "SCM"], n_components=3, log_gamma=-0.5,
                         log_C=1.5)
    assert printed["classes"] == [0.0, 1.0, 2.0]
    assert "MPM test accuracy" in printed


def test_bundled_sample_in_four_dimensions_similarity(tmp_path):
    """The CkRBF paper's Iris preset: min-max scaling, PCA projection, the reference set in the view."""
    check_view(tmp_path, view="similarity", source="sample", sample="iris-2class", scaling="minmax",
               kernels=["rbf", "mrbf", "ckrbf"], log_gamma=1.0, ref_x=0.1, ref_y=-0.05)


def test_similarity_around_the_default_reference_with_every_feature(tmp_path):
    check_view(tmp_path, view="similarity", source="sample", sample="heart", scaling="zscore", fit_on="full",
               kernels=["rbf", "ckrbf"], normalize="unit")


def test_minmax_sample_kernel_matrix_subsampled(tmp_path):
    printed = check_view(tmp_path, view="kernel", source="sample", sample="fourclass", scaling="minmax",
                         kernels=["rbf", "ckrbf", "rwm"], log_gamma=1.0)
    assert printed["points"] == 862  # more than the view's 300: the subsample and its order must match


def test_one_label_per_class_on_concentric_gaussians(tmp_path):
    """The RWM paper's Fig. 1 preset (fewer points): two labels, the hidden ones score the kernels."""
    printed = check_view(tmp_path, view="boundaries", generator="concentric", gen_params={"n_samples": 300},
                         scaling="none", label_how="per_class", label_per_class=1, label_seed=4, partition="gmm",
                         kernels=["rbf", "rwm"], log_C=1.0, test_fraction=0.0)
    assert printed["training points per class"] == [1, 1]
    assert "rwm accuracy on hidden labels" in printed


def test_labeled_fraction_with_a_variational_partition(tmp_path):
    check_view(tmp_path, view="partition", label_how="fraction", label_fraction=0.2, label_seed=2,
               partition="vi", n_components=5, vi_alpha0=0.5, vi_w0=0.3)


@pytest.mark.slow
def test_small_grid(tmp_path):
    check_view(tmp_path, view="grid", gen_params={"n_samples": 90}, kernels=["rbf", "ckrbf"], grid_log_C=(-1, 2),
               grid_log_gamma=(-1, 1), grid_steps=3, cv=3)


@pytest.mark.slow
def test_pf_at_the_unit_scale_with_a_single_gamma(tmp_path):
    printed = check_view(tmp_path, view="pf", gen_params={"n_samples": 90}, kernels=["rbf", "ckrbf"],
                         normalize="unit", grid_log_C=(-1, 2), grid_log_gamma=(0, 0), grid_steps=3, cv=3)
    assert "alpha0" in printed


def test_drawn_points_are_read_from_the_offered_file(tmp_path):
    rng = np.random.default_rng(1)
    points = np.vstack([np.column_stack([rng.normal(-1, 0.4, (8, 2)), np.full(8, 1.0)]),
                        np.column_stack([rng.normal(1, 0.4, (8, 2)), np.full(8, -1.0)]),
                        np.column_stack([rng.normal(0, 1.0, (6, 2)), np.zeros(6)])])
    printed = check_view(tmp_path, view="boundaries", source="drawn", points=np.round(points, 3),
                         kernels=["rbf", "rwm"], partition="gmm", test_fraction=0.25)
    assert printed["unlabeled points"] == 6


def test_uploaded_three_feature_file_fitted_on_every_feature(tmp_path):
    X, y = kv.data.make("blobs", n_samples=80, n_features=3, random_state=5)
    upload = kv.data.to_csv(kv.data.Dataset(X, y, name="my-data")).encode()
    check_view(tmp_path, upload=upload, view="boundaries", source="upload", fit_on="full",
               kernels=["rbf", "ckrbf"], label_how="per_class", label_per_class=10)


def test_the_comparison_notices_a_script_that_disagrees_with_the_app(tmp_path):
    values = settings_of(view="boundaries", gen_params={"n_samples": 120, "noise": 0.3}, kernels=["rbf"])
    _, expected = app_numbers(values)
    other_seed = codegen.script({**values, "label_seed": 1})  # a different held-out split
    with pytest.raises(AssertionError):
        assert_same_numbers(run_script(other_seed, tmp_path), expected)


def test_data_download_reads_back_the_unscaled_features_and_every_label():
    values = settings_of(label_how="per_class", label_per_class=2)
    prep, _ = app_numbers(values)
    name, text = codegen.data_download(prep)
    back = kv.data.read(text.encode(), name="back")
    assert name == "moons.csv"
    np.testing.assert_array_equal(back.X, prep.X_raw)
    np.testing.assert_array_equal(back.y, prep.y_true)  # hidden labels included: the script hides them itself


def test_the_theory_view_and_file_data_without_a_file_are_refused():
    with pytest.raises(ValueError, match="no numbers"):
        codegen.script(settings_of(view="theory"))
    with pytest.raises(ValueError, match="CSV file"):
        codegen.script(settings_of(view="data", source="drawn"))


@pytest.mark.parametrize("view", codegen.VIEWS)
def test_every_view_has_a_script_that_compiles(view):
    compile(codegen.script(settings_of(view=view, models=["MCPM"])), f"<{view}>", "exec")


@pytest.mark.slow
def test_every_kernel_and_model_on_small_data(tmp_path):
    """The script fits each kernel at γ directly, the app at γ = 1 and then sets γ: the numbers must not care."""
    check_view(tmp_path, view="boundaries", gen_params={"n_samples": 60, "noise": 0.2}, kernels=list(registry.KERNELS),
               models=list(registry.MODELS), log_gamma=0.5, log_C=0.5)


@pytest.mark.slow
def test_eta_and_the_unit_kernel_reach_the_script(tmp_path):
    """CKSVMNDA at η = 1 and MCPM / SCM with LPPK: the script fits them as the app's panels do."""
    check_view(tmp_path, view="boundaries", gen_params={"n_samples": 60, "noise": 0.2}, kernels=["rbf"],
               models=["CKSVMNDA", "SCM", "MCPM"], log_gamma=-0.5, log_C=0.5, log_eta=0.0, unit_kernel="lppk")


# ----------------------------------------------------------------------------- hostile names


HOSTILE_UPLOAD = kv.data.to_csv(kv.data.Dataset(*kv.data.make("blobs", n_samples=40, random_state=2),
                                                name="x")).encode()


@pytest.mark.slow
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@example(name='x"""and __import__(\'os\').system(\'touch PWNED\')or"""', view="data")
@example(name="a\nimport os; os.system('touch PWNED')\n#", view="data")
@example(name="\\N{y}", view="partition")
@given(name=hostile_text, view=st.sampled_from(["data", "partition", "similarity", "boundaries", "kernel"]))
def test_a_hostile_file_name_is_only_a_literal_in_the_script(tmp_path_factory, name, view):
    """Upload → the view's Python-code box → the script run in a scratch folder: it reads the file
    the box offers, prints the page's numbers, and does nothing else (no file appears)."""
    folder = tmp_path_factory.mktemp("hostile")
    changes = {"kernels": ["rbf"], "models": []} if view != "data" else {}
    check_view(folder, upload=HOSTILE_UPLOAD, name=name, view=view, source="upload", **changes)
    prep, _ = app_numbers(settings_of(source="upload"), HOSTILE_UPLOAD, name)
    data_file, _ = codegen.data_download(prep)
    assert sorted(p.name for p in folder.iterdir()) == sorted([data_file, "view.py"])
    script = codegen.script(settings_of(view=view, source="upload", **changes), data_file=data_file)
    # the name is nowhere in the script but in the literal that reads the file
    assert [line for line in script.splitlines() if data_file in line] == [f"DATA_FILE = {data_file!r}"]


def test_a_generator_parameter_that_does_not_exist_never_reaches_the_code():
    with pytest.raises(ValueError, match="no such parameter"):
        codegen.script({**settings_of(), "gen_params": {"noise=0)\nimport os\n#": 1.0}})


# ----------------------------------------------------------------------------- bad input (issue 29)


@pytest.mark.parametrize("bad", [None, 3, "boundaries", ["view"], {**state.defaults(), "kernels": None},
                                 {**state.defaults(), "view": None}, {**state.defaults(), "grid_log_C": 2}],
                         ids=["None", "int", "str", "list", "kernels None", "view None", "range int"])
def test_settings_that_are_not_settings_raise_the_documented_value_error(bad):
    with pytest.raises(ValueError):
        codegen.script(bad)


def test_settings_left_out_take_their_defaults_as_in_a_link():
    """A notebook may name only what it changes: the rest is the app's default, as a link's is."""
    assert codegen.script({"view": "boundaries", "kernels": ["rbf"]}) == codegen.script(
        settings_of(view="boundaries", kernels=["rbf"]))


@pytest.mark.parametrize("data_file", [3, b"data.csv", "", None])
def test_a_data_file_that_is_not_a_name_is_refused(data_file):
    with pytest.raises(ValueError, match="CSV file"):
        codegen.script(settings_of(view="data", source="drawn"), data_file=data_file)


def test_feature_names_with_a_separator_or_a_leading_hash_survive_the_offered_file_and_the_script(tmp_path):
    """An upload whose columns are "#id" and "a;b": the file beside the code reads back with the
    same columns, and the script that reads it prints the page's numbers."""
    X, y = kv.data.make("blobs", n_samples=40, random_state=3)
    upload = ('"#id","a;b",label\n' + "".join(f"{a!r},{b!r},{int(c)}\n" for (a, b), c in zip(X.tolist(), y))).encode()
    values = settings_of(view="data", source="upload")
    prep, _ = app_numbers(values, upload)
    assert list(prep.feature_names) == ["#id", "a;b"]
    data_file, text = codegen.data_download(prep)
    assert kv.data.read(text.encode(), name="back").feature_names == ["#id", "a;b"]
    check_view(tmp_path, upload=upload, view="data", source="upload")
