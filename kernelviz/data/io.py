"""Reading and writing data sets: the bundled samples, CSV / whitespace tables and
LIBSVM (svmlight) files in, CSV and LIBSVM text out.

Tables are parsed by pandas; only when a column does not come out as finite numbers
are its cells looked at one by one, to name the file, line and column of the first bad
cell. The LIBSVM reader is our own: scikit-learn's cannot read the unlabeled lines
:func:`to_libsvm` writes.
"""

from __future__ import annotations

import csv
import io
import math
import os
import re
from importlib import resources
from pathlib import Path

import numpy as np

from ..outside import visible
from .dataset import MAX_CELLS, MAX_ROWS, UNLABELED, Dataset, format_label

MAX_FILE_BYTES = 50 * 1024 * 1024
"""Largest file :func:`read` accepts (parsing 50 MB of text already takes seconds)."""


def _find_sample_dir() -> Path:
    """The folder of the bundled samples, in an installed wheel and in a checkout alike.

    The files live in the project's top-level ``sample_data/``. A wheel carries them as
    package data, ``kernelviz/data/sample_data/`` (setup.py copies them there), found with
    importlib.resources; a source checkout or an editable install has no such folder in
    the package and uses the checkout's own ``sample_data/``.
    """
    packaged = resources.files(__package__).joinpath("sample_data")
    if packaged.is_dir():
        return Path(str(packaged))
    return Path(__file__).resolve().parents[2] / "sample_data"


SAMPLE_DIR = _find_sample_dir()
"""Where :func:`load` reads the bundled samples (see :func:`_find_sample_dir`)."""

_LIBSVM_PAIR = re.compile(r"^\d+:")
_DECIMAL_COMMA = re.compile(r"[-+]?\d+,\d+")
_WHITESPACE = re.compile(r"\s")  # tabs and every character str.splitlines() breaks at


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
    "australian": {
        "file": "australian_scale.libsvm",
        "description": "Statlog Australian credit approval: 690 applications × 14 features "
        "(LIBSVM copy, scaled to [-1, 1]); the attributes are anonymised (A1..A14); "
        "+1 = Statlog's class 1 (307 applications).",
        # Statlog changed every attribute name and value to a meaningless symbol to keep
        # the applicants confidential, so A1..A14 are the only names there are.
        "feature_names": [f"A{i}" for i in range(1, 15)],
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
"""Bundled samples: short name -> file in :data:`SAMPLE_DIR`, a one-line description and
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
    *Tables* are parsed by pandas (``read_csv``, C engine). The first row is a header
    when one of its cells is text above a number in the second row. An empty label cell
    marks an unlabeled row. Labels are numbers, or names in every labeled row (such as
    iris's species): the names become the classes 0, 1, … in their sorted order, kept
    in ``Dataset.class_names``.
    Feature cells must hold finite numbers. Blank lines and lines starting with ``#``
    are skipped. A cell may be quoted (``"1.5"``), but a quote must close on its line.

    *LIBSVM.* ``label index:value index:value …`` with 1-based indices; features
    missing from a row are 0, the number of features is the largest index; a line with
    only a label is a point at the origin; a line whose first token is already an
    ``index:value`` pair is unlabeled (this is how :func:`to_libsvm` writes unlabeled
    points). ``#`` starts a comment.

    Limits: at most :data:`MAX_FILE_BYTES` bytes and :data:`MAX_ROWS` rows.
    """
    # the name first: every message, the ones about the bytes included, names the file the
    # caller named (the app passes an upload's own name; bytes alone would be called 'data')
    raw, name = _read_source(path_or_file, None if name is None else str(name))
    text = _decode(raw, name) if isinstance(raw, bytes) else raw.lstrip("\ufeff")
    lines, line_numbers = _data_lines(text)
    if not lines:
        raise ValueError(f"{name!r} is empty: it has no data rows.")
    if len(lines) > MAX_ROWS + 1:  # + 1: a header is not a data row
        raise ValueError(
            f"{name!r} has {len(lines):,} rows; kernelviz reads at most {MAX_ROWS:,}. "
            "Take a random subset of the rows first."
        )
    if fmt == "auto":
        fmt = "libsvm" if _looks_like_libsvm(lines) else "csv"
    if fmt in ("libsvm", "svmlight"):
        if not (label_column is None or label_column is False or label_column == 0):
            raise ValueError(
                "LIBSVM files carry the label as the first token of each line; "
                f"label_column={label_column!r} does not apply (use None, or False to "
                "ignore the labels)."
            )
        X, y = _parse_libsvm(list(zip(line_numbers, lines)), name)
        feature_names, class_names = [], None
        if label_column is False:
            y = None
    elif fmt == "csv":
        X, y, feature_names, class_names = _parse_table(lines, line_numbers, label_column, name)
    else:
        raise ValueError(f"Unknown format {fmt!r}; use 'auto', 'csv' or 'libsvm'.")
    if len(X) < 2:
        raise ValueError(f"{name!r} has {len(X)} data row(s); at least two points are needed.")
    if y is not None and not np.any(y != UNLABELED):
        y, class_names = None, None
    return Dataset(X, y, name=name, feature_names=feature_names, class_names=class_names)


def _read_source(source, given_name=None):
    """Return (bytes or str, name), refusing anything over MAX_FILE_BYTES; the name is
    ``given_name``, else the file's stem (``data`` for bare bytes)."""
    too_big = (
        "{name!r} is {size:.1f} MB; kernelviz reads files up to "
        f"{MAX_FILE_BYTES // 2**20} MB (about {MAX_ROWS:,} rows). "
        "Take a random subset of the rows first."
    )
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        if not path.is_file():
            raise ValueError(f"No such file: {str(path)!r}.")
        name = path.stem if given_name is None else given_name
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise ValueError(too_big.format(name=name, size=size / 2**20))
        return path.read_bytes(), name
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
    name = name if given_name is None else given_name
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
    # anywhere, not only near the start: a NUL past a long header would reach a column's name
    nul = raw.find(b"\x00")
    if nul >= 0:
        line = raw.count(b"\n", 0, nul) + 1
        raise ValueError(
            f"{name!r} is a binary file, not text (a NUL byte on line {line}). Upload a CSV or "
            "LIBSVM text file."
        )
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = raw.count(b"\n", 0, error.start) + 1
        raise ValueError(
            f"{name!r} is not UTF-8 text (byte 0x{raw[error.start]:02x} on line {line}); "
            "save it as UTF-8 and retry."
        ) from None


def _data_lines(text):
    """The lines that hold data, and their 1-based numbers in the file.

    Blank lines and lines starting with ``#`` are left out. Most files have neither,
    and then no line is looked at one by one.
    """
    lines = text.splitlines()
    if "#" not in text and "" not in lines and not any(map(str.isspace, lines)):
        return lines, range(1, len(lines) + 1)
    kept = [(number, line) for number, line in enumerate(lines, start=1)
            if line.strip() and not line.lstrip().startswith("#")]
    return [line for _, line in kept], [number for number, _ in kept]


def _looks_like_libsvm(lines) -> bool:
    """LIBSVM when one of the first lines holds an ``index:value`` token.

    One is enough: a LIBSVM file may have many lines with a label only (points at the
    origin), while a table never has a space-separated token starting with ``digits:``.
    """
    return any(
        _LIBSVM_PAIR.match(token)
        for line in lines[:50]
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


#: A quoted cell as a spreadsheet writes it ("" inside is one quote), or a quote left open.
_QUOTED_CELL = re.compile(r'"(?:[^"]|"")*"?')


def _table_delimiter(line):
    """The separator of a table, guessed from its first line outside its quoted cells
    (a header cell ``"a;b"`` is text); None for runs of spaces.

    Semicolons win over commas: a file separated by semicolons usually has decimal
    commas.
    """
    unquoted = _QUOTED_CELL.sub("", line)
    return next((delimiter for delimiter in ("\t", ";", ",") if delimiter in unquoted), None)


def _split_cells(line, delimiter):
    """The stripped cells of one line, quotes handled as a spreadsheet writes them."""
    if delimiter is None:
        return line.split()
    return [cell.strip() for cell in next(csv.reader([line], delimiter=delimiter))]


def _row_widths(body, lines, delimiter):
    """Number of cells on each line; ``body`` is the lines joined by newlines, as UTF-8."""
    if delimiter is None or not lines:
        return [len(line.split()) for line in lines]
    if b'"' in body:  # only a quoted cell can hold the separator itself
        return [len(_split_cells(line, delimiter)) for line in lines]
    # Separators counted over the bytes at once instead of in a loop over the lines:
    # how many lie before each line's end, differenced. Both characters are ASCII, and
    # no byte of a multi-byte UTF-8 character is.
    codes = np.frombuffer(body, dtype=np.uint8)
    separators = np.flatnonzero(codes == ord(delimiter))
    line_ends = np.append(np.flatnonzero(codes == ord("\n")), len(codes))
    return np.diff(np.searchsorted(separators, line_ends), prepend=0) + 1


def _read_frame(body, n_lines, delimiter, n_columns, name, as_text):
    """The table's data lines parsed by pandas.

    With ``as_text`` every cell is a string, as in the file; otherwise pandas infers
    each column's type, and an empty cell — only an empty one — becomes NaN.
    """
    import pandas as pd  # here, not at the top: ``import kernelviz.data`` stays fast

    options = {"sep": r"\s+", "quoting": csv.QUOTE_NONE} if delimiter is None else {
        "sep": delimiter, "skipinitialspace": True}
    if as_text:
        options.update(dtype=str, na_filter=False)
    else:
        options.update(keep_default_na=False, na_values=[""])
    try:
        frame = pd.read_csv(io.BytesIO(body), header=None, names=range(n_columns), engine="c",
                            encoding="utf-8", **options)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, ValueError) as error:
        reason = (str(error).strip().splitlines() or [type(error).__name__])[0]
        raise ValueError(
            f"{name!r} is not a well-formed table; check its quotes (every \" needs its "
            f"partner on the same line) and separators. The CSV parser said: {reason}"
        ) from None
    if len(frame) != n_lines:
        raise ValueError(
            f"{name!r} has a quoted cell that runs over several lines; every row must be on "
            "one line (check for an unclosed \")."
        )
    return frame


def _numeric_column(column):
    """The column as float64 when pandas read it as numbers, else None."""
    if column.dtype.kind not in "iuf":  # text, or "True"/"False" read as booleans
        return None
    return column.to_numpy(dtype=np.float64)


def _parse_table(lines, line_numbers, label_column, name):
    delimiter = _table_delimiter(lines[0])
    header_cells = _split_cells(lines[0], delimiter)
    n_columns = len(header_cells)
    # the first row's width tells the size before any parsing of the others
    if len(lines) * n_columns > MAX_CELLS:
        raise ValueError(
            f"{name!r} has {len(lines):,} rows × {n_columns:,} columns, too many values "
            f"(the limit is {MAX_CELLS:,})."
        )
    # A string that did not come from UTF-8 bytes may hold lone surrogates; they become
    # "?" and are then reported as a cell that is not a number.
    body = "\n".join(lines[1:]).encode("utf-8", errors="replace")
    for width, number in zip(_row_widths(body, lines[1:], delimiter), line_numbers[1:]):
        if width != n_columns:
            raise ValueError(
                f"{name!r}, line {number} has {width} values but line "
                f"{line_numbers[0]} has {n_columns}; every row needs the same number of "
                "columns."
            )
    has_header = _is_header(header_cells, _split_cells(lines[1], delimiter) if len(lines) > 1 else None)
    # unnamed columns are counted from 1 in messages, as a spreadsheet user would
    if has_header:
        column_names = [_unquoted_text(cell) or f"column {j + 1}"
                        for j, cell in enumerate(header_cells)]
        line_numbers = line_numbers[1:]
    else:
        column_names = [f"column {j + 1}" for j in range(n_columns)]
        body = "\n".join(lines).encode("utf-8", errors="replace")

    label_index = _resolve_label_column(label_column, column_names, has_header, name)
    feature_indices = [j for j in range(n_columns) if j != label_index]
    if not feature_indices:
        raise ValueError(
            f"{name!r} has a single column, so nothing is left for features once the "
            "labels are taken; pass label_column=False if that column is a feature."
        )
    if not line_numbers:
        raise ValueError(f"{name!r} has a header but no data rows.")

    table = (body, len(line_numbers), delimiter, n_columns, name)
    X, labels = _table_values(table, feature_indices, label_index)
    if X is None:
        # Only when pandas found something other than finite numbers: cell by cell, to
        # name the first offending cell (or to accept what Python's float() reads).
        frame = _read_frame(*table, as_text=True)
        cells = np.array([[cell.strip() for cell in row] for row in frame.itertuples(index=False)],
                         dtype=object).reshape(len(frame), n_columns)
        X = _parse_feature_cells(cells[:, feature_indices], feature_indices, column_names,
                                 line_numbers, name)
        labels = None if label_index is None else cells[:, label_index]
    y, class_names = labels, None
    if labels is not None and labels.dtype == object:
        y, class_names = _parse_label_cells(labels, column_names[label_index], line_numbers, name)
    if has_header:
        feature_names = [column_names[j] for j in feature_indices]
    else:
        feature_names = [f"x{k + 1}" for k in range(len(feature_indices))]
    return X, y, feature_names, class_names


def _is_header(first, second):
    """Whether the first row of a table is its header.

    It is when one of its cells is text above a number in the second row (or when it
    is the only row and holds text). Text above text is not enough: that is a label
    column holding class names, in a file without a header.
    """
    return any(
        cell and _parse_number(cell) is None
        and (second is None or _parse_number(second[j]) is not None)
        for j, cell in enumerate(first)
    )


def _table_values(table, feature_indices, label_index):
    """X and the labels straight from pandas, or (None, None) when a cell needs a closer look.

    The labels are None without a label column, float64 (``UNLABELED`` where empty) when
    pandas read numbers, and the column's stripped text cells (an object array) when it
    read text, for :func:`_parse_label_cells`.
    """
    try:
        frame = _read_frame(*table, as_text=False)
    except ValueError:
        return None, None  # the cell-by-cell pass reads it again and gives the message
    columns = [_numeric_column(frame[j]) for j in feature_indices]
    if any(column is None or not np.all(np.isfinite(column)) for column in columns):
        return None, None
    X = np.column_stack(columns)
    if label_index is None:
        return X, None
    y = _numeric_column(frame[label_index])
    if y is None:
        return X, frame[label_index].fillna("").astype(str).str.strip().to_numpy(dtype=object)
    empty = np.isnan(y)  # only an empty cell is NaN here (na_values=[""])
    if not np.all(np.isfinite(y[~empty])):
        return None, None
    return X, np.where(empty, float(UNLABELED), y)


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
    """The labels from their text cells: ``(y, None)`` for numbers, ``(codes, names)`` for names.

    Names (every non-empty cell text, none a number) become the classes 0, 1, … in the
    sorted order of the names, and ``names`` maps each code back to its name. An empty
    cell is an unlabeled point either way.
    """
    given = [cell for cell in cells if cell]
    if given and all(_parse_number(cell) is None for cell in given):
        names = sorted({_unquoted_text(cell) for cell in given})
        codes = {label: float(code) for code, label in enumerate(names)}
        y = np.array([codes[_unquoted_text(cell)] if cell else float(UNLABELED) for cell in cells])
        return y, {code: label for label, code in codes.items()}
    y = np.full(len(cells), float(UNLABELED))
    for i, cell in enumerate(cells):
        if not cell:
            continue  # an empty label cell: the point is unlabeled
        value = _parse_number(cell)
        if value is None or not math.isfinite(value):
            raise ValueError(
                f"{name!r}, line {line_numbers[i]}, label column {column!r}: {cell!r} is "
                "not a finite number; labels must be numbers such as -1/+1 or 0/1 in every "
                "cell, or names such as cat / dog in every cell (leave the cell empty for an "
                "unlabeled point)."
            )
        y[i] = value
    return y, None


# --------------------------------------------------------------------------- writing


_FORMULA_STARTS = ("=", "+", "-", "@")
_SPREADSHEET_QUOTE = "'"


def _text_cell(text):
    """A text cell as to_csv writes it: safe to open in a spreadsheet, and one line.

    Any line break (or tab) becomes a space, because :func:`read` takes one row per
    line, and the spaces around the text go, as :func:`read` strips every cell. Text
    that a spreadsheet would run as a formula (starting with ``=``, ``+``, ``-`` or
    ``@``) gets a leading single quote, OWASP's advice against CSV injection; numbers
    such as ``-1.5`` are left as they are.
    """
    text = _WHITESPACE.sub(" ", str(text)).strip()
    if text.startswith(_FORMULA_STARTS) and _parse_number(text) is None:
        return _SPREADSHEET_QUOTE + text
    return text


def _unquoted_text(cell):
    """A text cell as read: without the quote :func:`_text_cell` put before a formula."""
    unquoted = cell[len(_SPREADSHEET_QUOTE):]
    if cell.startswith(_SPREADSHEET_QUOTE) and unquoted.startswith(_FORMULA_STARTS):
        return unquoted
    return cell


def to_csv(ds: Dataset) -> str:
    """The data set as CSV text with a header; :func:`read` gives it back exactly.

    The last column, ``label``, holds the labels, empty for unlabeled points (and for
    every point when ``ds.y is None``). Numbers are written with ``repr``, the shortest
    text that reads back to the same float.

    With ``ds.class_names`` the label cells hold the class names instead of the
    numbers; :func:`read` gives the names back, with the codes 0, 1, … in the names'
    sorted order (which may differ from the codes written).

    A feature or class name a spreadsheet would run as a formula (``=…``, ``+…``,
    ``-…``, ``@…``) is written with a leading single quote, so that it shows as text;
    :func:`read` removes that quote again, so the names read back unchanged. A name
    with line breaks or tabs, or with spaces around it, reads back with those turned
    into single spaces and trimmed (see :func:`_text_cell`).
    """
    _refuse_nul(ds)
    lines = [",".join([*(_header_cell(_text_cell(name)) for name in ds.feature_names), "label"])]
    label_cells = _label_cells(ds)
    for point, label in zip(ds.X.tolist(), label_cells):
        lines.append(",".join(map(repr, point)) + "," + label)
    return "\n".join(lines) + "\n"


def _refuse_nul(ds):
    """A NUL in a name cannot be written: :func:`read` takes a file holding one for binary."""
    names = [("feature", n) for n in ds.feature_names] + [("class", n) for n in (ds.class_names or {}).values()]
    for kind, name in names:
        if "\x00" in str(name):
            raise ValueError(
                f"The {kind} name {name!r} holds a NUL character, which a text file cannot keep "
                "(read() takes a file holding one for binary). Rename it."
            )


def _header_cell(text):
    """One cell of to_csv's header, quoted where read() would otherwise misread it: a ``;`` or
    tab would be guessed as the table's separator (read() looks outside quotes), a leading
    ``#`` would make the header a comment line, and a comma or quote needs quotes anyway."""
    if any(c in text for c in ',;\t"\r\n') or text.startswith("#"):
        return '"' + text.replace('"', '""') + '"'
    return text


def _label_cells(ds):
    """The label column of :func:`to_csv`: numbers, or class names; empty when unlabeled."""
    labels = ds.y if ds.y is not None else np.full(ds.n, float(UNLABELED))
    if ds.class_names is None:
        return ["" if label == UNLABELED else format_label(label) for label in labels.tolist()]
    names = {label: _text_cell(name) for label, name in ds.class_names.items()}
    for label, text in names.items():
        # read() takes a column of names only if none is empty or a number
        if not text or _parse_number(text) is not None:
            raise ValueError(
                f"The class name {ds.class_names[label]!r} (class {format_label(label)}) cannot be "
                "written as a name: a number or an empty name would read back as a number or "
                "as unlabeled. Rename the class."
            )
    cells = {label: _quoted_csv_cell(text) for label, text in names.items()}
    return ["" if label == UNLABELED else cells[label] for label in labels.tolist()]


def _quoted_csv_cell(text):
    """``text`` as one CSV cell, quoted when it holds a comma or a quote."""
    cell = io.StringIO()
    csv.writer(cell, lineterminator="").writerow([text])
    return cell.getvalue()


def to_libsvm(ds: Dataset) -> str:
    """The data set as LIBSVM (svmlight) text; :func:`read` gives it back exactly.

    Zeros are left out, as usual. An unlabeled point is written without a label (its
    line starts with ``index:value``); LIBSVM itself cannot train on such a line, but
    kernelviz reads it back as unlabeled. Feature names are not kept, nor class names:
    LIBSVM labels are numbers, so the codes of ``ds.class_names`` are written.
    """
    n, d = ds.X.shape
    labels = ds.y if ds.y is not None else np.full(n, float(UNLABELED))
    # Without an explicit last index the number of features would shrink on reading.
    last_column_all_zero = not ds.X[:, -1].any()
    lines = [
        # the name on one line: a line break in it would start a data line
        f"# {_text_cell(visible(ds.name))}: {n} points, {d} features. Lines without a leading label are "
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


def read_table(paths, label_column=-1, id_columns=(), missing=("?",), impute=True, keep_rows=None,
               merge_labels=None, name=None):
    """Read one data set from one or more benchmark table files (their rows concatenated), with
    what benchmark files need beyond :func:`read`: identifier columns, missing values, text
    attributes, and labels to merge.

    Each file's separator is found from its first line: commas (spaces after them allowed),
    else tabs or runs of spaces (one or several). Cells may be quoted. The first line is a
    header when one of its cells is text above a number in the second line (a UTF-8 BOM is
    skipped). Every file must have the same number of columns.

    Parameters
    ----------
    paths : path or list of paths
    label_column : int, str or list, default=-1
        The label's column: an index (negative from the end) or a header name. A list of
        columns: the label is 1 where any of them is non-zero, else 0 (counts of events, as in
        the solar flare data).
    id_columns : list of int or str
        Columns that identify a row or a run rather than describe it; dropped.
    missing : tuple of str
        Cells that mean "not recorded" (UCI's ``?``).
    impute : bool, default=True
        Replace a missing cell by its column's median (numbers) or most frequent value (text),
        computed over every row; ``False`` drops the rows with a missing cell instead.
    keep_rows : dict, optional
        ``{column: value}``: keep only the rows whose column holds ``value`` (Deterding's vowel
        training part: the first column is 0); those columns are then dropped.
    merge_labels : dict, optional
        ``{label as in the file: new label}``, e.g. ``{"3": "2"}`` to merge two classes.
    name : str, optional
        The data set's name (default: the first file's stem).

    Returns
    -------
    (Dataset, dict)
        The points (text attributes coded 0, 1, … in the sorted order of their values) and
        labels (numbers as they are; names become 0, 1, … in sorted order, in ``class_names``),
        and what was done: ``{"rows", "identifiers", "categorical", "missing_cells",
        "missing_rows", "imputed", "dropped_rows", "kept_rows"}`` (column names, 1-based
        positions where the file has no header).

    Raises
    ------
    ValueError
        A missing file, files of different widths, a label or identifier column that does not
        exist, a label cell that is missing, or a data set with fewer than two rows.
    """
    import pandas as pd  # here, not at the top: ``import kernelviz.data`` stays fast

    paths = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)
    if not paths:
        raise ValueError("read_table needs at least one file.")
    frames, names = [], None
    for path in paths:
        raw, stem = _read_source(path)
        text = _decode(raw, stem) if isinstance(raw, bytes) else raw.lstrip("\ufeff")
        lines, _ = _data_lines(text)
        if not lines:
            raise ValueError(f"{str(path)!r} is empty: it has no data rows.")
        comma = "," in lines[0]
        options = ({"sep": ",", "skipinitialspace": True} if comma else {"sep": r"\s+"})
        cells = _split_cells(lines[0], "," if comma else None)
        header = len(lines) > 1 and _is_header(cells, _split_cells(lines[1], "," if comma else None))
        frame = pd.read_csv(io.StringIO("\n".join(lines)), header=0 if header else None, dtype=str,
                            keep_default_na=False, na_filter=False, engine="python" if not comma else "c",
                            **options)
        if not header:
            frame.columns = [f"column {j + 1}" for j in range(frame.shape[1])]
        else:
            frame.columns = [str(c).strip().strip('"') for c in frame.columns]
        if names is not None and len(frame.columns) != len(names):
            raise ValueError(f"{str(path)!r} has {len(frame.columns)} columns, {str(paths[0])!r} {len(names)}; the "
                             "files of one data set need the same columns.")
        names = list(frame.columns) if names is None else names
        frame.columns = names
        frames.append(frame)
    frame = pd.concat(frames, ignore_index=True).apply(lambda column: column.str.strip())

    def column_name(column, what):
        if isinstance(column, str):
            if column not in names:
                raise ValueError(f"{what} column {column!r} is not a column of {str(paths[0])!r} (its columns: "
                                 f"{', '.join(names)}).")
            return column
        if not -len(names) <= int(column) < len(names):
            raise ValueError(f"{what} column {column} does not exist: {str(paths[0])!r} has {len(names)} columns.")
        return names[int(column)]

    info = {"identifiers": [column_name(c, "identifier") for c in id_columns], "kept_rows": {}}
    for column, value in (keep_rows or {}).items():
        key = column_name(column, "row-selecting")
        frame = frame[frame[key] == str(value)]
        info["kept_rows"][key] = str(value)
    labels = [column_name(c, "label") for c in (label_column if isinstance(label_column, (list, tuple))
                                                 else [label_column])]
    dropped = set(info["identifiers"]) | set(info["kept_rows"]) | set(labels)
    features = [c for c in names if c not in dropped]
    is_missing = frame.isin(list(missing))
    if is_missing[labels].to_numpy().any():
        raise ValueError(f"{str(paths[0])!r}: {int(is_missing[labels].to_numpy().sum())} label cell(s) are missing "
                         f"({', '.join(missing)}); every point needs a label.")
    info["missing_cells"] = int(is_missing[features].to_numpy().sum())
    info["missing_rows"] = int(is_missing[features].any(axis=1).sum())
    info["imputed"], info["dropped_rows"] = bool(impute and info["missing_rows"]), 0
    if info["missing_rows"] and not impute:
        frame = frame[~is_missing[features].any(axis=1)]
        info["dropped_rows"] = info["missing_rows"]
        is_missing = frame.isin(list(missing))
    columns, info["categorical"] = [], []
    for c in features:
        values = frame[c].where(~is_missing[c])
        numbers = pd.to_numeric(values, errors="coerce")
        if numbers[values.notna()].notna().all():
            columns.append(numbers.fillna(numbers.median()).to_numpy(dtype=float))
            continue
        info["categorical"].append(c)
        filled = values.fillna(values.mode().iloc[0]) if values.isna().any() else values
        codes = {v: k for k, v in enumerate(sorted(filled.unique()))}
        columns.append(filled.map(codes).to_numpy(dtype=float))
    if len(frame) < 2:
        raise ValueError(f"{str(paths[0])!r} has {len(frame)} usable row(s); at least two points are needed.")
    if len(labels) > 1:
        y = (frame[labels].apply(pd.to_numeric).to_numpy() != 0).any(axis=1).astype(float)
        class_names = None
    else:
        raw_labels = frame[labels[0]].map(lambda v: (merge_labels or {}).get(v, v))
        numeric = pd.to_numeric(raw_labels, errors="coerce")
        if numeric.notna().all():
            y, class_names = numeric.to_numpy(dtype=float), None
        else:
            classes = sorted(raw_labels.unique())
            y = raw_labels.map({v: k for k, v in enumerate(classes)}).to_numpy(dtype=float)
            class_names = {float(k): v for k, v in enumerate(classes)}
    info["rows"] = int(len(frame))
    X = np.column_stack(columns) if columns else np.empty((len(frame), 0))
    return Dataset(X, y, name=name or Path(str(paths[0])).stem, feature_names=features, class_names=class_names), info
