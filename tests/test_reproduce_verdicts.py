"""Issue 32, verdicts a reviewer would sign: no cell at the majority rate or with capped fits
agrees with a paper; CkRBF's single values know their predictions and their folds; a plateau of
tied best cells is shown, and read by a rule that favours no corner; a check names a mechanism
only beside the number that shows it; "level" and "better than" are decided by a paired test
over the shared partitions; a row on other data than the paper's decides no claim; every stored
cell knows the code that computed it; MCPM's time claim is measured. The numbers compared with
come from independent computations (scipy.stats, scikit-learn)."""
from __future__ import annotations

import json

import numpy as np
import pytest
from scipy import stats
from sklearn.model_selection import StratifiedKFold
from sklearn.svm import SVC

import kernelviz as kv
from kernelviz import _codeversion as version
from kernelviz.reproduce import claims, diagnostics, published, report, runner
from kernelviz.reproduce.driver import run
from kernelviz.reproduce.papers import ckrbf
from kernelviz.reproduce.runner import Measurement, RunResult, Settings, part

pytestmark = pytest.mark.unit

TINY = dict(folds=2, repetitions=1, inner_folds=2, max_points=60,
            grids={"C": [1.0, 10.0], "gamma": [0.01, 0.1, 1.0], "lap_ratio": [1.0], "eta": [1e-2],
                   "n_neighbors": [3], "attribute_weight": [0.5, 1.0], "paper_attribute_weight": [0.5, 1.0]})


def tiny(**changes):
    return Settings(**{**TINY, **changes})


def _m(model, values, paper="mcpm", table="II", row="Pima", metric="accuracy", parts=(), grid=None, capped=0.0,
       variant=""):
    return Measurement(paper, table, row, model, metric, list(values), "protocol", "selection", "source", capped,
                       variant=variant, parts=list(parts), grid=grid or {})


# ----------------------------------------------------------------------------- majority level, capped
def test_a_cell_one_test_error_above_the_majority_rate_never_agrees():
    """RWM Table 2's Pima RWM 0.637 against a majority rate of 0.651 was "within 0.055"; a cell just
    one test error above the majority rate (Phoneme's) is no better: both read "majority level"."""
    fold = part([614], [np.array([1.0] * 100 + [-1.0] * 54)], predicted={"1": 120, "-1": 34})
    pima = _m("RWM", [0.584, 0.675, 0.643, 0.637, 0.646], paper="rwm", table="2", parts=[fold] * 5)
    (cell,) = report.compare(RunResult("rwm", Settings(), [pima], {}, [], 1.0))
    assert cell["verdict"] == "majority level"
    # one error more than the majority on each 30-point test part of a 10-fold CV: 1/300 of the value
    folds = part([270] * 10, [np.array([1.0] * 21 + [-1.0] * 9)] * 10)
    majority = 21 / 30
    assert diagnostics.one_test_error([folds]) == pytest.approx(1 / 300)
    at = _m("RBF", [majority + 1 / 300], paper="ckrbf", table="2", row="heart", parts=[folds])
    above = _m("RBF", [majority + 0.011], paper="ckrbf", table="2", row="heart", parts=[folds])
    assert [d["name"] for d in diagnostics.diagnose(at)] == ["majority-level"]
    assert diagnostics.blocking_verdict(diagnostics.diagnose(at)) == "majority level"
    assert diagnostics.diagnose(above) == []
    # on a 54-point test part one error is 0.0185, more than the one-point margin: it sets the margin
    crashes = part([486], [np.array([1.0] * 49 + [-1.0] * 5)])
    near = _m("RBF", [49 / 54 + 0.015], paper="ckrbf", table="2", row="crashes", parts=[crashes])
    assert diagnostics.blocking_verdict(diagnostics.diagnose(near)) == "majority level"


def test_a_cell_with_a_tenth_of_its_fits_capped_is_untrustworthy():
    """CkRBF Table 2's australian C2RBF had 43 % of its fits capped and read "matches"."""
    capped = _m("C2RBF", [0.872], paper="ckrbf", table="2", row="australian", capped=0.43)
    (cell,) = report.compare(RunResult("ckrbf", Settings(), [capped], {}, [], 1.0))
    assert cell["verdict"] == "untrustworthy: capped"
    assert report.verdict(0.872, None, 0.872, None, "accuracy")[0] == "matches"  # what it was called


# ----------------------------------------------------------------------------- CkRBF's single values
def test_ckrbf_best_cells_record_their_folds_and_predictions_as_scikit_learn_computes_them(tmp_path):
    """Table 2's RBF on 80 heart points: the value's fold scores and predicted class counts at the
    chosen cell, against SVC(C, γ) fitted fold by fold on the same folds."""
    result = run("ckrbf", tables=["2"], rows=["heart"], out=tmp_path, settings=tiny(max_points=80))
    rbf = next(m for m in result.measurements if m.model == "RBF")
    (record,) = rbf.parts
    from sklearn.model_selection import train_test_split

    ds = kv.data.load("heart")
    X, _, y, _ = train_test_split(ds.X, ds.y, train_size=80, stratify=ds.y, random_state=0)
    X = kv.data.scale(X, "minmax")
    C, gamma = record["chosen"]["C"], record["chosen"]["gamma"]
    folds = StratifiedKFold(n_splits=2, shuffle=True, random_state=0)
    scores, counts = [], []
    for train, test in folds.split(X, y):
        predicted = SVC(C=C, gamma=gamma).fit(X[train], y[train]).predict(X[test])
        scores.append(np.mean(predicted == y[test]))
        labels, n = np.unique(predicted, return_counts=True)
        counts.append({f"{v:g}": int(c) for v, c in zip(labels, n)})
    assert record["fold_values"] == pytest.approx(scores)
    assert record["predicted_folds"] == counts
    assert np.mean(record["fold_values"]) == pytest.approx(rbf.values[0])
    assert {"C": C, "gamma": gamma} in record["plateau"]


def test_equal_single_values_with_equal_folds_are_identical_and_one_class_fires():
    """australian mRBF = C2RBF = GMM2 = DPGMM2 = 0.8681 passed unremarked: one value per cell."""
    def cell(model, folds, predicted):
        record = part([621] * 2, [np.array([1.0] * 34 + [-1.0] * 35)] * 2)
        record.update(fold_values=folds, predicted_folds=predicted, predicted=predicted[0])
        return _m(model, [float(np.mean(folds))], paper="ckrbf", table="2", row="australian", parts=[record])

    two = [{"1": 30, "-1": 39}, {"1": 31, "-1": 38}]
    measured = [cell("mRBF", [0.86, 0.8762], two), cell("C2RBF", [0.86, 0.8762], two),
                cell("RBF", [0.8762, 0.86], two)]  # the same mean from other folds: not identical
    flags = {m.model: diagnostics.diagnose(m, measured) for m in measured}
    assert [d["name"] for d in flags["C2RBF"]] == ["identical-to"]
    assert flags["C2RBF"][0]["text"] == "identical-to: the same 2 per-fold scores of its single value as mRBF"
    assert flags["RBF"] == []
    one = cell("GMM2", [35 / 69, 35 / 69], [{"-1": 69}, {"-1": 69}])
    assert diagnostics.blocking_verdict(diagnostics.diagnose(one, [one])) == "degenerate: predicts one class"


# ----------------------------------------------------------------------------- plateaus
def test_a_plateau_is_read_at_its_centre_and_a_tied_interior_cell_is_no_grid_edge():
    """heart's RBF tied at (10, 0.01) and (10⁴, 10⁻⁵): the old rule read the corner and flagged it."""
    scores = np.full((4, 5), 0.80)
    scores[0, 0] = scores[1, 2] = scores[2, 2] = scores[3, 3] = 0.84  # a corner and three inside cells
    chosen, tied = kv.evaluation.best_cell(scores)
    assert sorted(tied) == [(0, 0), (1, 2), (2, 2), (3, 3)]
    centre = np.mean(tied, axis=0)
    assert chosen == min(tied, key=lambda t: (np.sum((np.array(t) - centre) ** 2), t))
    assert chosen == (1, 2)  # (1, 2) and (2, 2) lie equally near the centre: the smaller C
    assert np.unravel_index(np.argmax(scores), scores.shape) == (0, 0)  # what the first best cell reads
    grid = {"C": [0.01, 1.0, 100.0, 1e4], "gamma": [1e-5, 1e-3, 0.01, 1.0, 100.0]}
    corner = part([243] * 10, [np.array([1.0] * 15 + [-1.0] * 12)] * 10, chosen={"C": 0.01, "gamma": 1e-5})
    corner["plateau"] = [{"C": 0.01, "gamma": 1e-5}, {"C": 1.0, "gamma": 0.01}]
    alone = dict(corner, plateau=[{"C": 0.01, "gamma": 1e-5}])
    tied_m = _m("RBF", [0.84], paper="ckrbf", table="2", row="heart", parts=[corner], grid=grid)
    alone_m = _m("RBF", [0.84], paper="ckrbf", table="2", row="heart", parts=[alone], grid=grid)
    assert [d["name"] for d in diagnostics.diagnose(tied_m)] == ["tied-best"]
    assert "reached by 2 grid cells: (C 0.01, gamma 1e-05), (C 1, gamma 0.01)" in diagnostics.diagnose(tied_m)[0]["text"]
    assert [d["name"] for d in diagnostics.diagnose(alone_m)] == ["grid-edge", "grid-edge"]


# ----------------------------------------------------------------------------- mechanisms, with numbers
def _check_pair(ours, check, model="C2RBF"):  # the paper's Table 4 heart C2RBF: 0.815
    main = _m(model, [ours], paper="ckrbf", table="4", row="heart")
    unit = _m(model, [check], paper="ckrbf", table="4", row="heart", variant="unit scale")
    return RunResult("ckrbf", Settings(), [main, unit], {}, [], 1.0)


def test_the_plateau_rule_holds_in_any_number_of_axes_and_never_reads_a_missing_candidate():
    scores = np.full((2, 3, 3), 0.5)
    scores[0, 0, 0] = np.nan  # no candidate there (RWM's α = β = 0)
    chosen, tied = kv.evaluation.best_cell(scores)
    assert len(tied) == 17 and (0, 0, 0) not in tied
    assert chosen == (1, 1, 1)  # the centre is (9/17, 18/17, 18/17): 8 of the tied cells have index 0 first, 9 have 1
    scores[1, 2, 2] = 0.9
    assert kv.evaluation.best_cell(scores) == ((1, 2, 2), [(1, 2, 2)])


def _constant_ratings(kernel, X, y, labeled, hidden, Cs, gammas, *args):
    """Every candidate rated alike: the whole grid is one plateau."""
    return np.full((len(Cs), len(gammas)), 0.5), 0, len(Cs) * len(gammas)


def test_rwm_reads_a_plateau_of_tied_ratings_at_its_centre_over_every_axis_and_records_it(tmp_path, monkeypatch):
    """Before, RWM read the first tied (C, γ) γ by γ, and the first (α, β) pair, (1, 1): corners."""
    monkeypatch.setattr(kv.evaluation, "validation_ratings", _constant_ratings)
    result = run("rwm", tables=["4"], rows=["Pima", "Heart"], out=tmp_path, settings=tiny())
    by = {(m.row, m.model, m.variant): m for m in result.measurements}
    lap = by["Pima", "LAP", ""]  # C ∈ {1, 10}, γ ∈ {0.01, 0.1, 1}, ratio ∈ {1}
    for p in lap.parts:
        assert p["chosen"] == {"C": 1.0, "gamma": 0.1, "lap_ratio": 1.0}
        assert len(p["plateau"]) == 6 and p["chosen"] in p["plateau"]
    heart = by["Heart", "RWM", ""]  # and α, β ∈ {0.5, 1}: 4 pairs × 6
    for p in heart.parts:
        assert p["chosen"] == {"C": 1.0, "gamma": 0.1, "continuous_weight": 0.5, "categorical_weight": 0.5}
        assert len(p["plateau"]) == 24
    text = [d["text"] for d in diagnostics.diagnose(heart) if d["name"] == "tied-best"]
    assert text and "reached by 24 grid cells" in text[0] and "and 18 more" in text[0]


def test_the_partition_runners_read_a_plateau_at_its_centre_and_record_it(tmp_path, monkeypatch):
    """CKSVMNDA's and MCPM's search: GridSearchCV's own rule read the first tied candidate."""
    from kernelviz.reproduce.papers import _selection

    monkeypatch.setattr(_selection, "_search", lambda estimator, candidates, *a: np.full(len(candidates), 0.75))
    settings = tiny(grids={**TINY["grids"], "C": [0.1, 1.0, 10.0], "gamma": [0.01, 0.1, 1.0]})
    result = run("cksvmnda", tables=["1"], rows=["Heart"], out=tmp_path, settings=settings)
    by = {(m.model, m.metric): m for m in result.measurements}
    for p in by["KSVM", "accuracy"].parts:
        assert p["chosen"] == {"C": 1.0, "gamma": 0.1}
        assert len(p["plateau"]) == 9
    for p in by["KFD", "accuracy"].parts:
        assert p["chosen"] == {"gamma": 0.1} and len(p["plateau"]) == 3


def test_the_report_counts_the_values_chosen_among_tied_candidates():
    """How often a tie decided a choice, said at the report's head (the last stop's note: "not measured")."""
    def cell(model, plateaus, variant="", metric="accuracy"):
        parts = [{"chosen": {"C": 1.0}, **({"plateau": [{"C": c} for c in p]} if p is not None else {})}
                 for p in plateaus]
        return {"table": "II", "row": "Pima", "model": model, "variant": variant, "metric": metric, "parts": parts}

    cells = [cell("KSVM", [[1.0], [1.0, 10.0], [0.1, 1.0, 10.0]]),
             cell("KSVM", [[1.0], [1.0, 10.0], [0.1, 1.0, 10.0]], metric="alpha"),  # the same choices again
             cell("KFD", [[1.0], [1.0]]), cell("KFD", [[1.0, 10.0]] * 2, variant="a check")]
    assert report._ties_line(cells) == ("Ties: 2 of the protocol's 5 parameter choices were made among candidates "
                                        "tied at the best score (plateaus of 2–3 candidates), each read at the tied "
                                        "candidate nearest its plateau's centre; 2 of the check experiments' 2. ")
    assert report._ties_line([cell("KFD", [None, None])]) == ("Ties: not recorded by the code that computed these "
                                                              "cells (it read the first tied candidate). ")
    assert report._ties_line([{**cell("MPM", []), "parts": [{}]}]) == ""  # nothing chosen


def test_ckrbf_tables_read_at_c_1_count_the_capped_fits_of_that_row_alone():
    """A grid whose fits are capped at C = 100 only: Tables 4 and 5 read C = 1 and are not capped."""
    capped = [[0, 0, 0], [0, 0, 0], [10, 10, 10]]  # C ∈ {0.01, 1, 100}, γ × 3, 10 folds
    cells = [{"capped_fits": 30, "fits": 90, "capped": capped}]
    assert ckrbf._capped_share(cells) == pytest.approx(1 / 3)
    assert ckrbf._capped_share(cells, C_index=1) == 0
    assert ckrbf._capped_share(cells, C_index=2) == 1


def test_ckrbf_table_5_trusts_a_comparison_no_more_than_its_less_converged_kernel(monkeypatch):
    """Table 5 compares a CkRBF kernel with RBF or mRBF at C = 1. Their fits never cap, and a share pooled over
    both kernels' fits was half the CkRBF kernel's: liver-disorders C2RBF>RBF read "matches" at 6 % where its
    C2RBF fits at C = 1 are capped at 11 % (the full report of e84b1abb65a62d9d, ten such cells). A comparison
    is as sound as its less converged side: its share is the larger of its two kernels'."""
    from types import SimpleNamespace

    context = SimpleNamespace(settings=Settings(quick=True), sources=["liver-disorders"], source=lambda row: "made")
    Cs, gammas, folds, _ = ckrbf._grid(context)
    scores = np.full((len(Cs), len(gammas)), 0.7)

    def grid(capped_at_one):
        capped = np.zeros((len(Cs), len(gammas)), dtype=int)
        capped[1] = capped_at_one  # of the `folds` fits behind each grid point of the row C = 1
        return {"scores": scores.tolist(), "capped": capped.tolist(), "capped_fits": int(capped.sum()),
                "fits": scores.size * folds}

    grids = {**{f"C{k}RBF": [grid(2 if k == 2 else 0)] for k in (2, 3, 4)}, "RBF": [grid(0)], "mRBF": [grid(0)]}
    labels = np.arange(20) % 2
    monkeypatch.setattr(ckrbf, "_grids_for", lambda context, table_id, row, unit_scale=False: (grids, labels))
    shares = {m.model: m.capped_share for m in ckrbf._win_table(context) if not m.variant}
    assert shares["C2RBF>RBF"] == shares["C2RBF>mRBF"] == pytest.approx(2 / folds)  # pooled with RBF's: half of it
    assert shares["C3RBF>RBF"] == 0


def test_a_check_that_changes_nothing_names_no_mechanism():
    (cell, _) = report.compare(_check_pair(0.7, 0.7))
    assert "changes nothing here" in cell["why"]
    assert "factor on C" not in cell["why"] and "closes" not in cell["why"]
    (cell, _) = report.compare(_check_pair(0.7, 0.75))
    assert "the paper's scale moves the cell by -0.050" in cell["why"]
    assert "That option closes 0.050 of the gap (below the paper's 0.815 by 0.115)." in cell["why"]


def test_a_check_that_closes_nothing_visible_or_overshoots_says_so_with_signs():
    (cell, _) = report.compare(_check_pair(0.7, 0.70004))
    assert "closes" not in cell["why"]
    (cell, _) = report.compare(_check_pair(0.7, 0.93))
    assert "closes" not in cell["why"]
    assert "That option overshoots: it lands +0.115 from the paper's 0.815, where the protocol lands -0.115." \
        in cell["why"]
    assert report.contradictions([cell]) == []


# ----------------------------------------------------------------------------- paired tests
def _pima(a, b):
    return {"Pima": {"MCPM(RBF-PPK)": claims.Cell(np.mean(a), np.std(a, ddof=1), tuple(a)),
                     "MPM(Kernel)": claims.Cell(np.mean(b), np.std(b, ddof=1), tuple(b))}}


def test_level_is_decided_by_a_paired_test_whose_p_value_is_scipys():
    """MCPM(RBF-PPK) 0.681 against the kernel MPM 0.735 on the same 10 partitions was "level" by
    the wide sds; the paired t-test over the partitions finds the gap."""
    claim = next(c for c in published.CLAIMS if c.paper == "mcpm" and c.table == "II" and c.test == "comparable")
    rng = np.random.default_rng(0)
    b = 0.735 + rng.normal(0, 0.04, 10)
    a = b - 0.054 + rng.normal(0, 0.01, 10)
    holds, lines, summary = claims.decide(claim, _pima(a, b))
    expected = stats.ttest_rel(a, b).pvalue
    assert holds is False
    assert f"p = {expected:.3f}" in lines[0] or (expected < 0.001 and "p < 0.001" in lines[0])
    assert "paired t-test over the 10 shared partitions" in lines[0] and "not level" in lines[0]
    level = b + rng.normal(0, 0.004, 10)
    holds, lines, _ = claims.decide(claim, _pima(level, b))
    assert holds is bool(stats.ttest_rel(level, b).pvalue >= 0.05)
    assert claims.paired_p(level, b) == pytest.approx(stats.ttest_rel(level, b).pvalue)


def test_better_than_needs_a_one_sided_paired_test_at_the_papers_precision():
    claim = next(c for c in published.CLAIMS if c.paper == "cksvmnda")
    rng = np.random.default_rng(1)
    base = 0.77 + rng.normal(0, 0.02, 25)
    noisy = base + 0.002 + rng.normal(0, 0.02, 25)  # CKSVMNDA's 0.001–0.002 leads
    table = {"Heart": {"CKSVMNDA": claims.Cell(noisy.mean(), None, tuple(noisy)),
                       **{o: claims.Cell(base.mean(), None, tuple(base)) for o in ("KSVM", "KNDA", "KFD")}}}
    holds, lines, summary = claims.decide(claim, table)
    p = stats.ttest_rel(noisy, base, alternative="greater").pvalue
    assert claims.paired_p(noisy, base, "greater") == pytest.approx(p)
    assert holds is bool(p < 0.05) and f"p = {p:.3f}" in lines[0]
    assert "one-sided paired t-test over the 25 shared partitions" in lines[0]
    # a constant lead smaller than the paper's printed precision (0.001) is no lead
    tiny_lead = base + 0.0004
    table["Heart"]["CKSVMNDA"] = claims.Cell(tiny_lead.mean(), None, tuple(tiny_lead))
    assert claims.decide(claim, table)[0] is False
    assert claims.paired_p(tiny_lead, base, "greater") == 0.0  # no spread: decided outright


def test_the_cksvmnda_papers_confidences_are_a_paired_t_test_over_its_data_sets():
    """CKSVMNDA's Table 1 ends with "confidence" 99.8, 97.6 and 99.9 % for KSVM, KNDA and KFD: 100 · (1 − p)
    of a two-sided paired t-test of its 11 data sets' accuracies (scipy gives 99.84, 97.59, 99.88). The
    claim is decided by that test on the rows run; the paper's own values bear it out."""
    claim = next(c for c in published.CLAIMS if c.paper == "cksvmnda" and c.test == "paired over rows")
    table = claims._published_table(claim, {v.row for v in published.published("cksvmnda", "1")})
    assert len(table) == 11
    holds, _, summary = claims.decide(claim, table)
    assert holds is True
    for column, confidence in (("KSVM", 99.8), ("KNDA", 97.6), ("KFD", 99.9)):
        means = [[cells[c].mean for c in ("CKSVMNDA", column)] for cells in table.values()]
        p = stats.ttest_rel(*zip(*means)).pvalue
        assert round(100 * (1 - p), 1) == confidence
        assert f"{column}: mean difference " in summary and f"confidence {100 * (1 - p):.1f} %" in summary
    # a subject that is level on average is not significantly better, whatever its spread
    level = {row: {c: claims.Cell(0.8 + (0.01 if (i % 2) == (c == "CKSVMNDA") else 0)) for c in claim.columns}
             for i, row in enumerate("abcdef")}
    assert claims.decide(claim, level)[0] is False


def test_a_row_on_other_data_than_the_papers_decides_no_claim(tmp_path):
    """CKSVMNDA's Breast-Cancer runs the Wisconsin set (683 × 10); the paper's is Ljubljana (277 × 9)."""
    measured = []
    for row, lead in (("Breast-Cancer", 0.03), ("Heart", -0.01)):
        for model in ("CKSVMNDA", "KSVM", "KNDA", "KFD"):
            values = [0.9 + (lead if model == "CKSVMNDA" else 0) + 0.01 * k for k in range(3)]
            measured.append(_m(model, values, paper="cksvmnda", table="1", row=row))
    data = {("1", "Breast-Cancer"): {"digest": "x", "points": 683, "features": 10, "classes": {"-1": 444, "1": 239},
                                     "source": "bundled"},
            ("1", "Heart"): {"digest": "y", "points": 270, "features": 13, "classes": {"-1": 150, "1": 120},
                             "source": "bundled"}}
    result = RunResult("cksvmnda", Settings(), measured, {}, [], 1.0, data=data)
    md, js = report.write_report(result, tmp_path)
    claim, *_ = json.loads(js.read_text())["runs"][0]["claims"]
    assert all(not line.startswith("Breast-Cancer") for line in claim["cells"])
    assert claim["excluded"] and claim["excluded"][0].startswith("Breast-Cancer (its data are not the paper's: "
                                                                 "683 points here, 277 in the paper's source")
    assert "does not decide" in md.read_text()


def _labeled(model, values, table, row, labeled):
    return Measurement("rwm", table, row, model, "accuracy", list(values), "protocol", "selection", "source", 0.0,
                       notes=[f"labeled points per fold: {', '.join(str(labeled) for _ in values)}"])


def test_a_row_that_labels_other_numbers_than_the_papers_table_is_another_experiment(tmp_path):
    """RWM's Table 3 prints 80 labeled points for Vowel (10 % of |L| = 792: all 990 of Deterding's points)
    where the run, on Table 1's 528-point training part, labels 44 (4 per class); its LAP read
    "matches". Australian's 55 against the paper's 56 is rounding (10 % of 553), not another
    experiment. Iris labels 12 in Tables 2 and 3 alike (10 % of 120 is 4 per class): the same
    experiment, whose identical values the report now explains."""
    kernels = ("RWM", "GMM", "RBF", "LAP")
    measured = [_labeled(k, [0.40 + 0.01 * i, 0.41], "3", "Vowel", 44) for i, k in enumerate(kernels)]
    measured += [_labeled(k, [0.85 + 0.01 * i, 0.86], table, "Iris", 12) for i, k in enumerate(kernels)
                 for table in ("2", "3")]
    measured += [_labeled(k, [0.80 + 0.01 * i, 0.86], "3", "Australian", 55) for i, k in enumerate(kernels)]
    # Table 4 labels the whole training part: Ecoli's folds hold 268 or 269 points, the paper prints 270
    measured += [_labeled(k, [0.80 + 0.01 * i, 0.86], "4", "Ecoli", 268) for i, k in enumerate(kernels)]
    cells = {(c["table"], c["row"], c["model"]): c for c in report.compare(RunResult("rwm", Settings(), measured, {},
                                                                                         [], 1.0))}
    vowel = cells["3", "Vowel", "LAP"]
    assert vowel["verdict"].startswith("other experiment (")
    assert vowel["why"].startswith("Not the paper's experiment: the paper labels 80 points per training part, this "
                                   "run 44; this row decides no claim.")
    assert "Labeled points per fold: 44, 44 (the paper's table: 80)." in vowel["why"]
    australian = cells["3", "Australian", "RWM"]
    assert not australian["verdict"].startswith("other") and "(the paper's table: 56)" in australian["why"]
    assert "The same experiment as Table 2's cell: the same 12 labeled points per fold" in cells["3", "Iris", "GMM"]["why"]
    assert "same experiment" not in cells["2", "Iris", "GMM"]["why"]
    assert "same experiment" not in australian["why"]
    assert not cells["4", "Ecoli", "RWM"]["verdict"].startswith("other")
    md, js = report.write_report(RunResult("rwm", Settings(), measured, {}, [], 1.0), tmp_path)
    decided = [c for c in json.loads(js.read_text())["runs"][0]["claims"] if c["table"] == "3"]
    assert decided and all(c["excluded"] == ["Vowel (not the paper's experiment: the paper labels 80 points per "
                                             "training part, this run 44)"] for c in decided)
    assert all(not line.startswith("Vowel") for c in decided for line in c["cells"])


def test_yeasts_and_satimages_printed_shares_are_misprints_not_other_data():
    """The RWM paper's Yeast shares add up to 98.0 % (28.1 and 10.1 for UCI's 28.9 and 11.0); its Satimage
    shares are the Statlog counts over the misprinted n = 6345, while its Tables 3 and 4 label 10 % and
    80 % of 6435. Both rows ran, and were kept from deciding by those shares."""
    yeast = published.data_facts("rwm", "Yeast")
    counts = dict(zip("abcdefghij", (463, 429, 244, 163, 51, 44, 35, 30, 20, 5)))
    assert sum(yeast.classes) == pytest.approx(98.0)
    assert yeast.differences(1484, 8, counts) and yeast.deciding(1484, 8, counts) == []
    satimage = published.data_facts("rwm", "Satimage")
    landsat = dict(zip("abcdef", (1533, 703, 1358, 626, 707, 1508)))
    assert satimage.differences(6435, 36, landsat) and satimage.deciding(6435, 36, landsat) == []
    assert published.LABELED["rwm", "3", "Satimage"] == round(0.1 * 0.8 * 6435)
    assert published.LABELED["rwm", "4", "Satimage"] == 5147  # 80 % of 6435 is 5148: within a point


# ----------------------------------------------------------------------------- code version
def test_a_cell_of_other_code_is_computed_again_and_the_report_names_the_version(tmp_path, monkeypatch):
    from kernelviz.reproduce.papers import _selection

    result = run("cksvmnda", rows=["Heart"], out=tmp_path, settings=tiny())
    assert result.code == version.code_version("kernelviz.reproduce.papers.cksvmnda") and len(result.code) == 16
    real, computed = _selection._fit_and_score, []
    monkeypatch.setattr(_selection, "_fit_and_score", lambda *a, **k: computed.append(1) or real(*a, **k))
    run("cksvmnda", rows=["Heart"], out=tmp_path, settings=tiny())
    assert computed == []  # same code: read
    monkeypatch.setattr(runner._version, "code_version", lambda module: "0" * 16)
    again = run("cksvmnda", rows=["Heart"], out=tmp_path, settings=tiny())
    assert len(computed) == 4 and again.code == "0" * 16  # other code: every cell computed again, and said
    md, _ = report.write_report(result, tmp_path / "r")
    assert f"Code version `{result.code}`" in md.read_text()


def test_the_code_version_covers_the_modules_a_cell_runs_through(tmp_path, monkeypatch):
    modules = version.modules("kernelviz.reproduce.papers.mcpm")
    for needed in ("kernelviz.models.minimax", "kernelviz.kernels", "kernelviz._svm", "kernelviz.data.scaling",
                   "kernelviz.reproduce.papers._selection", "kernelviz.reproduce.papers.mcpm"):
        assert needed in modules
    for left_out in ("kernelviz.reproduce.report", "kernelviz.data.io", "kernelviz.pipeline"):
        assert left_out not in modules
    before = version.code_version("kernelviz.reproduce.papers.mcpm")
    real = version._path

    def edited(module):
        path = real(module)
        if module == "kernelviz.models.minimax":
            copy = tmp_path / "minimax.py"
            copy.write_bytes(path.read_bytes() + b"\n# an edit\n")
            return copy
        return path

    monkeypatch.setattr(version, "_path", edited)
    assert version.code_version("kernelviz.reproduce.papers.mcpm") != before


# ----------------------------------------------------------------------------- MCPM's time claim
def test_mcpm_cells_time_training_and_testing_and_the_time_claim_is_decided(tmp_path):
    result = run("mcpm", tables=["II"], out=tmp_path, settings=tiny(repetitions=2, max_points=80))
    times = {(m.model, m.metric): m for m in result.measurements if m.metric in diagnostics.TIMES}
    assert {model for model, _ in times} == {"SCM(LPPK)", "SCM(RBF-PPK)", "MPM(Linear)", "MPM(Kernel)",
                                              "MCPM(LPPK)", "MCPM(RBF-PPK)"}
    assert all(len(m.values) == 2 and all(v >= 0 for v in m.values) for m in times.values())
    cells = report.compare(result)
    found = {r["claim"]: r for r in claims.evaluate("mcpm", cells) if r["table"] == "II"}
    train = found["MCPM with RBF-PPK trains much faster than the kernel MPM (the paper's title claim)"]
    # decided by the paired test; in a run this small MCPM(RBF-PPK) predicts one class, and a claim
    # resting on such a cell alone is undecided (claims.evaluate)
    assert train["status"] in (("undecided: rests on untrustworthy cells",) if train["flagged"]
                               else ("reproduced", "not reproduced")), train
    assert "the paper: 7.77e+04 ×" in train["cells"][0] and "one-sided paired t-test" in train["cells"][0]
    timed = next(c for c in cells if c["metric"] == "train_seconds" and c["model"] == "MPM(Kernel)")
    assert timed["verdict"].startswith("timed: ")


def test_a_time_claim_on_cells_timed_with_two_blas_threads_is_undecided(tmp_path):
    """CPU seconds count a second BLAS thread's waiting: MCPM's run of 2026-11-28, timed with two
    threads, said Twonorm's MCPM tests no faster than the kernel MPM (0.185 s against 0.150 s), where
    one thread gives 0.018 s against 0.035 s. A "faster" claim on cells that recorded more than one
    thread is undecided, and the report says why; the accuracy claims are decided as before."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):  # as `kernelviz reproduce` computes (kernelviz._threads)
        result = run("mcpm", tables=["II"], out=tmp_path, settings=tiny(repetitions=2, max_points=80))
    assert result.environments and all(env["blas_threads"] == 1 for env, _ in result.environments)
    cells = report.compare(result)
    one = {r["claim"]: r["status"] for r in claims.evaluate("mcpm", cells, blas_threads=1) if r["table"] == "II"}
    two = {r["claim"]: r["status"] for r in claims.evaluate("mcpm", cells, blas_threads=2) if r["table"] == "II"}
    timed = [c for c in one if "faster" in c]
    assert len(timed) == 2
    for claim in one:
        if claim in timed:
            assert two[claim] == "undecided: timed with 2 BLAS threads (CPU seconds count the threads' waiting)"
        else:
            assert two[claim] == one[claim]
    result.environments = [({**env, "blas_threads": 2}, n) for env, n in result.environments]
    md, _ = report.write_report(result, tmp_path)
    assert md.read_text().count("undecided: timed with 2 BLAS threads") == 2


def test_earlier_code_cells_are_found_under_another_numpys_float_text_and_never_computed(tmp_path):
    """The committed full reports are re-judged from cells stored before cells carried a code version;
    their keys spell γ = 10⁻⁵ as another numpy printed it."""
    from kernelviz.reproduce.store import CellKey, ResultStore

    stored = CellKey("ckrbf", "grid", "heart", "cv10-seed0", "RBF", "C=[0.01, 1.0]|gamma=[9.999999999999999e-06, 0.1]",
                     data="d", protocol="p")
    store = ResultStore(tmp_path)
    store.put(stored, {"scores": [[0.5]]})
    today = CellKey("ckrbf", "grid", "heart", "cv10-seed0", "RBF", "C=[0.01, 1.0]|gamma=[1e-05, 0.1]", data="d",
                    protocol="p")
    assert store.get(today) is None and store.get_close(today) == {"scores": [[0.5]]}
    other = CellKey("ckrbf", "grid", "heart", "cv10-seed0", "RBF", "C=[0.01, 1.0]|gamma=[2e-05, 0.1]", data="d",
                    protocol="p")
    assert store.get_close(other) is None
    tracker = runner._Tracker(None, "ckrbf", "2", "heart", 1, earlier_code=True)
    assert tracker.cell(store, today, lambda: pytest.fail("computed")) == {"scores": [[0.5]]}
    with pytest.raises(runner.EarlierCodeMissing):
        tracker.cell(store, other, lambda: pytest.fail("computed"))
    assert Settings(earlier_code=True).fingerprint() == Settings().fingerprint().replace('"results":3', '"results":2')


def test_the_report_header_gives_each_tables_computing_time(tmp_path):
    measured = [_m("RWM", [0.8, 0.82], paper="rwm", table="2", row="Heart")]
    result = RunResult("rwm", Settings(), measured, {}, [], 1.0, table_seconds={"2": (600.0, 10, 10),
                                                                              "3": (90.0, 4, 5)})
    md, _ = report.write_report(result, tmp_path)
    assert ("Computing time per table (a cell read by several tables counts in each): Table 2 10.0 min, Table 3 "
            "1.5 min (4 of its 5 cells timed).") in md.read_text()


def test_a_timed_fit_computes_every_stage_of_its_own_training(monkeypatch):
    """The MCPM paper's times are of one model's whole training. Split by split, every column in each,
    SCM's timed fit on a training part left its per-class k-means in the models' stage memo, and the
    MCPM columns' timed fits that followed on the same part read it: MCPM's training time left out
    its clustering (Pima: 0.003 s against SCM(LPPK)'s 0.034 s, in the full run of 6d1b74786976d8f8).
    Each timed fit clusters for itself; the searches still share their stages."""
    from kernelviz import models
    from kernelviz.models import _base
    from kernelviz.reproduce.papers import _selection

    rng = np.random.RandomState(0)
    X = np.vstack([rng.normal(-1, 1, (60, 2)), rng.normal(1, 1, (60, 2))])
    y = np.repeat([-1, 1], 60)
    train, test = np.arange(0, 120, 2), np.arange(1, 120, 2)
    clusterings = []
    real = _base._partitions.fit_per_class
    monkeypatch.setattr(_base._partitions, "fit_per_class",
                        lambda *a, **k: clusterings.append(len(a[1])) or real(*a, **k))
    _base._UNIT_PARTITIONS.clear()
    for estimator in (models.SCM(kernel="lppk", n_components=3, random_state=0),
                      models.MCPM(kernel="rbf-ppk", n_components=3, random_state=0)):
        _selection._fit_and_score(_selection.Column(estimator, {}), X, y, train, test, 3, 0, 1)
    assert clusterings == [60, 60]  # each timed fit clustered the training part itself
    clusterings.clear()
    # a search's fits on one fold still share the fold's clustering, whatever γ
    _selection._fit_and_score(_selection.Column(models.MCPM(kernel="rbf-ppk", n_components=3, random_state=0),
                                                {"gamma": [0.1, 1.0, 10.0]}), X, y, train, test, 3, 0, 1)
    assert clusterings == [40, 40, 40, 60]  # one per inner fold (2/3 of 60), then the timed fit's own
