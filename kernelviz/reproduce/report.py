"""The reproduction report: for every cell the paper's value, kernelviz's mean ± sd, the
protocol, a verdict, and — where they differ — a sentence on why.

Verdicts: *matches* when |kernelviz − paper| is within the metric's tolerance
(:data:`TOLERANCE`); *within x* when the gap x is larger but inside twice the combined
spread of the two (the paper's sd and ours, where known); *differs by x* otherwise. Cells
where libsvm fits stopped at the iteration cap are marked with the share of capped fits:
their numbers are not trustworthy.

Figures: a PNG per table when kaleido (Plotly's image export) is importable; otherwise the
report is tables only and says so.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

from ..references import PAPERS
from . import published as _published

__all__ = ["TOLERANCE", "EXPLANATIONS", "compare", "verdict", "write_report"]

#: Largest gap still called a match, per metric (accuracy: one point; a win rate: one of six windows).
TOLERANCE = {"accuracy": 0.01, "alpha": 0.01, "pf_auc": 0.02, "win_rate": 1 / 6}

#: Why a cell may differ, from the checks recorded in issue 11; keyed by (paper, table, row, model),
#: "*" matching any. The report adds what this run itself measured (capped fits, the Heart check).
EXPLANATIONS = {
    ("ckrbf", "4", "fourclass", "RBF"): "the paper's 0.731 for RBF at C = 1 is far below what RBF reaches on "
                                        "fourclass over the stated γ range (a single RBF width separates it well "
                                        "at C = 1); the paper's γ range for Table 4 may have been narrower.",
    **{("ckrbf", t, "*", "*"): "the paper reports the best cell of a grid it does not state; the best of a "
                               "grid grows with its resolution (as the paper itself notes), and CV splits differ."
       for t in ("2", "3", "4")},
    ("ckrbf", "5", "*", "*"): "CkRBF's paper-scale normaliser det(Σx+Σy)^(-1/2) multiplies the kernel, so C = 1 "
                              "acts as a much larger C (about 1e6 on diabetes) and which windows CkRBF wins moves "
                              "with that factor; where libsvm could not finish, the capped share says so.",
    ("ckrbf", "6", "*", "*"): "the paper states neither its grid nor its α₀, and the AUC depends on both; compare "
                              "the ordering of the columns rather than their absolute values.",
    **{("rwm", t, "*", "LAP"): "LAP's parameters are rated partly on the hidden-label points; with few labels "
                               "large γ values can win the rating and collapse to the majority class."
       for t in ("2", "3")},
    **{("rwm", t, "*", "*"): "with so few labeled points the outcome depends heavily on which points are picked; "
                             "kernelviz's dense selection is not the paper's (which it does not fully specify)."
       for t in ("2", "3")},
    ("rwm", "4", "*", "*"): "fully supervised: the gap comes from the grid and the VI hyper-parameters (the "
                            "paper tunes them by representativity, kernelviz uses its defaults).",
    ("mcpm", "*", "*", "MCPM(RBF-PPK)"): "the paper takes a test point as a Dirac mass (Σ_z = 0), where RBF-PPK is "
                                         "undefined; kernelviz's default blurs it by the typical cluster scale, "
                                         "which leaves its self-product (4πs²)^(-d/2) about 2^(d/2) times a "
                                         "cluster's, so every point lies about equally far from every cluster "
                                         "(docs/MATH.md §4.9.1).",
    ("mcpm", "*", "*", "SCM(RBF-PPK)"): "the same point-vs-cluster scale as MCPM(RBF-PPK) (docs/MATH.md §4.9.1).",
    ("mcpm", "*", "*", "*"): "clusters come from k-means (15 per class) instead of the paper's TOD algorithm, "
                             "whose cluster count for this data set the paper does not state.",
    ("cksvmnda", "1", "*", "CKSVMNDA"): "with the kernel-PCA feature map CKSVMNDA at small η is the kernel SVM; "
                                        "its lead over KSVM in the paper (0.1–1 point) is inside the spread of "
                                        "random partitions.",
    ("cksvmnda", "1", "*", "*"): "Rätsch's fixed partition files are not available; ours are random "
                                 "partitions of the same sizes, and generated sets are fresh draws.",
}


#: How the report words a check experiment (a measurement's ``variant``) next to the cell it backs,
#: in this order when a cell has several.
CHECKS = {
    "categorical as continuous": "with the categorical attributes weighted apart (§3.4, α and β chosen on training "
                                 "data) {model} scores {ours:.3f}; treating them as continuous, as kernelviz did "
                                 "before, {check:.3f} ({change:+.3f} from the weighting).",
    "continuous only": "on the continuous attributes alone {model} scores {check:.3f} (vs {ours:.3f} with all "
                       "of them).",
    "unit scale, points as clusters": "with RBF-PPK's densities divided by their norms and each test point given "
                                      "the covariance of its most likely cluster (normalize='unit', "
                                      "point_covariance='cluster', docs/MATH.md §4.9.1) {model} gives {check:.3f} "
                                      "(vs {ours:.3f} with kernelviz's default).",
    "unit scale": "at CkRBF's unit scale (normalize='unit') {model} gives {check:.3f} (vs {ours:.3f} at the paper's "
                  "scale): the paper's normaliser acts as a factor on C.",
}

#: Checks whose sentence stands beside the cell even when it matches the paper: what a protocol
#: option changes is worth saying either way.
ALWAYS_SHOWN = {"categorical as continuous", "unit scale, points as clusters"}


def _explanation(paper, table, row, model):
    for key in ((paper, table, row, model), (paper, table, row, "*"), (paper, table, "*", model),
                (paper, "*", "*", model), (paper, table, "*", "*"), (paper, "*", "*", "*")):
        if key in EXPLANATIONS:
            return EXPLANATIONS[key]
    return "not explained yet: the protocol differences listed for the table are the first suspects."


def verdict(ours, ours_sd, paper, paper_sd, metric):
    """('matches' | 'within x' | 'differs by x', gap) for one cell."""
    gap = ours - paper
    if abs(gap) <= TOLERANCE[metric] + 1e-12:
        return "matches", gap
    spreads = [s for s in (ours_sd, paper_sd) if s is not None and math.isfinite(s)]
    if spreads and abs(gap) <= 2 * math.sqrt(sum(s * s for s in spreads)):
        return f"within {abs(gap):.3f}", gap
    return f"differs by {gap:+.3f}", gap


def compare(result):
    """One dict per measurement of a :class:`~kernelviz.reproduce.runner.RunResult`, paper beside kernelviz."""
    index = {v.key(): v for v in _published.published(result.paper)}
    checks = {}
    for m in result.measurements:
        if m.variant:
            checks.setdefault((m.table, m.row, m.model, m.metric), {})[m.variant] = m
    rows = []
    for m in result.measurements:
        cell = m.to_dict()
        value = index.get((m.paper, m.table, m.row, m.model, m.metric))
        cell["paper_value"] = None if value is None else value.value
        cell["paper_sd"] = None if value is None else value.sd
        cell["paper_table"] = f"{PAPERS[m.paper].title}, Table {m.table}, row {m.row}, column {m.model}"
        cell["transcription_note"] = "" if value is None else _published.note(value)
        if value is None:
            cell["verdict"], cell["gap"], cell["why"] = "no published value", None, ""
            rows.append(cell)
            continue
        cell["verdict"], cell["gap"] = verdict(m.mean, m.sd, value.value, value.sd, m.metric)
        why = []
        if m.variant:
            why.append(f"check experiment ({m.variant}), not the paper's protocol.")
        else:
            differs = cell["verdict"] != "matches"
            if differs:
                why.append(cell["transcription_note"] or _explanation(m.paper, m.table, m.row, m.model))
            found = checks.get((m.table, m.row, m.model, m.metric), {})
            for variant in (v for v in CHECKS if v in found and (differs or v in ALWAYS_SHOWN)):
                check = found[variant]
                why.append("Check: " + CHECKS[variant].format(model=m.model, check=check.mean, ours=m.mean,
                                                               change=m.mean - check.mean))
        if m.capped_share:
            why.append(f"{100 * m.capped_share:.0f} % of the libsvm fits stopped at the iteration cap: not "
                       "trustworthy" + ("; the paper's kernel scale pushed the effective C past what the solver "
                                        "can finish" if _paper_scale(m) else "") + _unit_scale_capped(m, checks))
        cell["why"] = " ".join(why)
        rows.append(cell)
    return rows


def _unit_scale_capped(m, checks):
    """The unit-scale check's capped share beside the paper scale's, when this run measured it."""
    check = checks.get((m.table, m.row, m.model, m.metric), {}).get("unit scale")
    if m.variant or check is None or check.capped_share is None:
        return "."
    return f" (at CkRBF's unit scale: {100 * check.capped_share:.0f} %)."


def _paper_scale(m):
    """CkRBF columns of the CkRBF paper (any partition) use the paper's normaliser."""
    return m.paper == "ckrbf" and m.model.startswith(("C", "GMM", "DPGMM"))


def _fmt(mean, sd):
    if mean is None:
        return "—"
    return f"{mean:.3f}" + ("" if sd is None else f" ± {sd:.3f}")


def _figure(cells, path):
    """A paper-vs-kernelviz bar chart of one table's protocol cells, as a PNG (only called when
    :func:`kernelviz.export.unavailable_reason` is empty). Check runs share their protocol cell's
    label, so Plotly would draw them on top of it; their numbers are in the table.

    Drawn by the app's exporter: one browser for every figure, a timeout on each wait and nothing
    from a CDN. Plotly's ``write_image`` started a browser per figure and, once on a loaded
    machine, never returned.
    """
    import plotly.graph_objects as go

    from .. import export

    drawn = [c for c in cells if c["paper_value"] is not None and not c["variant"]]
    labels = [f"{c['row']} · {c['model']}" for c in drawn]
    figure = go.Figure([
        go.Bar(name="paper", x=labels, y=[c["paper_value"] for c in drawn]),
        go.Bar(name="kernelviz", x=labels, y=[c["mean"] for c in drawn],
               error_y={"type": "data", "array": [c["sd"] or 0 for c in drawn]}),
    ])
    figure.update_layout(barmode="group", height=420, margin={"l": 40, "r": 10, "t": 10, "b": 120})
    Path(path).write_bytes(export.figure_bytes(figure, "png"))


def write_report(results, out):
    """Write ``report.md`` and ``report.json`` for one or several runs into ``out``; returns both paths."""
    results = list(results) if isinstance(results, (list, tuple)) else [results]
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    from .. import export

    no_figures = export.unavailable_reason()
    lines, document = ["# kernelviz reproduces the papers", ""], {"runs": []}
    if no_figures:
        lines += [f"Tables only, no figures: {no_figures}", ""]
    for result in results:
        paper = PAPERS[result.paper]
        cells = compare(result)
        counts = {}
        for c in cells:
            kind = c["verdict"].split()[0]
            counts[kind] = counts.get(kind, 0) + 1
        lines += [f"## {paper.citation()}", "",
                  f"Run: `{result.settings.describe()}` settings, {result.seconds:.0f} s in this invocation (cells "
                  "stored by an earlier run of the same command are read, not recomputed). Verdicts: "
                  + ", ".join(f"{n} {k}" for k, n in sorted(counts.items())) + ".", ""]
        for table_id in dict.fromkeys(c["table"] for c in cells):
            table = _published.table(result.paper, table_id)
            in_table = [c for c in cells if c["table"] == table_id]
            lines += [f"### Table {table_id}: {table.caption}", "", f"*Paper's protocol:* {table.protocol}", "",
                      f"*kernelviz:* {in_table[0]['protocol']}. Selection: {in_table[0]['selection']}.", ""]
            if not no_figures:
                name = f"{result.paper}-table-{table_id}.png"
                _figure(in_table, out / name)
                lines += [f"![{result.paper} table {table_id}]({name})", ""]
            lines += ["| data set | column | metric | paper | kernelviz (n) | verdict | capped | why |",
                      "|---|---|---|---|---|---|---|---|"]
            for c in in_table:
                row = c["row"] + (f" ({c['variant']})" if c["variant"] else "")
                capped = "—" if not c["capped_share"] else f"⚠ {100 * c['capped_share']:.0f} %"
                lines.append(f"| {row} | {c['model']} | {c['metric']} | {_fmt(c['paper_value'], c['paper_sd'])} | "
                             f"{_fmt(c['mean'], c['sd'])} ({c['n']}) | {c['verdict']} | {capped} | "
                             f"{c['why'].replace('|', '/')} |")
            lines.append("")
        if result.not_run:
            by_row = {}
            for (t, row), why in result.not_run.items():
                by_row.setdefault((row, why), []).append(t)
            lines += ["### Not run", ""] + [f"- {row} (table{'s' if len(ts) > 1 else ''} {', '.join(ts)}): {why}"
                                            for (row, why), ts in by_row.items()]
            lines.append("")
        if result.problems:
            lines += ["### Store files skipped", ""] + [f"- {p}" for p in result.problems] + [""]
        document["runs"].append({
            "paper": result.paper, "citation": paper.citation(), "settings": result.settings.describe(),
            "seconds": result.seconds, "cells": cells,
            "not_run": [{"table": t, "row": row, "reason": why} for (t, row), why in result.not_run.items()],
            "store_problems": list(result.problems)})
    md_path, json_path = out / "report.md", out / "report.json"
    md_path.write_text("\n".join(lines), encoding="utf-8")
    json_path.write_text(json.dumps(document, indent=1, allow_nan=True), encoding="utf-8")
    return md_path, json_path
