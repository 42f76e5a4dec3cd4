"""The Data view: the points as the models see them, a summary beside them and the downloads —
or, for drawn data, the canvas that takes clicks (``kernelviz.components.draw``)."""

from __future__ import annotations

import numpy as np
import streamlit as st

import kernelviz as kv
from kernelviz import figures as fg
from kernelviz import registry
from kernelviz.components import draw
from kernelviz.outside import file_name, message, plain, plotly_text
from kernelviz.ui import live, takeaway
from kernelviz.pipeline import Prepared

DRAW_RANGE = (-3.0, 3.0)
DRAW_LABELS = {"class +1": 1.0, "class −1": -1.0, "unlabeled": 0.0}
#: Which of the canvas's clicks the drawn points hold: {token: number of the last one applied}
#: (kernelviz.components.draw.new_clicks).
DRAW_APPLIED_KEY = "_draw_applied"
#: The lists of points Clear took, the latest last (Undo brings them back).
DRAW_CLEARED_KEY = "_draw_cleared"


def columns():
    """The view's two columns, (main, side): the figure or the canvas, and the summary beside it.
    One layout for the data and for an empty canvas (:func:`show_empty`), so that the canvas keeps
    its element when the first point arrives."""
    return st.columns([3, 1], gap="large")


def show(prep: Prepared, values: dict, partition) -> None:
    """The view (``partition`` is None: it needs none)."""
    main, side = columns()
    with side:
        st.markdown(data_summary(prep))
        if prep.projected:
            st.caption(
                f"{prep.d} features, shown on their first two principal components "
                f"({100 * prep.explained.sum():.0f}% of the variance). Models are fitted on "
                + ("the projection." if prep.fit_on == "projection" else
                   "all features; the maps show the plane through the data's mean spanned by the two components."))
        export = kv.data.Dataset(prep.X_raw, prep.y, name=prep.name, feature_names=list(prep.feature_names),
                                 class_names=prep.class_names)
        st.download_button("Download data (CSV)", lambda: kv.data.to_csv(export),
                           file_name=file_name(prep.name, "csv"), mime="text/csv", on_click="ignore", width="stretch")
        st.download_button("Download data (LIBSVM)", lambda: kv.data.to_libsvm(export),
                           file_name=file_name(prep.name, "libsvm"), mime="text/plain", on_click="ignore",
                           width="stretch")
        st.caption("Downloads hold the unscaled features" + (" of the sample shown" if prep.sampled else "")
                   + f"; hidden labels are written as unlabeled ({kv.data.UNLABELED}).")
    with main:
        if values["source"] == "drawn":
            draw_canvas(values)
        else:
            fig = fg.data_figure(prep.X_view, prep.y, prep.labeled, classes=prep.legend_classes,
                                 axis_titles=tuple(map(plotly_text, prep.axis_titles)),
                                 title=f"{plotly_text(prep.name)}, "
                                       f"{registry.phrase(registry.SCALINGS, values['scaling'])}: what the models see")
            takeaway.chart(fig, key="data_chart")
            takeaway.downloads(fig, "data")


#: Beside an empty canvas, where the data's summary goes (the pipeline's own message sends the
#: person to the Data view, which is where they are).
EMPTY_NOTE = "No points drawn yet: click on the canvas to add one."


def show_empty(values: dict) -> None:
    """Drawn data without a point yet: the canvas where the view puts it, :data:`EMPTY_NOTE` where
    the summary goes. The first point then changes the note into the summary and leaves the canvas
    as it is, the same element in the same place: laid out otherwise, the canvas moved under the
    person's next click, and Streamlit showed the new one beside the old for the rest of that run."""
    main, side = columns()
    with side:
        st.info(EMPTY_NOTE)
    with main:
        draw_canvas(values)


def data_summary(prep: Prepared) -> str:
    """The data's name, size and classes (train / test counts), as Markdown beside the figure."""
    names = ({c: plain(prep.class_names[float(c)]) for c in prep.classes} if prep.class_names
             else fg.class_names(prep.classes))
    count = (f"{len(prep.y):,} of {prep.n_total:,} points (a sample)" if prep.sampled
             else f"{len(prep.y)} point{'' if len(prep.y) == 1 else 's'}")
    lines = [message("**{name}**", name=prep.name), f"{count} · {prep.d} feature{'s' if prep.d > 1 else ''}",
             ""]
    for c in prep.classes:
        train, test = int(np.sum(prep.train & (prep.y == c))), int(np.sum(prep.test & (prep.y == c)))
        lines.append(f"- {names[c]}: {train} train" + (f", {test} test" if test else ""))
    if prep.unlabeled.any():
        lines.append(f"- unlabeled: {int(prep.unlabeled.sum())}")
    return "\n".join(lines)


def draw_canvas(values: dict) -> None:
    """The drawing canvas: the browser paints a click's point at once (kernelviz.components.draw),
    and the click reruns the page, so that the summary beside it, the link and the code follow."""
    c1, c2, c3 = st.columns([3, 1, 1])
    c1.segmented_control("Click adds a point of", tuple(DRAW_LABELS), key="draw_class", default="class +1",
                         required=True)
    points = drawn_points()
    c2.button("Undo", disabled=len(points) == 0 and not st.session_state.get(DRAW_CLEARED_KEY), width="stretch",
              on_click=undo_drawn, help="Take back the last point, or the last Clear.")
    c3.button("Clear", disabled=len(points) == 0, width="stretch", on_click=clear_drawn)
    lo = min(DRAW_RANGE[0], float(points[:, :2].min()) - 0.5) if len(points) else DRAW_RANGE[0]
    hi = max(DRAW_RANGE[1], float(points[:, :2].max()) + 0.5) if len(points) else DRAW_RANGE[1]
    st.markdown("**Click anywhere on the canvas to add a point**")
    draw.draw_canvas(points, value_range=(lo, hi), label=DRAW_LABELS[st.session_state.get("draw_class") or "class +1"],
                     applied=st.session_state.get(DRAW_APPLIED_KEY) or {}, on_change=points_clicked)
    st.caption(f"{len(points)} point{'' if len(points) == 1 else 's'} drawn. "
               + live.drawn_coordinates_note(points, st.session_state["scaling"]))


def drawn_points() -> np.ndarray:
    return np.asarray(st.session_state["points"], dtype=float).reshape(-1, 3)


def points_clicked(state) -> None:
    """The canvas's callback, before the page reruns: the clicks it sent that the points do not hold
    yet go after them, in the order they were made — after an Undo or a Clear that came first too."""
    found = draw.new_clicks(state, st.session_state.get(DRAW_APPLIED_KEY) or {})
    if found is None:
        return
    clicks, st.session_state[DRAW_APPLIED_KEY] = found
    if len(clicks):
        points_drawn(np.vstack([drawn_points(), clicks]))


def points_drawn(points: np.ndarray) -> None:
    st.session_state["points"] = points


def undo_drawn() -> None:
    """Undo (its callback): the last point goes; with none left since the last Clear, the points that
    Clear took come back. (The checks are for a second click on a button drawn enabled.)"""
    points, cleared = drawn_points(), st.session_state.get(DRAW_CLEARED_KEY)
    if len(points) or cleared:
        points_drawn(points[:-1] if len(points) else cleared.pop())


def clear_drawn() -> None:
    """Clear (its callback): the points go, kept for Undo."""
    points = drawn_points()
    if len(points):
        st.session_state.setdefault(DRAW_CLEARED_KEY, []).append(points)
        points_drawn(np.zeros((0, 3)))
