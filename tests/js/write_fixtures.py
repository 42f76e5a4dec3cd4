"""``python tests/js/write_fixtures.py --write DIR``: the payload schema and real payloads, built
by the producers themselves, as the fixtures of ``tests/js/payloads.test.mjs`` (the repository's
are in ``tests/js/fixtures``; ``tests/test_payloads.py`` fails when they are not what this writes).

Every byte is fixed — the lattice's uid, the codes, the figure — so that writing again gives the
same files, and a fixture that differs means a payload changed — whatever Streamlit is installed:
the header's ``plotly`` names a fixed chunk.
"""

from __future__ import annotations

import argparse
import base64
import json
from pathlib import Path

import numpy as np

from kernelviz import figures as fg
from kernelviz.components import draw, plot, poll
from kernelviz.protocol import DrawData, PollData, schema
from kernelviz.lattice import Failure, Field, Lattice
from kernelviz.pipeline import PanelScores
from kernelviz.ui.live import preview_payload

#: The fixtures' lattice's uid (a new lattice takes a random one).
FIXTURE_UID = "fixture"
#: The plotly.js chunk the fixture names (the app's is the installed Streamlit's).
FIXTURE_CHUNK = "PlotlyChart.fixture.js"


def plot_payload(*, lattice_sent: bool) -> bytes:
    """A real plot payload, small: a heatmap and a contour trace sharing one ``z`` (sent once) and the
    live preview of a 4 × 3 decision lattice of two kernels, one ready and one failed, with a third
    panel held."""
    grid = fg.Grid(np.linspace(-1.5, 1.5, 4), np.linspace(-1.0, 1.0, 3))
    lattice = Lattice.decision(["rbf", "lap"], grid, log_gamma=0.0, log_C=1.0)
    lattice.uid = FIXTURE_UID
    # three training points; at value i, the first i % 3 + 1 of them are support vectors, the first at C
    lattice.points = np.array([[0.0, 0.5], [1.0, -0.5], [-1.0, 0.0]], dtype=np.float32)
    for axis, values in lattice.axes.items():
        for index in range(len(values)):
            count = index % 3 + 1
            scores = PanelScores(support=np.arange(count), dual=np.linspace(1.0, 0.25, count),
                                 bounded=np.arange(count) == 0, train_accuracy=1.0 - index / 100,
                                 test_accuracy=0.5, hidden_accuracy=None)
            lattice.add(Field("rbf", axis, index, np.full(grid.shape, index, dtype=np.uint8), scores=scores))
    lattice.add(Failure("lap", "no live preview: the fixture's Laplacian kernel fails on purpose."))
    # as the views build them (kernelviz.ui.views.shared.live_preview): each panel's subplot, and its margins
    axes = {name: {**fg.panel_axes(i), "margins": name != "SCM"} for i, name in enumerate(["rbf", "lap", "SCM"])}
    live = preview_payload(lattice, 0.0, 1.0, axes)
    z = {"dtype": "f8", "bdata": base64.b64encode(np.linspace(-1.0, 1.0, 12).astype("<f8").tobytes()).decode(),
         "shape": "3, 4"}
    xs, ys = [float(x) for x in grid.xs], [float(y) for y in grid.ys]
    figure = {"data": [{"type": "heatmap", "x": xs, "y": ys, "z": z, "colorscale": [[0, "#a0c4e8"], [1, "#f0c09a"]]},
                       {"type": "contour", "x": xs, "y": ys, "z": dict(z), "line": {"color": "black", "width": 2},
                        "contours": {"start": 0, "end": 0, "size": 1, "coloring": "none"}},
                       {"type": "scatter", "mode": "markers", "x": [0.0, 1.0], "y": [0.5, -0.5]}],
              "layout": {"datarevision": "fixture", "height": 300}}
    return plot.payload(figure, config={"displaylogo": False}, selectable=True, data_on_canvas=True, live=live,
                        lattice_sent=lattice_sent, chunk=FIXTURE_CHUNK)


def draw_data() -> DrawData:
    """The drawing canvas's data for three points, one of each label."""
    points = np.array([[0.5, 1.0, 1.0], [-1.0, 0.25, -1.0], [2.0, -0.5, 0.0]])
    return draw.browser_data(points, value_range=(-3.0, 3.0), label=1.0, applied={"page-a": 4})


def poll_data() -> PollData:
    """The live preview watcher's poll data on the run that finds the lattice finished."""
    return poll.poll_data(3, 0.5, finished={"kind": "decision", "signal": "0123abcd:done"},
                          watch='.kv-live[data-waiting="1"]')


def fixtures() -> dict[str, bytes]:
    """Each fixture's file name and content."""
    return {
        "schema.json": (json.dumps(schema(), indent=2) + "\n").encode(),
        "plot_payload.bin": plot_payload(lattice_sent=False),
        "plot_payload_sent.bin": plot_payload(lattice_sent=True),
        "draw_data.json": (json.dumps(draw_data(), indent=2, ensure_ascii=False) + "\n").encode(),
        "poll_data.json": (json.dumps(poll_data(), indent=2) + "\n").encode(),
    }


def write(folder: Path) -> list[Path]:
    """Write the fixtures into ``folder`` (made if need be); the paths written."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, content in fixtures().items():
        (folder / name).write_bytes(content)
        written.append(folder / name)
    return written


def main(arguments: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python tests/js/write_fixtures.py",
                                     description="Write the payload schema and fixtures of the JavaScript tests.")
    parser.add_argument("--write", metavar="DIR", type=Path, required=True,
                        help="the folder to write into (the repository's: tests/js/fixtures)")
    for path in write(parser.parse_args(arguments).write):
        print(path)


if __name__ == "__main__":
    main()
