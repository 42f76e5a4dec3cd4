"""Reproducing the four source papers' tables: published values, a resumable result store,
runners that follow each paper's protocol, and a report comparing the two.

``kernelviz reproduce PAPER`` (see :mod:`kernelviz.reproduce.command`) runs it from the
command line; from Python::

    from kernelviz import reproduce
    result = reproduce.run("ckrbf", out="runs/ckrbf/cells", settings=reproduce.Settings(quick=True))
    reproduce.write_report(result, "runs/ckrbf")
"""
from .published import TABLES
from .report import write_report
from .driver import run
from .runner import Progress, Settings

__all__ = ["TABLES", "Progress", "Settings", "run", "write_report"]
