"""kernelviz — the Streamlit app: page set-up, navigation between the views, and the error boundary.

Everything else lives in the package: one module per view in ``kernelviz.ui.views`` (each reads
widgets → specs → pipeline → figure → component), the sidebar in ``kernelviz.ui.sidebar``, the
caches keyed by ``kernelviz.pipeline``'s specs in ``kernelviz.ui.caches``, and one page run's
state — the session, the settings, the link, reruns and restores — in ``kernelviz.ui.page``.

Run it with ``streamlit run app.py`` (or ``kernelviz app``).
"""

from __future__ import annotations

import contextlib
import importlib
import traceback

import streamlit as st

from kernelviz.components import plot
from kernelviz.ui import ICON_PATH

# The plotly.js loader is the page's first element, before the page's settings and the app's
# heavier imports (numpy, Plotly, kernelviz): the browser fetches and runs plotly.js while the
# server imports and runs the view. It draws nothing; the page style hides its place (and the
# gap after it).
plot.load_plotly()
# The tab's icon is a file the app serves itself: a Material icon would come from Google's font
# CDN, and the text "◎" (not an emoji) gave no icon at all, after Streamlit had loaded its emoji
# catalogue and tried the text as an image file (0.1 s of the first run).
# A projector link starts with the sidebar folded away: the figure takes the screen's width (the
# link's own word, read as kernelviz.state reads a switch; the settings are parsed later). The
# session keeps its first choice: a changed value would fold or unfold the sidebar on a later run.
SIDEBAR_AT_START = "_sidebar_at_start"
if SIDEBAR_AT_START not in st.session_state:
    projector = str(st.query_params.get("projector", "")).strip().lower() in ("1", "true", "yes", "on")
    st.session_state[SIDEBAR_AT_START] = "collapsed" if projector else "expanded"
st.set_page_config(page_title="kernelviz — data-dependent SVM kernels", page_icon=str(ICON_PATH), layout="wide",
                   initial_sidebar_state=st.session_state[SIDEBAR_AT_START])
# Streamlit's default padding leaves a third of a laptop screen empty above the charts, and 5rem
# on either side of the column (10 % of a laptop's width) that the figure's panels need. The top
# keeps clear of Streamlit's header (3.75rem, opaque: it hid the top of a lesson's box).
PAGE_STYLE = f"""<style>
[data-testid="stMainBlockContainer"], .block-container {{padding: 3.9rem 2rem 2rem 2rem;}}
[data-testid="stSidebarHeader"] {{height: 1.5rem; min-height: 1.5rem;}}
.st-key-{plot.LOADER_KEY} {{display: none;}}
[data-testid="stElementContainer"]:has(> [data-testid="stMarkdown"] [data-testid="stMarkdownContainer"] > style:only-child)
  {{display: none;}}
</style>"""
# The last rule: a markdown element that only carries a style sheet (this one, the projector's, the
# lesson panel's) takes no room, not even the column's gap (1rem each, 60 px above a projector's lesson).
st.markdown(PAGE_STYLE, unsafe_allow_html=True)

from kernelviz import pipeline, registry  # noqa: E402
from kernelviz.outside import plain  # noqa: E402
from kernelviz.session import remember_outside  # noqa: E402
from kernelviz.ui import caches, edits, live, page, pollers, server, session_end, sidebar, stages, takeaway, teach  # noqa: E402
from kernelviz.ui.views import data, theory  # noqa: E402
from kernelviz.ui.widgets import choice  # noqa: E402
from kernelviz.pipeline import NoDataYet  # noqa: E402

#: Each view's module (its row in ``registry.VIEWS``): ``show(prep, values, partition)`` draws it
#: (``theory.show()`` needs no data).
VIEWS = {view: importlib.import_module(f"kernelviz.ui.views.{facts.module}") for view, facts in registry.VIEWS.items()}


def run_view(view: str, values: dict) -> None:
    """Draw the open view. The scrub views' and the editable views' bodies are a fragment
    (``page.scrub_view_body``): a committed γ / C, a click or a drag on their figure or their own
    controls rerun the body alone, not the page (the sidebar leaves γ and C to the body's scrub there)."""
    live.LiveLattices(session_end.store()).leave(live.VIEW_KINDS.get(view))
    if view in live.VIEW_KINDS or view in edits.EDITABLE_VIEWS:
        page.scrub_view_body(view, view_body)
    else:
        view_body(view, values)


def view_body(view: str, values: dict) -> None:
    """The open view: on the settings, or on the data with a dragged point where it is now."""
    st.session_state[live.SCRUB_SHOWN_KEY] = False
    st.session_state[live.WATCH_KEY] = None  # a scrub view's run says what the watcher waits for
    st.session_state.pop(live.COMMITTED_KEY, None)  # a commit, if any, has reached the view
    if edits.rerun_wanted() and not st.session_state.get(page.PAGE_RUN):
        page.rerun_page()  # an edit made the data drawn: the sidebar says so too
    # a point on its way under the pointer: every stage runs on the data with it there, uncached and coarser
    moving = edits.moving_settings(values) if view in edits.EDITABLE_VIEWS else None
    if moving is not None:  # the lattices being prepared are of data about to change: the CPU goes to the frames
        live.LiveLattices(session_end.store()).leave(None)
    with caches.transient() if moving is not None else contextlib.nullcontext():
        draw_view(view, moving or values)


def draw_view(view: str, values: dict) -> None:
    """The open view on the settings ``values``, inside the error boundary: a ValueError → its message
    (and the failing stage's settings set back, unless a point is on its way: the release decides);
    anything else → a short error with the details folded away. The page never shows a traceback."""
    try:
        if view == "theory":
            theory.show()
            return
        # the data and partition stages restore their own settings where they fail
        prep = stages.load_prepared(values)
        if prep.sampled:
            st.caption(stages.sample_note(prep))
        facts = registry.VIEWS[view]
        fitted = stages.current_partition(prep, values) if facts.needs_partition else None
        # the stage a failure of the view's own body is blamed on: the kernel views fail on the kernels,
        # γ, C and scale; the grid views on the grid's settings (a kernel that cannot be searched is
        # left out there, never the cause of the view's failure)
        stage = (facts.fails_on, pipeline.STAGES[facts.fails_on]) if facts.fails_on else None
        try:
            VIEWS[view].show(prep, values, fitted)
        except ValueError as err:
            if stage is not None and not caches.previewing():
                page.fail_and_restore(*stage, err)
            raise
        if caches.previewing():
            return  # a point on its way: the code follows its release
        if stage is not None and stage[0] == "model":
            page.session().remember_good(*stage)
        takeaway.code_box(values, prep)
    except NoDataYet as err:
        if view == "data" and values["source"] == "drawn":
            data.show_empty(values)
        else:
            st.info(plain(err))
    except ValueError as err:
        st.error(plain(err))
    except Exception as err:  # noqa: BLE001 - the page must never show a traceback
        st.error(f"Something went wrong in the {registry.label(registry.VIEWS, view)} view ({type(err).__name__}). "
                 "The settings are kept; try another value.")
        with st.expander("Details for a bug report"):
            st.code(traceback.format_exc(), language=None)


def main() -> None:
    pollers.forget()
    server.keep_slow_browsers()
    page.start_session()
    page.session().begin_run()
    teach.follow_history(page.apply_values)
    stages.handle_upload()
    shown = page.session().messages()
    for shown_message in shown:
        st.error(plain(shown_message))
    teach.page_style()
    teach.begin_run()
    teach.landing(page.apply_values)
    explanation = teach.lesson_panel(page.apply_values)
    if not teach.hidden("views"):
        choice("segmented_control", "View", "view", required=True, label_visibility="collapsed",
               options=teach.visible_views())
    values = page.current_settings()
    # The view runs before the sidebar is drawn: every setting is already in the session
    # state, and the chart reaches the browser a few hundred widgets earlier.
    st.session_state[page.PAGE_RUN] = True
    try:
        run_view(values["view"], values)
    finally:
        st.session_state[page.PAGE_RUN] = False
    teach.explain(explanation)
    page.session().shown(len(shown))
    sidebar.draw()
    remember_outside(st.session_state, page.session().always_drawn)
    page.write_url(page.current_settings())
    # Last, after every widget: a polling fragment's tick sends the browser's widget values
    # (kernelviz.ui.pollers).
    pollers.draw_held()
    if values["view"] in live.VIEW_KINDS:
        live.watcher()
    # after the page is drawn: the live preview's lattice computes without delaying it
    live.LiveLattices(session_end.store()).start_pending()


main()
