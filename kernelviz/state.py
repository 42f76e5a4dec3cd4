"""The app's settings as a typed table, and their round trip through a URL query string.

Like TensorFlow Playground's ``state.ts``: every setting the app shares between views
is declared once here — name, type, default, allowed values — so that a link opens
the same view with the same data, seeds and parameters. Nothing here imports
Streamlit; the app copies :func:`parse` into ``st.session_state`` on the first run
and writes :func:`encode` back to ``st.query_params`` after every run.

Only settings that differ from their default are written, which keeps links short.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Mapping
from urllib.parse import unquote

import numpy as np

from kernelviz import registry

VIEWS = tuple(registry.VIEWS)

#: Drawn points are rounded to this many decimals in a link; a click is not more precise.
POINT_DECIMALS = 3
#: Beyond this many drawn points a link would get unwieldy; they stay in the session only.
MAX_POINTS_IN_URL = 400
#: Drawn points all train by default: with a 30 % hold-out, two of six drawn points would never be
#: seen by the SVM. The sidebar's slider still holds some out on request, and a link says so.
DRAWN_TEST_FRACTION = 0.0


def _generator_names():
    from kernelviz import data

    return tuple(data.GENERATORS)


#: Samples the app builds itself rather than reading from ``sample_data/``: the first two
#: Iris classes (scikit-learn ships the data), as in the CkRBF paper's Fig. 2.
APP_SAMPLES = ("iris-2class",)


def _sample_names():
    from kernelviz import data

    return tuple(data.samples()) + APP_SAMPLES


@dataclass(frozen=True)
class Setting:
    """One shareable setting.

    ``kind`` is one of ``"str"`` (one of ``allowed``), ``"int"`` / ``"float"`` (within the
    closed range ``allowed``), ``"bool"``, ``"list"`` (a subset of ``allowed``, order kept),
    ``"range"`` (two whole numbers lo ≤ hi within ``allowed``, written ``lo_hi``; lo == hi
    is a single value, as a range slider can give),
    ``"params"`` (a small dict of numbers, e.g. a generator's parameters),
    ``"points"`` (drawn points: an (n, 3) array of x, y, label), ``"names"`` (the names of
    drawn labels: a dict label → name, or None) or ``"optfloat"``
    (a float in ``allowed`` or ``None``). ``allowed`` may be a callable, for choices that
    come from the backend (generator and sample names) and are looked up only when needed,
    or a registry of ``kernelviz.registry`` (its keys are the choices, its labels and help
    what the widget shows). ``help`` is the sentence the setting's widget shows as its help.
    """

    name: str
    kind: str
    default: Any
    allowed: Any = None
    help: str = ""

    def choices(self):
        if isinstance(self.allowed, Mapping):
            return tuple(self.allowed)
        return tuple(self.allowed()) if callable(self.allowed) else self.allowed

    def label(self, value) -> str:
        """How the widget shows one of the choices: its registry label, else the value itself."""
        return registry.label(self.allowed, value) if isinstance(self.allowed, Mapping) else str(value)

    def widget_help(self) -> str:
        """The widget's help: the setting's sentence, then each registered choice explained."""
        if isinstance(self.allowed, Mapping):
            return f"{self.help}\n\n{registry.describe(self.allowed)}"
        return self.help


SETTINGS: tuple[Setting, ...] = (
    Setting("view", "str", "data", registry.VIEWS, "Which view is open."),
    # --- data
    Setting("source", "str", "generator", registry.SOURCES, "Where the data come from."),
    Setting("generator", "str", "moons", _generator_names, "The synthetic data generator."),
    Setting("gen_params", "params", {}, None, "The generator's parameters that differ from its defaults."),
    Setting("data_seed", "int", 0, (0, 2**31 - 1), "Seed of the generator: the same seed draws the same data."),
    Setting("sample", "str", "fourclass", _sample_names, "The bundled data set."),
    Setting("points", "points", None, None, "The points drawn by clicking on the canvas."),
    Setting("class_names", "names", None, None,
            "The names of the drawn points' classes, by label, when an edit copied them from data whose classes "
            "were named otherwise (class 0, a file's species): the same points keep the same names."),
    Setting("label_how", "str", "all", registry.SELECTIONS,
            "Which points keep their label. The others become unlabeled: only the unsupervised parts "
            "(partition, density, graph) see them."),
    Setting("label_fraction", "float", 0.1, (0.01, 1.0), "Share of each class's points that keep their label."),
    Setting("label_per_class", "int", 4, (1, 500), "How many points of each class keep their label."),
    Setting("label_seed", "int", 0, (0, 2**31 - 1), "Seed of the choice of labeled points and of the test split."),
    Setting("scaling", "str", "zscore", registry.SCALINGS, "How each feature is scaled before anything is fitted."),
    Setting("fit_on", "str", "projection", registry.FIT_ON,
            "For more than two features: what the models are fitted on. Plots always show the first two "
            "principal components."),
    Setting("test_fraction", "float", 0.3, (0.0, 0.8),
            "Share of the labeled points kept out of training to measure test accuracy."),
    # --- partition
    Setting("partition", "str", "kmeans", registry.PARTITIONS,
            "The clustering or density model used by the Partition view and by the CkRBF, GMM and RWM kernels."),
    Setting("n_components", "int", 2, (1, 30), "Number of clusters (variational GMM: the most it may use)."),
    Setting("partition_seed", "int", 0, (0, 2**31 - 1), "Seed of the partition's initialisation."),
    Setting("vi_prior_type", "str", "dirichlet_process", registry.VI_PRIORS,
            "The variational GMM's prior on the components' weights."),
    Setting("vi_alpha0", "float", 0.1, (1e-4, 1e4),
            "Weight concentration prior α₀: smaller values switch more components off."),
    Setting("vi_beta0", "float", 1.0, (1e-4, 1e4),
            "Mean precision prior β₀: how strongly means are pulled together."),
    Setting("vi_w0", "float", 0.0, (0.0, 1e4), "Covariance prior w₀·I; 0 uses the data's covariance."),
    # --- kernels and SVM
    Setting("kernels", "list", ("rbf", "mrbf", "ckrbf", "rwm"), registry.KERNELS,
            "The kernels compared side by side in the kernel views."),
    Setting("models", "list", (), registry.MODELS,
            "Classifiers built around the kernels (cluster SVMs, minimax machines, discriminants), shown in the "
            "Decision boundaries view; the Theory view describes each."),
    Setting("log_gamma", "float", 0.0, (-3.0, 3.0),
            "log₁₀ of the kernel width γ: larger γ means more local similarity."),
    Setting("log_C", "float", 0.0, (-2.0, 4.0),
            "log₁₀ of the SVM penalty C: larger C fits the training points harder."),
    Setting("normalize", "str", "paper", registry.CKRBF_SCALES,
            "The paper's CkRBF is multiplied by det(Σx+Σy)^(−½), a large constant; 'unit' divides it out."),
    Setting("log_eta", "float", -4.0, (-6.0, 4.0),
            "log₁₀ of CKSVMNDA's η: how much KNDA's scatter weighs beside the SVM's margin (η = 0 is the SVM)."),
    Setting("unit_kernel", "str", "rbf-ppk", registry.UNIT_KERNELS,
            "The kernel SCM and MCPM compare their units (clusters as Gaussians) with."),
    # --- display
    Setting("projector", "bool", False, None, "Larger fonts and markers, for a projector at the back of a room."),
    Setting("show_support", "bool", True, None, "Rings around the support vectors in Decision boundaries."),
    Setting("show_margins", "bool", True, None, "The dashed margins f = ±1 in Decision boundaries."),
    Setting("show_test", "bool", True, None, "The held-out test points in Decision boundaries."),
    Setting("hide", "list", (), lambda: hideable(),
            "Teacher's mode: what the page leaves out — 'sidebar' or a section 'sidebar.NAME', 'views' (the view "
            "switcher) or one view 'view.NAME', or a setting's name for its control."),
    # --- similarity
    Setting("ref_x", "optfloat", None, (-1e6, 1e6), "First coordinate of the reference point (empty: a data point)."),
    Setting("ref_y", "optfloat", None, (-1e6, 1e6), "Second coordinate of the reference point."),
    Setting("sim_mode", "str", "dissimilarity", registry.SIMILARITY_MODES, "What the similarity maps show."),
    # --- grid search
    Setting("grid_log_C", "range", (-2, 4), (-4, 6), "log₁₀ C range of the grid; equal ends search a single C."),
    Setting("grid_log_gamma", "range", (-3, 3), (-5, 5),
            "log₁₀ γ range of the grid; equal ends search a single γ."),
    Setting("grid_steps", "int", 7, (3, 15), "Grid points per axis."),
    Setting("cv", "int", 5, (2, 10), "Cross-validation folds: each cell's score is the mean over the folds."),
    Setting("cv_seed", "int", 0, (0, 2**31 - 1), "Seed of the split into folds."),
)

BY_NAME: dict[str, Setting] = {s.name: s for s in SETTINGS}

#: Settings that are page chrome, not the computation: never hidden by ``hide=``, never part of a script.
DISPLAY_SETTINGS = ("view", "projector", "show_support", "show_margins", "show_test", "hide")
#: The drawn data (the points, their classes' names): no widget of their own, so nothing to hide, and
#: a preset or a reset to the defaults leaves them as they are.
DRAWN_SETTINGS = ("points", "class_names")


def hideable() -> tuple[str, ...]:
    """Everything a teacher's ``hide=`` link may name (TensorFlow Playground's ``*_hide``, in one list):
    the sidebar or one of its sections, the view switcher or one view, editing the data on the figures
    (``edit``), or any setting's control."""
    return (("sidebar",) + tuple(f"sidebar.{name}" for name in registry.SIDEBAR_SECTIONS)
            + ("views",) + tuple(f"view.{name}" for name in registry.VIEWS) + ("edit",)
            + tuple(s.name for s in SETTINGS if s.name not in DISPLAY_SETTINGS + DRAWN_SETTINGS))


def within(name: str, value: float) -> float:
    """``value`` to four decimals, clipped to setting ``name``'s bounds (a grid's axis, a click on a
    figure may reach beyond the sliders and inputs)."""
    lo, hi = bounds(name)
    return float(min(max(round(value, 4), lo), hi))


def bounds(name: str) -> tuple:
    """The closed range of a numeric (``int``, ``float``, ``optfloat``) or ``range`` setting.

    The app gives each such setting's widget exactly these bounds, so every value a widget
    can produce is one a link can hold (:func:`encode` then :func:`parse` give it back).
    """
    s = BY_NAME[name]
    if s.kind not in ("int", "float", "optfloat", "range"):
        raise ValueError(f"{name} is a {s.kind} setting; only numbers and ranges have bounds.")
    return s.allowed


def defaults() -> dict[str, Any]:
    """Every setting at its default value (a fresh dict; lists and dicts are copies)."""
    return {s.name: _copy(s.default) for s in SETTINGS}


def _copy(value):
    if isinstance(value, (list, tuple)):
        return list(value)
    if isinstance(value, dict):
        return dict(value)
    if isinstance(value, np.ndarray):
        return value.copy()
    return value


# ----------------------------------------------------------------------------- validation

#: A number as a link writes it: ASCII digits, an optional sign, point and exponent, or one of the
#: words float() reads for the infinities and NaN (refused afterwards as not finite, saying so).
_LINK_NUMBER = re.compile(r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf|infinity|nan)",
                          re.IGNORECASE)


def number_from_text(text: str, what: str) -> float:
    """The number a link's ``text`` writes, or ``ValueError`` naming ``what``.

    ``float()`` alone also reads ``"1_000"`` (Python's digit grouping) and the digits of every
    script (``"١٢"``, ``"１２"``), and strips Unicode spaces: a hand-typed or mangled link would open
    with a number nobody wrote in those words, silently. Only ASCII digits are read.
    """
    if not isinstance(text, str):
        raise ValueError(f"{what} must be a number; got {text!r}.")
    if not _LINK_NUMBER.fullmatch(text):
        raise ValueError(f"{what} must be a number written with the digits 0-9 (an optional sign, point and "
                         f"exponent, no spaces or _ separators); got {text!r}.")
    return float(text)


def validate(name: str, value: Any) -> Any:
    """Return ``value`` converted to the setting's type, or raise ``ValueError`` saying why."""
    if name not in BY_NAME:
        raise ValueError(f"Unknown setting {name!r}.")
    s = BY_NAME[name]
    if s.kind == "str":
        value = _canonical(str(value), s.choices(), s.allowed)
        choices = s.choices()
        if choices is not None and value not in choices:
            raise ValueError(f"{name} must be one of {', '.join(choices)}; got {value!r}.")
        return value
    if s.kind in ("int", "float", "optfloat"):
        if s.kind == "optfloat" and (value is None or value == ""):
            return None
        if isinstance(value, (bool, np.bool_)):
            raise ValueError(f"{name} must be a number; got {value!r}.")
        if isinstance(value, str):
            number = number_from_text(value, name)
        elif isinstance(value, (int, float, np.integer, np.floating)):
            number = float(value)
        else:
            raise ValueError(f"{name} must be a number; got {value!r}.")
        if not math.isfinite(number):
            raise ValueError(f"{name} must be a finite number; got {value!r}.")
        if s.kind == "int":
            if number != int(number):
                raise ValueError(f"{name} must be a whole number; got {value!r}.")
            number = int(number)
        lo, hi = s.allowed
        if not lo <= number <= hi:
            raise ValueError(f"{name} must lie between {lo:g} and {hi:g}; got {number:g}.")
        return number
    if s.kind == "bool":
        if isinstance(value, str):
            if value.lower() in ("1", "true", "yes", "on"):
                return True
            if value.lower() in ("0", "false", "no", "off"):
                return False
            raise ValueError(f"{name} must be true or false; got {value!r}.")
        if value is None:  # a switch never set is off
            return False
        if isinstance(value, (bool, np.bool_)) or (isinstance(value, (int, np.integer)) and value in (0, 1)):
            return bool(value)
        raise ValueError(f"{name} must be true or false; got {value!r}.")
    if s.kind == "list":
        if not isinstance(value, (str, list, tuple)):
            raise ValueError(f"{name} must be a comma-separated text or a list of names; got {value!r}.")
        items = [v for v in (value.split(",") if isinstance(value, str) else value) if str(v) != ""]
        choices = s.choices()
        items = [_canonical(str(v), choices, s.allowed) for v in items]
        if choices is not None:
            bad = [v for v in items if v not in choices]
            if bad:
                raise ValueError(f"{name}: unknown value(s) {', '.join(bad)}; allowed: {', '.join(choices)}.")
        if len(set(items)) != len(items):
            raise ValueError(f"{name} lists a value twice.")
        return items
    if s.kind == "range":
        return _validate_range(s, value)
    if s.kind == "params":
        return _validate_params(name, value)
    if s.kind == "points":
        return _validate_points(name, value)
    if s.kind == "names":
        return _validate_names(name, value)
    raise AssertionError(f"setting {name} has unknown kind {s.kind}")


def _canonical(value: str, choices, registry_: Mapping | None = None) -> str:
    """The choice spelled like ``value`` but for case (a hand-typed ``models=mkrbf``), or whose
    label (what its control shows: the Source control's "draw" for ``drawn``) ``value`` is,
    else ``value``. A link keeps one name per choice: :func:`encode` writes the choice itself."""
    if choices is None or value in choices:
        return value
    matches = [c for c in choices if c.lower() == value.lower()]
    if not matches and isinstance(registry_, Mapping):
        matches = [c for c in choices if registry.label(registry_, c).lower() == value.lower()]
    return matches[0] if len(matches) == 1 else value


def _validate_range(s: Setting, value):
    parts = value.split("_") if isinstance(value, str) else value
    if not isinstance(parts, (list, tuple, np.ndarray)) or len(parts) != 2:
        raise ValueError(f"{s.name} must be two whole numbers lo_hi; got {value!r}.")
    lo, hi = (_range_end(s.name, p, value) for p in parts)
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise ValueError(f"{s.name} must be two whole numbers lo_hi; got {value!r}, which is not finite.")
    if lo != int(lo) or hi != int(hi) or not lo <= hi:
        raise ValueError(f"{s.name} must be two whole numbers with lo ≤ hi; got {value!r}.")
    if not (s.allowed[0] <= lo and hi <= s.allowed[1]):
        raise ValueError(f"{s.name} must lie within {s.allowed[0]} … {s.allowed[1]}; got {value!r}.")
    return (int(lo), int(hi))


def _range_end(name: str, part, value) -> float:
    if isinstance(part, str):
        return number_from_text(part, f"each end of {name}")
    if isinstance(part, (int, float, np.integer, np.floating)) and not isinstance(part, (bool, np.bool_)):
        return float(part)
    raise ValueError(f"{name} must be two whole numbers lo_hi; got {value!r}.")


def _validate_params(name, value):
    if isinstance(value, str):
        value = decode_params(value)
    if not isinstance(value, Mapping):
        raise ValueError(f"{name} must map parameter names to numbers.")
    out = {}
    for key, v in value.items():
        if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) or not math.isfinite(v):
            raise ValueError(f"{name}: parameter {key!r} must be a finite number; got {v!r}.")
        out[str(key)] = int(v) if isinstance(v, (int, np.integer)) else float(v)
    return out


def _validate_points(name, value):
    if value is None:
        return None
    if isinstance(value, str):
        value = decode_points(value)
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be rows of finite x, y, label; got {type(value).__name__}.") from None
    if arr.size == 0:
        return np.zeros((0, 3))
    if arr.ndim != 2 or arr.shape[1] != 3 or not np.isfinite(arr).all():
        raise ValueError(f"{name} must be rows of finite x, y, label.")
    return arr


def _validate_names(name, value):
    """Drawn labels' names: a dict of whole, non-zero labels (0 is "unlabeled" in drawn data) to
    distinct, non-empty names, or None (an empty mapping or text too)."""
    if value is None:
        return None
    if isinstance(value, str):
        value = decode_names(value)
    if not isinstance(value, Mapping):
        raise ValueError(f"{name} must map each drawn label to its class's name; got {type(value).__name__}.")
    out = {}
    for label, text in value.items():
        if isinstance(label, str):
            label = number_from_text(label, f"each label of {name}")
        if isinstance(label, (bool, np.bool_)) or not isinstance(label, (int, float, np.integer, np.floating)):
            raise ValueError(f"{name}: each label must be a number; got {label!r}.")
        if not math.isfinite(label) or label != int(label) or label == 0:
            raise ValueError(f"{name}: each label must be a whole number other than 0 (0 is unlabeled in drawn "
                             f"data); got {label!r}.")
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"{name}: the name of label {int(label)} must be a non-empty text; got {text!r}.")
        if float(label) in out:
            raise ValueError(f"{name} names label {int(label)} twice.")
        out[float(label)] = text
    if len(set(out.values())) != len(out):
        raise ValueError(f"{name} gives one name to more than one class.")
    return out or None


# ----------------------------------------------------------------------------- text codecs


def _format_number(x: float) -> str:
    """Shortest text that reads back as the same float (``repr`` round-trips exactly)."""
    if float(x).is_integer() and abs(x) < 1e15:
        return str(int(x))
    return repr(float(x))


def encode_params(params: Mapping[str, float]) -> str:
    """``{"noise": 0.2, "n_samples": 300}`` → ``"n_samples:300,noise:0.2"`` (sorted keys)."""
    return ",".join(f"{k}:{_format_number(v)}" for k, v in sorted(params.items()))


def decode_params(text: str) -> dict[str, float]:
    out = {}
    for item in filter(None, text.split(",")):
        key, sep, number = item.partition(":")
        if not sep or not key:
            raise ValueError(f"Cannot read parameter {item!r}; expected name:number.")
        value = number_from_text(number, f"Parameter {key!r}")
        out[key] = int(value) if value.is_integer() and "." not in number and "e" not in number.lower() else value
    return out


def encode_points(points: np.ndarray) -> str:
    """Drawn points as ``"x_y_label~x_y_label"``, rounded to :data:`POINT_DECIMALS` decimals.

    The separators are URL-safe, so a link stays readable.
    """
    rows = np.round(np.asarray(points, dtype=float), POINT_DECIMALS)
    return "~".join("_".join(_format_number(v) for v in row) for row in rows)


def decode_points(text: str) -> np.ndarray:
    if not text:
        return np.zeros((0, 3))
    rows = []
    for item in text.split("~"):
        parts = item.split("_")
        if len(parts) != 3:
            raise ValueError(f"Cannot read drawn point {item!r}; expected x_y_label.")
        try:
            rows.append([number_from_text(p, "each coordinate and label") for p in parts])
        except ValueError as err:
            raise ValueError(f"Drawn point {item!r} holds something that is not a number: {err}") from None
    return np.array(rows, dtype=float)


def encode_names(names: Mapping[float, str]) -> str:
    """``{-1: "class 0", 1: "setosa"}`` → ``"-1:class 0~1:setosa"`` (sorted labels); a ``%`` or ``~`` in a
    name is written ``%25``, ``%7E``."""
    return "~".join(f"{_format_number(label)}:" + text.replace("%", "%25").replace("~", "%7E")
                    for label, text in sorted(names.items()))


def decode_names(text: str) -> dict[float, str]:
    out = {}
    for item in filter(None, text.split("~")):
        label, sep, written = item.partition(":")
        if not sep:
            raise ValueError(f"Cannot read the class name {item!r}; expected label:name.")
        number = number_from_text(label, "each label of class_names")
        if number in out:
            raise ValueError(f"class_names names label {label} twice.")
        try:
            out[number] = unquote(written, errors="strict")
        except UnicodeDecodeError:
            raise ValueError(f"The class name {written!r} holds a %-escape that is no UTF-8 text.") from None
    return out


def _to_text(s: Setting, value) -> str:
    if s.kind in ("int", "float", "optfloat"):
        return _format_number(value)
    if s.kind == "bool":
        return "1" if value else "0"
    if s.kind == "list":
        return ",".join(value)
    if s.kind == "range":
        return f"{value[0]}_{value[1]}"
    if s.kind == "params":
        return encode_params(value)
    if s.kind == "points":
        return encode_points(value)
    if s.kind == "names":
        return encode_names(value)
    return str(value)


def _equal(a, b) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        if a is None or b is None:
            return False
        return np.array_equal(np.asarray(a), np.asarray(b))
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return list(a) == list(b)
    return a == b


# ----------------------------------------------------------------------------- the round trip


def encode(values: Mapping[str, Any]) -> dict[str, str]:
    """Settings → query-string dict holding only the values that differ from their defaults.

    Drawn points, and their classes' names, are included when there are at most
    :data:`MAX_POINTS_IN_URL` points and the data source is ``"drawn"``.
    """
    out = {}
    for s in SETTINGS:
        if s.name not in values:
            continue
        value = values[s.name]
        if s.kind in ("points", "names"):  # the names go with the points they name, or not at all
            points = values.get("points")
            if (value is None or values.get("source") != "drawn" or points is None
                    or len(points) > MAX_POINTS_IN_URL):
                continue
        elif s.kind == "optfloat" and value is None:
            continue
        if _equal(value, _default(s.name, values)):
            continue
        out[s.name] = _to_text(s, value)
    return out


def _default(name: str, values: Mapping[str, Any]):
    """What a link that leaves ``name`` out gives it, with the other ``values``: drawn data hold none
    out (:data:`DRAWN_TEST_FRACTION`), so a link to drawn data with a hold-out names it."""
    if name == "test_fraction" and values.get("source") == "drawn":
        return DRAWN_TEST_FRACTION
    return BY_NAME[name].default


#: Settings that only mean something together: a link giving one without the other drops it, saying so.
PAIRED_SETTINGS = (("ref_x", "ref_y"),)


def parse(query: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """Query-string dict → (every setting, with defaults filled in; problems found).

    A value that cannot be read falls back to its default and adds a sentence to the
    problems, so a damaged link still opens the app. Keys that are not settings are ignored.
    Values may be strings or lists of strings (``st.query_params.to_dict()`` gives the last).
    """
    values = defaults()
    problems = []
    for name, raw in query.items():
        if name not in BY_NAME:
            continue
        if isinstance(raw, (list, tuple)):
            raw = raw[-1] if raw else ""
        try:
            values[name] = validate(name, raw)
        except ValueError as err:
            problems.append(f"Ignored the link's {name}: {err}")
    for pair in PAIRED_SETTINGS:
        given = [name for name in pair if values[name] is not None]
        if len(given) == 1:
            (alone,), (missing,) = given, set(pair) - set(given)
            problems.append(f"Ignored the link's {alone}: it needs {missing} beside it "
                            f"({' and '.join(pair)} are one point), which the link does not give or could not be read.")
            values[alone] = BY_NAME[alone].default
    if values["class_names"] is not None and values["points"] is not None:
        labels = {float(v) for v in np.unique(values["points"][:, 2]) if v != 0}
        unnamed = sorted(labels - set(values["class_names"]))
        if unnamed:
            problems.append("Ignored the link's class_names: they name no class for the drawn label(s) "
                            f"{', '.join(_format_number(v) for v in unnamed)}; the classes keep their numbers.")
            values["class_names"] = None
    if "test_fraction" not in query:  # its default depends on the source
        values["test_fraction"] = _default("test_fraction", values)
    return values, problems


def apply_preset(preset: "Preset") -> dict[str, Any]:
    """Defaults overlaid with a preset's settings, each validated: what a preset button sets.

    Starting from the defaults (not from the current state) makes a preset reproducible.
    """
    merged = defaults()
    for name, value in preset.settings.items():
        merged[name] = validate(name, value)
    return merged


@dataclass(frozen=True)
class Preset:
    """Settings that recreate a figure of one of the papers, and what to look for in it."""

    key: str
    title: str
    settings: Mapping[str, Any]
    look_for: str


PRESETS: tuple[Preset, ...] = (
    Preset(
        "rwm_fig1",
        "RWM paper, Fig. 1 — a tight Gaussian inside a wide one, two labels",
        {
            "view": "boundaries",
            "source": "generator",
            "generator": "concentric",
            "scaling": "none",
            "label_how": "per_class",
            "label_per_class": 1,
            "label_seed": 4,
            "partition": "gmm",
            "n_components": 2,
            "kernels": ["rbf", "rwm"],
            "log_gamma": 0.0,
            "log_C": 1.0,
            "test_fraction": 0.0,
        },
        "One labeled point per class and 798 unlabeled ones. RBF can only draw the straight "
        "bisector between the two labeled points; RWM borrows the shapes of the two Gaussians "
        "fitted to all points and closes its boundary into a ring around the tight cluster. "
        "Compare the 'unlabeled' accuracies in the panel titles (the paper reports about 60% "
        "against 91%).",
    ),
    Preset(
        "ckrbf_iris",
        "CkRBF paper, Fig. 2 — Iris, first two classes",
        {
            "view": "similarity",
            "source": "sample",
            "sample": "iris-2class",
            "scaling": "minmax",
            "fit_on": "projection",
            "partition": "kmeans",
            "n_components": 2,
            "kernels": ["rbf", "mrbf", "ckrbf"],
            "log_gamma": 1.0,
        },
        "RBF draws circles around the reference point, Mahalanobis RBF stretches them along the "
        "whole data set's covariance, and CkRBF uses the covariance of the point's own k-means "
        "cluster — so its level curves follow the cluster the point belongs to.",
    ),
    Preset(
        "mcpm_toy",
        "MCPM paper, Fig. 1 — a two-class Gaussian mixture, clusters as units",
        {
            "view": "boundaries",
            "source": "generator",
            "generator": "mixture",
            "scaling": "zscore",
            "kernels": ["rbf"],
            "models": ["SCM", "MCPM"],
            "log_gamma": -1.0,
            "log_C": 1.0,
        },
        "SCM and MCPM never see single points while training: each class is first cut into "
        "clusters, and the clusters — as Gaussians compared by the probability product kernel — "
        "are the training examples. Compare their boundaries with the point-based RBF SVM, and "
        "read MCPM's worst-case accuracy bound α in its title.",
    ),
)
PRESETS_BY_KEY = {p.key: p for p in PRESETS}
