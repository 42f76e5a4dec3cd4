"""The figures an AppTest run drew, whichever element drew them.

The app draws every chart through ``kernelviz.ui.takeaway.chart``: the plot component
(``kernelviz.components.plot``, its data ``{"figure", …}`` as ``plot.payload`` packs it) where it can load
plotly.js, else Streamlit's Plotly element (its ``proto.spec``); a run uses one or the other.
The component's figures carry Plotly's base64 arrays, read here as plotly.js reads them.
"""

import base64
import json

import numpy as np

from kernelviz.components import plot


def figures(at, typed: bool = False) -> list[dict]:
    """Every figure of the page, in page order, as ``{"data", "layout"}``, its arrays as lists
    (with ``typed``, as sent: Plotly's base64 arrays as they are)."""
    found = [json.loads(element.proto.spec) for element in at.get("plotly_chart")]
    sent = found + [plot.unpack(element.proto.bytes)["figure"] for element in at.get("bidi_component")
                    if element.proto.component_name == plot.COMPONENT_NAME]
    return sent if typed else [as_lists(spec) for spec in sent]


def as_lists(value):
    """``value`` with every base64 array ``{dtype, bdata, shape}`` decoded to (nested) lists."""
    if isinstance(value, dict) and isinstance(value.get("bdata"), str) and "dtype" in value:
        array = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        shape = value.get("shape")
        return (array.reshape([int(n) for n in str(shape).split(",")]) if shape else array).tolist()
    if isinstance(value, dict):
        return {key: as_lists(item) for key, item in value.items()}
    if isinstance(value, list):
        return [as_lists(item) for item in value]
    return value


def click(at, key: str, points: list[dict]) -> None:
    """Leave in the chart ``key``'s state what a click on ``points`` of its current figure leaves
    there: the plot component's selection (with the figure's data revision), or Streamlit's."""
    for element in at.get("bidi_component"):
        if element.proto.component_name == plot.COMPONENT_NAME and element.key == key:
            revision = plot.unpack(element.proto.bytes)["revision"]
            at.session_state[key] = {"selection": {"revision": revision, "points": points}}
            return
    at.session_state[key] = {"selection": {"points": points}}
