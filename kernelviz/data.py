"""Data for kernelviz: bundled samples, toy generators, file readers and writers,
scaling, and the choice of which points keep their labels.

Conventions shared with the other modules (see ``docs/DESIGN.md``):

* ``X`` is an ``(n, d)`` float64 array, ``y`` a 1-D float64 array of the same length.
* A point without a label carries ``y == UNLABELED`` (-9999.0). A data set with no
  labels at all has ``y is None`` (:func:`read` returns that when no row has a label);
  ``Dataset`` and :func:`require_classes` treat it like a ``y`` that is entirely
  ``UNLABELED``. Unlabeled-only data is valid input for partitions and kernels.
* Generated data has the classes ``0.0, 1.0, …``; data read from a file keeps the
  file's own numeric labels (-1/+1, 0/1, …) as floats.
* Bad input raises ``ValueError`` with a sentence saying what is wrong and where
  (line and column numbers where there are any), fit to show to a user as is.
"""

from __future__ import annotations

import csv
import io
import math
import os
import re
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

__all__ = [
    "UNLABELED",
    "MAX_FILE_BYTES",
    "MAX_ROWS",
    "MAX_CELLS",
    "Dataset",
    "SAMPLES",
    "samples",
    "load",
    "read",
    "to_csv",
    "to_libsvm",
    "GENERATORS",
    "GENERATOR_DESCRIPTIONS",
    "PARAMETER_LIMITS",
    "make",
    "SCALINGS",
    "scaling_parameters",
    "scale",
    "SELECTIONS",
    "select_labeled",
    "hide_labels",
    "require_classes",
]

UNLABELED = -9999
"""Label value marking a point whose class is unknown (only inside ``Dataset.y``)."""

MAX_FILE_BYTES = 50 * 1024 * 1024
"""Largest file :func:`read` accepts (parsing 50 MB of text already takes seconds)."""

MAX_ROWS = 200_000
"""Most data rows :func:`read` accepts (and :func:`make` generates)."""

MAX_CELLS = 20_000_000
"""Most values (rows × columns) :func:`read` accepts; a dense ``X`` of 160 MB."""

SAMPLE_DIR = Path(__file__).resolve().parent.parent / "sample_data"

_LIBSVM_PAIR = re.compile(r"^\d+:")
_DECIMAL_COMMA = re.compile(r"[-+]?\d+,\d+")


# --------------------------------------------------------------------------- Dataset


@dataclass(eq=False)  # element-wise array comparison has no single truth value
class Dataset:
    """A data set: points, their labels (some possibly unknown), and names.

    Parameters
    ----------
    X : array-like of shape (n, d)
        The points; converted to float64. Every value must be finite.
    y : array-like of shape (n,) or None
        Numeric labels, converted to float64, with ``UNLABELED`` for points whose
        class is unknown; ``None`` when no point has a label.
    name : str
        A short name shown in the app (a sample name, or the file's stem).
    feature_names : list of str
        One name per column of ``X``; ``x1, x2, …`` when omitted.
    """

    X: np.ndarray
    y: np.ndarray | None = None
    name: str = "data"
    feature_names: list[str] = field(default_factory=list)

    def __post_init__(self):
        self.X = _check_points(self.X, "X")
        if self.y is not None:
            self.y = np.asarray(self.y, dtype=np.float64)
            if self.y.ndim != 1 or len(self.y) != len(self.X):
                raise ValueError(
                    f"y must be a 1-D array with one label per point: X has {len(self.X)} "
                    f"points, y has shape {self.y.shape}."
                )
            if not np.all(np.isfinite(self.y)):
                raise ValueError(
                    "y contains NaN or infinite labels; mark unknown labels with "
                    f"kernelviz.data.UNLABELED ({UNLABELED})."
                )
        if not self.feature_names:
            self.feature_names = [f"x{j + 1}" for j in range(self.X.shape[1])]
        self.feature_names = [str(name) for name in self.feature_names]
        if len(self.feature_names) != self.X.shape[1]:
            raise ValueError(
                f"feature_names has {len(self.feature_names)} names but X has "
                f"{self.X.shape[1]} columns."
            )

    @property
    def n(self) -> int:
        """Number of points."""
        return self.X.shape[0]

    @property
    def d(self) -> int:
        """Number of features."""
        return self.X.shape[1]

    @property
    def labeled_mask(self) -> np.ndarray:
        """Boolean array, True where the point has a label."""
        if self.y is None:
            return np.zeros(self.n, dtype=bool)
        return self.y != UNLABELED

    @property
    def classes(self) -> np.ndarray:
        """Sorted distinct labels of the labeled points (float64, possibly empty)."""
        if self.y is None:
            return np.empty(0)
        return np.unique(self.y[self.labeled_mask])

    def split_labeled(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Split into the labeled part and the unlabeled points.

        Returns
        -------
        X_labeled : ndarray of shape (n_labeled, d)
        y_labeled : ndarray of shape (n_labeled,)
        X_unlabeled : ndarray of shape (n - n_labeled, d)
            What the models take as ``X_unlabeled=``.
        """
        mask = self.labeled_mask
        y_labeled = self.y[mask] if self.y is not None else np.empty(0)
        return self.X[mask], y_labeled, self.X[~mask]


def _check_points(X, what):
    try:
        X = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{what} must be a numeric array: {error}.") from None
    if X.ndim == 1:
        raise ValueError(
            f"{what} must be 2-D (one row per point, one column per feature); got a 1-D "
            "array — use X.reshape(-1, 1) for one feature."
        )
    if X.ndim != 2:
        raise ValueError(f"{what} must be 2-D (points × features); got shape {X.shape}.")
    if X.shape[1] == 0:
        raise ValueError(f"{what} has no feature columns.")
    bad = ~np.isfinite(X)
    if bad.any():
        row, col = np.argwhere(bad)[0]
        raise ValueError(
            f"{what} contains {int(bad.sum())} NaN or infinite value(s), the first at row "
            f"{row}, column {col}; remove or fill them first."
        )
    return X


def require_classes(y, at_least=2):
    """Check that the labeled points cover enough classes, and return those classes.

    Models call this before training.

    Parameters
    ----------
    y : array-like of shape (n,) or None
        Labels, with ``UNLABELED`` for unknown ones.
    at_least : int, default=2
        Number of distinct classes required among the labeled points.

    Returns
    -------
    classes : ndarray
        The sorted distinct labels present.

    Raises
    ------
    ValueError
        If fewer than ``at_least`` classes have a labeled point.
    """
    if y is None:
        raise ValueError(
            f"This needs labeled points from at least {at_least} classes, but the data "
            "has no labels at all."
        )
    y = np.asarray(y, dtype=np.float64).ravel()
    labeled = y[y != UNLABELED]
    classes = np.unique(labeled)
    if len(classes) < at_least:
        if len(labeled) == 0:
            found = "no point is labeled"
        else:
            shown = ", ".join(_format_label(c) for c in classes)
            found = (
                f"the {len(labeled)} labeled point(s) all belong to "
                f"{'class' if len(classes) == 1 else 'classes'} {shown}"
            )
        raise ValueError(
            f"This needs labeled points from at least {at_least} classes, but {found}; "
            "label some points of another class."
        )
    return classes


# --------------------------------------------------------------------------- samples

SAMPLES = {
    "fourclass": {
        "file": "fourclass_scale.libsvm",
        "description": "Ho & Kleinberg's fourclass: 862 points in 2-D, two classes made of "
        "several disconnected regions (LIBSVM copy, scaled to [-1, 1]).",
        "feature_names": ["x1", "x2"],
    },
    "ripley": {
        "file": "synth.tr",
        "description": "Ripley's synthetic training set: 250 points in 2-D, each class a "
        "mixture of two Gaussians.",
        "feature_names": None,  # from the file's header
    },
    "ripley-test": {
        "file": "synth.te",
        "description": "Ripley's synthetic test set: 1000 points from the same distribution "
        "as 'ripley'.",
        "feature_names": None,
    },
    "heart": {
        "file": "heart_scale.libsvm",
        "description": "Statlog heart disease: 270 patients × 13 features (LIBSVM copy, "
        "scaled to [-1, 1]); +1 = disease present.",
        "feature_names": [
            "age", "sex", "chest_pain_type", "resting_blood_pressure", "serum_cholesterol",
            "fasting_blood_sugar_gt_120", "resting_ecg", "max_heart_rate",
            "exercise_angina", "st_depression", "st_slope", "n_major_vessels", "thal",
        ],
    },
    "diabetes": {
        "file": "diabetes_scale.libsvm",
        "description": "Pima Indians diabetes: 768 patients × 8 features (LIBSVM copy, "
        "scaled to [-1, 1]); -1 = tested positive.",
        "feature_names": [
            "pregnancies", "glucose", "blood_pressure", "skin_thickness", "insulin",
            "bmi", "diabetes_pedigree", "age",
        ],
    },
    "breast-cancer": {
        "file": "breast-cancer_scale.libsvm",
        "description": "Wisconsin breast cancer (original): 683 samples × 10 features "
        "(LIBSVM copy, scaled to [-1, 1]; the first feature is the scaled sample id); "
        "+1 = malignant.",
        "feature_names": [
            "sample_id", "clump_thickness", "cell_size_uniformity", "cell_shape_uniformity",
            "marginal_adhesion", "epithelial_cell_size", "bare_nuclei", "bland_chromatin",
            "normal_nucleoli", "mitoses",
        ],
    },
    "banknote": {
        "file": "banknote.csv",
        "description": "UCI banknote authentication: 1372 images × 4 wavelet features; "
        "two classes 0 / 1.",
        "feature_names": ["variance", "skewness", "curtosis", "entropy"],
    },
}
"""Bundled samples: short name -> file in ``sample_data/``, a one-line description and
the feature names. Provenance and licences are in ``sample_data/README.md``."""


def samples() -> list[str]:
    """Names of the bundled samples, for :func:`load`."""
    return list(SAMPLES)


def load(name: str) -> Dataset:
    """Load a bundled sample by its short name.

    Parameters
    ----------
    name : str
        One of :func:`samples`, e.g. ``"fourclass"``, ``"ripley"``, ``"heart"``.

    Returns
    -------
    Dataset
        With ``name`` set to the sample's short name and the file's own labels.
    """
    key = str(name).strip().lower()
    if key not in SAMPLES:
        raise ValueError(f"Unknown sample {name!r}; the samples are: {', '.join(SAMPLES)}.")
    info = SAMPLES[key]
    ds = read(SAMPLE_DIR / info["file"], name=key)
    if info["feature_names"] is not None:
        ds.feature_names = list(info["feature_names"])
    return ds


# --------------------------------------------------------------------------- reading

_MAGIC_BYTES = {
    b"\x89PNG": "a PNG image",
    b"\xff\xd8\xff": "a JPEG image",
    b"GIF8": "a GIF image",
    b"%PDF": "a PDF document",
    b"PK\x03\x04": "a ZIP archive (an Excel .xlsx workbook is one)",
    b"\x1f\x8b": "a gzip-compressed file",
    b"\xd0\xcf\x11\xe0": "an old-style Excel/Office file",
}


def read(path_or_file, label_column=None, fmt="auto", name=None) -> Dataset:
    """Read a data set from a CSV / whitespace table or a LIBSVM (svmlight) file.

    Parameters
    ----------
    path_or_file : str, path-like, bytes or file-like
        A path, the raw bytes, or an object with ``getvalue()`` or ``read()`` (such as
        Streamlit's ``UploadedFile``, ``io.BytesIO`` or ``io.StringIO``).
    label_column : None, int, str or False, default=None
        Tables only. ``None``: the last column holds the labels. An int: that column
        (0-based; negative counts from the end). A str: the column with that header
        name. ``False``: there is no label column — every column is a feature and the
        data set is unlabeled (``y is None``). For LIBSVM files the label is always the
        first token; only ``None`` (or 0) and ``False`` (ignore the labels) apply.
    fmt : {"auto", "csv", "libsvm"}, default="auto"
        ``"auto"`` picks LIBSVM when the rows are ``index:value`` pairs, a table
        otherwise. Tables may be separated by commas, semicolons, tabs or runs of
        spaces (Ripley's ``synth.tr``).
    name : str, optional
        Name of the data set; defaults to the file name without its extension.

    Returns
    -------
    Dataset
        ``y`` is ``None`` when no row carries a label.

    Notes
    -----
    *Tables.* The first row is a header when one of its cells is not a number. An
    empty label cell marks an unlabeled row. Feature cells must hold finite numbers.
    Blank lines and lines starting with ``#`` are skipped.

    *LIBSVM.* ``label index:value index:value …`` with 1-based indices; features
    missing from a row are 0, the number of features is the largest index; a line with
    only a label is a point at the origin; a line whose first token is already an
    ``index:value`` pair is unlabeled (this is how :func:`to_libsvm` writes unlabeled
    points). ``#`` starts a comment.

    Limits: at most :data:`MAX_FILE_BYTES` bytes and :data:`MAX_ROWS` rows.
    """
    raw, default_name = _read_source(path_or_file)
    text = _decode(raw, default_name) if isinstance(raw, bytes) else raw.lstrip("\ufeff")
    name = default_name if name is None else str(name)
    records = [
        (number, line)
        for number, line in enumerate(text.splitlines(), start=1)
        if line.strip() and not line.lstrip().startswith("#")
    ]
    if not records:
        raise ValueError(f"{name!r} is empty: it has no data rows.")
    if len(records) > MAX_ROWS + 1:  # + 1: a header is not a data row
        raise ValueError(
            f"{name!r} has {len(records):,} rows; kernelviz reads at most {MAX_ROWS:,}. "
            "Take a random subset of the rows first."
        )
    if fmt == "auto":
        fmt = "libsvm" if _looks_like_libsvm(records) else "csv"
    if fmt in ("libsvm", "svmlight"):
        if not (label_column is None or label_column is False or label_column == 0):
            raise ValueError(
                "LIBSVM files carry the label as the first token of each line; "
                f"label_column={label_column!r} does not apply (use None, or False to "
                "ignore the labels)."
            )
        X, y = _parse_libsvm(records, name)
        feature_names = []
        if label_column is False:
            y = None
    elif fmt == "csv":
        X, y, feature_names = _parse_table(records, label_column, name)
    else:
        raise ValueError(f"Unknown format {fmt!r}; use 'auto', 'csv' or 'libsvm'.")
    if len(X) < 2:
        raise ValueError(f"{name!r} has {len(X)} data row(s); at least two points are needed.")
    if y is not None and not np.any(y != UNLABELED):
        y = None
    return Dataset(X, y, name=name, feature_names=feature_names)


def _read_source(source):
    """Return (bytes or str, default name), refusing anything over MAX_FILE_BYTES."""
    too_big = (
        "{name!r} is {size:.1f} MB; kernelviz reads files up to "
        f"{MAX_FILE_BYTES // 2**20} MB (about {MAX_ROWS:,} rows). "
        "Take a random subset of the rows first."
    )
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        if not path.is_file():
            raise ValueError(f"No such file: {str(path)!r}.")
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise ValueError(too_big.format(name=path.stem, size=size / 2**20))
        return path.read_bytes(), path.stem
    if isinstance(source, (bytes, bytearray, memoryview)):
        raw, name = bytes(source), "data"
    elif hasattr(source, "getvalue"):
        raw, name = source.getvalue(), getattr(source, "name", None)
    elif hasattr(source, "read"):
        # read one byte past the limit: enough to know the file is too large
        raw, name = source.read(MAX_FILE_BYTES + 1), getattr(source, "name", None)
    else:
        raise TypeError(
            f"Cannot read a {type(source).__name__}; give a path, bytes, or a file object."
        )
    name = Path(str(name)).stem if isinstance(name, (str, os.PathLike)) and name else "uploaded"
    size = len(raw.encode("utf-8")) if isinstance(raw, str) else len(raw)
    if size > MAX_FILE_BYTES:
        raise ValueError(too_big.format(name=name, size=size / 2**20))
    return raw, name


def _decode(raw: bytes, name: str) -> str:
    for magic, kind in _MAGIC_BYTES.items():
        if raw.startswith(magic):
            raise ValueError(
                f"{name!r} looks like {kind}, not a data file. Upload a CSV or LIBSVM text file."
            )
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise ValueError(f"{name!r} is UTF-16 text; save it as UTF-8 (or plain CSV) and retry.")
    if b"\x00" in raw[:8192]:
        raise ValueError(
            f"{name!r} is a binary file, not text. Upload a CSV or LIBSVM text file."
        )
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = raw.count(b"\n", 0, error.start) + 1
        raise ValueError(
            f"{name!r} is not UTF-8 text (byte 0x{raw[error.start]:02x} on line {line}); "
            "save it as UTF-8 and retry."
        ) from None


def _looks_like_libsvm(records) -> bool:
    """LIBSVM when one of the first lines holds an ``index:value`` token.

    One is enough: a LIBSVM file may have many lines with a label only (points at the
    origin), while a table never has a space-separated token starting with ``digits:``.
    """
    return any(
        _LIBSVM_PAIR.match(token)
        for _, line in records[:50]
        for token in line.split("#", 1)[0].split()
    )


def _parse_number(text):
    """float(text) if it is a number, else None."""
    try:
        return float(text)
    except ValueError:
        return None


def _parse_libsvm(records, name):
    labels, rows, cols, values = [], [], [], []
    for row, (line_number, line) in enumerate(records):
        tokens = line.split("#", 1)[0].split()
        if tokens and ":" not in tokens[0]:
            label = _parse_number(tokens[0])
            if label is None or not math.isfinite(label):
                raise ValueError(
                    f"{name!r}, line {line_number}: the label {tokens[0]!r} is not a finite "
                    "number (LIBSVM lines start with a numeric label)."
                )
            labels.append(label)
            tokens = tokens[1:]
        else:
            labels.append(float(UNLABELED))
        seen = set()
        for token in tokens:
            index_text, colon, value_text = token.partition(":")
            index = int(index_text) if colon and index_text.isdigit() else None
            value = _parse_number(value_text) if colon else None
            if index is None or value is None:
                raise ValueError(
                    f"{name!r}, line {line_number}: {token!r} is not an index:value pair "
                    "such as 3:0.25."
                )
            if index < 1:
                raise ValueError(
                    f"{name!r}, line {line_number}: feature index {index} in {token!r}; "
                    "LIBSVM indices start at 1."
                )
            if not math.isfinite(value):
                raise ValueError(
                    f"{name!r}, line {line_number}, feature {index}: {value_text!r} is not a "
                    "finite number."
                )
            if index in seen:
                raise ValueError(
                    f"{name!r}, line {line_number}: feature index {index} appears twice."
                )
            seen.add(index)
            rows.append(row)
            cols.append(index - 1)
            values.append(value)
    n_rows = len(records)
    n_features = max(cols) + 1 if cols else 0
    if n_features == 0:
        raise ValueError(f"{name!r} has no features: every line holds only a label.")
    if n_rows * n_features > MAX_CELLS:
        raise ValueError(
            f"{name!r} has {n_rows:,} rows × {n_features:,} features, too many to hold as a "
            f"dense array (the limit is {MAX_CELLS:,} values)."
        )
    X = np.zeros((n_rows, n_features))
    X[rows, cols] = values
    return X, np.array(labels)


def _split_table_rows(records):
    """Cells of each record, with the separator guessed from the first record.

    Semicolons win over commas: a file separated by semicolons usually has decimal
    commas.
    """
    first = records[0][1]
    for delimiter in ("\t", ";", ","):
        if delimiter in first:
            reader = csv.reader((line for _, line in records), delimiter=delimiter)
            return [[cell.strip() for cell in cells] for cells in reader]
    return [line.split() for _, line in records]


def _parse_table(records, label_column, name):
    # the first row's width tells the size before the (slow) split of every row
    n_columns = len(_split_table_rows(records[:1])[0])
    if len(records) * n_columns > MAX_CELLS:
        raise ValueError(
            f"{name!r} has {len(records):,} rows × {n_columns:,} columns, too many values "
            f"(the limit is {MAX_CELLS:,})."
        )
    table = _split_table_rows(records)
    line_numbers = [number for number, _ in records]
    header_cells = table[0]
    has_header = any(cell and _parse_number(cell) is None for cell in header_cells)
    for cells, number in zip(table, line_numbers):
        if len(cells) != n_columns:
            raise ValueError(
                f"{name!r}, line {number} has {len(cells)} values but line "
                f"{line_numbers[0]} has {n_columns}; every row needs the same number of "
                "columns."
            )
    # unnamed columns are counted from 1 in messages, as a spreadsheet user would
    if has_header:
        column_names = [cell or f"column {j + 1}" for j, cell in enumerate(header_cells)]
        table, line_numbers = table[1:], line_numbers[1:]
    else:
        column_names = [f"column {j + 1}" for j in range(n_columns)]

    label_index = _resolve_label_column(label_column, column_names, has_header, name)
    feature_indices = [j for j in range(n_columns) if j != label_index]
    if not feature_indices:
        raise ValueError(
            f"{name!r} has a single column, so nothing is left for features once the "
            "labels are taken; pass label_column=False if that column is a feature."
        )
    if not table:
        raise ValueError(f"{name!r} has a header but no data rows.")

    cells = np.array(table, dtype=object)
    X = _parse_feature_cells(cells[:, feature_indices], feature_indices, column_names,
                             line_numbers, name)
    y = None
    if label_index is not None:
        y = _parse_label_cells(cells[:, label_index], column_names[label_index],
                               line_numbers, name)
    if has_header:
        feature_names = [column_names[j] for j in feature_indices]
    else:
        feature_names = [f"x{k + 1}" for k in range(len(feature_indices))]
    return X, y, feature_names


def _resolve_label_column(label_column, column_names, has_header, name):
    """Index of the label column, or None when there is none."""
    n_columns = len(column_names)
    if label_column is False:
        return None
    if label_column is None:
        return n_columns - 1
    if isinstance(label_column, (int, np.integer)) and not isinstance(label_column, bool):
        index = int(label_column)
        if not -n_columns <= index < n_columns:
            raise ValueError(
                f"Label column index {index} is out of range: {name!r} has {n_columns} "
                f"columns (indices 0 to {n_columns - 1})."
            )
        return index % n_columns
    if isinstance(label_column, str):
        if not has_header:
            raise ValueError(
                f"No label column named {label_column!r}: {name!r} has no header row, so "
                "give the label column by index (0-based) instead."
            )
        matches = [j for j, column in enumerate(column_names) if column == label_column]
        if not matches:
            shown = ", ".join(repr(column) for column in column_names)
            raise ValueError(
                f"No label column named {label_column!r} in {name!r}; the columns are "
                f"{shown}."
            )
        if len(matches) > 1:
            raise ValueError(
                f"{name!r} has {len(matches)} columns named {label_column!r}; give the "
                "label column by index instead."
            )
        return matches[0]
    raise ValueError(
        f"label_column must be None, a column index, a column name or False; got "
        f"{label_column!r}."
    )


def _parse_feature_cells(cells, feature_indices, column_names, line_numbers, name):
    try:
        X = cells.astype(np.float64)
    except ValueError:
        X = None
    if X is None or not np.all(np.isfinite(X)):
        # Slow path, only on failure: find the first offending cell to name it.
        for i, row in enumerate(cells):
            for k, cell in enumerate(row):
                value = _parse_number(cell)
                if value is not None and math.isfinite(value):
                    continue
                column = column_names[feature_indices[k]]
                where = f"{name!r}, line {line_numbers[i]}, column {column!r}"
                if not cell:
                    raise ValueError(
                        f"{where} is empty; every feature needs a value (only the label "
                        "may be left empty)."
                    )
                if value is None:
                    hint = " (a decimal comma? write 1.5, not 1,5)" if _DECIMAL_COMMA.fullmatch(
                        cell.strip()) else ""
                    raise ValueError(f"{where}: {cell!r} is not a number{hint}.")
                raise ValueError(
                    f"{where}: {cell!r} is not a finite number; remove or fill such values."
                )
    return X


def _parse_label_cells(cells, column, line_numbers, name):
    y = np.full(len(cells), float(UNLABELED))
    for i, cell in enumerate(cells):
        if not cell:
            continue  # an empty label cell: the point is unlabeled
        value = _parse_number(cell)
        if value is None or not math.isfinite(value):
            raise ValueError(
                f"{name!r}, line {line_numbers[i]}, label column {column!r}: {cell!r} is "
                "not a finite number; labels must be numbers such as -1/+1 or 0/1 (leave "
                "the cell empty for an unlabeled point)."
            )
        y[i] = value
    return y


# --------------------------------------------------------------------------- writing


def _format_label(value) -> str:
    """A label as text: whole numbers without ".0" (-1, 1), others with full precision."""
    value = float(value)
    if value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return repr(value)


def to_csv(ds: Dataset) -> str:
    """The data set as CSV text with a header; :func:`read` gives it back exactly.

    The last column, ``label``, holds the labels, empty for unlabeled points (and for
    every point when ``ds.y is None``). Numbers are written with ``repr``, the shortest
    text that reads back to the same float.
    """
    header = io.StringIO()
    csv.writer(header, lineterminator="").writerow([*ds.feature_names, "label"])
    lines = [header.getvalue()]
    labels = ds.y if ds.y is not None else np.full(ds.n, float(UNLABELED))
    for point, label in zip(ds.X.tolist(), labels.tolist()):
        label_cell = "" if label == UNLABELED else _format_label(label)
        lines.append(",".join(map(repr, point)) + "," + label_cell)
    return "\n".join(lines) + "\n"


def to_libsvm(ds: Dataset) -> str:
    """The data set as LIBSVM (svmlight) text; :func:`read` gives it back exactly.

    Zeros are left out, as usual. An unlabeled point is written without a label (its
    line starts with ``index:value``); LIBSVM itself cannot train on such a line, but
    kernelviz reads it back as unlabeled. Feature names are not kept.
    """
    n, d = ds.X.shape
    labels = ds.y if ds.y is not None else np.full(n, float(UNLABELED))
    # Without an explicit last index the number of features would shrink on reading.
    last_column_all_zero = not ds.X[:, -1].any()
    lines = [
        f"# {ds.name}: {n} points, {d} features. Lines without a leading label are "
        "unlabeled points."
    ]
    for i, (point, label) in enumerate(zip(ds.X.tolist(), labels.tolist())):
        tokens = [] if label == UNLABELED else [_format_label(label)]
        tokens += [f"{j}:{value!r}" for j, value in enumerate(point, start=1) if value != 0]
        # An unlabeled origin would otherwise be an empty (skipped) line.
        if (i == 0 and last_column_all_zero) or not tokens:
            tokens.append(f"{d}:0")
        lines.append(" ".join(tokens))
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- generators

GENERATORS = {
    "blobs": {"n_samples": 300, "noise": 0.0, "n_classes": 2, "n_features": 2,
              "cluster_std": 1.0, "separation": 4.0},
    "moons": {"n_samples": 300, "noise": 0.1},
    "circles": {"n_samples": 300, "noise": 0.05, "factor": 0.5},
    "xor": {"n_samples": 400, "noise": 0.0, "cluster_std": 0.35},
    "spirals": {"n_samples": 400, "noise": 0.05, "n_arms": 2, "turns": 1.5},
    "anisotropic": {"n_samples": 300, "noise": 0.0, "n_classes": 2, "cluster_std": 0.3,
                    "stretch": 5.0, "angle": 30.0, "separation": 1.5},
    "concentric": {"n_samples": 800, "noise": 0.0, "n_features": 2,
                   "inner_variance": 0.07, "outer_variance": 1.93},
    "mixture": {"n_samples": 600, "noise": 0.0, "n_classes": 2, "clusters_per_class": 4,
                "n_features": 2, "cluster_std": 0.4, "extent": 4.0},
}
"""Generator name -> its parameters with their default values (ints are ints, floats
are floats, so a widget type can be read off the value). ``noise`` is always the
standard deviation of Gaussian jitter added to every coordinate."""

GENERATOR_DESCRIPTIONS = {
    "blobs": "Isotropic Gaussian blobs, one per class, centred on a circle of radius "
             "`separation`.",
    "moons": "Two interleaving half circles.",
    "circles": "Two concentric rings; the inner radius is `factor` times the outer one.",
    "xor": "Four Gaussian blobs at (±1, ±1); opposite corners share a class.",
    "spirals": "Interleaved spiral arms, one class per arm, each winding `turns` times.",
    "anisotropic": "Parallel elongated Gaussians (long axis `stretch` × `cluster_std`, "
                   "rotated by `angle` degrees), `separation` apart across their short "
                   "axis: a case for Mahalanobis distances.",
    "concentric": "A tight Gaussian class inside a wide one, both centred at the origin "
                  "(the RWM paper's Fig. 1: variances 0.07 and 1.93).",
    "mixture": "A mixture of randomly placed and shaped Gaussians, `clusters_per_class` "
               "per class, centres uniform in [-extent, extent]^d (the MCPM paper's toy).",
}
"""Generator name -> one sentence for the app."""

PARAMETER_LIMITS = {
    "n_samples": (int, 2, MAX_ROWS, False),
    "noise": (float, 0.0, math.inf, False),
    "n_classes": (int, 2, 20, False),
    "n_features": (int, 1, 100, False),  # with MAX_ROWS: at most MAX_CELLS values
    "cluster_std": (float, 0.0, math.inf, True),
    "separation": (float, 0.0, math.inf, False),
    "factor": (float, 0.0, 1.0, True),
    "n_arms": (int, 2, 10, False),
    "turns": (float, 0.0, 10.0, True),
    "stretch": (float, 1.0, math.inf, False),
    "angle": (float, -math.inf, math.inf, False),
    "inner_variance": (float, 0.0, math.inf, True),
    "outer_variance": (float, 0.0, math.inf, True),
    "clusters_per_class": (int, 1, 100, False),
    "extent": (float, 0.0, math.inf, False),
}
"""Generator parameter -> (type, lowest, highest, whether the lowest value itself is
excluded); :func:`make` enforces these, the app can use them as widget bounds."""


def make(kind, n_samples=None, noise=None, random_state=0, **params):
    """Generate a toy data set.

    Parameters
    ----------
    kind : str
        One of ``GENERATORS``: "blobs", "moons", "circles", "xor", "spirals",
        "anisotropic", "concentric", "mixture".
    n_samples : int, optional
        Total number of points, split as evenly as possible between the classes.
        Default: the generator's own (``GENERATORS[kind]["n_samples"]``).
    noise : float, optional
        Standard deviation of Gaussian jitter added to every coordinate. Default: the
        generator's own.
    random_state : int or None, default=0
        Seed; the same seed gives the same data. ``None`` draws a fresh seed.
    **params
        The generator's other parameters (see ``GENERATORS[kind]`` for the names and
        defaults, ``GENERATOR_DESCRIPTIONS[kind]`` for what they do).

    Returns
    -------
    X : ndarray of shape (n_samples, d)
    y : ndarray of shape (n_samples,)
        Float labels 0, 1, …, K - 1, in shuffled order.
    """
    if kind not in GENERATORS:
        raise ValueError(f"Unknown generator {kind!r}; choose one of: {', '.join(GENERATORS)}.")
    unknown = sorted(set(params) - set(GENERATORS[kind]))
    if unknown:
        valid = ", ".join(GENERATORS[kind])
        raise ValueError(
            f"Generator {kind!r} has no parameter {', '.join(map(repr, unknown))}; its "
            f"parameters are: {valid}."
        )
    settings = dict(GENERATORS[kind])
    settings.update(params)
    if n_samples is not None:
        settings["n_samples"] = n_samples
    if noise is not None:
        settings["noise"] = noise
    settings = {key: _check_parameter(kind, key, value) for key, value in settings.items()}
    n_samples = settings.pop("n_samples")
    noise = settings.pop("noise")
    n_classes = settings.get("n_classes", settings.get("n_arms", 2))
    if n_samples < n_classes:
        raise ValueError(
            f"n_samples={n_samples} is too few for {n_classes} classes; give at least one "
            "point per class."
        )
    rng = np.random.default_rng(_check_seed(random_state))
    class_sizes = _even_split(n_samples, n_classes)
    per_class = _GENERATOR_FUNCTIONS[kind](rng, class_sizes, **settings)
    X = np.concatenate(per_class)
    y = np.concatenate([np.full(len(points), float(c)) for c, points in enumerate(per_class)])
    if noise > 0:
        X = X + rng.normal(scale=noise, size=X.shape)
    order = rng.permutation(len(X))
    return X[order], y[order]


def _check_parameter(kind, key, value):
    kind_of, low, high, low_excluded = PARAMETER_LIMITS[key]
    problem = None
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        problem = "must be a number"
    elif not math.isfinite(value):
        problem = "must be finite"
    elif kind_of is int and not float(value).is_integer():
        problem = "must be a whole number"
    elif value < low or value > high or (low_excluded and value == low):
        lower = f"> {low}" if low_excluded else f">= {low}"
        problem = f"must be {lower}" + (f" and <= {high}" if math.isfinite(high) else "")
    if problem:
        raise ValueError(f"Generator {kind!r}: {key}={value!r} {problem}.")
    return kind_of(value)


def _check_seed(random_state):
    if random_state is None:
        return None
    if isinstance(random_state, bool) or not isinstance(random_state, (int, np.integer)) \
            or random_state < 0:
        raise ValueError(
            f"random_state must be a non-negative integer or None; got {random_state!r}."
        )
    return int(random_state)


def _even_split(total, parts):
    """``parts`` integers summing to ``total``, differing by at most one."""
    return [total // parts + (i < total % parts) for i in range(parts)]


def _circle_points(count, n_features, radius):
    """``count`` points evenly on a circle in the first two coordinates (a line in 1-D)."""
    centres = np.zeros((count, n_features))
    if n_features == 1:
        centres[:, 0] = radius * np.linspace(-1, 1, count)
    else:
        angles = 2 * np.pi * np.arange(count) / count
        centres[:, 0] = radius * np.cos(angles)
        centres[:, 1] = radius * np.sin(angles)
    return centres


def _blobs(rng, sizes, n_classes, n_features, cluster_std, separation):
    centres = _circle_points(n_classes, n_features, separation)
    return [centre + cluster_std * rng.standard_normal((size, n_features))
            for centre, size in zip(centres, sizes)]


def _moons(rng, sizes):
    upper = rng.uniform(0, np.pi, sizes[0])
    lower = rng.uniform(0, np.pi, sizes[1])
    return [np.column_stack([np.cos(upper), np.sin(upper)]),
            np.column_stack([1 - np.cos(lower), 0.5 - np.sin(lower)])]


def _circles(rng, sizes, factor):
    rings = []
    for radius, size in zip((1.0, factor), sizes):
        angles = rng.uniform(0, 2 * np.pi, size)
        rings.append(radius * np.column_stack([np.cos(angles), np.sin(angles)]))
    return rings


def _xor(rng, sizes, cluster_std):
    corners = {0: [(1, 1), (-1, -1)], 1: [(-1, 1), (1, -1)]}
    classes = []
    for label, size in enumerate(sizes):
        parts = [np.array(corner) + cluster_std * rng.standard_normal((part, 2))
                 for corner, part in zip(corners[label], _even_split(size, 2))]
        classes.append(np.concatenate(parts))
    return classes


def _spirals(rng, sizes, n_arms, turns):
    arms = []
    for arm, size in enumerate(sizes):
        # radius grows linearly with the angle; start a little off the centre so the
        # arms do not all meet in one point
        t = rng.uniform(0.1, 1.0, size)
        angle = 2 * np.pi * (turns * t + arm / n_arms)
        arms.append(t[:, None] * np.column_stack([np.cos(angle), np.sin(angle)]))
    return arms


def _rotation(angle_degrees):
    a = np.deg2rad(angle_degrees)
    return np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])


def _anisotropic(rng, sizes, n_classes, cluster_std, stretch, angle, separation):
    rotation = _rotation(angle)
    axes = np.array([stretch * cluster_std, cluster_std])
    offsets = (np.arange(n_classes) - (n_classes - 1) / 2) * separation
    return [(np.array([0.0, offset]) + axes * rng.standard_normal((size, 2))) @ rotation.T
            for offset, size in zip(offsets, sizes)]


def _concentric(rng, sizes, n_features, inner_variance, outer_variance):
    return [np.sqrt(variance) * rng.standard_normal((size, n_features))
            for variance, size in zip((inner_variance, outer_variance), sizes)]


def _mixture(rng, sizes, n_classes, clusters_per_class, n_features, cluster_std, extent):
    classes = []
    for size in sizes:
        clusters = []
        for part in _even_split(size, clusters_per_class):
            centre = rng.uniform(-extent, extent, n_features)
            # a random orientation and axis lengths between 0.5 and 1.5 × cluster_std
            q, r = np.linalg.qr(rng.standard_normal((n_features, n_features)))
            rotation = q * np.sign(np.diag(r))
            axes = cluster_std * rng.uniform(0.5, 1.5, n_features)
            clusters.append(centre + (axes * rng.standard_normal((part, n_features))) @ rotation.T)
        classes.append(np.concatenate(clusters))
    return classes


_GENERATOR_FUNCTIONS = {
    "blobs": _blobs,
    "moons": _moons,
    "circles": _circles,
    "xor": _xor,
    "spirals": _spirals,
    "anisotropic": _anisotropic,
    "concentric": _concentric,
    "mixture": _mixture,
}


# --------------------------------------------------------------------------- scaling

SCALINGS = ("none", "minmax", "zscore")


def scaling_parameters(X, method):
    """Offset and factor of a scaling, so that ``X_scaled = (X - offset) / factor``.

    Parameters
    ----------
    X : array-like of shape (n, d)
        The points the scaling is fitted on.
    method : {"none", "minmax", "zscore"}
        "minmax" maps each column onto [0, 1]; "zscore" gives each column mean 0 and
        standard deviation 1 (population std, ddof=0).

    Returns
    -------
    offset, factor : ndarray of shape (d,)
        A constant column gets factor 1, so it maps to 0 instead of NaN.
    """
    if method not in SCALINGS:
        raise ValueError(f"Unknown scaling {method!r}; choose one of: {', '.join(SCALINGS)}.")
    X = _check_points(X, "The data to fit the scaling on")
    if method == "none":
        return np.zeros(X.shape[1]), np.ones(X.shape[1])
    if method == "minmax":
        offset = X.min(axis=0)
        factor = X.max(axis=0) - offset
    else:
        offset = X.mean(axis=0)
        factor = X.std(axis=0)
    # a span too small to divide by safely counts as a constant column
    tiny = factor <= 1e-12 * np.maximum(1.0, np.abs(offset))
    factor[tiny] = 1.0
    return offset, factor


def scale(X, method, fit_on=None):
    """Scale the columns of ``X``.

    Parameters
    ----------
    X : array-like of shape (n, d)
    method : {"none", "minmax", "zscore"}
    fit_on : array-like of shape (m, d), optional
        Points the scaling statistics come from (e.g. all points, labeled or not, when
        scaling a grid or a test set); default ``X`` itself.

    Returns
    -------
    ndarray of shape (n, d)
        ``(X - offset) / factor`` (see :func:`scaling_parameters`); constant columns
        become 0.
    """
    X = _check_points(X, "X")
    offset, factor = scaling_parameters(X if fit_on is None else fit_on, method)
    if len(offset) != X.shape[1]:
        raise ValueError(
            f"fit_on has {len(offset)} features but X has {X.shape[1]}; they must match."
        )
    return (X - offset) / factor


# --------------------------------------------------------------------------- labeled subset

SELECTIONS = ("all", "fraction", "per_class", "dense_per_class")

_DENSITY_FIT_POINTS = 1000  # most points the density model of "dense_per_class" is fitted on
_PEAK_RATIO = 20.0  # a density peak this many times lower than the class's highest is a fringe
_NEIGHBOURS = 10  # neighbours that vote on a point's class / set its neighbourhood radius
_HILL_POINTS = 2000  # only a class's densest points are sorted into hills; the picks come from them


def select_labeled(y, how, value=None, X=None, random_state=0):
    """Choose which labeled points keep their labels (the rest act as unlabeled).

    Parameters
    ----------
    y : array-like of shape (n,)
        Labels, ``UNLABELED`` for points without one (those are never selected).
    how : {"all", "fraction", "per_class", "dense_per_class"}
        * ``"all"``: every labeled point (``value`` is ignored).
        * ``"fraction"``: ``value`` in (0, 1]; stratified: in each class
          ``max(1, round(value × class size))`` points at random.
        * ``"per_class"``: ``value`` = k; k points at random in each class (all of a
          class that has fewer).
        * ``"dense_per_class"``: ``value`` = k; k points in each class lying in
          high-density regions, spread over them (needs ``X``; see Notes).
    value : float or int
        The fraction or k, as above.
    X : array-like of shape (n, d), optional
        The points; required for ``"dense_per_class"``.
    random_state : int, default=0
        Seed; the same seed gives the same selection.

    Returns
    -------
    ndarray of shape (n,), bool
        True for the points that keep their label (see :func:`hide_labels`).

    Notes
    -----
    ``"dense_per_class"`` follows the RWM paper's first experiment, where the few
    labeled points are taken where the density p(x) of the unsupervised mixture model
    is high. Here p(x) comes from a variational Bayesian Gaussian mixture
    (scikit-learn's ``BayesianGaussianMixture``, Dirichlet-process prior, at most ten
    components, full covariances) fitted on *all* points of ``X`` after z-scoring (a
    random 1000 of them when there are more); labels play no part in that fit.

    The picks should also be spread over the regions of a class rather than crowd
    into its single densest spot, and should not sit where another class dominates.
    So, for each class (among its 2000 densest points):

    1. Its *own* points are those where it is the most frequent label among the 10
       nearest labeled points.
    2. Each own point hangs from its nearest denser own point, unless that point is
       more than twice as far away as the point's 10th nearest neighbour (it then lies
       across a gap of low density). Points that hang from nothing are density peaks
       (as in Rodriguez & Laio's density-peak clustering); the points hanging, directly
       or not, from the same peak form a *hill*.
    3. Hills whose peak is at least 1/20 of the highest peak are the class's dense
       regions, visited in turn (densest peak first), each giving its densest
       not-yet-chosen point. Lower hills, then the class's points in another class's
       territory, are used only when the regions run out.

    With a single dense region (a tight core in a wide halo) the k picks are the k
    densest points of that core; with several, they sit at the peaks of up to k of
    them.
    """
    if y is None:
        raise ValueError("There are no labels to select from.")
    y = np.asarray(y, dtype=np.float64)
    if y.ndim != 1:
        raise ValueError(f"y must be 1-D; got shape {y.shape}.")
    if how not in SELECTIONS:
        raise ValueError(
            f"Unknown selection {how!r}; choose one of: {', '.join(SELECTIONS)}."
        )
    labeled = y != UNLABELED
    if how == "all":
        return labeled
    rng = np.random.default_rng(_check_seed(random_state))
    classes = np.unique(y[labeled])
    if how == "fraction":
        if isinstance(value, bool) or not isinstance(value, (int, float, np.number)) \
                or not 0 < value <= 1:
            raise ValueError(f"The fraction of labeled points must be in (0, 1]; got {value!r}.")
    else:
        if isinstance(value, bool) or not isinstance(value, (int, float, np.number)) \
                or not float(value).is_integer() or value < 1:
            raise ValueError(
                f"The number of labeled points per class must be a whole number >= 1; "
                f"got {value!r}."
            )
        value = int(value)

    mask = np.zeros(len(y), dtype=bool)
    if how == "dense_per_class":
        if X is None:
            raise ValueError("Selecting points in dense regions needs the points X.")
        X = _check_points(X, "X")
        if len(X) != len(y):
            raise ValueError(f"X has {len(X)} points but y has {len(y)} labels.")
        # z-scores, so that no feature dominates the density or the distances
        Z = scale(X, "zscore")
        log_density = _mixture_log_density(Z, random_state)
        for label in classes:
            order = _dense_spread_order(Z, y, label, log_density)
            mask[order[:value]] = True
        return mask

    for label in classes:
        members = np.flatnonzero(y == label)
        if how == "fraction":
            count = max(1, round(value * len(members)))
        else:
            count = min(value, len(members))
        mask[rng.choice(members, size=count, replace=False)] = True
    return mask


def _mixture_log_density(Z, random_state):
    """log p(z) under a variational Bayesian Gaussian mixture fitted on Z."""
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.mixture import BayesianGaussianMixture
    from threadpoolctl import threadpool_limits

    # The fit's cost grows with n while a density ranking does not need every point.
    fit_points = Z
    if len(Z) > _DENSITY_FIT_POINTS:
        rng = np.random.default_rng(random_state)
        fit_points = Z[rng.choice(len(Z), _DENSITY_FIT_POINTS, replace=False)]
    n, d = fit_points.shape
    # enough points per component for a full covariance to be estimable
    n_components = max(1, min(10, n // (2 * (d + 1))))
    model = BayesianGaussianMixture(
        n_components=n_components,
        weight_concentration_prior_type="dirichlet_process",
        covariance_type="full",
        tol=1e-3,
        max_iter=100,
        random_state=random_state,
    )
    # A mixture that has not fully converged still ranks points by density. One BLAS /
    # OpenMP thread: on a busy machine spinning threads made this fit 50 times slower.
    with warnings.catch_warnings(), threadpool_limits(limits=1):
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(fit_points)
        return model.score_samples(Z)


def _dense_spread_order(Z, y, label, log_density):
    """Points of class ``label`` in the order ``dense_per_class`` picks them."""
    from sklearn.neighbors import NearestNeighbors

    members = np.flatnonzero(y == label)
    members = members[np.argsort(-log_density[members], kind="stable")]
    candidates = members[:_HILL_POINTS]

    labeled = np.flatnonzero(y != UNLABELED)
    n_votes = min(_NEIGHBOURS, len(labeled))
    voters = NearestNeighbors(n_neighbors=n_votes).fit(Z[labeled])
    votes = y[labeled][voters.kneighbors(Z[candidates], return_distance=False)]
    counts = np.stack([(votes == c).sum(axis=1) for c in np.unique(y[labeled])], axis=1)
    own = candidates[(votes == label).sum(axis=1) == counts.max(axis=1)]

    order = []
    if len(own):
        peak_of = own[_density_peaks(Z[own])]
        peaks = list(dict.fromkeys(peak_of))  # in density order, as ``own`` is
        highest = log_density[peaks[0]]
        hills = [own[peak_of == peak] for peak in peaks]  # each densest point first
        is_region = [log_density[peak] >= highest - np.log(_PEAK_RATIO) for peak in peaks]
        for wanted in (True, False):
            queues = [hill for hill, region in zip(hills, is_region) if region == wanted]
            for rank in range(max(map(len, queues), default=0)):
                order.extend(queue[rank] for queue in queues if rank < len(queue))
    chosen = set(order)
    order.extend(i for i in members if i not in chosen)  # the rest, densest first
    return np.array(order, dtype=int)


def _density_peaks(points):
    """For points sorted from dense to sparse, the index of the peak each hangs from."""
    from scipy.spatial.distance import cdist

    n = len(points)
    if n == 1:
        return np.zeros(1, dtype=int)
    distances = cdist(points, points)
    neighbour_radius = np.partition(distances, min(_NEIGHBOURS, n - 1), axis=1)[
        :, min(_NEIGHBOURS, n - 1)]
    # only denser points (earlier in the order) can be a parent
    distances[np.triu_indices(n)] = np.inf
    nearest_denser = np.argmin(distances, axis=1)
    gap = distances[np.arange(n), nearest_denser]
    parent = np.where(gap <= 2 * neighbour_radius, nearest_denser, np.arange(n))
    while True:  # pointer jumping: each pass halves the remaining path lengths
        grandparent = parent[parent]
        if np.array_equal(grandparent, parent):
            return parent
        parent = grandparent


def hide_labels(y, keep):
    """A copy of ``y`` with ``UNLABELED`` wherever ``keep`` is False.

    Parameters
    ----------
    y : array-like of shape (n,)
    keep : array-like of shape (n,), bool
        Typically the result of :func:`select_labeled`.
    """
    y = np.array(y, dtype=np.float64)
    keep = np.asarray(keep, dtype=bool)
    if keep.shape != y.shape:
        raise ValueError(f"keep has shape {keep.shape} but y has shape {y.shape}.")
    y[~keep] = UNLABELED
    return y
