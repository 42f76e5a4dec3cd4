"""Data for kernelviz: bundled samples, toy generators, file readers and writers,
scaling, and the choice of which points keep their labels.

The subpackage is split along those seams — :mod:`.dataset` (the container and the
shared checks), :mod:`.io` (samples, reading, writing), :mod:`.generators`,
:mod:`.scaling` and :mod:`.selection` — and everything public is re-exported here, so
``kv.data.load``, ``kv.data.Dataset``, ``kv.data.UNLABELED`` … are the names to use.

Conventions shared with the other modules (see ``docs/DESIGN.md``):

* ``X`` is an ``(n, d)`` float64 array, ``y`` a 1-D float64 array of the same length.
* A point without a label carries ``y == UNLABELED`` (-9999.0). A data set with no
  labels at all has ``y is None`` (:func:`read` returns that when no row has a label);
  ``Dataset`` and :func:`require_classes` treat it like a ``y`` that is entirely
  ``UNLABELED``. Unlabeled-only data is valid input for partitions and kernels.
* Generated data has the classes ``0.0, 1.0, …``; data read from a file keeps the
  file's own numeric labels (-1/+1, 0/1, …) as floats; labels given as names in a
  file become the classes ``0.0, 1.0, …`` in the names' sorted order, with
  ``Dataset.class_names`` mapping each back to its name.
* Bad input raises ``ValueError`` with a sentence saying what is wrong and where
  (line and column numbers where there are any), fit to show to a user as is.
"""

from .dataset import MAX_CELLS, MAX_ROWS, UNLABELED, Dataset, require_classes
from .generators import GENERATOR_DESCRIPTIONS, GENERATORS, PARAMETER_LIMITS, make
from .io import MAX_FILE_BYTES, SAMPLE_DIR, SAMPLES, load, read, samples, to_csv, to_libsvm
from .scaling import SCALINGS, scale, scaling_parameters
from .selection import SELECTIONS, hide_labels, select_labeled

__all__ = [
    "UNLABELED",
    "MAX_FILE_BYTES",
    "MAX_ROWS",
    "MAX_CELLS",
    "Dataset",
    "SAMPLES",
    "SAMPLE_DIR",
    "samples",
    "load",
    "read",
    "to_csv",
    "to_libsvm",
    "GENERATORS",
    "GENERATOR_DESCRIPTIONS",
    "PARAMETER_LIMITS",
    "make",
    "SCALINGS",
    "scaling_parameters",
    "scale",
    "SELECTIONS",
    "select_labeled",
    "hide_labels",
    "require_classes",
]
