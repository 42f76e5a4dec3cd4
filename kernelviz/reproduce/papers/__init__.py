"""One runner module per paper; :data:`RUNNERS` is the registry :func:`kernelviz.reproduce.run` reads."""
from __future__ import annotations

from dataclasses import dataclass

__all__ = ["PaperRunners", "RUNNERS"]


@dataclass(frozen=True)
class PaperRunners:
    """What can be reproduced of one paper, and with which data by default."""

    tables: dict  # table id -> callable(Context) -> list[Measurement]
    sources: dict  # row as the paper names it -> default data source
    missing: dict  # row -> why it has no default data
    not_reproducible: dict  # table id -> why it is not run


def _registry():
    from . import ckrbf, cksvmnda, mcpm, rwm

    return {module.PAPER: module.RUNNERS for module in (ckrbf, rwm, mcpm, cksvmnda)}


RUNNERS = _registry()
