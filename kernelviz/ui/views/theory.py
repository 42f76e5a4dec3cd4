"""The Theory view: the idea behind the kernels, the lessons and the papers' figures to open,
each kernel's formula and explanation (its row in ``kernelviz.registry``), the other models,
and the papers."""

from __future__ import annotations

import streamlit as st

from kernelviz import lessons, registry
from kernelviz import state as kvstate
from kernelviz.ui import teach
from kernelviz.ui.page import apply_values


def show() -> None:
    """The view (it needs no data: the page draws it before preparing any)."""
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
    for facts in registry.KERNELS.values():
        with st.container(border=True):
            st.markdown(f"**{facts.label}**")
            st.latex(facts.formula)
            st.markdown(facts.explanation)
    st.markdown(theory.MODELS_HEADING)
    st.markdown("\n".join(f"- **{name}** — {theory.MODELS[name]}" for name in registry.MODELS))
    st.markdown(theory.SCALE_MATTERS)
    st.markdown("### The papers")
    st.markdown(teach.citations_markdown())


def set_preset(key: str) -> None:
    """Open a paper's figure (its button's callback): the preset's settings, the teacher's chrome kept."""
    apply_values(teach.applicable(kvstate.apply_preset(kvstate.PRESETS_BY_KEY[key])))
