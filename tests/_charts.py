"""The figures an AppTest run drew, whichever element drew them.

The app draws every chart through ``kernelviz.ui.takeaway.chart``: the plot component
(``kernelviz.components.plot``, its data the JSON of ``{"figure", …}``) where it can load
plotly.js, else Streamlit's Plotly element (its ``proto.spec``); a run uses one or the other.
"""

import json

from kernelviz.components import plot


def figures(at) -> list[dict]:
    """Every figure of the page, in page order, as ``{"data", "layout"}``."""
    found = [json.loads(element.proto.spec) for element in at.get("plotly_chart")]
    return found + [json.loads(element.proto.bytes)["figure"] for element in at.get("bidi_component")
                    if element.proto.component_name == plot.COMPONENT_NAME]


def click(at, key: str, points: list[dict]) -> None:
    """Leave in the chart ``key``'s state what a click on ``points`` of its current figure leaves
    there: the plot component's selection (with the figure's data revision), or Streamlit's."""
    for element in at.get("bidi_component"):
        if element.proto.component_name == plot.COMPONENT_NAME and element.key == key:
            revision = json.loads(element.proto.bytes)["revision"]
            at.session_state[key] = {"selection": {"revision": revision, "points": points}}
            return
    at.session_state[key] = {"selection": {"points": points}}
