"""The Theory view's text, as data: the app renders it, tests check that it covers every kernel and model.

Strings are Markdown; formulas are LaTeX for ``st.latex``. Kernel, model and preset
descriptions are declared once, in their own tables (a kernel's formula and explanation in its
row of ``kernelviz.registry.KERNELS``, ``kv.models.MODELS``, ``kv.state.PRESETS``); the model
and preset ones are gathered here.
"""

from __future__ import annotations

from kernelviz import models, state

INTRODUCTION = (
    "### One idea behind every structured kernel\n"
    "An RBF kernel can be read as follows: put a small round Gaussian on each point, and call two points "
    "similar when their Gaussians overlap. The data-dependent kernels keep that picture and change only "
    "**which Gaussian a point gets** — one shaped like the whole data set (Mahalanobis RBF), like the point's "
    "own cluster (CkRBF), or a blend of the mixture components responsible for it (GMM, RWM). The probability "
    "product kernels go one step further and compare whole clusters as Gaussians. The unsupervised part that "
    "supplies the Gaussians never looks at labels, so unlabeled points help shape the kernel.")

PRESETS_HEADING = "### Recreate the papers' figures"
KERNELS_HEADING = "### The kernels"
MODELS_HEADING = "### The other models (Decision boundaries view)"

#: Model name → its one-line description.
MODELS = {name: entry[1] for name, entry in models.MODELS.items()}

#: The papers' figures the app can reopen: (preset key, title, what to look for).
PRESETS = tuple((preset.key, preset.title, preset.look_for) for preset in state.PRESETS)

SCALE_MATTERS = (
    "### Scale matters\n"
    "Multiplying a kernel by a constant c changes nothing but the meaning of C: an SVM with c·k and C "
    "behaves like one with k and c·C. CkRBF's determinant factor is such a near-constant, often far from 1, "
    "so the P_f(α) view lets you compare it with and without that factor.")
