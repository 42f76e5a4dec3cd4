"""Tests for kernelviz.data: samples, generators, readers/writers, scaling, label selection."""

import csv
import io

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.cluster.hierarchy import fcluster, linkage

from kernelviz import data
from kernelviz.data import UNLABELED, Dataset

pytestmark = pytest.mark.unit

FAST = settings(max_examples=30, deadline=None,
                suppress_health_check=[HealthCheck.too_slow])


def read_text(text, **kwargs):
    """read() on text as an upload would deliver it (bytes in a BytesIO with a name)."""
    upload = io.BytesIO(text.encode("utf-8"))
    upload.name = kwargs.pop("filename", "upload.csv")
    return data.read(upload, **kwargs)


# --------------------------------------------------------------------------- samples

EXPECTED_SAMPLES = {
    # name: (rows, features, {label: count})
    "fourclass": (862, 2, {-1.0: 555, 1.0: 307}),
    "ripley": (250, 2, {0.0: 125, 1.0: 125}),
    "ripley-test": (1000, 2, {0.0: 500, 1.0: 500}),
    "heart": (270, 13, {-1.0: 150, 1.0: 120}),
    "australian": (690, 14, {-1.0: 383, 1.0: 307}),
    "diabetes": (768, 8, {-1.0: 268, 1.0: 500}),
    "breast-cancer": (683, 10, {-1.0: 444, 1.0: 239}),
    "banknote": (1372, 4, {0.0: 762, 1.0: 610}),
}


def test_samples_lists_every_bundled_sample():
    assert data.samples() == list(EXPECTED_SAMPLES)


@pytest.mark.parametrize("name", list(EXPECTED_SAMPLES))
def test_load_sample_shapes_and_labels(name):
    rows, features, counts = EXPECTED_SAMPLES[name]
    ds = data.load(name)
    assert ds.X.shape == (rows, features) and ds.X.dtype == np.float64
    assert ds.y.dtype == np.float64 and ds.name == name
    assert dict(zip(*np.unique(ds.y, return_counts=True))) == counts
    assert len(ds.feature_names) == features
    assert np.all(np.isfinite(ds.X))


def test_load_keeps_sparse_zeros_and_header_names():
    # fourclass line 242 ("+1 2:0.54386") has no feature 1: it must read as 0
    fourclass = data.load("fourclass")
    assert fourclass.X[241].tolist() == [0.0, 0.54386] and fourclass.y[241] == 1.0
    assert data.load("ripley").feature_names == ["xs", "ys"]
    assert data.load("ripley").X[0].tolist() == [0.05100797, 0.16086164]


def test_load_unknown_sample_lists_the_valid_names():
    with pytest.raises(ValueError, match="Unknown sample 'iris'.*fourclass, ripley"):
        data.load("iris")


# --------------------------------------------------------------------------- generators


@pytest.mark.parametrize("kind", list(data.GENERATORS))
def test_generator_shape_labels_and_determinism(kind):
    defaults = data.GENERATORS[kind]
    n_classes = defaults.get("n_classes", defaults.get("n_arms", 2))
    X, y = data.make(kind, n_samples=101, random_state=3)
    assert X.shape == (101, defaults.get("n_features", 2)) and X.dtype == np.float64
    assert np.all(np.isfinite(X))
    labels, counts = np.unique(y, return_counts=True)
    assert labels.tolist() == list(map(float, range(n_classes)))
    assert counts.max() - counts.min() <= 1  # classes as even as possible
    X_again, y_again = data.make(kind, n_samples=101, random_state=3)
    assert np.array_equal(X, X_again) and np.array_equal(y, y_again)
    X_other, _ = data.make(kind, n_samples=101, random_state=4)
    assert not np.array_equal(X, X_other)
    assert kind in data.GENERATOR_DESCRIPTIONS


def test_generator_defaults_are_typed_for_widgets():
    for kind, defaults in data.GENERATORS.items():
        for param, value in defaults.items():
            kind_of, low, high, low_excluded = data.PARAMETER_LIMITS[param]
            assert type(value) is kind_of and low <= value <= high
            assert not (low_excluded and value == low)
        X, _ = data.make(kind, **{k: v for k, v in defaults.items()
                                  if k not in ("n_samples", "noise")})
        assert len(X) == defaults["n_samples"]


def test_generators_accept_their_shape_parameters():
    X, y = data.make("blobs", n_samples=90, n_classes=3, n_features=5)
    assert X.shape == (90, 5) and set(y) == {0.0, 1.0, 2.0}
    X, y = data.make("spirals", n_samples=90, n_arms=3)
    assert set(y) == {0.0, 1.0, 2.0}
    X, y = data.make("mixture", n_samples=80, n_classes=4, clusters_per_class=2, n_features=3)
    assert X.shape == (80, 3) and set(y) == {0.0, 1.0, 2.0, 3.0}


def test_noise_zero_means_exact_shapes():
    X, y = data.make("circles", n_samples=200, noise=0.0, factor=0.3)
    radius = np.linalg.norm(X, axis=1)
    assert np.allclose(radius[y == 0], 1.0) and np.allclose(radius[y == 1], 0.3)
    X, y = data.make("moons", n_samples=200, noise=0.0)
    assert np.allclose(np.linalg.norm(X[y == 0], axis=1), 1.0)
    assert np.allclose(np.linalg.norm(X[y == 1] - [1.0, 0.5], axis=1), 1.0)
    X_noisy, y_noisy = data.make("circles", n_samples=200, noise=0.2, factor=0.3)
    assert np.std(np.linalg.norm(X_noisy[y_noisy == 0], axis=1)) > 0.1


def test_concentric_has_the_rwm_papers_spreads():
    X, y = data.make("concentric", n_samples=8000, random_state=1)
    assert np.allclose(X.mean(axis=0), 0.0, atol=0.06)
    assert X[y == 0].var(axis=0) == pytest.approx([0.07, 0.07], rel=0.1)
    assert X[y == 1].var(axis=0) == pytest.approx([1.93, 1.93], rel=0.1)


def test_xor_classes_follow_the_sign_of_the_product():
    X, y = data.make("xor", n_samples=400, cluster_std=0.1)
    assert np.array_equal(y, (X[:, 0] * X[:, 1] < 0).astype(float))


def test_mixture_has_the_requested_clusters_per_class():
    X, y = data.make("mixture", n_samples=600, clusters_per_class=5, cluster_std=0.02,
                     extent=10.0, random_state=2)
    for label in (0.0, 1.0):
        groups = fcluster(linkage(X[y == label], "single"), t=0.5, criterion="distance")
        assert len(np.unique(groups)) == 5


def test_anisotropic_clusters_are_elongated_along_the_angle():
    X, y = data.make("anisotropic", n_samples=2000, stretch=5.0, angle=30.0)
    eigenvalues, eigenvectors = np.linalg.eigh(np.cov(X[y == 0].T))
    assert eigenvalues[1] / eigenvalues[0] == pytest.approx(25.0, rel=0.2)
    long_axis = eigenvectors[:, 1] * np.sign(eigenvectors[0, 1])
    assert np.degrees(np.arctan2(long_axis[1], long_axis[0])) == pytest.approx(30.0, abs=3)


@pytest.mark.parametrize("call, message", [
    (lambda: data.make("swiss-roll"), "Unknown generator 'swiss-roll'.*blobs, moons"),
    (lambda: data.make("moons", factor=0.5), "no parameter 'factor'.*n_samples, noise"),
    (lambda: data.make("moons", n_samples=1), "n_samples=1 must be >= 2"),
    (lambda: data.make("moons", noise=-0.1), "noise=-0.1 must be >= 0"),
    (lambda: data.make("circles", factor=1.5), "factor=1.5 must be > 0.0 and <= 1.0"),
    (lambda: data.make("blobs", n_classes=2.5), "n_classes=2.5 must be a whole number"),
    (lambda: data.make("blobs", n_classes=True), "must be a number"),
    (lambda: data.make("blobs", cluster_std=float("nan")), "must be finite"),
    (lambda: data.make("blobs", n_samples=3, n_classes=4), "too few for 4 classes"),
    (lambda: data.make("blobs", random_state=-1), "random_state must be a non-negative"),
    (lambda: data.make("blobs", n_samples=200_000, n_features=101), "n_features=101 must be"),
])
def test_make_rejects_bad_requests(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# --------------------------------------------------------------------------- round trips

labels_strategy = st.sampled_from([-1.0, 1.0, 0.0, 2.5, 1e-7, float(UNLABELED)])


@st.composite
def datasets(draw):
    n = draw(st.integers(2, 12))
    d = draw(st.integers(1, 4))
    values = st.floats(allow_nan=False, allow_infinity=False, width=64)
    X = draw(arrays(np.float64, (n, d), elements=st.one_of(values, st.just(0.0))))
    y = None if draw(st.booleans()) and draw(st.booleans()) else \
        np.array(draw(st.lists(labels_strategy, min_size=n, max_size=n)))
    return Dataset(X, y, name="hypo")


def assert_same_labels(read_back, original):
    if original.y is None or not original.labeled_mask.any():
        assert read_back.y is None  # no label at all reads back as "no labels"
    else:
        assert np.array_equal(read_back.y, original.y)


@FAST
@given(datasets())
def test_csv_round_trip_is_exact(ds):
    back = read_text(data.to_csv(ds))
    assert np.array_equal(back.X, ds.X)
    assert_same_labels(back, ds)
    assert back.feature_names == ds.feature_names


@FAST
@given(datasets())
def test_libsvm_round_trip_is_exact(ds):
    back = read_text(data.to_libsvm(ds), filename="upload.libsvm")
    assert back.X.shape == ds.X.shape
    assert np.array_equal(back.X, ds.X)
    assert_same_labels(back, ds)


def test_round_trip_keeps_odd_feature_names_and_samples():
    ds = Dataset([[1.5, -2.0], [0.1, 3.0]], [1, UNLABELED], feature_names=['a, "b"', "c d"])
    back = read_text(data.to_csv(ds))
    assert back.feature_names == ['a, "b"', "c d"]
    assert back.y.tolist() == [1.0, UNLABELED]
    heart = data.load("heart")
    back = read_text(data.to_libsvm(heart))
    assert np.array_equal(back.X, heart.X) and np.array_equal(back.y, heart.y)


FORMULA_NAMES = ["=1+1", "+cmd", "-2+3", "@SUM(A1)"]


def test_csv_header_cells_cannot_run_as_spreadsheet_formulas():
    # OWASP's CSV-injection advice: a text cell starting with = + - @ (tab and CR
    # included) is written with a leading single quote, so a spreadsheet shows it as text.
    names = [*FORMULA_NAMES, "\t=HYPERLINK(x)", "\r-x", "plain", "-1.5"]
    ds = Dataset(np.ones((2, len(names))), [1, -1], feature_names=names)
    text = data.to_csv(ds)
    header = next(csv.reader(io.StringIO(text, newline="")))
    assert header == ["'=1+1", "'+cmd", "'-2+3", "'@SUM(A1)", "'=HYPERLINK(x)", "'-x", "plain",
                      "-1.5", "label"]
    assert text.splitlines()[2].endswith(",-1")  # numbers keep their sign: -1 is a label


def test_quoted_formula_names_read_back_as_they_were():
    names = [*FORMULA_NAMES, "a\nb\u2028c", " padded "]
    ds = Dataset(np.ones((2, len(names))), [1, -1], feature_names=names)
    # line breaks inside a name become spaces (read() takes one row per line) and the
    # spaces around a name go, as read() strips every cell anyway
    assert read_text(data.to_csv(ds)).feature_names == [*FORMULA_NAMES, "a b c", "padded"]
    # a quote that to_csv did not add (not followed by = + - @) is kept
    assert read_text("'a,'+b,label\n1,2,0\n3,4,1\n").feature_names == ["'a", "+b"]


IRIS_LIKE = """sepal_length,sepal_width,species
5.1,3.5,setosa
7.0,3.2,versicolor
6.3,3.3,virginica
4.9,3.0,setosa
5.5,2.3,
"""


def test_text_labels_are_classes_with_their_names_kept():
    ds = read_text(IRIS_LIKE)
    # codes 0, 1, … in the sorted order of the names; an empty cell is still unlabeled
    assert ds.class_names == {0.0: "setosa", 1.0: "versicolor", 2.0: "virginica"}
    assert ds.y.tolist() == [0.0, 1.0, 2.0, 0.0, UNLABELED]
    assert [ds.class_names[c] for c in ds.classes] == ["setosa", "versicolor", "virginica"]
    np.testing.assert_array_equal(ds.X[:, 0], [5.1, 7.0, 6.3, 4.9, 5.5])
    # quoted names and names around spaces, with the label column anywhere
    ds = read_text('animal,w\n "dog" ,1\ncat,2\n', label_column="animal")
    assert ds.class_names == {0.0: "cat", 1.0: "dog"} and ds.y.tolist() == [1.0, 0.0]


def test_numeric_labels_have_no_class_names():
    assert read_text("x,label\n1,-1\n2,1\n").class_names is None
    assert data.load("ripley").class_names is None
    assert read_text("x,label\n1,cat\n2,\n").y.tolist() == [0.0, UNLABELED]
    assert read_text("x,label\n1,\n2,\n").class_names is None  # no labels at all


def test_text_labels_round_trip_through_csv_names_first():
    ds = Dataset([[1.0], [2.0], [3.0]], [1, 0, UNLABELED],
                 class_names={0: "=cmd", 1: "dog"})
    text = data.to_csv(ds)
    assert text.splitlines()[1:] == ["1.0,dog", "2.0,'=cmd", "3.0,"]
    back = read_text(text)
    assert back.class_names == {0.0: "=cmd", 1.0: "dog"} and back.y.tolist() == [1.0, 0.0, UNLABELED]
    # the names come back with every point; the codes follow the names' sorted order
    renamed = read_text(data.to_csv(Dataset([[1.0], [2.0]], [0, 1], class_names={0: "z", 1: "a"})))
    assert [renamed.class_names[c] for c in renamed.y] == ["z", "a"]


def test_class_names_with_commas_quotes_and_no_header():
    ds = Dataset([[1.0], [2.0]], [0, 1], class_names={0: 'big, "red"', 1: "small"})
    assert read_text(data.to_csv(ds)).class_names == {0.0: 'big, "red"', 1.0: "small"}
    # without a header, a first row whose only text is a class name is data
    headless = read_text("5.1,3.5,setosa\n7.0,3.2,versicolor\n")
    assert headless.n == 2 and headless.class_names == {0.0: "setosa", 1.0: "versicolor"}


@pytest.mark.parametrize("name", ["1", "-2.5", "  ", "nan"])
def test_to_csv_refuses_class_names_that_would_not_read_back_as_names(name):
    ds = Dataset([[1.0], [2.0]], [0, 1], class_names={0: name, 1: "dog"})
    with pytest.raises(ValueError, match="cannot be written as a name.*Rename the class"):
        data.to_csv(ds)


@pytest.mark.parametrize("text, message", [
    ("x,label\n1,cat\n2,1\n", "line 2, label column 'label': 'cat' is not a finite number.*"
                               "or names such as cat / dog in every cell"),
    ("x,label\n1,1\n2,dog\n", "line 3, label column 'label': 'dog' is not a finite"),
])
def test_labels_mixing_numbers_and_names_are_refused(text, message):
    with pytest.raises(ValueError, match=message):
        read_text(text)


def test_dataset_checks_its_class_names():
    with pytest.raises(ValueError, match="class 1 has no name in class_names"):
        Dataset([[1.0], [2.0]], [0, 1], class_names={0: "cat"})
    with pytest.raises(ValueError, match="the name 'cat' is given to more than one class"):
        Dataset([[1.0], [2.0]], [0, 1], class_names={0: "cat", 1: "cat"})
    with pytest.raises(ValueError, match="class_names must map each class .* to a name"):
        Dataset([[1.0], [2.0]], [0, 1], class_names=["cat", "dog"])
    with pytest.raises(ValueError, match="class_names given, but the data set has no labels"):
        Dataset([[1.0], [2.0]], None, class_names={0: "cat"})


def test_libsvm_comment_cannot_smuggle_in_a_data_line():
    ds = Dataset([[1.0], [2.0]], [1, -1], name="evil\n1 1:99\r-1 1:7")
    back = read_text(data.to_libsvm(ds))
    np.testing.assert_array_equal(back.X, ds.X)
    np.testing.assert_array_equal(back.y, ds.y)


def test_libsvm_output_is_plain_libsvm_for_labeled_points():
    text = data.to_libsvm(Dataset([[0.5, 0.0], [0.0, 0.0]], [1, -1]))
    assert text.splitlines()[1:] == ["1 1:0.5 2:0", "-1"]


# --------------------------------------------------------------------------- reading tables


def test_csv_header_is_detected_and_names_kept():
    ds = read_text("a,b,label\n1,2,1\n3,4,-1\n")
    assert ds.feature_names == ["a", "b"] and ds.X.tolist() == [[1, 2], [3, 4]]
    assert ds.y.tolist() == [1, -1] and ds.name == "upload"


def test_csv_without_header_reads_every_row():
    ds = read_text("1,2,1\n3,4,-1\n")
    assert ds.X.tolist() == [[1, 2], [3, 4]] and ds.feature_names == ["x1", "x2"]
    with pytest.raises(ValueError, match="line 2, column 'column 2': 'x' is not a number"):
        read_text("1,2,1\n3,x,-1\n")


def test_whitespace_table_with_header_like_ripley():
    ds = read_text("    xs     ys   yc\n  0.05  0.16   0\n -0.74  0.08   1\n")
    assert ds.feature_names == ["xs", "ys"] and ds.y.tolist() == [0, 1]


def test_semicolon_and_tab_tables_crlf_and_comments():
    ds = read_text("# exported\r\nx;y;c\r\n1;2;0\r\n\r\n3;4;1\r\n")
    assert ds.X.tolist() == [[1, 2], [3, 4]] and ds.y.tolist() == [0, 1]
    ds = read_text("x\ty\tc\n1\t2\t\n3\t4\t1\n")
    assert ds.y.tolist() == [UNLABELED, 1]


def test_label_column_by_name_index_and_false():
    text = "class,x,y\n1,0.5,0.25\n0,1.5,2.5\n"
    by_name = read_text(text, label_column="class")
    by_index = read_text(text, label_column=0)
    by_negative = read_text(text, label_column=-3)
    for ds in (by_name, by_index, by_negative):
        assert ds.y.tolist() == [1, 0] and ds.feature_names == ["x", "y"]
        assert ds.X.tolist() == [[0.5, 0.25], [1.5, 2.5]]
    unlabeled = read_text(text, label_column=False)
    assert unlabeled.y is None and unlabeled.X.shape == (2, 3)


def test_empty_label_cells_are_unlabeled_and_all_empty_means_no_labels():
    ds = read_text("x,y,label\n1,2,\n3,4,1\n5,6,\n")
    assert ds.labeled_mask.tolist() == [False, True, False]
    assert ds.classes.tolist() == [1.0]
    X_lab, y_lab, X_unl = ds.split_labeled()
    assert X_lab.tolist() == [[3, 4]] and y_lab.tolist() == [1] and len(X_unl) == 2
    assert read_text("x,y,label\n1,2,\n3,4,\n").y is None


def test_read_accepts_paths_bytes_and_text_streams(tmp_path):
    path = tmp_path / "points.csv"
    path.write_text("1,2,0\n3,4,1\n")
    assert data.read(path).name == "points"
    assert data.read(str(path)).X.shape == (2, 2)
    assert data.read(b"1,2,0\n3,4,1\n").X.shape == (2, 2)
    with open(path, "rb") as handle:  # an object with read() only
        assert data.read(handle).name == "points"
    assert data.read(io.StringIO("1 1:2\n-1 2:3\n")).X.tolist() == [[2, 0], [0, 3]]


def test_libsvm_details():
    ds = read_text("+1 1:0.5 3:-2 # a comment\n-1\n2:7 1:1\n", filename="x.svm")
    assert ds.X.tolist() == [[0.5, 0, -2], [0, 0, 0], [1, 7, 0]]
    assert ds.y.tolist() == [1, -1, UNLABELED]
    assert read_text("1 1:2\n-1 1:3\n", label_column=False).y is None


def test_duplicated_rows_are_kept():
    ds = read_text("1,2,0\n1,2,0\n1,2,1\n")
    assert ds.n == 3
    assert data.scale(ds.X, "zscore").shape == (3, 2)
    assert data.select_labeled(ds.y, "dense_per_class", 1, X=ds.X).sum() == 2


# --------------------------------------------------------------------------- bad input

BAD_TEXT = [
    ("", "is empty"),
    ("# only a comment\n\n", "is empty"),
    ("a,b,label\n", "header but no data rows"),
    ("1,2,0\n", "1 data row.*at least two points"),
    ("1,2,0\n3,4\n", "line 2 has 2 values but line 1 has 3"),
    ("x,y,label\n1,2,0\n3,abc,1\n", "line 3, column 'y': 'abc' is not a number"),
    ("x,y,label\n1,2,0\n3,,1\n", "line 3, column 'y' is empty"),
    ("x,y,label\n1,nan,0\n3,4,1\n", "line 2, column 'y': 'nan' is not a finite number"),
    ("x,y,label\n1,2,0\n3,inf,1\n", "line 3, column 'y': 'inf' is not a finite number"),
    ("x,y,label\n1,2,yes\n3,4,1\n", "line 2, label column 'label': 'yes' is not a finite"),
    ("x;y;label\n1,5;2;0\n3;4;1\n", "line 2, column 'x': '1,5' is not a number "
                                      "\\(a decimal comma"),
    ("1 1:1\n-1 1:2\n\x00", "binary file"),
    ("1 1:0.5\nabc 1:2\n", "line 2: the label 'abc' is not a finite number"),
    ("1 1:0.5\n-1 0:2\n", "line 2: feature index 0.*start at 1"),
    ("1 1:0.5\n-1 1:x\n", "line 2: '1:x' is not an index:value pair"),
    ("1 1:0.5\n-1 2:inf\n", "line 2, feature 2: 'inf' is not a finite number"),
    ("1 1:0.5 1:2\n-1 1:1\n", "line 1: feature index 1 appears twice"),
    ("1\n-1\n", "single column"),
    ("1 1:1\n-1 99999999:1\n", "2 rows × 99,999,999 features, too many to hold as a dense"),
    # pandas would fill a short row's missing label with NaN, i.e. "unlabeled", silently
    ("x,y,label\n1,2,0\n3,4\n5,6,1\n", "line 3 has 2 values but line 1 has 3"),
    # ... and read True / False as booleans, which are not numbers here
    ("x,y,label\n1,True,0\n3,False,1\n", "line 2, column 'y': 'True' is not a number"),
    ('x,y,label\n1,"2,0\n3,4,1\n', "line 2 has 2 values but line 1 has 3"),
    ('x,y,label\n1,2,0\n3,4,"1\n', "quotes .*every \" needs its partner"),
]


def test_quoted_cells_may_hold_the_separator_and_numbers():
    ds = read_text('"x, first",y,label\n"1.5",2,0\n3," 4 ",1\n')
    assert ds.feature_names == ["x, first", "y"]
    np.testing.assert_array_equal(ds.X, [[1.5, 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal(ds.y, [0.0, 1.0])


@pytest.mark.parametrize("text, message", BAD_TEXT)
def test_bad_text_raises_a_helpful_error(text, message):
    with pytest.raises(ValueError, match=message):
        read_text(text)


def test_forced_formats():
    with pytest.raises(ValueError, match="has no features: every line holds only a label"):
        read_text("1\n-1 # labels, no features\n", fmt="libsvm")
    with pytest.raises(ValueError, match="line 2, column 'x': '1:2' is not a number"):
        read_text("x,label\n1:2,1\n1:3,-1\n", fmt="csv")


@pytest.mark.parametrize("kwargs, message", [
    ({"label_column": "class"}, "No label column named 'class'.*'a', 'b', 'c'"),
    ({"label_column": 3}, "index 3 is out of range.*3 columns"),
    ({"label_column": 1.5}, "label_column must be None"),
    ({"fmt": "xlsx"}, "Unknown format 'xlsx'"),
])
def test_bad_label_column_or_format(kwargs, message):
    with pytest.raises(ValueError, match=message):
        read_text("a,b,c\n1,2,0\n3,4,1\n", **kwargs)


def test_label_column_name_needs_a_header_and_libsvm_has_no_columns():
    with pytest.raises(ValueError, match="has no header row.*by index"):
        read_text("1,2,0\n3,4,1\n", label_column="c")
    with pytest.raises(ValueError, match="label_column=2 does not apply"):
        read_text("1 1:2\n-1 1:3\n", label_column=2)


@pytest.mark.parametrize("raw, message", [
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "looks like a PNG image"),
    (b"PK\x03\x04rest-of-an-xlsx", "ZIP archive.*xlsx"),
    (b"1,2,0\n3,4,1\n\x00\x01\x02", "binary file"),
    (b"\xff\xfe1\x00,\x002\x00", "UTF-16"),
    (b"x,y,label\n1,2,0\n3,4,caf\xe9\n", r"not UTF-8 text \(byte 0xe9 on line 3\)"),
])
def test_binary_or_undecodable_bytes(raw, message):
    upload = io.BytesIO(raw)
    upload.name = "picture.png"
    with pytest.raises(ValueError, match=message) as error:
        data.read(upload)
    assert str(error.value).startswith("'picture' ")  # names the file it refuses


def test_huge_files_are_refused_before_parsing(tmp_path):
    big = tmp_path / "big.csv"
    with open(big, "wb") as handle:
        handle.truncate(data.MAX_FILE_BYTES + 1)  # sparse file: no 50 MB write
    with pytest.raises(ValueError, match="'big' is 50.0 MB; kernelviz reads files up to 50 MB"):
        data.read(big)
    with pytest.raises(ValueError, match="reads files up to 50 MB"):
        data.read(io.BytesIO(b"0" * (data.MAX_FILE_BYTES + 1)))
    wide = "\n".join([",".join(["1"] * 1001)] * 20_000)
    with pytest.raises(ValueError, match="20,000 rows × 1,001 columns, too many values"):
        read_text(wide)
    many_rows = "1,0\n" * (data.MAX_ROWS + 2)
    with pytest.raises(ValueError, match="200,002 rows; kernelviz reads at most 200,000"):
        read_text(many_rows)


def test_missing_file_and_wrong_type():
    with pytest.raises(ValueError, match="No such file"):
        data.read("/nonexistent/points.csv")
    with pytest.raises(TypeError, match="Cannot read a int"):
        data.read(42)


@settings(max_examples=100, deadline=None)
@given(st.one_of(st.binary(max_size=200),
                 st.text(alphabet="0123456789.,-+e: \n\t#;abc", max_size=200)))
def test_read_never_fails_with_anything_but_value_error(content):
    raw = content.encode() if isinstance(content, str) else content
    try:
        ds = data.read(raw)
    except ValueError as error:
        assert str(error)  # a message for the user
    else:
        assert ds.n >= 2 and np.all(np.isfinite(ds.X))


# --------------------------------------------------------------------------- Dataset


def test_datasets_compare_by_identity_not_by_their_arrays():
    # A dataclass's own __eq__ would compare the X arrays element-wise (and raise on
    # their truth value) and make Dataset unhashable; identity is what the app needs.
    ds, twin = data.load("ripley"), data.load("ripley")
    assert np.array_equal(ds.X, twin.X) and np.array_equal(ds.y, twin.y)
    assert (ds == twin) is False and (ds != twin) is True
    assert len({ds, twin}) == 2 and {ds: "first"}[ds] == "first"


def test_dataset_validates_its_arrays():
    with pytest.raises(ValueError, match="NaN or infinite value.*row 1, column 0"):
        Dataset([[1.0], [np.nan]])
    with pytest.raises(ValueError, match=r"must be a 2-D array of shape \(n_points, n_features\); got a 1-D array"):
        Dataset([1.0, 2.0])
    with pytest.raises(ValueError, match="one label per point"):
        Dataset([[1.0], [2.0]], [1.0])
    with pytest.raises(ValueError, match="2 names but X has 1 columns"):
        Dataset([[1.0], [2.0]], feature_names=["a", "b"])
    unlabeled = Dataset([[1.0], [2.0]])
    assert unlabeled.labeled_mask.tolist() == [False, False] and unlabeled.classes.size == 0
    assert (unlabeled.n, unlabeled.d) == (2, 1)


def test_require_classes():
    assert data.require_classes([1, -1, UNLABELED]).tolist() == [-1.0, 1.0]
    with pytest.raises(ValueError, match="3 labeled point\\(s\\) all belong to class 1"):
        data.require_classes([1, 1, 1, UNLABELED])
    with pytest.raises(ValueError, match="no point is labeled"):
        data.require_classes([UNLABELED, UNLABELED])
    with pytest.raises(ValueError, match="no labels at all"):
        data.require_classes(None)
    with pytest.raises(ValueError, match="at least 3 classes"):
        data.require_classes([0, 1], at_least=3)


# --------------------------------------------------------------------------- scaling

matrices = arrays(np.float64, st.tuples(st.integers(2, 20), st.integers(1, 4)),
                  elements=st.floats(-1e6, 1e6, allow_nan=False))


@FAST
@given(matrices)
def test_minmax_maps_into_unit_interval(X):
    Z = data.scale(X, "minmax")
    assert np.all(np.isfinite(Z)) and Z.min() >= 0 and Z.max() <= 1 + 1e-12
    varying = np.ptp(X, axis=0) > 1e-6 * np.maximum(1, np.abs(X).max(axis=0))
    assert np.allclose(Z[:, varying].min(axis=0), 0) and np.allclose(Z[:, varying].max(axis=0), 1)


@FAST
@given(matrices)
def test_zscore_gives_mean_zero_and_unit_std(X):
    Z = data.scale(X, "zscore")
    assert np.all(np.isfinite(Z))
    assert np.allclose(Z.mean(axis=0), 0, atol=1e-6)
    varying = X.std(axis=0) > 1e-6 * np.maximum(1, np.abs(X).max(axis=0))
    assert np.allclose(Z[:, varying].std(axis=0), 1)


def test_constant_columns_and_fit_on():
    X = np.array([[1.0, 5.0], [3.0, 5.0], [2.0, 5.0]])
    for method in ("minmax", "zscore"):
        assert np.array_equal(data.scale(X, method)[:, 1], [0.0, 0.0, 0.0])
    assert np.array_equal(data.scale(X, "none"), X)
    grid = np.array([[0.0, 5.0], [4.0, 6.0]])
    assert data.scale(grid, "minmax", fit_on=X).tolist() == [[-0.5, 0.0], [1.5, 1.0]]
    offset, factor = data.scaling_parameters(X, "zscore")
    assert np.allclose(data.scale(X, "zscore") * factor + offset, X)


def test_scale_rejects_bad_requests():
    with pytest.raises(ValueError, match="Unknown scaling 'log'.*none, minmax, zscore"):
        data.scale(np.ones((3, 2)), "log")
    with pytest.raises(ValueError, match="fit_on has 3 features but X has 2"):
        data.scale(np.ones((3, 2)), "minmax", fit_on=np.ones((3, 3)))
    with pytest.raises(ValueError, match="NaN or infinite"):
        data.scale([[1.0, np.inf], [0.0, 0.0]], "zscore")


# --------------------------------------------------------------------------- labeled subset

label_vectors = st.lists(st.sampled_from([-1.0, 1.0, 2.0, float(UNLABELED)]),
                         min_size=2, max_size=60)


@FAST
@given(label_vectors, st.floats(0.01, 1.0), st.integers(0, 10))
def test_fraction_is_stratified_with_at_least_one_per_class(y, fraction, seed):
    y = np.array(y)
    mask = data.select_labeled(y, "fraction", fraction, random_state=seed)
    assert not mask[y == UNLABELED].any()
    for label in np.unique(y[y != UNLABELED]):
        members = (y == label).sum()
        assert mask[y == label].sum() == max(1, round(fraction * members))
    assert np.array_equal(mask, data.select_labeled(y, "fraction", fraction, random_state=seed))


@FAST
@given(label_vectors, st.integers(1, 8), st.integers(0, 10))
def test_per_class_takes_k_of_each_class(y, k, seed):
    y = np.array(y)
    mask = data.select_labeled(y, "per_class", k, random_state=seed)
    assert not mask[y == UNLABELED].any()
    for label in np.unique(y[y != UNLABELED]):
        assert mask[y == label].sum() == min(k, (y == label).sum())
    assert np.array_equal(mask, data.select_labeled(y, "per_class", k, random_state=seed))


def test_all_and_random_selections_depend_on_the_seed():
    y = np.repeat([0.0, 1.0], 50)
    y[::7] = UNLABELED
    assert np.array_equal(data.select_labeled(y, "all"), y != UNLABELED)
    picks = {tuple(np.flatnonzero(data.select_labeled(y, "per_class", 3, random_state=s)))
             for s in range(5)}
    assert len(picks) == 5


def halo_data(seed):
    """Each class: a tight core of 100 points plus a wide halo of 100 points."""
    rng = np.random.default_rng(seed)
    parts, labels = [], []
    for label, centre in ((0.0, (-6.0, 0.0)), (1.0, (6.0, 0.0))):
        parts += [centre + 0.3 * rng.standard_normal((100, 2)),
                  centre + 2.5 * rng.standard_normal((100, 2))]
        labels += [label] * 200
    return np.concatenate(parts), np.array(labels), np.array([(-6.0, 0.0), (6.0, 0.0)])


@pytest.mark.parametrize("seed", [0, 1])
def test_dense_picks_lie_in_the_dense_core(seed):
    X, y, centres = halo_data(seed)
    mask = data.select_labeled(y, "dense_per_class", 4, X=X, random_state=seed)
    assert [mask[y == label].sum() for label in (0.0, 1.0)] == [4, 4]
    for label, centre in zip((0.0, 1.0), centres):
        # the core holds half the class but all the density: every pick is within it
        distances = np.linalg.norm(X[mask & (y == label)] - centre, axis=1)
        assert distances.max() < 1.0
    # a random choice of 4 per class would put about half its picks in the halo
    random_mask = data.select_labeled(y, "per_class", 4, random_state=seed)
    nearest = np.min(np.linalg.norm(X[random_mask][:, None] - centres, axis=2), axis=1)
    assert nearest.max() > 1.0


def test_dense_picks_spread_over_the_modes_of_a_class():
    rng = np.random.default_rng(5)
    centres = np.array([(-6, 6), (6, 6), (-6, -6), (6, -6)], dtype=float)
    X = np.concatenate([c + 0.5 * rng.standard_normal((150, 2)) for c in centres])
    # class 0 = two top clusters, class 1 = two bottom ones; the top-left cluster is
    # tighter, so a pure "highest density first" rule would take both picks there
    X[:150] = centres[0] + 0.2 * rng.standard_normal((150, 2))
    y = np.repeat([0.0, 0.0, 1.0, 1.0], 150)
    mask = data.select_labeled(y, "dense_per_class", 2, X=X)
    nearest_centre = np.argmin(np.linalg.norm(X[mask][:, None] - centres, axis=2), axis=1)
    assert sorted(nearest_centre.tolist()) == [0, 1, 2, 3]


def test_dense_picks_are_the_peaks_of_each_cluster_of_a_mixture():
    rng = np.random.default_rng(4)
    # three clusters per class, of different spreads (peak densities up to 11× apart)
    centres = [(0, 0), (10, 0), (0, 10), (10, 10), (20, 0), (20, 10)]
    spreads = [0.3, 0.6, 1.0, 1.0, 0.5, 0.8]
    X = np.concatenate([c + s * rng.standard_normal((100, 2)) for c, s in zip(centres, spreads)])
    cluster = np.repeat(np.arange(6), 100)
    y = (cluster >= 3).astype(float)
    mask = data.select_labeled(y, "dense_per_class", 3, X=X, random_state=4)
    assert sorted(cluster[mask]) == [0, 1, 2, 3, 4, 5]  # one pick per cluster
    # the true density of a cluster falls with the distance to its centre
    distance = np.linalg.norm(X - np.array(centres)[cluster], axis=1)
    for i in np.flatnonzero(mask):
        # denser than at least 80 % of its cluster (a random point: 50 % on average)
        assert (distance[cluster == cluster[i]] > distance[i]).mean() >= 0.8
    assert np.array_equal(mask, data.select_labeled(y, "dense_per_class", 3, X=X, random_state=4))


def test_dense_total_gives_a_small_class_all_it_has_and_makes_up_the_rest_with_the_densest_points():
    """The RWM paper asks for 4 × the number of classes in high-density regions; a class with
    fewer points (Ecoli's imL, imS) gives all it has, and the densest other points fill the total."""
    rng = np.random.default_rng(0)
    X = np.concatenate([rng.standard_normal((60, 2)), 6 + rng.standard_normal((60, 2)), [[3.0, 3.0]]])
    y = np.repeat([0.0, 1.0, 2.0], [60, 60, 1])
    per_class = data.select_labeled(y, "dense_per_class", 4, X=X, random_state=0)
    topped = data.select_labeled(y, "dense_per_class", 4, X=X, random_state=0, total=12)
    assert per_class.sum() == 9 and topped.sum() == 12 and topped[-1]
    assert np.all(topped[per_class])  # the per-class picks stay; three points are added
    # the added points are the densest of the rest under the same mixture as the picks
    from kernelviz.data.selection import _mixture_log_density

    log_density = _mixture_log_density(data.scale(X, "zscore"), 0)
    added, rest = topped & ~per_class, ~topped
    assert log_density[added].min() >= log_density[rest].max()
    # without a shortfall, a total changes nothing
    assert np.array_equal(data.select_labeled(y[:120], "dense_per_class", 4, X=X[:120], total=8),
                          data.select_labeled(y[:120], "dense_per_class", 4, X=X[:120]))


def test_dense_picks_stay_in_their_own_class_territory():
    X, y = data.make("concentric", n_samples=800, random_state=0)
    mask = data.select_labeled(y, "dense_per_class", 4, X=X)
    # true P(wide class | x) of the generating mixture (equal priors, variances 0.07, 1.93)
    squared_radius = (X**2).sum(axis=1)
    tight, wide = (np.exp(-squared_radius / (2 * v)) / v for v in (0.07, 1.93))
    p_wide = wide / (tight + wide)
    # the wide class is densest at the centre (p_wide = 0.035 there), where the tight
    # class dominates: its picks must be where it has a real share, and vice versa
    assert p_wide[mask & (y == 1)].min() > 0.2
    assert p_wide[mask & (y == 0)].max() < 0.1


@pytest.mark.parametrize("args, kwargs, message", [
    ((None, "all"), {}, "no labels to select"),
    (([0, 1], "best"), {}, "Unknown selection 'best'.*all, fraction, per_class"),
    (([0, 1], "fraction", 0.0), {}, r"fraction of labeled points must be in \(0, 1\]"),
    (([0, 1], "fraction", 1.5), {}, r"must be in \(0, 1\]"),
    (([0, 1], "per_class", 0), {}, "whole number >= 1"),
    (([0, 1], "per_class", 2.5), {}, "whole number >= 1"),
    (([0, 1], "dense_per_class", 1), {}, "needs the points X"),
    (([0, 1], "dense_per_class", 1), {"X": np.zeros((3, 2))}, "X has 3 points but y has 2"),
])
def test_select_labeled_rejects_bad_requests(args, kwargs, message):
    with pytest.raises(ValueError, match=message):
        data.select_labeled(*args, **kwargs)


def test_hide_labels():
    y = np.array([0.0, 1.0, 1.0])
    hidden = data.hide_labels(y, [True, False, True])
    assert hidden.tolist() == [0.0, UNLABELED, 1.0] and y.tolist() == [0.0, 1.0, 1.0]
    with pytest.raises(ValueError, match="keep has shape"):
        data.hide_labels(y, [True])


# --------------------------------------------------------------------------- bad input (issue 29)


@pytest.mark.parametrize("raw, message", [
    (b"x,y,label\n1,2,0\n3,4,caf\xe9\n", "is not UTF-8 text"),
    (b"1,2,0\n3,4,1\n\x00\x01\x02", "is a binary file"),
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "looks like a PNG image"),
    (b"\xff\xfe1\x00,\x002\x00", "UTF-16"),
])
def test_undecodable_bytes_are_refused_under_the_name_given(raw, message):
    """The app hands the upload's bytes with name= its file's stem: the message names that file,
    not 'data' (the name of bytes without one)."""
    with pytest.raises(ValueError, match=message) as error:
        data.read(raw, name="my measurements")
    assert str(error.value).startswith("'my measurements' ")


def test_a_file_too_large_is_refused_under_the_name_given():
    with pytest.raises(ValueError, match="^'big upload' is 50.0 MB"):
        data.read(b"0" * (data.MAX_FILE_BYTES + 1), name="big upload")


@pytest.mark.parametrize("text, names", [
    ('"a;b",c,label\n1,2,0\n3,4,1\n', ["a;b", "c"]),
    ('"a\tb",c,label\n1,2,0\n3,4,1\n', ["a\tb", "c"]),
    ('"x, y";z;label\n1.5;2;0\n3;4;1\n', ["x, y", "z"]),
    ('"say ""a;b""",c,label\n1,2,0\n3,4,1\n', ['say "a;b"', "c"]),
])
def test_the_separator_is_guessed_outside_quoted_cells(text, names):
    """A separator inside a quoted header cell is text, not the table's separator."""
    ds = read_text(text)
    assert ds.feature_names == names
    assert ds.X.shape == (2, 2) and ds.y.tolist() == [0.0, 1.0]


@pytest.mark.parametrize("names", [["a;b", "c"], ["#first", "second"], ["a", "#b;c"], ["x\ty", "z;"],
                                   ["a;b", "c,d"], ['"#q"', ";"]])
def test_feature_names_with_separators_and_a_leading_hash_round_trip(names):
    """to_csv's header must read back as the same columns: a ; or tab in a name would be taken
    for the separator, and a header starting with # for a comment line."""
    ds = Dataset([[1.5, -2.0], [0.1, 3.0], [2.0, 1.0]], [1, -1, 1], feature_names=names)
    back = read_text(data.to_csv(ds))
    assert back.feature_names == [n.replace("\t", " ") for n in names]
    np.testing.assert_array_equal(back.X, ds.X)
    np.testing.assert_array_equal(back.y, ds.y)


@pytest.mark.parametrize("where", ["feature", "class"])
def test_a_nul_in_a_name_is_refused_in_words_when_writing(where):
    """A NUL byte cannot be kept: read() takes a file holding one for binary. to_csv refuses it
    rather than write a file that cannot be read back."""
    names = ["a\x00b", "c"] if where == "feature" else ["a", "c"]
    classes = {0.0: "cat\x00", 1.0: "dog"} if where == "class" else None
    ds = Dataset([[1.5, -2.0], [0.1, 3.0]], [0, 1], feature_names=names, class_names=classes)
    with pytest.raises(ValueError, match="NUL"):
        data.to_csv(ds)


def test_a_nul_anywhere_in_a_file_is_refused_as_binary():
    """Past the first 8 KiB as well (a long header): a NUL would otherwise reach a name."""
    header = ",".join(f"feature_{i}" for i in range(1500)) + ",x\x00y,label\n"
    row = ",".join(["1"] * 1501) + ",0\n"
    with pytest.raises(ValueError, match="'wide' is a binary file.*line 1"):
        data.read((header + row + row).encode(), name="wide")
