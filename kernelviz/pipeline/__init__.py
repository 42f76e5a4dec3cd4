"""One path from settings to results: data → partition → kernels → model at (γ, C) → searches.

Every caller that turns the app's settings (:data:`kernelviz.state.SETTINGS`) into numbers goes
through here — the app's views, the lessons' precomputed grids, the live preview's lattice, the
benchmarks and the tests — so two of them can never prepare the data, fit the partition,
parameterise a kernel or fit an SVM differently. Nothing here imports Streamlit.

| module | stage |
|---|---|
| :mod:`.specs` | the frozen specs, each stage's settings (:data:`STAGES`) and their digests |
| :mod:`.data` | data: loading, scaling, projection, labels, hold-out; upload and generator checks |
| :mod:`.fit` | the unsupervised stages: partition and fitted kernels (γ = 1) |
| :mod:`.model` | the one SVM fit at (γ, C) and the panels drawn from it |
| :mod:`.search` | grid searches (column by column), Keerthi–Lin, P_f |
| :mod:`.edit` | the data edited on a figure: moved, added and removed points |

>>> values = kernelviz.state.defaults()                                   # doctest: +SKIP
>>> prep = prepare(DataSpec.from_settings(values))                       # doctest: +SKIP
>>> partition = fit_partition(PartitionSpec.from_settings(values), prep) # doctest: +SKIP
>>> kernel = fit_kernel(KernelSpec.from_settings("ckrbf", values), prep, partition)  # doctest: +SKIP
"""

from kernelviz.pipeline.specs import *  # noqa: F401,F403

from kernelviz.pipeline.data import *  # noqa: F401,F403
from kernelviz.pipeline.fit import *  # noqa: F401,F403
from kernelviz.pipeline.model import *  # noqa: F401,F403
from kernelviz.pipeline.search import *  # noqa: F401,F403
from kernelviz.pipeline.edit import *  # noqa: F401,F403
