"""The classifiers of docs/MATH.md §8 as scikit-learn estimators.

Every model follows the estimator contract of ``sklearn/svm/_classes.py``: the
hyper-parameters are keyword-only ``__init__`` arguments stored unchanged (so ``clone`` and
``get_params`` round-trip), ``fit`` returns ``self``, learned attributes end in ``_``,
and ``predict`` / ``decision_function`` work inside ``Pipeline`` and
``cross_val_score``. A positive decision value always means ``classes_[1]``.

* :class:`KernelSVC` -- C-SVM (libsvm) with any kernel of :mod:`kernelviz.kernels`.
* :class:`MkRBF` -- k-means, then one Mahalanobis-RBF SVM per cluster.
* :class:`SCM` -- Support Cluster Machine: an SVM trained on per-class clusters.
* :class:`MPM` -- Minimax Probability Machine, linear or kernelised, with its
  worst-case accuracy bound ``alpha_``.
* :class:`MCPM` -- kernel MPM trained on per-class clusters.
* :class:`KFD`, :class:`KNDA` -- kernel Fisher and nonparametric discriminants.
* :class:`CKSVMNDA` -- an SVM whose regulariser includes the KNDA scatter matrices.

Every ``fit`` takes ``X_unlabeled``: those points join the labeled ones in the
unsupervised part (the kernel's partition, density model or graph; mkRBF's k-means),
never the supervised one. SCM and MCPM accept and ignore them (their units come from
labeled clusters). :data:`MODELS` lists the models for the app.

Layout: :mod:`._base` (input checks, kernel fitting, base classes, cluster units),
:mod:`.svm` (KernelSVC, MkRBF, SCM, WithUnlabeled), :mod:`.minimax` (MPM, MCPM),
:mod:`.discriminant` (KFD, KNDA, CKSVMNDA). Every libsvm fit goes through
:mod:`kernelviz._svm`.
"""

from .. import registry as _registry
from .._validation import format_label, format_labels
from ._base import UNIT_KERNELS
from .discriminant import CKSVMNDA, KFD, KNDA, nonparametric_between_scatter, within_class_scatter
from .minimax import KERNEL_RIDGE, LINEAR, LINEAR_RIDGE, MCPM, MPM, solve_kernel_mpm, solve_mpm, weighted_moments
from .svm import SCM, SINGLE_CLASS_DECISION, KernelSVC, MkRBF, WithUnlabeled

__all__ = [
    "CKSVMNDA", "KERNEL_RIDGE", "KFD", "KNDA", "KernelSVC", "LINEAR", "LINEAR_RIDGE", "MCPM", "MODELS", "MPM",
    "MkRBF", "SCM", "SINGLE_CLASS_DECISION", "UNIT_KERNELS", "WithUnlabeled", "format_label", "format_labels",
    "nonparametric_between_scatter", "solve_kernel_mpm", "solve_mpm", "weighted_moments", "within_class_scatter",
]

#: The models the app offers: display name → (class, one-line description, binary only). The
#: descriptions are ``kernelviz.registry.MODELS``' (one per model), the kernel SVM's its own.
MODELS = {
    "Kernel SVM": (KernelSVC, "C-SVM (libsvm) with any kernel of kv.kernels; multi-class one-vs-one.", False),
    **{name: (cls, _registry.MODELS[name].help, binary_only) for name, cls, binary_only in (
        ("mkRBF", MkRBF, True), ("SCM", SCM, False), ("MPM", MPM, True), ("MCPM", MCPM, True), ("KFD", KFD, True),
        ("KNDA", KNDA, True), ("CKSVMNDA", CKSVMNDA, True))},
}
