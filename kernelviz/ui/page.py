"""One run of the page: its session, the current settings, the link, reruns and restores.

Every other part of the app (the sidebar, the views, the pipeline's stages) reads the settings
and asks for reruns through here. The settings themselves live in ``st.session_state`` under
their names in ``kernelviz.state`` (a generator's parameters under ``gp:<generator>:<param>``,
the keys of their widgets); ``kernelviz.session.Session`` keeps them across runs that do not
draw their widgets.
"""

from __future__ import annotations

from contextlib import contextmanager

import numpy as np
import streamlit as st

import kernelviz as kv
from kernelviz import pipeline
from kernelviz import state as kvstate
from kernelviz.session import Session, describe_values, mark_fragment_rerun, write_settings
from kernelviz.ui import caches, live, pollers, session_end, teach

# Widgets drawn on every completed run (the view switcher and the sidebar's unconditional
# controls): the session never writes them back (see kernelviz.session).
ALWAYS_DRAWN = frozenset({"view", "source", "scaling", "label_how", "test_fraction", "partition", "n_components",
                          "partition_seed", "kernels", "models", "log_gamma", "log_C", "normalize"})
#: The fragment that draws a scrub view's body (Decision boundaries, Similarity): a committed γ
#: or C, a click on its figure or its own controls rerun the body alone, not the page.
VIEW_FRAGMENT = "view_body"
#: Set while the page's run (not a fragment's) draws the view.
PAGE_RUN = "_page_run"
#: Whether this page's sidebar drew the γ and C sliders (they give way to the scrub's, see
#: ``kernelviz.ui.sidebar.gamma_c_sliders``).
SIDEBAR_GAMMA_C = "_sidebar_gamma_c"


# ============================================================================ notes while work runs
@contextmanager
def busy(text: str):
    """A note on the page while slow work runs, written and cleared in the run's own order.

    Not ``st.spinner``: its note is a transient element sent by a timer thread half a second
    late, which can reach the browser after the fragment run it belongs to was interrupted or
    replaced (it was among the last messages before each front-end failure of
    ``benchmarks/bench_sessions.py``, though not their cause: see :func:`kernelviz.ui.live.watcher`).

    None while a point is dragged (``caches.previewing``): a note coming and going above the figure
    at every frame moved the figure, and the point with it, under the pointer.
    """
    if caches.previewing():
        yield
        return
    note = st.empty()
    note.caption(text)
    try:
        yield
    finally:
        note.empty()


# ============================================================================ settings

def generator_keys(generator: str) -> dict[str, str]:
    """A generator's parameters → the keys of their widgets."""
    return {p: f"gp:{generator}:{p}" for p in kv.data.GENERATORS.get(generator, {})}


def set_generator_params(generator: str, params: dict) -> list[str]:
    """Put a generator's parameters in their widgets' keys (defaults for the rest); return
    why any given value was left out (one a widget cannot show or the generator refuses)."""
    clean, problems = pipeline.check_generator_params(generator, params)
    defaults = kv.data.GENERATORS.get(generator, {})
    for param, key in generator_keys(generator).items():
        st.session_state[key] = clean.get(param, defaults[param])
    return problems


def is_setting(key: str) -> bool:
    """Settings and the generators' parameter widgets: what must survive runs that do not draw them."""
    return key in kvstate.BY_NAME or str(key).startswith("gp:")


def session() -> Session:
    # a control the teacher's link hides is not drawn, so its value must be carried over like any other
    hide = st.session_state.get("hide") or ()
    always_drawn = frozenset() if "sidebar" in hide or any(h.startswith("sidebar.") for h in hide) else ALWAYS_DRAWN
    # the sidebar's γ and C give way to a scrub view's own sliders (see sidebar.gamma_c_sliders); and
    # the browser forgets a slider the last page did not draw, so the run that draws them again sends
    # their values — else they came back at their minimum, which the next click sent back
    scrubbed = ({"log_gamma", "log_C"} if st.session_state.get("view") in live.VIEW_KINDS
                or not st.session_state.get(SIDEBAR_GAMMA_C, True) else set())
    return Session(st.session_state, is_setting=is_setting,
                   always_drawn=always_drawn - set(hide) - ({"view"} if "views" in hide else set()) - scrubbed,
                   computed=session_end.store(), forgotten_as=FORGOTTEN_AS,
                   never_chosen=pollers.NEVER_CHOSEN)


def widget_default(name: str):
    """What a setting's widget holds when nothing set it (``kernelviz.ui.widgets`` passes no value):
    the first option, the lower bound, nothing selected, off — what the browser sends for it once it
    has forgotten it (streamlit/streamlit#11266)."""
    setting = kvstate.BY_NAME[name]
    if setting.kind == "str":
        return setting.choices()[0]
    if setting.kind in ("int", "float"):
        return kvstate.bounds(name)[0]
    if setting.kind == "list":
        return []
    if setting.kind == "bool":
        return False
    raise ValueError(f"no widget default for the setting {name!r} of kind {setting.kind!r}")


#: The sidebar's always-drawn settings as a forgetting browser sends them; the view switch is left
#: out: it is the person's.
FORGOTTEN_AS = {name: widget_default(name) for name in sorted(ALWAYS_DRAWN - pollers.PERSONS_OWN)}


def start_session() -> None:
    """First run of a session: settings from the URL (defaults where absent or unreadable)."""
    if session().started:
        return
    query = st.query_params.to_dict()
    values, problems = kvstate.parse(query)
    teach.start(values, problems, query)
    values["points"] = values["points"] if values["points"] is not None else np.zeros((0, 3))
    session().start(values, problems)
    for problem in set_generator_params(values["generator"], values["gen_params"]):
        session().flash(problem)


def current_settings() -> dict:
    values = {name: st.session_state.get(name, s.default) for name, s in kvstate.BY_NAME.items()}
    generator = values["generator"]
    defaults = kv.data.GENERATORS.get(generator, {})
    gen_params = {}
    for param, key in generator_keys(generator).items():
        value = st.session_state.get(key, defaults[param])
        if value != defaults[param]:
            gen_params[param] = value
    values["gen_params"] = gen_params
    values["points"] = st.session_state.get("points")
    return values


def apply_values(values: dict) -> None:
    """Put settings in the session before their widgets are drawn (a button's callback)."""
    write_settings(st.session_state, {name: value for name, value in values.items()
                                      if name not in kvstate.DRAWN_SETTINGS})
    if "generator" in values:
        set_generator_params(values["generator"], values.get("gen_params", {}))


def data_settings(values: dict) -> tuple[str, ...]:
    """The data stage's settings as the session holds them: a generator's parameters in their
    widgets' keys, not as one ``gen_params`` setting."""
    return (tuple(n for n in pipeline.STAGES["data"] if n != "gen_params")
            + tuple(generator_keys(values["generator"]).values()))


# ============================================================================ the link

def page_query(values: dict) -> dict[str, str]:
    """The link's entries: the settings that differ from their defaults, and the open lesson step."""
    return {**teach.link_entries(), **kvstate.encode(values)}


def write_url(values: dict) -> None:
    query = page_query(values)
    if query != st.query_params.to_dict():
        st.query_params.from_dict(query)


# ============================================================================ reruns and restores

def rerun_page() -> None:
    """Rerun the whole page, also from a fragment's run (the scrub views' bodies are fragments):
    the widgets outside the fragment are written back, as the browser forgets their values then
    (streamlit/streamlit#11266)."""
    mark_fragment_rerun(st.session_state)
    st.rerun()


def queue_and_rerun(values: dict, message: str | None = None) -> None:
    """Set widget-backed settings on the next run (they cannot change after their widget is drawn)."""
    session().queue(values, message)
    rerun_page()


def fail_and_restore(stage: str, names: tuple[str, ...], error: Exception) -> None:
    """An impossible setting: say why, and set back the settings of ``names`` that changed since
    ``stage`` last worked — only those, never another stage's.

    Before anything has worked in this session (a damaged link opened cold), "the last
    settings that worked" are the defaults. Falls through (the caller shows the error in
    place) when there is nothing different to go back to, so a failure can never loop.
    """
    restore = session().to_restore(stage, names, kvstate.defaults())
    if restore:
        queue_and_rerun(restore, f"{error} — restored {describe_values(restore)}.")


def open_view(view: str) -> None:
    """A button's callback inside a view (the scrub views' bodies are fragments): the page reruns."""
    write_settings(st.session_state, {"view": view})
    rerun_page()


# ============================================================================ the scrub views' fragment

@st.fragment(key=VIEW_FRAGMENT)
def scrub_view_body(view: str, body) -> None:
    """A scrub view's body, ``body(view, settings)``, as a fragment: a committed γ / C, a click on
    its figure or its own controls rerun it alone, not the page."""
    pollers.keep_page_settings()
    body(view, current_settings())
    if st.session_state.get(PAGE_RUN):
        return  # the page's run does what follows after its sidebar (app.py's main)
    if st.session_state.get(live.SCRUB_SHOWN_KEY) == st.session_state.get(SIDEBAR_GAMMA_C, False):
        # in the body's own run, the scrub came or went (no kernel left, a lattice that failed …):
        # the sidebar's γ and C take its place or give it back
        rerun_page()
    # What the page's run does after the sidebar, for the body's own runs: the link follows the
    # values and the lattice starts (the page's watcher, outside this fragment, waits for it).
    write_url(current_settings())
    live.LiveLattices(session_end.store()).start_pending()
