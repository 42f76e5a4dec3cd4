"""The payloads Python sends the components' JavaScript (kernelviz.protocol): each producer
emits exactly the keys its type declares, and tests/js/fixtures — which tests/js/payloads.test.mjs reads
with the components' own code — is what the producers write today, so the JavaScript test never checks
a payload Python no longer sends."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from kernelviz import figures as fg
from kernelviz import protocol as payloads
from kernelviz.components import draw, plot, poll
from kernelviz.lattice import Failure, Field, Lattice
from kernelviz.ui.live import finished_signal, preview_payload

pytestmark = pytest.mark.unit

# the fixture writer is a script of the tests (tests/js/write_fixtures.py), not of the package
sys.path.insert(0, str(Path(__file__).resolve().parent / "js"))
import write_fixtures as writer  # noqa: E402

FIXTURES = Path(__file__).resolve().parent / "js" / "fixtures"
WRITE = "python tests/js/write_fixtures.py --write tests/js/fixtures"
GRID = fg.Grid(np.linspace(-1.0, 1.0, 3), np.linspace(0.0, 1.0, 2))
FIGURE = {"data": [{"type": "scatter", "x": [0.0, 1.0], "y": [1.0, 2.0]}], "layout": {"datarevision": "r"}}


def key_errors(value: dict, kind: str) -> list[str]:
    """What is wrong with the keys of ``value`` as a ``kind`` of :func:`payloads.schema`: the required
    keys it lacks, and the keys the type does not declare."""
    declared = payloads.schema()[kind]
    missing = sorted(set(declared["required"]) - value.keys())
    undeclared = sorted(value.keys() - set(declared["required"]) - set(declared["optional"]))
    return [f"{kind} lacks {key!r}" for key in missing] + [f"{kind} has the undeclared {key!r}" for key in undeclared]


def live_errors(live: dict) -> list[str]:
    """:func:`key_errors` of a live preview and of everything in it."""
    lattice = live["lattice"]
    return (key_errors(live, "LivePreview") + key_errors(lattice, "BrowserLattice")
            + key_errors(lattice["codec"], "BrowserCodec")
            + [error for kernel in lattice["kernels"] for error in key_errors(kernel, "BrowserKernel")]
            + [error for panel in live["panels"] + live["held"] for error in key_errors(panel, "Panel")])


def header_errors(header: dict) -> list[str]:
    """:func:`key_errors` of a plot payload's header and of its live preview, if any."""
    return key_errors(header, "PlotHeader") + (live_errors(header["live"]) if header["live"] is not None else [])


def small_lattice(kind: str) -> Lattice:
    """A lattice of three kernels on a 3 × 2 grid: "rbf" ready, "lap" failed, "rwm" not ready yet."""
    names = ["rbf", "lap", "rwm"]
    lattice = (Lattice.decision(names, GRID, log_gamma=0.0, log_C=0.0, step=1.0) if kind == "decision"
               else Lattice.similarity(names, GRID, log_gamma=0.0, reference=(0.5, 0.5), step=1.0))
    for axis, values in lattice.axes.items():
        for index in range(len(values)):
            lattice.add(Field("rbf", axis, index, np.zeros(GRID.shape, dtype=np.uint8), scale=2.0))
    lattice.add(Field("rwm", "log_gamma", 0, np.zeros(GRID.shape, dtype=np.uint8)))
    lattice.add(Failure("lap", "no live preview: it failed."))
    return lattice


def small_preview(kind: str) -> dict:
    """A live preview of :func:`small_lattice`: its kernels' panels, one with no margins, and a held one."""
    axes = {"rbf": fg.panel_axes(0), "lap": {**fg.panel_axes(1), "margins": False}, "rwm": fg.panel_axes(2),
            "SCM": {**fg.panel_axes(3), "margins": True}}
    return preview_payload(small_lattice(kind), 0.0, 0.0 if kind == "decision" else None, axes, locked=["log_C"])


def test_the_fixtures_are_what_the_producers_write_today(tmp_path):
    written = {path.name: path.read_bytes() for path in writer.write(tmp_path)}
    committed = {path.name: path.read_bytes() for path in FIXTURES.iterdir()}
    stale = sorted(name for name in written.keys() | committed.keys() if written.get(name) != committed.get(name))
    assert not stale, (f"tests/js/fixtures is not what the producers send now ({', '.join(stale)}): run `{WRITE}` "
                       "and commit the files")


def test_writing_the_fixtures_again_gives_the_same_bytes():
    assert writer.fixtures() == writer.fixtures()


@pytest.mark.parametrize("kind", ["decision", "similarity"])
@pytest.mark.parametrize("lattice_sent", [False, True])
def test_a_plot_payload_has_the_declared_keys_throughout(kind, lattice_sent):
    header = plot.unpack(plot.payload(FIGURE, config={}, selectable=True, data_on_canvas=True,
                                      live=small_preview(kind), lattice_sent=lattice_sent))
    assert header_errors(header) == []
    assert ("sent" in header["live"]["lattice"]) == lattice_sent


def test_a_plot_payload_without_a_live_preview_has_the_declared_keys():
    header = plot.unpack(plot.payload(FIGURE, config={}, selectable=False))
    assert header["live"] is None and header_errors(header) == []


@pytest.mark.parametrize("kind", ["decision", "similarity"])
def test_the_live_preview_its_lattice_and_kernels_have_the_declared_keys(kind):
    live = small_preview(kind)
    assert live_errors(live) == []
    assert [panel["name"] for panel in live["held"]] == ["SCM"]
    lattice = small_lattice(kind).to_browser()
    assert key_errors(lattice, "BrowserLattice") == []
    # ready, failed and not yet ready: each kernel's keys are the same
    assert [kernel["name"] for kernel in lattice["kernels"] if kernel["fields"] is not None] == ["rbf"]
    assert [error for kernel in lattice["kernels"] for error in key_errors(kernel, "BrowserKernel")] == []


def test_the_drawing_canvas_data_and_its_styles_have_the_declared_keys():
    data = draw.browser_data(np.array([[0.0, 0.0, 1.0], [1.0, 1.0, -1.0], [0.5, 0.0, 0.0]]), value_range=(-2.0, 2.0),
                             label=-1.0, applied={"page-a": 3})
    assert key_errors(data, "DrawData") == []
    assert [error for style in data["styles"] for error in key_errors(style, "DrawStyle")] == []


def test_the_poll_data_and_the_live_status_lines_finished_signal_have_the_declared_keys():
    class Job:  # what finished_signal reads of a LatticeJob
        lattice, cancelled = small_lattice("decision"), True

    finished = finished_signal("decision", Job())
    assert key_errors(finished, "Finished") == [] and finished["signal"].endswith(":stopped")
    for data in (poll.poll_data(0, 0.5), poll.poll_data(1, 0.5, finished)):
        assert key_errors(data, "PollData") == []
    assert poll.poll_data(1, 0.5)["every_ms"] == 500


def test_the_poll_sends_the_browser_everything_it_was_given(monkeypatch):
    """A poll told to watch that lost its selector on the way stopped after the first lattice: a
    commit's lattice never reached the figure."""
    sent = []
    monkeypatch.setattr(poll, "_renderer", lambda: lambda **kwargs: sent.append(kwargs["data"]))
    monkeypatch.setattr("streamlit.html", lambda *a, **k: None)
    finished = {"kind": "decision", "signal": "x:done"}
    poll.poll(key="p", every=0.25, finished=finished, watch=".kv-live")
    assert len(sent) == 1 and key_errors(sent[0], "PollData") == []
    assert (sent[0]["every_ms"], sent[0]["finished"], sent[0]["watch"]) == (250, finished, ".kv-live")


def test_the_keys_not_always_sent_are_declared_optional():
    declared = payloads.schema()
    assert declared["BrowserLattice"]["optional"] == ["sent"] and declared["Panel"]["optional"] == ["margins"]
    assert all(not declared[kind]["optional"] for kind in declared if kind not in ("BrowserLattice", "Panel"))


def test_a_key_sent_but_not_declared_or_declared_but_not_sent_is_found():
    header = plot.unpack(plot.payload(FIGURE, config={}, selectable=True, live=small_preview("decision")))
    header["zoom"] = 2
    del header["live"]["lattice"]["kernels"][0]["scales"]
    header["live"]["panels"][0]["colour"] = "red"
    assert header_errors(header) == ["PlotHeader has the undeclared 'zoom'", "BrowserKernel lacks 'scales'",
                                     "Panel has the undeclared 'colour'"]
