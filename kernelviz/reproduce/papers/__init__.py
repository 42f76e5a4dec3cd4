"""One runner module per paper; :data:`RUNNERS` is the registry :func:`kernelviz.reproduce.run` reads."""
from __future__ import annotations

from . import ckrbf, cksvmnda, mcpm, rwm

__all__ = ["RUNNERS"]

RUNNERS = {module.PAPER: module.RUNNERS for module in (ckrbf, rwm, mcpm, cksvmnda)}
