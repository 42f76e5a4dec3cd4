"""Reading and writing data sets: the bundled samples, CSV / whitespace tables and
LIBSVM (svmlight) files in, CSV and LIBSVM text out."""

from __future__ import annotations

import csv
import io
import math
import os
import re
from pathlib import Path

import numpy as np

from .dataset import MAX_CELLS, MAX_ROWS, UNLABELED, Dataset, format_label

MAX_FILE_BYTES = 50 * 1024 * 1024
"""Largest file :func:`read` accepts (parsing 50 MB of text already takes seconds)."""


SAMPLE_DIR = Path(__file__).resolve().parent / "sample_data"

_LIBSVM_PAIR = re.compile(r"^\d+:")
_DECIMAL_COMMA = re.compile(r"[-+]?\d+,\d+")


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
        label_cell = "" if label == UNLABELED else format_label(label)
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
        tokens = [] if label == UNLABELED else [format_label(label)]
        tokens += [f"{j}:{value!r}" for j, value in enumerate(point, start=1) if value != 0]
        # An unlabeled origin would otherwise be an empty (skipped) line.
        if (i == 0 and last_column_all_zero) or not tokens:
            tokens.append(f"{d}:0")
        lines.append(" ".join(tokens))
    return "\n".join(lines) + "\n"
