"""What the app calls each choice: one registry per concept, name → display label and help text.

Every choice a person picks in the app — a kernel, a model, a scaling, a way to choose the
labeled points, a partition method, a data source, a view, and the few two-way switches —
is named, labeled and explained here once. ``kernelviz.state`` builds its settings table
from these dicts (their keys are the allowed values), the sidebar takes its labels and help
from them, and ``kernelviz.figures`` titles its panels with the same labels, so a kernel is
called the same everywhere.

The keys must agree with the backend's own lists (``kv.kernels.names()``,
``kv.models.MODELS``, ``kv.data.SCALINGS``, ``kv.data.SELECTIONS``,
``kv.partitions.METHODS``); a test checks that they do. Nothing here imports the backend,
so the first page does not wait for scikit-learn.
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


KERNELS: dict[str, Choice] = {
    "rbf": Choice("RBF", "Round Gaussians of one size everywhere: the yardstick that ignores where the data lie."),
    "mrbf": Choice("Mahalanobis RBF", "One Gaussian shaped like the whole data set's covariance."),
    "ckrbf": Choice("CkRBF", "Each point borrows the covariance of its own cluster (the partition's)."),
    "ckrbf-radial": Choice("CkRBF (radial)", "CkRBF with round cluster Gaussians: each keeps its average spread."),
    "gmm": Choice("GMM distance", "Mahalanobis distances of every mixture component, weighted by the components' "
                                  "sizes."),
    "rwm": Choice("RWM", "Mahalanobis distances weighted by how responsible each component is for the two points."),
    "lap": Choice("Laplacian (LAP)", "The Laplacian SVM as a kernel: RBF deformed by a nearest-neighbour graph of "
                                     "all points."),
    "lppk": Choice("LPPK", "Probability product kernel: points blurred into small Gaussians, compared by overlap."),
    "rbf-ppk": Choice("RBF-PPK", "An RBF kernel on the distance between Gaussians in the LPPK feature space."),
}

#: The classifiers of ``kv.models`` other than the plain kernel SVM (the kernels list covers that one).
MODELS: dict[str, Choice] = {
    "mkRBF": Choice("mkRBF", "k-means, then one Mahalanobis-RBF SVM per cluster."),
    "SCM": Choice("SCM", "Support Cluster Machine: an SVM trained on each class's clusters as Gaussians."),
    "MPM": Choice("MPM", "Minimax Probability Machine: the best worst-case accuracy bound α."),
    "MCPM": Choice("MCPM", "Minimax Probability Machine trained on each class's clusters; reports α."),
    "KFD": Choice("KFD", "Kernel Fisher Discriminant."),
    "KNDA": Choice("KNDA", "Kernel Nonparametric Discriminant: scatter measured between boundary neighbours."),
    "CKSVMNDA": Choice("CKSVMNDA", "An SVM whose regulariser adds KNDA's scatter."),
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

VIEWS: dict[str, Choice] = {
    "theory": Choice("Theory", "The kernels and models in words and formulas, and the papers' figures."),
    "data": Choice("Data", "The data as the models see them."),
    "partition": Choice("Partition", "The clusters or mixture components the data-dependent kernels use."),
    "similarity": Choice("Similarity", "Each kernel's similarity to one reference point."),
    "boundaries": Choice("Decision boundaries", "One SVM per kernel (and the other models) at the sidebar's γ and C."),
    "kernel": Choice("Kernel matrix", "Gram matrices and their spectra."),
    "grid": Choice("Grid search", "Cross-validated accuracy over a (γ, C) grid."),
    "pf": Choice("P_f (α)", "How much of the grid reaches each accuracy: how easy a kernel is to tune."),
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
