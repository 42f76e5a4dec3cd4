"""kernelviz — see data-dependent SVM kernels at work.

Submodules are imported on first use (``kv.kernels``, ``kv.models`` …) so that
``import kernelviz`` stays cheap and does not pull in Plotly or Streamlit.
"""

import importlib

__version__ = "0.1.0"

_SUBMODULES = ("data", "partitions", "kernels", "models", "evaluation", "figures", "state", "theory", "cli", "lessons", "references", "lattice", "anatomy", "reproduce", "pipeline")
__all__ = list(_SUBMODULES)


def __getattr__(name):
    if name in _SUBMODULES:
        module = importlib.import_module(f"{__name__}.{name}")
        globals()[name] = module
        return module
    raise AttributeError(f"module 'kernelviz' has no attribute {name!r}")


def __dir__():
    return sorted(list(globals()) + list(_SUBMODULES))
