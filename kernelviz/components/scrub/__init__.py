"""The scrub component: γ and C sliders that repaint every kernel's panel from a lattice in the browser.

A Streamlit v2 component (``st.components.v2``, no iframe). Python sends one
:class:`kernelviz.lattice.Lattice` as bytes (see :func:`pack`); while a slider is dragged the
browser paints each panel from it (field as an image, the zero contour by marching
squares, the points on top) without running the script. Releasing a slider sends the
committed value back as the trigger ``commit``. Kernels whose lattice is not ready (or
failed) say so in their panel, and the sliders then still commit on release.
"""

from __future__ import annotations

import functools
import json
import struct
from pathlib import Path
from typing import Callable

import numpy as np

from kernelviz import figures as fg
from kernelviz.lattice import Lattice
from kernelviz.views import Prepared

#: Where the component's JavaScript and CSS live (inside the package, so the app works offline).
FRONTEND = Path(__file__).resolve().parent
#: The name the component is registered under in Streamlit.
COMPONENT_NAME = "kernelviz.scrub"
#: Panel palettes of the two kinds of field: the decision tints are the committed figures' own.
FIELD_COLORS = {
    "decision": {"low": fg.lighten(fg.class_style(0)[0], 0.55), "mid": "#ffffff",
                 "high": fg.lighten(fg.class_style(1)[0], 0.55)},
    "similarity": {"low": "#ffffff", "mid": "#9ecae1", "high": "#08519c"},
}


@functools.cache
def _renderer():
    """The component, registered once per process (Streamlit is imported only when it is used)."""
    import streamlit as st

    return st.components.v2.component(COMPONENT_NAME, js=(FRONTEND / "scrub.js").read_text(encoding="utf-8"),
                                      css=(FRONTEND / "scrub.css").read_text(encoding="utf-8"))


def browser_data(lattice: Lattice, prep: Prepared, log_gamma: float, log_C: float | None) -> bytes:
    """Everything the component draws — the lattice, the committed values, points and colours — packed.

    Parameters
    ----------
    lattice : Lattice
        Complete or not: kernels not ready show "preparing".
    prep : Prepared
        Its training (filled) and test (hollow) points are drawn in the plot plane.
    log_gamma, log_C : float
        The committed values; where they differ from the lattice's own, the lattice along
        the other axis no longer applies and those panels say so.

    Returns
    -------
    bytes
        :func:`pack` of ``{"lattice", "log_gamma", "log_C", "points", "classes", "colors"}``.
    """
    classes = list(prep.classes)
    names = fg.class_names(classes)

    def points(mask: np.ndarray) -> list:
        labeled = mask & np.isin(prep.y, classes)
        index = np.searchsorted(classes, prep.y[labeled])
        return [[float(x), float(y), int(k)] for (x, y), k in zip(prep.X_view[labeled], index)]

    return pack({
        "lattice": lattice.to_browser(), "log_gamma": float(log_gamma),
        "log_C": None if log_C is None else float(log_C),
        "points": {"train": points(prep.train), "test": points(prep.test)},
        "classes": [names[c] for c in classes],
        "colors": {"field": FIELD_COLORS[lattice.kind], "classes": [fg.class_style(i)[0] for i in range(len(classes))]},
    })


#: Bytes of the header's length at the start of a payload (unsigned, little-endian).
_LENGTH = struct.Struct("<I")


def pack(data: dict) -> bytes:
    """The component's payload: a JSON header, then every kernel's fields as raw uint8 codes.

    Streamlit sends bytes as they are, where JSON data would be serialised twice in Python
    (once more to hash it), parsed in the browser and, as base64, decoded there: a lattice is
    ~1 MB and goes with every run of the page. The browser takes each field as a view of
    the payload, with no copy.

    Layout: the header's length (4 bytes, little-endian), the header (UTF-8 JSON: ``data``
    with each field replaced by ``[offset, size]`` into the body), the body.
    """
    body = []
    offset = 0
    kernels = []
    for kernel in data["lattice"]["kernels"]:
        fields = kernel["fields"]
        if fields is not None:
            spans = {}
            for axis, codes in fields.items():
                raw = np.ascontiguousarray(codes, dtype=np.uint8).tobytes()
                spans[axis] = [offset, len(raw)]
                body.append(raw)
                offset += len(raw)
            kernel = {**kernel, "fields": spans}
        kernels.append(kernel)
    header = json.dumps({**data, "lattice": {**data["lattice"], "kernels": kernels}},
                        separators=(",", ":")).encode("utf-8")
    return b"".join([_LENGTH.pack(len(header)), header, *body])


def unpack(payload: bytes) -> dict:
    """The data :func:`pack` packed, each field as a flat uint8 array (what the browser reads)."""
    (length,) = _LENGTH.unpack_from(payload)
    data = json.loads(payload[_LENGTH.size:_LENGTH.size + length].decode("utf-8"))
    body = memoryview(payload)[_LENGTH.size + length:]
    for kernel in data["lattice"]["kernels"]:
        if kernel["fields"] is not None:
            kernel["fields"] = {axis: np.frombuffer(body[offset:offset + size], dtype=np.uint8)
                                for axis, (offset, size) in kernel["fields"].items()}
    return data


def scrub(lattice: Lattice, prep: Prepared, *, log_gamma: float, log_C: float | None = None, key: str = "scrub",
          on_commit: Callable[[dict], None] | None = None) -> dict | None:
    """Show the sliders and panels; return the value committed by the last release, if any.

    Parameters
    ----------
    lattice : Lattice
    prep : Prepared
    log_gamma, log_C : float
        The committed values (``log_C`` None for a similarity lattice).
    key : str
        Streamlit key of the component.
    on_commit : callable, optional
        ``on_commit(value)`` runs before the script reruns after a release, so that the
        app can store the value (sidebar, URL) before anything is drawn with the old one.

    Returns
    -------
    dict or None
        ``{"axis": "log_gamma" | "log_C", "log_gamma": float, "log_C": float}`` in the
        run that follows a release, otherwise None.
    """
    import streamlit as st

    def committed() -> None:
        value = st.session_state[key].get("commit")
        if value is not None and on_commit is not None:
            on_commit(value)

    result = _renderer()(key=key, data=browser_data(lattice, prep, log_gamma, log_C), on_commit_change=committed)
    return result.get("commit")
