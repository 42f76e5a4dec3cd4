"""Reproducing the four source papers' tables: published values, a resumable result store,
runners that follow each paper's protocol, and a report comparing the two.

``kernelviz reproduce PAPER`` (see :mod:`kernelviz.reproduce.command`) runs it from the
command line; from Python::

    from kernelviz import reproduce
    results = reproduce.run("ckrbf", out="runs/ckrbf", quick=True)
    reproduce.write_report(results, "runs/ckrbf")
"""
