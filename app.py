"""kernelviz — the Streamlit app: page glue between the sidebar, the URL and the package.

Every computation lives in ``kernelviz`` (the views' numbers in ``kernelviz.views``, the
Theory view's text in ``kernelviz.theory``) and every figure in ``kernelviz.figures``; the
settings table and its URL round trip live in ``kernelviz.state``. This file wires them
together, caches the expensive steps on their inputs, and keeps errors on the page as
readable messages.

Run it with ``streamlit run app.py`` (or ``kernelviz app``).
"""

from __future__ import annotations

import hashlib
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
st.set_page_config(page_title="kernelviz — data-dependent SVM kernels", page_icon=str(ICON_PATH), layout="wide",
                   initial_sidebar_state="expanded")
# Streamlit's default top padding leaves a third of a laptop screen empty above the charts.
PAGE_STYLE = f"""<style>
[data-testid="stMainBlockContainer"], .block-container {{padding-top: 2.2rem; padding-bottom: 2rem;}}
[data-testid="stSidebarHeader"] {{height: 1.5rem; min-height: 1.5rem;}}
.st-key-{plot.LOADER_KEY} {{display: none;}}
</style>"""
st.markdown(PAGE_STYLE, unsafe_allow_html=True)

import numpy as np  # noqa: E402

# pandas (0.7 s to import) is imported by the views that make tables, not at the start: the
# first page, the Data view, has none.

import kernelviz as kv  # noqa: E402
from kernelviz import figures as fg  # noqa: E402
from kernelviz import lessons, pipeline, registry  # noqa: E402
from kernelviz.components import draw  # noqa: E402
from kernelviz.outside import file_name, message, plain, plotly_text  # noqa: E402
from kernelviz import state as kvstate  # noqa: E402
from kernelviz import views as kvviews  # noqa: E402
from kernelviz.session import Session, describe_values, mark_fragment_rerun, read_only  # noqa: E402
from kernelviz.ui import anatomy as ui_anatomy  # noqa: E402
from kernelviz.ui import grid_jobs, lesson_grids, live, pollers, session_end, takeaway, teach  # noqa: E402
from kernelviz.views import NoDataYet, Prepared  # noqa: E402

#: Resolution (cells along the longer side) of the grids behind the 2-D maps.
BOUNDARY_RESOLUTION = 70
SIMILARITY_RESOLUTION = 80
PARTITION_RESOLUTION = 90
DRAW_RANGE = (-3.0, 3.0)
DRAW_LABELS = {"class +1": 1.0, "class −1": -1.0, "unlabeled": 0.0}
#: Bumped when the app changes the drawn points itself (Undo, Clear): the canvas's own list
#: then gives way (kernelviz.components.draw).
DRAW_GENERATION_KEY = "_draw_generation"
#: The lists of points Clear took, the latest last (Undo brings them back).
DRAW_CLEARED_KEY = "_draw_cleared"


# ============================================================================ state and URL

def _widget_keys_of_generator(generator: str) -> dict[str, str]:
    return {p: f"gp:{generator}:{p}" for p in kv.data.GENERATORS.get(generator, {})}


def set_generator_params(generator: str, params: dict) -> list[str]:
    """Put a generator's parameters in their widgets' keys (defaults for the rest); return
    why any given value was left out (one a widget cannot show or the generator refuses)."""
    clean, problems = kvviews.check_generator_params(generator, params)
    defaults = kv.data.GENERATORS.get(generator, {})
    for param, key in _widget_keys_of_generator(generator).items():
        st.session_state[key] = clean.get(param, defaults[param])
    return problems


# Widgets drawn on every completed run (the view switcher and the sidebar's unconditional
# controls): the session never writes them back (see kernelviz.session).
ALWAYS_DRAWN = frozenset({"view", "source", "scaling", "label_how", "test_fraction", "partition", "n_components",
                          "partition_seed", "kernels", "models", "log_gamma", "log_C", "normalize"})


def is_setting(key: str) -> bool:
    """Settings and the generators' parameter widgets: what must survive runs that do not draw them."""
    return key in kvstate.BY_NAME or str(key).startswith("gp:")


def session() -> Session:
    # a control the teacher's link hides is not drawn, so its value must be carried over like any other
    hide = st.session_state.get("hide") or ()
    always_drawn = frozenset() if "sidebar" in hide or any(h.startswith("sidebar.") for h in hide) else ALWAYS_DRAWN
    # the sidebar's γ and C give way to a scrub view's own sliders (see gamma_c_sliders); and the
    # browser forgets a slider the last page did not draw, so the run that draws them again sends
    # their values — else they came back at their minimum, which the next click sent back
    scrubbed = ({"log_gamma", "log_C"} if st.session_state.get("view") in live.VIEW_KINDS
                or not st.session_state.get(SIDEBAR_GAMMA_C, True) else set())
    return Session(st.session_state, is_setting=is_setting,
                   always_drawn=always_drawn - set(hide) - ({"view"} if "views" in hide else set()) - scrubbed,
                   computed=session_end.store())


def start_session() -> None:
    """First run of a session: settings from the URL (defaults where absent or unreadable)."""
    if session().started:
        return
    query = st.query_params.to_dict()
    values, problems = kvstate.parse(query)
    teach.start(values, problems, query)
    values["points"] = values["points"] if values["points"] is not None else np.zeros((0, 3))
    live.drawn_defaults(values, st.query_params)
    session().start(values, problems)
    for problem in set_generator_params(values["generator"], values["gen_params"]):
        session().flash(problem)


def current_settings() -> dict:
    values = {name: st.session_state.get(name, s.default) for name, s in kvstate.BY_NAME.items()}
    generator = values["generator"]
    defaults = kv.data.GENERATORS.get(generator, {})
    gen_params = {}
    for param, key in _widget_keys_of_generator(generator).items():
        value = st.session_state.get(key, defaults[param])
        if value != defaults[param]:
            gen_params[param] = value
    values["gen_params"] = gen_params
    values["points"] = st.session_state.get("points")
    return values


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


def page_query(values: dict) -> dict[str, str]:
    """The link's entries: the settings that differ from their defaults, and the open lesson step."""
    return {**teach.link_entries(), **kvstate.encode(values)}


def write_url(values: dict) -> None:
    query = page_query(values)
    if query != st.query_params.to_dict():
        st.query_params.from_dict(query)


PARTITION_SETTINGS = pipeline.STAGES["partition"]
MODEL_SETTINGS = pipeline.STAGES["model"]
GRID_SETTINGS = pipeline.STAGES["grid"]


def data_settings(values: dict) -> tuple[str, ...]:
    """The data stage's settings as the session holds them: a generator's parameters in their
    widgets' keys, not as one ``gen_params`` setting."""
    return (tuple(n for n in pipeline.STAGES["data"] if n != "gen_params")
            + tuple(_widget_keys_of_generator(values["generator"]).values()))


# ============================================================================ data

@st.cache_resource(show_spinner=False, max_entries=8)
def uploaded(digest: str, upload_name: str, _raw: bytes) -> kv.data.Dataset:
    stem = upload_name.rsplit(".", 1)[0] or "upload"
    return read_only(kv.data.read(_raw, name=stem))


def handle_upload() -> None:
    """Read a newly uploaded file; a bad one leaves the previous data in place."""
    file = st.session_state.get("uploader")
    if file is None:
        return
    raw = file.getvalue()
    digest = hashlib.sha1(raw).hexdigest()
    # the name belongs to the upload as much as the bytes: the same bytes under a new name are a new upload
    if st.session_state.get("_upload_seen") == (digest, file.name):
        return
    st.session_state["_upload_seen"] = (digest, file.name)
    try:
        kvviews.check_upload(uploaded(digest, file.name, raw), file.name)
    except Exception as err:  # noqa: BLE001 - any failure to read a user's file is shown, never raised
        session().flash(f"Could not use {file.name!r}: {err} The previous data are kept.")
        return
    st.session_state["_upload"] = (digest, file.name, raw)


def handed_in(values: dict) -> tuple[kv.data.Dataset | None, str | None]:
    """The data the pipeline cannot make from the settings (an upload, a drawing) and the
    identity of their content: (None, None) for generated and bundled data."""
    source = values["source"]
    if source in pipeline.BUILT_SOURCES:
        return None, None
    if source == "upload":
        if "_upload" not in st.session_state:
            raise NoDataYet("No file uploaded yet: choose a CSV or LIBSVM file in the sidebar.")
        # named by the file's name too: the caches are shared by every session, and one
        # session uploading another's bytes under its own name must see its own name
        digest, upload_name, raw = st.session_state["_upload"]
        return uploaded(digest, upload_name, raw), f"{digest}:{upload_name}"
    points = np.asarray(values["points"], dtype=float)
    return kvviews.drawn_dataset(points), hashlib.sha1(points.tobytes()).hexdigest()


@st.cache_resource(show_spinner=False, max_entries=32)
def prepare(spec: pipeline.DataSpec, _raw: kv.data.Dataset | None) -> Prepared:
    return read_only(pipeline.prepare(spec, _raw))


def load_prepared(values: dict) -> Prepared:
    """The current data, prepared; on failure the last data that worked, with an error on top."""
    try:
        raw, identity = handed_in(values)
        prep = prepare(pipeline.DataSpec.from_settings(values, identity), raw)
    except NoDataYet as err:
        previous = session().last_good_data
        if previous is None or (values["source"] == "drawn" and values["view"] == "data"):
            raise
        st.info(message("{err} Meanwhile the views show the previous data ({name}).", err=err,
                        name=previous.name))
        return previous
    except ValueError as err:
        fail_and_restore("data", data_settings(values), err)
        previous = session().last_good_data
        if previous is None:
            raise
        st.error(message("{err} Showing the last data that worked ({name}).", err=err,
                         name=previous.name))
        return previous
    session().remember_good_data(prep)
    session().remember_good("data", data_settings(values))
    return prep


# ============================================================================ partition and kernels

def backend_key() -> int:
    """Changes whenever Streamlit re-imports ``kernelviz`` after a source edit, so objects
    cached from the old modules never meet the new classes (``isinstance`` would fail)."""
    return id(kv.partitions)


@st.cache_resource(show_spinner=False, max_entries=16)
def fit_partition(data_key: str, spec: pipeline.PartitionSpec, backend: int, _prep: Prepared):
    return read_only(pipeline.fit_partition(spec, _prep))


def current_partition(prep: Prepared, values: dict):
    try:
        with st.spinner("Fitting the partition …"):
            part = fit_partition(prep.key, pipeline.PartitionSpec.from_settings(values), backend_key(), prep)
    except ValueError as err:
        fail_and_restore("partition", PARTITION_SETTINGS, err)
        raise
    session().remember_good("partition", PARTITION_SETTINGS)
    return part


@st.cache_resource(show_spinner=False, max_entries=48)
def fitted_kernel(spec: pipeline.KernelSpec, data_key: str, backend: int, _prep: Prepared, _partition):
    """The kernel's unsupervised part fitted on every point (labels are never used)."""
    return read_only(pipeline.fit_kernel(spec, _prep, _partition))


def kernel_cache_key(name: str, values: dict) -> tuple:
    """What a kernel's fitted state and its panels depend on besides the data (so a γ change
    reuses it): its spec, and the backend's identity."""
    return pipeline.KernelSpec.from_settings(name, values), backend_key()


def get_kernel(name: str, prep: Prepared, values: dict, partition):
    spec, backend = kernel_cache_key(name, values)
    return fitted_kernel(spec, prep.key, backend, prep, partition)


@st.cache_resource(show_spinner=False, max_entries=24)
def gamma_families(name: str, data_key: str, kkey: tuple, grid_key: tuple, _kernel, _prep: Prepared, _grid_model):
    """γ-free parts of a boundary panel's Gram matrices, computed once per data/partition:
    a γ change then costs one ``exp`` per matrix."""
    return read_only(kvviews.gamma_families(_kernel, _prep, _grid_model))


@st.cache_resource(show_spinner=False, max_entries=96)
def boundary_panel(name: str, data_key: str, kkey: tuple, grid_key: tuple, log_gamma: float, log_C: float,
                   _kernel, _prep: Prepared, _grid: fg.Grid) -> fg.BoundaryPanel:
    def cached_families(grid_model: np.ndarray) -> dict:
        return gamma_families(name, data_key, kkey, grid_key, _kernel, _prep, grid_model)

    return read_only(kvviews.boundary_panel(name, _kernel, _prep, _grid, log_gamma, log_C, families_of=cached_families))


@st.cache_resource(show_spinner=False, max_entries=64)
def model_panel(name: str, data_key: str, grid_key: tuple, log_gamma: float, log_C: float, seed: int,
                log_eta: float, unit_kernel: str, _prep: Prepared, _grid: fg.Grid) -> fg.BoundaryPanel:
    """One of ``kv.models`` (mkRBF, SCM, MPM, …) with the sidebar's γ, C, η and unit kernel, on the same grid."""
    return read_only(kvviews.model_panel(name, _prep, _grid, log_gamma, log_C, seed, log_eta, unit_kernel))


@st.cache_resource(show_spinner=False, max_entries=64)
def similarity_panel(name: str, data_key: str, kkey: tuple, grid_key: tuple, log_gamma: float,
                     reference: tuple, _kernel, _prep: Prepared, _grid: fg.Grid) -> fg.SimilarityPanel:
    return read_only(kvviews.similarity_panel(name, _kernel, _prep, _grid, log_gamma, reference))


# ============================================================================ grid search

def grid_key(name: str, prep: Prepared, values: dict) -> tuple:
    return (prep.key, pipeline.GridSpec.from_settings(values)) + kernel_cache_key(name, values)


def start_grids(prep: Prepared, values: dict, names: list[str], partition) -> None:
    """Grid-search ``names`` in the background (kernelviz.ui.grid_jobs): the page stays usable.

    The grid's kernels use the very partition the other views show (fitted on every point).
    """
    grid = pipeline.GridSpec.from_settings(values)
    params = {name: kvviews.kernel_params(name, partition, values["normalize"]) for name in names}
    job = grid_jobs.GridJob(names, prep, np.array(grid.log_Cs), np.array(grid.log_gammas), grid.cv, grid.cv_seed,
                            params)
    grid_jobs.start(session_end.store(), {name: grid_key(name, prep, values) for name in names}, job)


def stored_grids(prep: Prepared, values: dict, names: list[str]) -> tuple[dict, dict]:
    """(name → finished search, name → why it failed) of the kernels searched with these settings."""
    stored = {n: session().stored_grid(grid_key(n, prep, values)) for n in names}
    found = {n: grid for n, grid in stored.items() if grid is not None}
    return ({n: g for n, g in found.items() if not isinstance(g, kvviews.GridFailure)},
            {n: g for n, g in found.items() if isinstance(g, kvviews.GridFailure)})


# ============================================================================ sidebar

def number_input(label: str, name: str, where=None, **kwargs):
    """A number input bounded like its setting (``kvstate.bounds``), so the link can always hold its value."""
    if teach.hidden(name):
        return st.session_state.get(name)
    lo, hi = kvstate.bounds(name)
    return (where or st).number_input(label, min_value=lo, max_value=hi, key=name,
                                      help=kvstate.BY_NAME[name].widget_help(), **kwargs)


def slider(label: str, name: str, where=None, **kwargs):
    """A slider (a range slider for a range setting) spanning its setting's bounds."""
    if teach.hidden(name):
        return st.session_state.get(name)
    lo, hi = kvstate.bounds(name)
    return (where or st).slider(label, lo, hi, key=name, help=kvstate.BY_NAME[name].widget_help(), **kwargs)


def choice(widget: str, label: str, name: str, where=None, **kwargs):
    """A radio, select box, multiselect or segmented control over a setting's choices,
    labeled and explained as ``kernelviz.registry`` says."""
    if teach.hidden(name):
        return st.session_state.get(name)
    setting = kvstate.BY_NAME[name]
    options = kwargs.pop("options", setting.choices())
    return getattr(where or st, widget)(label, options, key=name, format_func=setting.label,
                                        help=setting.widget_help(), **kwargs)


def toggle(label: str, name: str, where=None) -> bool:
    """An on/off switch for a ``bool`` setting."""
    if teach.hidden(name):
        return st.session_state.get(name)
    return (where or st).toggle(label, key=name, help=kvstate.BY_NAME[name].widget_help())


def sidebar(values: dict) -> None:
    if teach.hidden("sidebar"):
        return
    sb = st.sidebar
    sb.markdown("## ◎ kernelviz")
    sb.caption("See data-dependent SVM kernels at work.")
    if not teach.hidden("sidebar.data"):
        sidebar_data(sb)
    if not teach.hidden("sidebar.partition"):
        sidebar_partition(sb)
    if not teach.hidden("sidebar.kernels"):
        sidebar_kernels(sb)
    if not teach.hidden("sidebar.display"):
        with sb.expander("**Display**"):
            toggle("Projector (large text and markers)", "projector")
            toggle("Support-vector rings", "show_support")
            toggle("Margins", "show_margins")
            toggle("Test points", "show_test")
            st.button("Reset to defaults", key="reset_defaults", on_click=reset_to_defaults,
                      help="Every setting back to its default (what is hidden and the projector stay).")
    if not teach.hidden("sidebar.share"):
        # Drawn only while open: a code block loads the browser's syntax highlighter (0.27 s of a first page).
        box = sb.expander("Share this", key=teach.SHARE_BOX_KEY, on_change="rerun")
        if box.open:
            with box:
                teach.share_box(page_query(current_settings()), session().last_good_data, st)


def reset_to_defaults() -> None:
    apply_values(teach.applicable(kvstate.defaults()))
    teach.leave()


def sidebar_data(sb) -> None:
    with sb.expander("**Data**", expanded=True):
        choice("radio", "Source", "source", horizontal=True, on_change=live.source_changed,
               args=(st.session_state,))
        source = st.session_state["source"]
        if source == "generator":
            descriptions = "\n".join(f"- **{k}**: {v}" for k, v in kv.data.GENERATOR_DESCRIPTIONS.items())
            st.selectbox("Generator", tuple(kv.data.GENERATORS), key="generator",
                         help=f"{kvstate.BY_NAME['generator'].help}\n\n{descriptions}")
            generator = st.session_state["generator"]
            st.caption(kv.data.GENERATOR_DESCRIPTIONS.get(generator, ""))
            defaults = kv.data.GENERATORS[generator]
            cols = st.columns(2)
            for i, (param, key) in enumerate(_widget_keys_of_generator(generator).items()):
                if key not in st.session_state:
                    st.session_state[key] = defaults[param]
                cols[i % 2].number_input(param.replace("_", " "), key=key, **kvviews.generator_param_bounds(param))
            number_input("Seed", "data_seed", step=1)
        elif source == "sample":
            st.selectbox("Sample", kvstate.BY_NAME["sample"].choices(), key="sample",
                         help=kvstate.BY_NAME["sample"].help)
            desc = kv.data.SAMPLES.get(st.session_state["sample"], {}).get(
                "description", "Iris, setosa vs versicolor (4 features; scikit-learn's copy).")
            st.caption(desc)
        elif source == "upload":
            st.file_uploader("CSV or LIBSVM file (labels in the last column)", key="uploader",
                             type=None, accept_multiple_files=False)
        else:
            st.caption("Click on the canvas in the **Data** view to add points.")
        choice("selectbox", "Scaling", "scaling")
        choice("selectbox", "Labeled points", "label_how")
        how = st.session_state["label_how"]
        if how == "fraction":
            slider("Fraction labeled", "label_fraction", step=0.01)
        elif how in ("per_class", "dense_per_class"):
            number_input("k per class", "label_per_class", step=1)
        if how != "all":
            number_input("Seed of the labeled subset", "label_seed", step=1)
        slider("Held out for testing", "test_fraction", step=0.05)
        prep = session().last_good_data
        if prep is not None and prep.d > 2:
            choice("radio", "Fit on", "fit_on", horizontal=True)


def sidebar_partition(sb) -> None:
    with sb.expander("**Partition**", expanded=True):
        choice("radio", "Method", "partition", horizontal=True)
        c1, c2 = st.columns(2)
        number_input("Clusters" if st.session_state["partition"] != "vi" else "Max. components", "n_components",
                     step=1, where=c1)
        number_input("Seed", "partition_seed", step=1, where=c2)
        if st.session_state["partition"] == "vi":
            choice("selectbox", "Weight prior", "vi_prior_type")
            c1, c2, c3 = st.columns(3)
            number_input("α₀", "vi_alpha0", format="%.3g", where=c1)
            number_input("β₀", "vi_beta0", format="%.3g", where=c2)
            number_input("w₀", "vi_w0", format="%.3g", where=c3)


def sidebar_kernels(sb) -> None:
    with sb.expander("**Kernels and SVM**", expanded=True):
        choice("multiselect", "Kernels to compare", "kernels")
        choice("multiselect", "Other models (Decision boundaries)", "models")
        gamma_c_sliders()
        choice("radio", "CkRBF scale", "normalize", horizontal=True)
        models = st.session_state.get("models") or ()
        if "CKSVMNDA" in models:
            slider("log₁₀ η (CKSVMNDA)", "log_eta", step=0.5, format="%.1f")
        if any(m in kvviews.UNIT_KERNEL_MODELS for m in models):
            choice("radio", "Unit kernel (SCM, MCPM)", "unit_kernel", horizontal=True)


#: The fragment that draws a scrub view's body (Decision boundaries, Similarity): a committed γ
#: or C, a click on its figure or its own controls rerun the body alone, not the page.
VIEW_FRAGMENT = "view_body"
#: Set while the page's run (not a fragment's) draws the view.
PAGE_RUN = "_page_run"
#: Whether this page's sidebar drew the γ and C sliders (they give way to the scrub's, see
#: :func:`gamma_c_sliders`).
SIDEBAR_GAMMA_C = "_sidebar_gamma_c"


def gamma_c_sliders() -> None:
    """The sidebar's γ and C — but not beside a scrub view's own γ and C sliders: the sidebar is
    not rerun with the view's body, and two sliders of one value would disagree after a commit
    (and the older one would then send its value back)."""
    shown = not st.session_state.get(live.SCRUB_SHOWN_KEY, False)
    st.session_state[SIDEBAR_GAMMA_C] = shown
    if not shown:
        # no values here: a commit reruns the view's body, not the sidebar
        above = [name for name, setting in (("γ", "log_gamma"), ("C", "log_C")) if not teach.hidden(setting)]
        if above:
            st.caption(f"{' and '.join(above)}: the slider{'s' if len(above) > 1 else ''} above the panels.")
        return
    slider("log₁₀ γ", "log_gamma", step=0.1, format="%.1f")
    st.caption(f"γ = {10 ** st.session_state['log_gamma']:.3g}")
    slider("log₁₀ C", "log_C", step=0.1, format="%.1f")
    st.caption(f"C = {10 ** st.session_state['log_C']:.3g}")


# ============================================================================ views

def sample_note(prep: Prepared) -> str:
    """Says, in plain words, that the views work on a sample of a large data set."""
    return (f"Showing a stratified sample of {len(prep.y):,} of {prep.n_total:,} points (each class keeps its "
            "share): the views build n × n matrices, which would not fit in memory for all of them. The command "
            "line (`kernelviz grid`) and `kv.evaluation` use every point.")


def data_summary(prep: Prepared) -> str:
    names = ({c: plain(prep.class_names[float(c)]) for c in prep.classes} if prep.class_names
             else fg.class_names(prep.classes))
    count = f"{len(prep.y):,} of {prep.n_total:,} points (a sample)" if prep.sampled else f"{len(prep.y)} points"
    lines = [message("**{name}**", name=prep.name), f"{count} · {prep.d} feature{'s' if prep.d > 1 else ''}",
             ""]
    for c in prep.classes:
        train, test = int(np.sum(prep.train & (prep.y == c))), int(np.sum(prep.test & (prep.y == c)))
        lines.append(f"- {names[c]}: {train} train" + (f", {test} test" if test else ""))
    if prep.unlabeled.any():
        lines.append(f"- unlabeled: {int(prep.unlabeled.sum())}")
    return "\n".join(lines)


def view_data(prep: Prepared, values: dict) -> None:
    main, side = st.columns([3, 1], gap="large")
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
                     generation=st.session_state.setdefault(DRAW_GENERATION_KEY, 0), on_change=points_drawn)
    st.caption(f"{len(points)} point{'' if len(points) == 1 else 's'} drawn. "
               + live.drawn_coordinates_note(points, st.session_state["scaling"]))


def drawn_points() -> np.ndarray:
    return np.asarray(st.session_state["points"], dtype=float).reshape(-1, 3)


def points_drawn(points: np.ndarray) -> None:
    """The canvas's list after a click (its callback, before the page reruns)."""
    st.session_state["points"] = points


def undo_drawn() -> None:
    """Undo (its callback): the last point goes; with none left since the last Clear, the points that
    Clear took come back. (The checks are for a second click on a button drawn enabled.)"""
    points, cleared = drawn_points(), st.session_state.get(DRAW_CLEARED_KEY)
    if len(points) or cleared:
        drawn_points_changed(points[:-1] if len(points) else cleared.pop())


def clear_drawn() -> None:
    """Clear (its callback): the points go, kept for Undo."""
    points = drawn_points()
    if len(points):
        st.session_state.setdefault(DRAW_CLEARED_KEY, []).append(points)
        drawn_points_changed(np.zeros((0, 3)))


def drawn_points_changed(points: np.ndarray) -> None:
    """Undo / Clear: the app changes the points itself, so the canvas's own list gives way."""
    st.session_state[DRAW_GENERATION_KEY] = st.session_state.get(DRAW_GENERATION_KEY, 0) + 1
    points_drawn(points)


def selected_points(event) -> list[dict]:
    """The points of a chart selection event; Streamlit gives an attribute dict, tests a plain dict."""
    if not event:
        return []
    selection = event["selection"] if "selection" in event else {}
    return list(selection.get("points", []) or [])


def view_partition(prep: Prepared, values: dict) -> None:
    import pandas as pd

    part = current_partition(prep, values)
    grid = fg.grid_over(prep.X_view, PARTITION_RESOLUTION)
    means, covs = prep.view_gaussians(part.means_, part.covariances_)
    R_grid = part.predict_proba(prep.to_model(grid.points))
    R_points = part.predict_proba(prep.X_model)
    method = registry.label(registry.PARTITIONS, part.method)
    fig = fg.partition_figure(prep.X_view, prep.y, prep.labeled, means, covs, grid, R_grid, R_points,
                              classes=prep.legend_classes,
                              title=f"{method}: {part.n_components_} component{'s' if part.n_components_ > 1 else ''} "
                                    "— ellipses at 1, 2 and 3 Mahalanobis units")
    takeaway.chart(fig, key="partition_chart")
    table = pd.DataFrame({
        "component": np.arange(part.n_components_),
        "weight": np.round(part.weights_, 3),
        "points": np.bincount(part.predict(prep.X_model), minlength=part.n_components_),
        "ε (regularisation)": [f"{e:.1e}" if e else "—" for e in part.epsilons_],
    })
    c1, c2 = st.columns([2, 3])
    c1.dataframe(table, hide_index=True, width="stretch")
    with c2:
        st.caption("Shaded regions: the component with the largest responsibility. Hover over a point or a "
                   "region for the responsibilities ρ(x, k). Labels are not used: the partition is fitted on "
                   "every point. k-means gives hard (0/1) responsibilities.")
        for note in part.notes_:
            st.info(note)
    takeaway.downloads(fig, "partition")


def centre_reference(prep: Prepared) -> dict:
    """The reference on the data point nearest the centre, within the coordinate inputs' bounds."""
    lo, hi = kvstate.bounds("ref_x")
    rx, ry = (float(np.clip(round(v, 4), lo, hi)) for v in kvviews.default_reference(prep))
    return {"ref_x": rx, "ref_y": ry}


def show_panels(names: list, compute, label=fg.kernel_label) -> list:
    """Each name's panel; a name that fails gets a warning in its place, the others still show.

    When every one fails there is nothing to show: a ValueError then takes the view's
    error path (message, and the last model settings that worked).
    """
    panels, reasons = kvviews.each_or_reason(names, compute)
    if names and not panels:
        raise ValueError(" ".join(f"{label(n)}: {r}" for n, r in reasons.items()))
    for name, reason in reasons.items():
        st.warning(message("**{label}** is left out: {reason}", label=label(name), reason=reason))
    return list(panels.values())


def live_preview(kind: str, prep: Prepared, values: dict, partition, panels, grid: fg.Grid,
                 reference=None) -> live.Preview | None:
    """What makes the view's figure its own live preview: the lattice of the kernels that drew a
    panel, on the figure's own grid (kernelviz.ui.live)."""
    names = [p.name for p in panels if p.name in values["kernels"]]
    kernels = {name: get_kernel(name, prep, values, partition) for name in names}
    context = (prep.key, tuple((name, kernel_cache_key(name, values)) for name in names),
               evaluation_grid_key(grid), reference)
    return live.live_preview(kind, prep=prep, kernels=kernels, grid=grid, context=context,
                             log_gamma=values["log_gamma"], log_C=values["log_C"] if kind == "decision" else None,
                             reference=reference, axes={p.name: fg.panel_axes(i) for i, p in enumerate(panels)},
                             locked=st.session_state.get("hide") or ())


def commit_live(value: dict) -> None:
    """A release of a slider above a figure: the value becomes the setting, and the view's body reruns
    (the whole page while a lesson is open: its sentence, above the view, comes from the view's numbers)."""
    live.commit(value)
    if teach.lesson_open():
        rerun_page()


def explain_regularised(panels) -> None:
    """Under panels whose kernel had to regularise a flat cluster: what that does to the map."""
    if any(panel.regularised for panel in panels):
        st.info(kvviews.REGULARISATION_EXPLANATION)


def view_similarity(prep: Prepared, values: dict, partition) -> None:
    if st.session_state.get("ref_x") is None or st.session_state.get("ref_y") is None:
        # Their inputs are not drawn yet in this run, so they can be set directly.
        st.session_state.update(centre_reference(prep))
    c1, c2, c3, c4 = st.columns([2, 1, 1, 1])
    choice("radio", "Show", "sim_mode", where=c1, horizontal=True)
    number_input("reference x", "ref_x", where=c2, step=0.1, format="%.3f")
    number_input("reference y", "ref_y", where=c3, step=0.1, format="%.3f")
    if c4.button("Centre point", help="Put the reference on the data point nearest the centre."):
        queue_and_rerun(centre_reference(prep))
    names = values["kernels"]
    if not names:
        st.info("Choose at least one kernel in the sidebar.")
        return
    reference = (float(st.session_state["ref_x"]), float(st.session_state["ref_y"]))
    grid = fg.grid_over(prep.X_view, SIMILARITY_RESOLUTION, extra=np.array([reference]))
    gkey = evaluation_grid_key(grid)

    def panel(name):
        kernel = get_kernel(name, prep, values, partition)
        return similarity_panel(name, prep.key, kernel_cache_key(name, values), gkey, values["log_gamma"],
                                reference, kernel, prep, grid)

    with st.spinner("Evaluating the kernels around the reference point …"):
        panels = show_panels(names, panel)
    preview = live_preview("similarity", prep, values, partition, panels, grid, reference=reference)
    fig = fg.similarity_figure(panels, grid, reference, prep.X_view, prep.y, prep.labeled, mode=values["sim_mode"],
                               classes=prep.legend_classes)
    fig = teach.highlighted(fig, [p.name for p in panels])
    event = takeaway.chart(fig, key="similarity_chart", selectable=True, points_on_canvas=True,
                           live=preview and preview.payload, on_commit=commit_live)
    if preview:
        preview.status()
    explain_regularised(panels)
    clicked = selected_points(event)
    if clicked:
        lo, hi = kvstate.bounds("ref_x")
        x, y = (float(np.clip(round(float(clicked[0][axis]), 4), lo, hi)) for axis in ("x", "y"))
        if (x, y) != (round(reference[0], 4), round(reference[1], 4)):
            queue_and_rerun({"ref_x": x, "ref_y": y})
    st.caption(
        "Click a point of the data to move the reference (×). Dissimilarity is the distance inside each kernel's "
        "exponent, √(−ln(k(r,y)/√(k(r,r)k(y,y)))/γ): Euclidean for RBF, Mahalanobis for Mahalanobis RBF, "
        "Δ for GMM and RWM; CkRBF's includes its normaliser. Kernels measure in different units, so each panel "
        "spaces its curves for its own range (labels give the values); grey ellipses are the Gaussians "
        "(1 Mahalanobis unit) the kernel uses.")
    takeaway.downloads(fig, "similarity")


def reference_from_click(event) -> None:
    """A click on a point of the boundaries sets the Similarity view's reference point there;
    a button then opens Similarity around it."""
    clicked = selected_points(event)
    if clicked:
        x, y = (live.within("ref_x", float(clicked[0][axis])) for axis in ("x", "y"))
        if (x, y) != (st.session_state.get("ref_x"), st.session_state.get("ref_y")):
            queue_and_rerun({"ref_x": x, "ref_y": y})
        st.button(f"Similarity around ({x:.3g}, {y:.3g})", key="open_similarity", on_click=open_view,
                  args=("similarity",), help="Open the Similarity view with this point as its reference.")


def open_view(view: str) -> None:
    """A button's callback inside a view (the scrub views' bodies are fragments): the page reruns."""
    st.session_state["view"] = view
    rerun_page()


def evaluation_grid_key(grid: fg.Grid) -> tuple:
    """What identifies an evaluation grid for the caches: its extent and resolution."""
    return (grid.xs[0], grid.xs[-1], grid.ys[0], grid.ys[-1], len(grid.xs), len(grid.ys))


def boundary_grid(prep: Prepared) -> tuple[fg.Grid, tuple]:
    grid = fg.grid_over(prep.X_view, BOUNDARY_RESOLUTION)
    return grid, evaluation_grid_key(grid)


def require_two_classes(prep: Prepared) -> bool:
    train_classes = np.unique(prep.y[prep.train])
    if len(train_classes) < 2:
        st.info("An SVM needs labeled training points of at least two classes: label more points "
                "(sidebar, *Labeled points*) or draw points of both classes.")
        return False
    return True


def view_boundaries(prep: Prepared, values: dict, partition) -> None:
    import pandas as pd

    names = values["kernels"]
    if not names and not values["models"]:
        st.info("Choose at least one kernel or model in the sidebar.")
        return
    if not require_two_classes(prep):
        return
    grid, gkey = boundary_grid(prep)

    def kernel_panel(name):
        kernel = get_kernel(name, prep, values, partition)
        return boundary_panel(name, prep.key, kernel_cache_key(name, values), gkey, values["log_gamma"],
                              values["log_C"], kernel, prep, grid)

    def other_panel(name):
        return model_panel(name, prep.key, gkey, values["log_gamma"], values["log_C"], values["partition_seed"],
                           values["log_eta"], values["unit_kernel"], prep, grid)

    with st.spinner("Fitting the SVMs …"):
        # one list, so that the view fails as a whole only when no kernel and no model works
        tagged = [("kernel", n) for n in names] + [("model", n) for n in values["models"]]
        panels = show_panels(tagged, lambda t: (kernel_panel if t[0] == "kernel" else other_panel)(t[1]),
                             label=lambda t: fg.kernel_label(t[1]))
    preview = live_preview("decision", prep, values, partition, panels, grid)
    truth = np.where(prep.y_true == kv.data.UNLABELED, np.nan, prep.y_true)[prep.unlabeled]
    fig = fg.boundary_figure(panels, grid, X_unlabeled=prep.X_view[prep.unlabeled], y_unlabeled=truth,
                             title=f"Decision boundaries at γ = {10 ** values['log_gamma']:.3g}, "
                                   f"C = {10 ** values['log_C']:.3g}",
                             support_vectors=values["show_support"], margins=values["show_margins"],
                             test_points=values["show_test"], class_names=prep.class_names)
    fig = teach.highlighted(fig, [p.name for p in panels])
    event = takeaway.chart(fig, key="boundary_chart", selectable=True, points_on_canvas=True,
                           live=preview and preview.payload, on_commit=commit_live)
    if preview:
        preview.status()
    reference_from_click(event)
    teach.report(lessons.boundary_results(panels))
    explain_regularised(panels)
    columns = {
        "kernel": [fg.kernel_label(p.name) + (f" ({p.scheme})" if p.scheme else "") for p in panels],
        "train accuracy": [p.train_accuracy for p in panels],
        "test accuracy": [p.test_accuracy for p in panels],
        "accuracy on hidden labels": [p.hidden_accuracy for p in panels],
        "support vectors": [len(p.support) if p.support is not None else None for p in panels],
        "fit (ms)": [round(1000 * p.fit_seconds, 1) for p in panels],
    }
    # A column with no value at all (no held-out or no hidden points) would only show "None".
    columns = {name: cells for name, cells in columns.items() if any(c is not None for c in cells)}
    if "support vectors" in columns:  # SCM, MPM, KFD … have none to count: "—", not "None"
        columns["support vectors"] = [str(c) if c is not None else "—" for c in columns["support vectors"]]
    st.dataframe(pd.DataFrame(columns), hide_index=True, width="stretch",
        column_config={name: st.column_config.NumberColumn(format="percent")
                       for name in ("train accuracy", "test accuracy", "accuracy on hidden labels")})
    st.caption("Solid line: the decision boundary f = 0; dashed: the margins f = ±1. Support vectors are ringed, or "
               "boxed when α is at its bound C, larger for larger |α|; hollow markers are held-out test points. Small points are unlabeled: only "
               "the kernels' unsupervised parts see them; they are tinted faintly by their hidden class when "
               "the data have one, and *accuracy on hidden labels* is the accuracy on them — the semi-supervised score. "
               "Fit time: Gram matrix plus libsvm.")
    takeaway.downloads(fig, "boundaries")
    drawn = [n for n in names if n in {p.name for p in panels}]
    ui_anatomy.section(prep, values, {n: get_kernel(n, prep, values, partition) for n in drawn},
                       {n: kernel_cache_key(n, values) for n in drawn}, grid, number_input)


def view_kernel_matrix(prep: Prepared, values: dict, partition) -> None:
    import pandas as pd

    names = values["kernels"]
    if not names:
        st.info("Choose at least one kernel in the sidebar.")
        return
    X, breaks = kvviews.gram_points(prep, partition)
    gamma = 10.0 ** values["log_gamma"]

    def summary(name):
        K = kvviews.at_gamma(get_kernel(name, prep, values, partition), gamma)(X)
        return kvviews.gram_summary(name, K, breaks)

    with st.spinner("Computing Gram matrices and their spectra …"):
        summaries = show_panels(names, summary)
    teach.report(lessons.gram_results(summaries))
    n = len(prep.y)
    subsample = (f" (every {n / kvviews.GRAM_MAX_POINTS:.1f}-th of {n} points)"
                 if n > kvviews.GRAM_MAX_POINTS else "")
    fig = fg.gram_figure([s.panel for s in summaries],
                         title=f"Gram matrices at γ = {gamma:.3g}, rows ordered by cluster then class{subsample}")
    takeaway.chart(fig, key="gram_chart")
    st.caption("White lines separate the clusters of the partition. A kernel that knows the clusters shows "
               "brighter blocks on the diagonal.")
    spectra = {s.panel.name: s.eigenvalues for s in summaries}
    spectrum = fg.spectrum_figure(spectra)
    takeaway.chart(spectrum, key="spectrum_chart")
    takeaway.downloads(spectrum, "spectrum")
    st.dataframe(pd.DataFrame([s.row for s in summaries]), hide_index=True, width="stretch")
    st.caption("CkRBF and RBF are PSD by construction (Gaussian inner products); RWM and LAP need not be — "
               "libsvm tolerates mild indefiniteness. The diagonal range shows each kernel's scale.")
    takeaway.downloads(fig, "kernel_matrix")


def grid_controls() -> None:
    c1, c2, c3, c4, c5 = st.columns([3, 3, 1.4, 1, 1])
    slider("log₁₀ C range", "grid_log_C", where=c1)
    slider("log₁₀ γ range", "grid_log_gamma", where=c2)
    number_input("steps per axis", "grid_steps", step=1, where=c3)
    number_input("CV folds", "cv", step=1, where=c4)
    number_input("fold seed", "cv_seed", step=1, where=c5)


def check_grid_settings(prep: Prepared, values: dict) -> bool:
    """Refuse folds the labeled points cannot fill: say why, and go back to the grid settings that worked."""
    try:
        kvviews.check_folds(prep, values["cv"])
    except ValueError as err:
        # the folds are what the labeled points cannot fill: the other grid settings stay
        fail_and_restore("grid", ("cv",), err)
        st.error(plain(err))
        return False
    session().remember_good("grid", GRID_SETTINGS)
    return True


@st.cache_resource(show_spinner=False, max_entries=16)
def shipped_grid(name: str, key: tuple, _values: dict, _prep: Prepared, _partition):
    """A lesson's shipped search, rebuilt once per server (its Keerthi–Lin path costs seconds)."""
    shipped = lesson_grids.load(name, _values, _prep, _partition)
    return None if shipped is None else read_only(shipped)


def take_shipped_grids(prep: Prepared, values: dict, names: list[str], partition) -> None:
    """The lessons' searches shipped with the package (``kernelviz.ui.lesson_grids``), where the
    settings are exactly a lesson step's: into the session's store, as if just searched."""
    for name in names:
        key = grid_key(name, prep, values)
        if session().stored_grid(key) is None and lesson_grids.store_key(name, values) in lesson_grids.stored_keys():
            shipped = shipped_grid(name, key, values, prep, partition)
            if shipped is not None:
                session().store_grid(key, shipped)


def ensure_grids(prep: Prepared, values: dict, names: list[str], button_key: str, partition,
                 draw_partial=None, run_label: str = "Run grid search") -> dict:
    """The finished searches of ``names`` (a lesson's shipped ones included); the others run in the
    background (their cells so far go to ``draw_partial(grids, complete=False)``) or wait for the button."""
    if not check_grid_settings(prep, values):
        return {}
    take_shipped_grids(prep, values, names, partition)
    grid_jobs.hand_over(session_end.store(), session().store_grid)
    grids, failures = stored_grids(prep, values, names)
    for name, reason in failures.items():
        st.warning(message("**{label}** could not be grid-searched: {reason}", label=fg.kernel_label(name),
                           reason=reason))
    missing = [n for n in names if n not in grids and n not in failures]
    if missing:
        session_job = grid_jobs.current(session_end.store())
        ours = session_job is not None and session_job.covers({n: grid_key(n, prep, values) for n in missing})
        if ours and session_job.running:
            grid_jobs.show_running(session_end.store(), draw_partial or (lambda found, complete: None))
            return {}
        grid = pipeline.GridSpec.from_settings(values)
        fits = len(missing) * len(grid.log_Cs) * len(grid.log_gammas) * grid.cv
        stopped = ours and session_job.job.cancelled
        st.info(f"{', '.join(fg.kernel_label(n) for n in missing)}: "
                + ("the search was cancelled; " if stopped else "not searched yet with these settings ")
                + f"({fits} SVM fits). It runs in the background: the other views stay usable.")
        st.button(run_label, key=button_key, type="primary", on_click=start_grids,
                  args=(prep, values, missing, partition))
        # after a Cancel, one figure of everything that finished, marked incomplete, whether the
        # stop fell inside a kernel's columns or between two kernels
        kept = {**grids, **session_job.job.partial()} if stopped and draw_partial is not None else {}
        if kept:
            draw_partial(kept, complete=False)
            return {}
    return grids


def open_clicked_cell(fig, event, values: dict) -> None:
    """A click on a heatmap cell opens Decision boundaries there, that kernel's panel first."""
    points = selected_points(event)
    signature = repr([(p.get("x"), p.get("y"), p.get("curve_number")) for p in points])
    cell = live.clicked_cell(fig, points)
    if cell is None or signature == st.session_state.get("_grid_click"):
        return
    st.session_state["_grid_click"] = signature  # a selection outlives its run: act on each click once
    name, log_gamma, log_C = cell
    kernels = [name] + [n for n in values["kernels"] if n != name]
    queue_and_rerun({"view": "boundaries", "kernels": kernels, "log_gamma": live.within("log_gamma", log_gamma),
                     "log_C": live.within("log_C", log_C)})


def grid_figure(grids: dict, values: dict, complete: bool = True):
    grid = pipeline.GridSpec.from_settings(values)
    log_Cs, log_gammas = np.array(grid.log_Cs), np.array(grid.log_gammas)
    panels = kvviews.grid_panels(grids, log_Cs, log_gammas)
    title = f"Mean {values['cv']}-fold CV accuracy over (log γ, log C)"
    if not complete:
        title += " — incomplete: blank columns are not searched yet"
    return fg.grid_search_figure(panels, log_Cs, log_gammas, title=title)


def view_grid(prep: Prepared, values: dict, partition) -> None:
    import pandas as pd

    grid_controls()
    names = values["kernels"]
    if not names:
        st.info("Choose at least one kernel in the sidebar.")
        return
    if not require_two_classes(prep):
        return

    def draw_partial(found: dict, complete: bool) -> None:
        takeaway.chart(grid_figure(found, values, complete), key="grid_partial_chart")

    grids = ensure_grids(prep, values, names, "run_grid", partition, draw_partial)
    if not grids:
        return
    teach.report(kvviews.pf_curves({name: result.scores for name, (result, _) in grids.items()})[0])
    fig = grid_figure(grids, values)
    event = takeaway.chart(fig, key="grid_chart", selectable=True)
    open_clicked_cell(fig, event, values)
    st.caption("★ best cell. Grey rings: the Keerthi–Lin path (the line through the best linear-SVM C̃ with "
               "slope −1); red ring: the best cell on it — one line search instead of the whole grid. "
               "Click a cell to open Decision boundaries for that kernel at its (C, γ).")
    frames = pd.concat([result.to_frame() for result, _ in grids.values()], ignore_index=True)
    st.download_button("Download scores (CSV)", frames.to_csv(index=False), file_name="grid_scores.csv",
                       mime="text/csv")
    takeaway.downloads(fig, "grid_search")


def view_pf(prep: Prepared, values: dict, partition) -> None:
    import pandas as pd

    names = values["kernels"]
    if not names:
        st.info("Choose at least one kernel in the sidebar.")
        return
    if not require_two_classes(prep):
        return
    scaled = [n for n in names if n in kvviews.SCALED_KERNELS]
    other = "unit" if values["normalize"] == "paper" else "paper"
    if scaled:
        st.markdown(f"CkRBF scale (sidebar): **{'as in the paper' if values['normalize'] == 'paper' else 'unit'}**. "
                    f"The other scale can join the plot as its own curve; the sidebar's setting stays as it is.")
    grids = ensure_grids(prep, values, names, "run_pf", partition)
    if not grids:
        return
    other_values = {**values, "normalize": other}
    other_grids = (ensure_grids(prep, other_values, scaled, "run_pf_other", partition,
                                run_label=f"Search CkRBF at the {other} scale too")
                   if scaled else {})
    scores = {name: result.scores for name, (result, _) in grids.items()}
    scores.update({other_scale_label(name, other): result.scores for name, (result, _) in other_grids.items()})
    table, alpha0, alphas, curves = kvviews.pf_curves(scores)
    teach.report(table)
    lines = {**{name: fg.scale_line(name, values["normalize"]) for name in scaled},
             **{other_scale_label(name, other): fg.scale_line(name, other) for name in other_grids}}
    fig = fg.pf_figure(curves, alpha0, {n: t["auc"] for n, t in table.items()}, lines=lines)
    takeaway.chart(fig, key="pf_chart")
    st.dataframe(pd.DataFrame([{"kernel": fg.kernel_label(n), "AUC": t["auc"], "AUC / (1 − α₀)": t["normalized_auc"],
                                "best accuracy": t["best"]} for n, t in table.items()]),
                 hide_index=True, width="stretch",
                 column_config={"AUC": st.column_config.NumberColumn(format="%.3f"),
                                "AUC / (1 − α₀)": st.column_config.NumberColumn(format="%.3f"),
                                "best accuracy": st.column_config.NumberColumn(format="percent")})
    st.caption(f"α₀ = {alpha0:.3f}, the worst score of all grids compared: below it every curve is 1. "
               "A curve further right means more of the grid reaches that accuracy — the kernel is easier to tune.")
    if any(n in kvviews.SCALED_KERNELS for n in grids):
        st.markdown(scale_sentence(prep, values, grids, other_grids, {n: t["auc"] for n, t in table.items()}))
    curve_csv = pd.DataFrame({"alpha": alphas, **{n: c[1] for n, c in curves.items()}}).to_csv(index=False)
    st.download_button("Download P_f curves (CSV)", curve_csv, file_name="pf_curves.csv", mime="text/csv")
    takeaway.downloads(fig, "pf")


def other_scale_label(name: str, scale: str) -> str:
    """The P_f curve of a scaled kernel at the scale the sidebar does not use, as its legend names it."""
    return f"{fg.kernel_label(name)} ({scale} scale)"


def scale_sentence(prep: Prepared, values: dict, grids: dict, other_grids: dict, aucs: dict) -> str:
    name = next(n for n in grids if n in kvviews.SCALED_KERNELS)
    result, _ = grids[name]
    normaliser = None
    if result.fitted_kernel is not None:
        described = result.fitted_kernel.describe()
        # describe() reports the kernel's own factor; under "unit" that is already divided by
        # exp(log_scale_), while the sentence speaks of the paper's det(Σx+Σy)^(−½)
        paper = np.exp(result.fitted_kernel.log_scale_)
        normaliser = (paper * described["normaliser min"], paper * described["normaliser max"])
    other = other_grids.get(name)
    return kvviews.scale_sentence(plain(prep.name), values["normalize"], normaliser, result.scores,
                                  None if other is None else other[0].scores, name=name,
                                  aucs={n: a for n, a in aucs.items() if n in grids})


# ----------------------------------------------------------------------------- theory

def apply_values(values: dict) -> None:
    """Put settings in the session before their widgets are drawn (a button's callback)."""
    for name, value in values.items():
        if name == "points":
            continue
        st.session_state[name] = value
    if "generator" in values:
        set_generator_params(values["generator"], values.get("gen_params", {}))


def set_preset(key: str) -> None:
    apply_values(teach.applicable(kvstate.apply_preset(kvstate.PRESETS_BY_KEY[key])))


def view_theory() -> None:
    # Imported on use: it gathers kv.models's descriptions, and kv.models pulls in scikit-learn,
    # which the first page must not wait for.
    from kernelviz import theory

    st.markdown(theory.INTRODUCTION)
    st.markdown("### Lessons")
    for name in lessons.names():
        lesson = lessons.get(name)
        c1, c2 = st.columns([4, 1])
        c1.markdown(f"**{lesson.title}** — {lesson.summary}")
        c2.button("Start the lesson", key=f"theory_lesson_{name}", on_click=teach.go_to, args=(name, 1, apply_values),
                  width="stretch")
    st.markdown(theory.PRESETS_HEADING)
    for key, title, look_for in theory.PRESETS:
        with st.container(border=True):
            c1, c2 = st.columns([4, 1])
            c1.markdown(f"**{title}**  \n{look_for}")
            c2.button("Open the figure", key=f"preset_{key}", on_click=set_preset, args=(key,),
                      width="stretch", type="primary")
    st.markdown(theory.KERNELS_HEADING)
    for name in registry.KERNELS:
        formula, text = theory.KERNELS[name]
        with st.container(border=True):
            st.markdown(f"**{fg.kernel_label(name)}**")
            st.latex(formula)
            st.markdown(text)
    st.markdown(theory.MODELS_HEADING)
    st.markdown("\n".join(f"- **{name}** — {theory.MODELS[name]}" for name in registry.MODELS))
    st.markdown(theory.SCALE_MATTERS)
    st.markdown("### The papers")
    st.markdown(teach.citations_markdown())


# ============================================================================ page

VIEW_FUNCTIONS = {
    "data": lambda prep, values, part: view_data(prep, values),
    "partition": lambda prep, values, part: view_partition(prep, values),
    "similarity": view_similarity,
    "boundaries": view_boundaries,
    "kernel": view_kernel_matrix,
    "grid": view_grid,
    "pf": view_pf,
}
NEEDS_PARTITION = ("similarity", "boundaries", "kernel", "grid", "pf")
#: The stage (and its settings) a failure in a view's own body is blamed on: the kernel views
#: fail on the kernels, γ, C and scale; the grid views on the grid's settings (a kernel that
#: cannot be searched is left out there, never the cause of the view's failure).
VIEW_STAGES = {"similarity": ("model", MODEL_SETTINGS), "boundaries": ("model", MODEL_SETTINGS),
               "kernel": ("model", MODEL_SETTINGS), "grid": ("grid", GRID_SETTINGS), "pf": ("grid", GRID_SETTINGS)}


def run_view(view: str, values: dict) -> None:
    """The view boundary: ValueError → its message; anything else → a short error with details folded away.

    The scrub views' bodies are a fragment: a committed γ / C, a click on their figure or
    their own controls rerun the body alone, not the page (the sidebar leaves γ and C to
    the body's scrub there).
    """
    live.LiveLattices(session_end.store()).leave(live.VIEW_KINDS.get(view))
    if view in live.VIEW_KINDS:
        scrub_view_body(view)
    else:
        view_body(view, values)


@st.fragment(key=VIEW_FRAGMENT)
def scrub_view_body(view: str) -> None:
    view_body(view, current_settings())
    if st.session_state.get(PAGE_RUN):
        return  # the page's run does what follows after its sidebar (see main)
    if st.session_state.get(live.SCRUB_SHOWN_KEY) == st.session_state.get(SIDEBAR_GAMMA_C, False):
        # in the body's own run, the scrub came or went (no kernel left, a lattice that failed …):
        # the sidebar's γ and C take its place or give it back
        rerun_page()
    # What the page's run does after the sidebar, for the body's own runs: the link follows the
    # values, the live status line takes its place and the lattice starts.
    write_url(current_settings())
    pollers.draw_held()
    live.LiveLattices(session_end.store()).start_pending()


def view_body(view: str, values: dict) -> None:
    st.session_state[live.SCRUB_SHOWN_KEY] = False
    try:
        if view == "theory":
            view_theory()
            return
        # the data and partition stages restore their own settings where they fail
        prep = load_prepared(values)
        if prep.sampled:
            st.caption(sample_note(prep))
        partition = current_partition(prep, values) if view in NEEDS_PARTITION else None
        stage = VIEW_STAGES.get(view)
        try:
            VIEW_FUNCTIONS[view](prep, values, partition)
        except ValueError as err:
            if stage is not None:
                fail_and_restore(*stage, err)
            raise
        if stage is not None and stage[0] == "model":
            session().remember_good(*stage)
        takeaway.code_box(values, prep)
    except NoDataYet as err:
        st.info(plain(err))
        if view == "data" and values["source"] == "drawn":
            draw_canvas(values)
    except ValueError as err:
        st.error(plain(err))
    except Exception as err:  # noqa: BLE001 - the page must never show a traceback
        st.error(f"Something went wrong in the {registry.label(registry.VIEWS, view)} view ({type(err).__name__}). "
                 "The settings are kept; try another value.")
        with st.expander("Details for a bug report"):
            st.code(traceback.format_exc(), language=None)


def main() -> None:
    pollers.forget()
    start_session()
    session().begin_run()
    teach.follow_history(apply_values)
    handle_upload()
    shown = session().messages()
    for shown_message in shown:
        st.error(plain(shown_message))
    teach.page_style()
    teach.begin_run()
    teach.landing(apply_values)
    explanation = teach.lesson_panel(apply_values)
    if not teach.hidden("views"):
        choice("segmented_control", "View", "view", required=True, label_visibility="collapsed",
               options=teach.visible_views())
    values = current_settings()
    # The view runs before the sidebar is drawn: every setting is already in the session
    # state, and the chart reaches the browser a few hundred widgets earlier.
    st.session_state[PAGE_RUN] = True
    try:
        run_view(values["view"], values)
    finally:
        st.session_state[PAGE_RUN] = False
    teach.explain(explanation)
    session().shown(len(shown))
    sidebar(current_settings())
    write_url(current_settings())
    # Last, after every widget: a polling fragment's tick sends the browser's widget values
    # (kernelviz.ui.pollers).
    pollers.draw_held()
    # after the page is drawn: the live preview's lattice computes without delaying it
    live.LiveLattices(session_end.store()).start_pending()


main()
