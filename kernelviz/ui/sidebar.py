"""The sidebar: the settings' widgets, section by section (Data, Partition, Kernels and SVM,
Display, Share this), each left out where the teacher's link hides it.

The page draws it after the view (the view reads every setting from the session state), so
the chart reaches the browser first.
"""

from __future__ import annotations

import streamlit as st

import kernelviz as kv
from kernelviz import state as kvstate
from kernelviz import pipeline
from kernelviz.ui import live, teach
from kernelviz.ui.page import SIDEBAR_GAMMA_C, apply_values, current_settings, generator_keys, page_query, session
from kernelviz.ui.widgets import choice, number_input, slider, toggle


def draw() -> None:
    if teach.hidden("sidebar"):
        return
    sb = st.sidebar
    sb.markdown("## ◎ kernelviz")
    sb.caption("See data-dependent SVM kernels at work.")
    if not teach.hidden("sidebar.data"):
        data_section(sb)
    if not teach.hidden("sidebar.partition"):
        partition_section(sb)
    if not teach.hidden("sidebar.kernels"):
        kernels_section(sb)
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


def data_section(sb) -> None:
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
            for i, (param, key) in enumerate(generator_keys(generator).items()):
                if key not in st.session_state:
                    st.session_state[key] = defaults[param]
                cols[i % 2].number_input(param.replace("_", " "), key=key, **pipeline.generator_param_bounds(param))
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


def partition_section(sb) -> None:
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


def kernels_section(sb) -> None:
    with sb.expander("**Kernels and SVM**", expanded=True):
        choice("multiselect", "Kernels to compare", "kernels")
        choice("multiselect", "Other models (Decision boundaries)", "models")
        gamma_c_sliders()
        choice("radio", "CkRBF scale", "normalize", horizontal=True)
        models = st.session_state.get("models") or ()
        if "CKSVMNDA" in models:
            slider("log₁₀ η (CKSVMNDA)", "log_eta", step=0.5, format="%.1f")
        if any(m in pipeline.UNIT_KERNEL_MODELS for m in models):
            choice("radio", "Unit kernel (SCM, MCPM)", "unit_kernel", horizontal=True)


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
