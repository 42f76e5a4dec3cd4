"""The Theory view's text, as data: the app renders it, tests check that it covers every kernel and model.

Strings are Markdown; formulas are LaTeX for ``st.latex``. Model and preset descriptions
are declared once, next to their code (``kv.models.MODELS``, ``kv.state.PRESETS``), and are
gathered here so the view reads all its text from one place.
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

#: Kernel name → (LaTeX formula, explanation).
KERNELS = {
    "rbf": (r"k(x,y)=\exp\!\left(-\gamma\,\lVert x-y\rVert^2\right)",
            "Every point becomes a round Gaussian of the same size; two points are similar when their "
            "Gaussians overlap. It ignores where the data lie — the yardstick for everything below."),
    "mrbf": (r"k(x,y)=\exp\!\left(-\gamma\,(x-y)^\top\Sigma^{-1}(x-y)\right),\quad \Sigma=\operatorname{cov}(X)",
             "The same Gaussian everywhere, but shaped like the whole data set: distances are measured in "
             "units of the data's spread along each direction."),
    "ckrbf": (r"k(x,y)=\det(\Sigma_x+\Sigma_y)^{-1/2}\exp\!\left(-\gamma\,(x-y)^\top(\Sigma_x+\Sigma_y)^{-1}(x-y)\right)",
              "Each point borrows the covariance Σₓ of its own cluster, so a point in a long thin cluster becomes a "
              "long thin Gaussian. The kernel is (up to a constant) the overlap integral of the two points' Gaussians "
              "— which is why it is always positive semi-definite, whatever the clustering."),
    "ckrbf-radial": (r"k(x,y)=(\sigma_x^2+\sigma_y^2)^{-d/2}\exp\!\left(-\gamma\,\frac{\lVert x-y\rVert^2}{\sigma_x^2+\sigma_y^2}\right)",
                     "CkRBF with round cluster Gaussians: each cluster keeps only its average spread σ² = trace(Σ)/d. "
                     "The power d/2 on the normaliser is what keeps it an overlap of Gaussians."),
    "gmm": (r"k(x,y)=\exp\!\left(-\gamma\,\Delta_{\mathrm{GMM}}(x,y)^2\right),\ \Delta_{\mathrm{GMM}}=\sum_k \pi_k\sqrt{(x-y)^\top\Sigma_k^{-1}(x-y)}",
            "A mixture model of all points (labeled or not) supplies several Gaussians; the distance is the "
            "average of their Mahalanobis distances, weighted by how big each component is."),
    "rwm": (r"k(x,y)=\exp\!\left(-\gamma\,\Delta_{\mathrm{RWM}}(x,y)^2\right),\ \Delta_{\mathrm{RWM}}=\sum_k \tfrac12\big(\rho(x,k)+\rho(y,k)\big)\sqrt{(x-y)^\top\Sigma_k^{-1}(x-y)}",
            "Like the GMM distance, but each component counts as much as it is responsible for the two points "
            "compared: distances are measured with the Gaussians the points actually belong to. Not proven "
            "positive semi-definite — the Kernel matrix view shows its smallest eigenvalue."),
    "lap": (r"\tilde k(x,z)=k(x,z)-k_x^\top\,(I+M K_{ZZ})^{-1} M\,k_z,\quad M=\tfrac{\gamma_I}{\gamma_A}L^p",
            "The Laplacian SVM written as a kernel: an RBF kernel deformed by a nearest-neighbour graph over all "
            "points, so that points joined by a path through dense regions become more similar."),
    "lppk": (r"K(a,b)=P_aP_b\,\mathcal N\!\left(\mu_a\,\middle|\,\mu_b,\ \Sigma_a+\Sigma_b\right)",
             "The probability product kernel compares two Gaussians directly — clusters, or points blurred into "
             "small Gaussians — by the integral of their product."),
    "rbf-ppk": (r"k(a,b)=\exp\!\left(-\gamma\,\big(K(a,a)+K(b,b)-2K(a,b)\big)\right),\quad K=\text{LPPK}",
                "An RBF kernel on the distance between two Gaussians measured in the probability-product feature space."),
}

#: Model name → its one-line description.
MODELS = {name: entry[1] for name, entry in models.MODELS.items()}

#: The papers' figures the app can reopen: (preset key, title, what to look for).
PRESETS = tuple((preset.key, preset.title, preset.look_for) for preset in state.PRESETS)

SCALE_MATTERS = (
    "### Scale matters\n"
    "Multiplying a kernel by a constant c changes nothing but the meaning of C: an SVM with c·k and C "
    "behaves like one with k and c·C. CkRBF's determinant factor is such a near-constant, often far from 1, "
    "so the P_f(α) view lets you compare it with and without that factor.")
