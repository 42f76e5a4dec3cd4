"""What the app calls each choice: one registry per concept, name → display label and help text.

Every choice a person picks in the app — a kernel, a model, a scaling, a way to choose the
labeled points, a partition method, a data source, a view, and the few two-way switches —
is named, labeled and explained here once. ``kernelviz.state`` builds its settings table
from these dicts (their keys are the allowed values), the sidebar takes its labels and help
from them, and ``kernelviz.figures`` titles its panels with the same labels, so a kernel is
called the same everywhere.

A kernel's row (:class:`KernelFacts`) also holds every fact about it that more than one module
reads — its colour, Theory entry, whether it uses the partition, has the CkRBF scale, is
γ-convertible, is proven positive semi-definite; its keys are the kernels' names, in the app's
order (``kv.kernels.names()`` reads them), and :func:`kernel` looks a row up by name.

The other keys must agree with the backend's own lists (``kv.models.MODELS``,
``kv.data.SCALINGS``, ``kv.data.SELECTIONS``, ``kv.partitions.METHODS``); a test checks that
they do. Nothing here imports anything, so every layer may read it and the first page does not
wait for scikit-learn.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping


@dataclass(frozen=True)
class Choice:
    """One value a person can choose: how the app names it and a sentence on what it does.

    ``phrase`` is how a sentence or a title names the choice when the label alone would not
    read well there (e.g. "z-scored" in a figure title); empty when the label does.
    """

    label: str
    help: str
    phrase: str = ""


@dataclass(frozen=True, kw_only=True)
class KernelFacts(Choice):
    """A kernel's row: how the app names it (a :class:`Choice`) and every fact about it that more
    than one module reads, so that no two of them can disagree about a kernel.

    ``color`` draws its curves; ``formula`` (LaTeX) and ``explanation`` (Markdown) are its entry in
    the Theory view. ``uses_partition``: it measures with the partition of the Partition view
    (the pipeline fits that partition for it); ``has_scale``: it follows the CkRBF scale switch
    (``normalize``, "paper" or "unit"); ``gamma_convertible``: K = n ⊙ exp(−γ D), so one D serves
    every γ (``kv.kernels.Kernel.gamma_convertible`` reads it); ``psd_proven``: a theorem makes it
    positive semi-definite on any points (docs/MATH.md §7; LAP's holds in exact arithmetic).
    """

    color: str
    formula: str
    explanation: str
    uses_partition: bool = False
    has_scale: bool = False
    gamma_convertible: bool = True
    psd_proven: bool = False


KERNELS: dict[str, KernelFacts] = {
    "rbf": KernelFacts(
        label="RBF",
        help="Round Gaussians of one size everywhere: the yardstick that ignores where the data lie.",
        color="#4C4C4C", psd_proven=True,
        formula=r"k(x,y)=\exp\!\left(-\gamma\,\lVert x-y\rVert^2\right)",
        explanation=("Every point becomes a round Gaussian of the same size; two points are similar when their "
                     "Gaussians overlap. It ignores where the data lie — the yardstick for everything below.")),
    "mrbf": KernelFacts(
        label="Mahalanobis RBF",
        help="One Gaussian shaped like the whole data set's covariance.",
        color="#0072B2", psd_proven=True,
        formula=r"k(x,y)=\exp\!\left(-\gamma\,(x-y)^\top\Sigma^{-1}(x-y)\right),\quad \Sigma=\operatorname{cov}(X)",
        explanation=("The same Gaussian everywhere, but shaped like the whole data set: distances are measured in "
                     "units of the data's spread along each direction.")),
    "ckrbf": KernelFacts(
        label="CkRBF",
        help="Each point borrows the covariance of its own cluster (the partition's).",
        color="#D55E00", uses_partition=True, has_scale=True, psd_proven=True,
        formula=r"k(x,y)=\det(\Sigma_x+\Sigma_y)^{-1/2}\exp\!\left(-\gamma\,(x-y)^\top(\Sigma_x+\Sigma_y)^{-1}(x-y)\right)",
        explanation=("Each point borrows the covariance Σₓ of its own cluster, so a point in a long thin cluster "
                     "becomes a long thin Gaussian. The kernel is (up to a constant) the overlap integral of the "
                     "two points' Gaussians — which is why it is always positive semi-definite, whatever the "
                     "clustering.")),
    "ckrbf-radial": KernelFacts(
        label="CkRBF (radial)",
        help="CkRBF with round cluster Gaussians: each keeps its average spread.",
        color="#E69F00", uses_partition=True, has_scale=True, psd_proven=True,
        formula=r"k(x,y)=(\sigma_x^2+\sigma_y^2)^{-d/2}\exp\!\left(-\gamma\,\frac{\lVert x-y\rVert^2}{\sigma_x^2+\sigma_y^2}\right)",
        explanation=("CkRBF with round cluster Gaussians: each cluster keeps only its average spread σ² = "
                     "trace(Σ)/d. The power d/2 on the normaliser is what keeps it an overlap of Gaussians.")),
    "gmm": KernelFacts(
        label="GMM distance",
        help="Mahalanobis distances of every mixture component, weighted by the components' sizes.",
        color="#009E73", uses_partition=True,
        formula=r"k(x,y)=\exp\!\left(-\gamma\,\Delta_{\mathrm{GMM}}(x,y)^2\right),\ \Delta_{\mathrm{GMM}}=\sum_k \pi_k\sqrt{(x-y)^\top\Sigma_k^{-1}(x-y)}",
        explanation=("A mixture model of all points (labeled or not) supplies several Gaussians; the distance is "
                     "the average of their Mahalanobis distances, weighted by how big each component is.")),
    "rwm": KernelFacts(
        label="RWM",
        help="Mahalanobis distances weighted by how responsible each component is for the two points.",
        color="#CC79A7", uses_partition=True,
        formula=r"k(x,y)=\exp\!\left(-\gamma\,\Delta_{\mathrm{RWM}}(x,y)^2\right),\ \Delta_{\mathrm{RWM}}=\sum_k \tfrac12\big(\rho(x,k)+\rho(y,k)\big)\sqrt{(x-y)^\top\Sigma_k^{-1}(x-y)}",
        explanation=("Like the GMM distance, but each component counts as much as it is responsible for the two "
                     "points compared: distances are measured with the Gaussians the points actually belong to. Not "
                     "proven positive semi-definite — the Kernel matrix view shows its smallest eigenvalue.")),
    "lap": KernelFacts(
        label="Laplacian (LAP)",
        help="The Laplacian SVM as a kernel: RBF deformed by a nearest-neighbour graph of all points.",
        color="#56B4E9", gamma_convertible=False, psd_proven=True,
        formula=r"\tilde k(x,z)=k(x,z)-k_x^\top\,(I+M K_{ZZ})^{-1} M\,k_z,\quad M=\tfrac{\gamma_I}{\gamma_A}L^p",
        explanation=("The Laplacian SVM written as a kernel: an RBF kernel deformed by a nearest-neighbour graph "
                     "over all points, so that points joined by a path through dense regions become more similar.")),
    "lppk": KernelFacts(
        label="LPPK",
        help="Probability product kernel: points blurred into small Gaussians, compared by overlap.",
        color="#8C564B", gamma_convertible=False, psd_proven=True,
        formula=r"K(a,b)=P_aP_b\,\mathcal N\!\left(\mu_a\,\middle|\,\mu_b,\ \Sigma_a+\Sigma_b\right)",
        explanation=("The probability product kernel compares two Gaussians directly — clusters, or points blurred "
                     "into small Gaussians — by the integral of their product.")),
    "rbf-ppk": KernelFacts(
        label="RBF-PPK",
        help="An RBF kernel on the distance between Gaussians in the LPPK feature space.",
        color="#7F3C8D", psd_proven=True,
        formula=r"k(a,b)=\exp\!\left(-\gamma\,\big(K(a,a)+K(b,b)-2K(a,b)\big)\right),\quad K=\text{LPPK}",
        explanation=("An RBF kernel on the distance between two Gaussians measured in the probability-product "
                     "feature space.")),
}

#: The classifiers of ``kv.models`` other than the plain kernel SVM (the kernels list covers that one).
#: Their one description each: the sidebar's help, the Theory view and ``kv.models.MODELS`` read it here.
MODELS: dict[str, Choice] = {
    "mkRBF": Choice("mkRBF", "k-means, then one Mahalanobis-RBF SVM per cluster with that cluster's covariance."),
    "SCM": Choice("SCM", "Support Cluster Machine: an SVM trained on each class's clusters as Gaussians (LPPK / "
                         "RBF-PPK), tested on points."),
    "MPM": Choice("MPM", "Minimax Probability Machine: the hyperplane with the best worst-case accuracy bound α."),
    "MCPM": Choice("MCPM", "Minimax Probability Machine trained on each class's clusters (LPPK / RBF-PPK); "
                           "reports α."),
    "KFD": Choice("KFD", "Kernel Fisher Discriminant: (Δ + βI)⁻¹(m₊ − m₋) in the empirical kernel map."),
    "KNDA": Choice("KNDA", "Kernel Nonparametric Discriminant: between-class scatter from boundary neighbours."),
    "CKSVMNDA": Choice("CKSVMNDA", "An SVM whose regulariser adds KNDA's scatter: Θ = ηΔ(∇ + βI)⁻¹Δ + I."),
}

SCALINGS: dict[str, Choice] = {
    "none": Choice("none", "The features as loaded.", phrase="unscaled"),
    "minmax": Choice("min-max to [0, 1]", "Each feature shifted and divided so that it spans [0, 1].",
                     phrase="min-max scaled to [0, 1]"),
    "zscore": Choice("z-score", "Each feature shifted to mean 0 and divided by its standard deviation.",
                     phrase="z-scored"),
}

SELECTIONS: dict[str, Choice] = {
    "all": Choice("all", "Every point keeps its label."),
    "fraction": Choice("a fraction", "A random share of each class keeps its label."),
    "per_class": Choice("k per class (random)", "k random points of each class keep their label."),
    "dense_per_class": Choice("k per class (dense regions)", "k points from the densest regions of each class keep "
                                                             "their label."),
}

PARTITIONS: dict[str, Choice] = {
    "kmeans": Choice("k-means", "Hard clusters: each point belongs to one cluster."),
    "gmm": Choice("GMM", "A Gaussian mixture fitted by EM: soft responsibilities."),
    "vi": Choice("variational GMM", "A Bayesian Gaussian mixture that switches off the components it does not "
                                    "need (the number of clusters is the most it may use)."),
}

SOURCES: dict[str, Choice] = {
    "generator": Choice("generate", "Synthetic data from one of the generators."),
    "sample": Choice("sample", "A bundled data set."),
    "upload": Choice("upload", "Your own CSV or LIBSVM file."),
    "drawn": Choice("draw", "Points you click onto a canvas in the Data view."),
}

@dataclass(frozen=True, kw_only=True)
class ViewFacts(Choice):
    """A view's row: its label and help (a :class:`Choice`) and every fact the app reads about it,
    so that a new view touches its module and this one row.

    ``module``: its module under ``kernelviz.ui.views`` (``show(prep, values, partition)`` draws it);
    ``needs_partition``: it is drawn with the fitted partition; ``fails_on``: the pipeline stage
    (``kernelviz.pipeline.STAGES``) whose settings go back to their last good values when the view's
    own body fails, or "" when none; ``live``: the kind of live lattice its figure previews while γ
    or C is dragged ("decision", "similarity"), or ""; ``editable``: its figure's points can be
    dragged, added and removed (``kernelviz.ui.edits``); ``code``: ``kernelviz.codegen`` writes a
    script that redraws it.
    """

    module: str
    needs_partition: bool = False
    fails_on: str = ""
    live: str = ""
    editable: bool = False
    code: bool = True


VIEWS: dict[str, ViewFacts] = {
    "theory": ViewFacts("Theory", "The kernels and models in words and formulas, and the papers' figures.",
                        module="theory", code=False),
    "data": ViewFacts("Data", "The data as the models see them.", module="data"),
    "partition": ViewFacts("Partition", "The clusters or mixture components the data-dependent kernels use.",
                           module="partition", needs_partition=True, editable=True),
    "similarity": ViewFacts("Similarity", "Each kernel's similarity to one reference point.", module="similarity",
                            needs_partition=True, fails_on="model", live="similarity", editable=True),
    "boundaries": ViewFacts("Decision boundaries", "One SVM per kernel (and the other models) at the sidebar's γ and C.",
                            module="boundaries", needs_partition=True, fails_on="model", live="decision",
                            editable=True),
    "kernel": ViewFacts("Kernel matrix", "Gram matrices and their spectra.", module="kernel_matrix",
                        needs_partition=True, fails_on="model"),
    "grid": ViewFacts("Grid search", "Cross-validated accuracy over a (γ, C) grid.", module="grid",
                      needs_partition=True, fails_on="grid"),
    "pf": ViewFacts("P_f (α)", "How much of the grid reaches each accuracy: how easy a kernel is to tune.",
                    module="pf", needs_partition=True, fails_on="grid"),
}

#: The Gaussian-to-Gaussian kernel SCM and MCPM compare their units (clusters) with.
UNIT_KERNELS: dict[str, Choice] = {
    "rbf-ppk": Choice("RBF-PPK", "exp(−γ × the squared distance between the units' feature-space means)."),
    "lppk": Choice("LPPK", "The linear probability product kernel: the overlap integral of the two Gaussians."),
}

#: Sections of the sidebar a teacher's link can hide (``hide=sidebar.data``); ``sidebar`` hides all.
SIDEBAR_SECTIONS: dict[str, Choice] = {
    "data": Choice("Data", "Source, scaling, labeled points, test share."),
    "partition": Choice("Partition", "The clustering the data-dependent kernels use."),
    "kernels": Choice("Kernels and SVM", "Kernels, models, γ, C, η, scales."),
    "display": Choice("Display", "Projector, support-vector rings, margins, test points."),
    "share": Choice("Share this", "The link to this page."),
}

FIT_ON: dict[str, Choice] = {
    "projection": Choice("2-D projection", "Models see the data's first two principal components."),
    "full": Choice("all features", "Models see every feature; the maps show the plane of the first two principal "
                                   "components through the data's mean."),
}

CKRBF_SCALES: dict[str, Choice] = {
    "paper": Choice("as in the paper", "CkRBF multiplied by det(Σx+Σy)^(−½), as the paper defines it."),
    "unit": Choice("unit", "CkRBF with that factor divided out, so its values are of order one."),
}

SIMILARITY_MODES: dict[str, Choice] = {
    "dissimilarity": Choice("dissimilarity (level curves)", "Level curves of the distance inside each kernel."),
    "similarity": Choice("similarity (shaded)", "The kernel's value, shaded."),
}

VI_PRIORS: dict[str, Choice] = {
    "dirichlet_process": Choice("Dirichlet process", "Stick-breaking prior: favours few components."),
    "dirichlet_distribution": Choice("Dirichlet distribution", "A symmetric prior over the components' weights."),
}


def kernel(name: str) -> KernelFacts:
    """Kernel ``name``'s row.

    Raises
    ------
    ValueError
        For a name that is not a kernel's, naming the kernels there are.
    """
    try:
        return KERNELS[name]
    except (KeyError, TypeError):
        raise ValueError(f"Unknown kernel {name!r}; choose one of {', '.join(KERNELS)}.") from None


def label(registry: Mapping[str, Choice], name: str) -> str:
    """The display label of ``name`` in ``registry``; the name itself when it has none."""
    choice = registry.get(name)
    return choice.label if choice is not None else name


def phrase(registry: Mapping[str, Choice], name: str) -> str:
    """How a sentence names ``name``: its phrase, else its label."""
    choice = registry[name]
    return choice.phrase or choice.label


def describe(registry: Mapping[str, Choice]) -> str:
    """Every choice of a registry as Markdown lines "**label**: help", for a widget's help."""
    return "\n".join(f"- **{choice.label}**: {choice.help}" for choice in registry.values())
