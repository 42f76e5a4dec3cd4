"""Teaching on the page: the landing screen, the lesson panel, teacher's mode and the share box.

Lessons are data (:mod:`kernelviz.lessons`); this module shows them. A lesson and its step live
in the link (``?lesson=NAME&step=K``) next to the settings the step applied, so a reload or a
shared link reopens the same step. A lesson remembers the link of the page it was opened from:
Leave goes back there, and so does the browser's Back (every page the app writes is an entry
of the browser's history, :func:`follow_history`). Teacher's mode is the ``hide`` setting (what
the page leaves out, :func:`kernelviz.state.hideable`) and the ``projector`` switch.

Everything that interprets a result comes from ``Step.explain`` on the numbers the view reports
through :func:`report` during the same run, so the sentence cannot contradict the page.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

import streamlit as st

from kernelviz import codegen, lessons, registry
from kernelviz import figures as fg
from kernelviz import state as kvstate
from kernelviz.outside import message, plain
from kernelviz.references import PAPERS
from kernelviz.ui.streamlit_private import history_navigation

#: Session keys (not settings: no widget, never in the settings table).
LESSON = "_lesson"        # (lesson name, step number) while a lesson is open, else absent
BEFORE = "_before_lesson"  # the link (without lesson entries) of the page the last lesson was opened from
LANDING = "_landing"      # True until the visitor opens a lesson or a view from the first screen
RESULTS = "_view_results"  # the numbers the open view reported in this run

WHAT_IT_IS_FOR = (
    "**kernelviz** shows what a *data-dependent* SVM kernel changes. An RBF kernel puts the same round bump on "
    "every point; CkRBF, Mahalanobis RBF, GMM and RWM shape each bump after the data (clusters, mixtures, the "
    "graph of the points), and the probability product kernels compare whole clusters. See the bumps, the "
    "decision boundaries they make, their Gram matrices and how easy each kernel is to tune — and where a "
    "data-dependent kernel helps and where it does not. Every view works on your own data too "
    "(sidebar → Data → upload a CSV or LIBSVM file).")

#: Applies settings to the session (the app's, which also fills the generator's widgets).
Apply = Callable[[Mapping[str, Any]], None]


# ============================================================================ start and link

def start(values: dict, problems: list, query: Mapping[str, Any]) -> None:
    """First run: a lesson link overlays its step's settings (the link's own settings still win);
    a link without any entry opens the landing screen."""
    if not query:
        st.session_state[LANDING] = True
        return
    try:
        current = _open_step(values, query)
    except ValueError as err:
        problems.append(f"Ignored the link's lesson: {err}")
        return
    if current:
        # before the lesson there was only the link's own settings: Leave goes back to them
        st.session_state[BEFORE] = _without_lesson(query)


def _open_step(values: dict, query: Mapping[str, Any]) -> tuple[str, int] | None:
    """Open the lesson step of a link (None when it names none), its step's settings overlaid on
    ``values`` where the link gives none of its own.

    Raises
    ------
    ValueError
        When the link's lesson or step does not exist.
    """
    found = lessons.from_link(query)
    if found is None:
        st.session_state.pop(LESSON, None)
        return None
    lesson, number = found
    given = {name for name in query if name in kvstate.BY_NAME}
    for name, value in lesson.step(number).applied().items():
        if name not in given:
            values[name] = value
    st.session_state[LESSON] = (lesson.name, number)
    return lesson.name, number


def _without_lesson(query: Mapping[str, Any]) -> dict:
    return {name: value for name, value in query.items() if name not in lessons.LINK_ENTRIES}


def navigated_by_history() -> bool:
    """Whether the browser's Back or Forward started this run: Streamlit then reruns the page with the
    link of the history entry it returned to, and says so only in the run's context."""
    return history_navigation()


def follow_history(apply: Apply) -> None:
    """After the browser's Back or Forward, the page becomes its link's — settings, view, lesson step.

    The app reads the link only when a session starts; every later run writes it. Without this, a
    run the history started would write the page it left back over the entry it returned to.
    """
    if not navigated_by_history():
        return
    query = st.query_params.to_dict()
    # an entry this session wrote, or the link it was opened with (whose problems were said then)
    values, _ = kvstate.parse(query)
    try:
        _open_step(values, query)
    except ValueError:
        st.session_state.pop(LESSON, None)
    apply(values)
    st.session_state[LANDING] = not query


def link_entries() -> dict[str, str]:
    """The lesson's entries of the link (none outside a lesson)."""
    current = st.session_state.get(LESSON)
    return lessons.link(*current) if current else {}


def applicable(values: Mapping[str, Any]) -> dict[str, Any]:
    """``values`` without the page chrome a teacher set (what is hidden, the projector, the display
    toggles): a lesson step or a preset changes what is computed, never how the page is arranged."""
    return {name: value for name, value in values.items()
            if name == "view" or name not in kvstate.DISPLAY_SETTINGS}


def go_to(name: str, number: int, apply: Apply) -> None:
    """Open step ``number`` of lesson ``name`` (a button's callback: the widgets are not drawn yet)."""
    if not st.session_state.get(LESSON):
        # the page this run started on, as its link has it (the app wrote it at the end of the last run)
        st.session_state[BEFORE] = _without_lesson(st.query_params.to_dict())
    apply(applicable(lessons.get(name).step(number).applied()))
    st.session_state[LESSON] = (name, number)
    st.session_state[LANDING] = False


def leave() -> None:
    st.session_state.pop(LESSON, None)


def leave_to_before(apply: Apply) -> None:
    """Close the lesson and go back to the settings and view of the page it was opened from (Leave's
    callback). The teacher's chrome stays as it is, as a lesson never changes it."""
    # a link the app wrote, or the one it was opened with (whose problems were said then); none only
    # for a lesson reached by Back in a session that never opened one: the defaults
    values, _ = kvstate.parse(st.session_state.get(BEFORE, {}))
    apply(applicable(values))
    leave()


# ============================================================================ teacher's mode

def hidden(token: str) -> bool:
    """Whether the teacher's link hides ``token`` (``"sidebar.data"`` is hidden by ``"sidebar"`` too)."""
    hide = st.session_state.get("hide") or ()
    return token in hide or (token.startswith("sidebar.") and "sidebar" in hide)


def visible_views() -> tuple[str, ...]:
    """The views the switcher offers: all but those the link hides (the open one always stays)."""
    current = st.session_state.get("view")
    return tuple(v for v in registry.VIEWS if v == current or not hidden(f"view.{v}"))


#: The sidebar is wider under the projector: at its default width its larger labels broke inside
#: words ("n sampl/es" beside "noise"). Only while it is open: folded away, Streamlit moves it out
#: by its default width, and a wider one left 100 px of it over the page.
PROJECTOR_STYLE = """<style>
html, [data-testid="stMarkdownContainer"] p, [data-testid="stMarkdownContainer"] li {font-size: 1.3rem;}
[data-testid="stSidebar"] * {font-size: 1.1rem;}
section[data-testid="stSidebar"][data-collapsed="false"] {width: 400px !important; min-width: 400px !important;}
[data-testid="stSidebar"] [data-testid="stWidgetLabel"] p {overflow-wrap: normal; word-break: normal;}
</style>"""
HIDDEN_SIDEBAR_STYLE = """<style>
[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"] {display: none;}
</style>"""


#: The lesson panel stays compact (its box above the figure): smaller gaps between its lines.
LESSON_STYLE = """<style>
.st-key-lesson_panel {gap: 0.35rem; padding-top: 0.5rem; padding-bottom: 0.5rem;}
.st-key-lesson_panel [data-testid="stAlertContainer"] {padding: 0.35rem 1rem;}
</style>"""


def page_style() -> None:
    """The projector's larger text, the compact lesson panel, and no sidebar at all when the link
    hides all of it."""
    if st.session_state.get(LESSON):
        st.markdown(LESSON_STYLE, unsafe_allow_html=True)
    if st.session_state.get("projector"):
        st.markdown(PROJECTOR_STYLE, unsafe_allow_html=True)
    if hidden("sidebar"):
        st.markdown(HIDDEN_SIDEBAR_STYLE, unsafe_allow_html=True)


# ============================================================================ landing

def landing(apply: Apply) -> None:
    """The first screen: what kernelviz is for and the lessons, above the view switcher (until the
    visitor closes it, starts a lesson or moves to another view)."""
    if st.session_state.get("view") != kvstate.BY_NAME["view"].default:
        st.session_state[LANDING] = False
    if not st.session_state.get(LANDING) or st.session_state.get(LESSON):
        return
    with st.container(border=True, key="landing"):
        c1, c2 = st.columns([6, 1])
        c1.markdown("### See when a data-dependent kernel beats RBF — and when it does not")
        c2.button("Close", key="landing_close", on_click=st.session_state.__setitem__, args=(LANDING, False))
        st.markdown(WHAT_IT_IS_FOR)
        st.markdown("#### Lessons — a few guided steps each")
        columns = st.columns(len(lessons.names()))
        for column, name in zip(columns, lessons.names()):
            lesson = lessons.get(name)
            with column:
                st.markdown(f"**{lesson.title}**")
                st.caption(lesson.summary)
                st.button("Start", key=f"start_{name}", on_click=go_to, args=(name, 1, apply), type="primary",
                          width="stretch")
        # the views are the switcher's, right under this card: a second row of them here was
        # cut to "Decision bou…" in eighths of the card
        st.caption("Or pick a view in the bar below: every view works on the data in the sidebar.")


# ============================================================================ lesson panel

def lesson_panel(apply: Apply):
    """The open lesson's step, compact so that the figure starts in the upper half of the screen:
    its title with Back / Next / Leave, the one-line instruction (what to look at) and the sentence
    computed from the view's numbers; the narrative and the source fold away under them. Returns
    the placeholder :func:`explain` fills once the view has reported its numbers (None outside a
    lesson)."""
    current = st.session_state.get(LESSON)
    if not current:
        return None
    name, number = current
    lesson = lessons.get(name)
    step = lesson.step(number)
    with st.container(border=True, key="lesson_panel"):
        # The buttons take the width of their words, right of the heading while there is room and
        # under it when not: in a fixed ninth of the panel each, at 1024 px they read "B… / N… / L…".
        with st.container(horizontal=True, vertical_alignment="center", key="lesson_head"):
            st.markdown(f"**{lesson.title}** · step {number} of {len(lesson.steps)}: **{step.title}**",
                        width="stretch")
            st.button("Back", key="lesson_back", disabled=number == 1, on_click=go_to,
                      args=(name, number - 1, apply), width="content")
            st.button("Next", key="lesson_next", disabled=number == len(lesson.steps), on_click=go_to,
                      args=(name, number + 1, apply), type="primary", width="content")
            st.button("Leave", key="lesson_leave", on_click=leave_to_before, args=(apply,), width="content",
                      help="Close the lesson and go back to the settings and view from before it.")
        with st.container(horizontal=True, vertical_alignment="center", key="lesson_look"):
            st.markdown(f":orange-background[**Look at: {step.look_at.label}**] — {step.look_at.sentence}",
                        width="stretch")
            # the step's narrative and its source, one click away: the panel keeps to three lines
            with st.popover("Why?", type="tertiary", help="The idea behind this step, and its source."):
                st.markdown(step.narrative)
                if lesson.citation():
                    st.caption(f"Source: {lesson.citation()}")
        placeholder = st.empty()
    return placeholder


def lesson_open() -> bool:
    """Whether a lesson is open (its panel explains the view's numbers, above the view)."""
    return bool(st.session_state.get(LESSON))


def highlighted(figure, panel_names):
    """``figure`` with a frame around the panel the open lesson step asks to look at, if it shows it."""
    current = st.session_state.get(LESSON)
    if not current:
        return figure
    step = lessons.get(current[0]).step(current[1])
    names = list(panel_names)
    if step.view != st.session_state.get("view") or step.look_at.target not in names:
        return figure
    return fg.highlight_panel(figure, names.index(step.look_at.target))


def begin_run() -> None:
    st.session_state[RESULTS] = None


def report(results: Mapping[str, Mapping[str, Any]]) -> None:
    """The open view's numbers (``lessons.boundary_results`` / ``gram_results`` / the P_f table)."""
    st.session_state[RESULTS] = results


def explain(placeholder) -> None:
    """The step's sentence from the numbers the view reported in this run, under the narrative."""
    current = st.session_state.get(LESSON)
    if placeholder is None or not current:
        return
    step = lessons.get(current[0]).step(current[1])
    results = st.session_state.get(RESULTS)
    if step.explain is None or st.session_state.get("view") != step.view:
        return
    if results is None:
        placeholder.caption("The explanation appears once the view shows its numbers.")
        return
    try:
        sentence = step.explain(results)
    except ValueError as err:
        placeholder.caption(plain(err))
        return
    placeholder.info(f"**On this page:** {sentence}")


# ============================================================================ citations

def citations_markdown() -> str:
    """Every source paper, cited (the Theory view's list)."""
    return "\n".join(message("- {citation} — *{contributes}*", citation=p.citation(), contributes=p.contributes)
                     for p in PAPERS.values())


# ============================================================================ share box

#: Session key of the "Share this" expander's open state.
SHARE_BOX_KEY = "share_box_open"


def share_box(query: Mapping[str, str], prep, where) -> None:
    """The link to this page; uploaded or drawn-beyond-the-link data travel as a file next to it."""
    base = str(getattr(st.context, "url", "") or "").split("?")[0]
    text = "&".join(f"{k}={v}" for k, v in query.items())
    where.caption("This link reopens this page (view, data, settings, lesson step and teacher's mode):")
    where.code(f"{base}?{text}" if text else (base or "(all defaults)"), language=None)
    source = st.session_state.get("source")
    points = st.session_state.get("points")
    travels = source != "upload" and not (source == "drawn" and points is not None
                                          and len(points) > kvstate.MAX_POINTS_IN_URL)
    if not travels and prep is not None and source in codegen.FILE_SOURCES:
        where.warning("Your data cannot travel in a link: send the data file with it. Whoever opens the link "
                      "uploads the file (sidebar → Data → upload).")
        file_name, text = codegen.data_download(prep)
        where.download_button("Download the data file (CSV)", text, file_name=file_name, mime="text/csv",
                              key="share_data", on_click="ignore")
