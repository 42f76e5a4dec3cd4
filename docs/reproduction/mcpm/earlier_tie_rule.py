"""Twonorm's "MCPM with RBF-PPK is about as accurate as the kernel MPM", read by the earlier tie rule.

The full report reads each choice among tied best candidates at the centre of their plateau. The code before it
read the first in GridSearchCV's order, the smallest γ. This takes the committed cells of MCPM(RBF-PPK) and
MPM(Kernel) on Twonorm, reads each choice by that earlier rule from the plateau the cell recorded, fits the final
model again where the choice moves (the same partition, scaling and estimator as the runner's), and prints the
claim's two-sided paired t-test both ways. About 20 s.

Usage, from the repository's root: ``python docs/reproduction/mcpm/earlier_tie_rule.py``
"""

import glob
import json
from pathlib import Path

import numpy as np
from scipy import stats
from sklearn.base import clone

from kernelviz import data as _data
from kernelviz.reproduce import datasets as _datasets
from kernelviz.reproduce.papers import _selection, mcpm

CELLS = Path(__file__).parent / "full" / "cells"
MODELS = ("MCPM(RBF-PPK)", "MPM(Kernel)")


def main():
    X, y, _ = _datasets.resolve("twonorm", random_state=0, n_samples=mcpm.DRAWN["Twonorm"][0])
    X, y = np.asarray(X, float), np.asarray(y)
    n_train = int(round(mcpm.TRAIN_SHARE * len(y)))
    splits = _selection.partitions(y, n_train, 10, 0)
    columns, _ = mcpm._columns(np.logspace(-2, 3, 6), np.logspace(-3, 1, 5))
    cells = {}
    for f in glob.glob(str(CELLS / "**" / "*.json"), recursive=True):
        d = json.loads(Path(f).read_text())
        key = d["key"]
        if key["dataset"] == "Twonorm" and key["model"] in MODELS:
            cells[key["model"], int(key["split"].split("/")[0].removeprefix("partition"))] = d["result"]
    centre = {m: np.array([cells[m, r]["accuracy"] for r in range(len(splits))]) for m in MODELS}
    first = {m: centre[m].copy() for m in MODELS}
    for m in MODELS:
        for r, (train, test) in enumerate(splits):
            cell = cells[m, r]
            pick = min(cell["plateau"], key=lambda p: p["gamma"]) if cell["plateau"] else cell["chosen"]
            if pick["gamma"] == cell["chosen"]["gamma"]:
                continue
            Xs = _data.scale(X, "zscore", fit_on=X[train])
            model = clone(columns[m].estimator).set_params(**pick).fit(Xs[train], y[train])
            first[m][r] = np.mean(model.predict(Xs[test]) == y[test])
            print(f"{m}, partition {r}: plateau γ {[p['gamma'] for p in cell['plateau']]}; centre γ "
                  f"{cell['chosen']['gamma']} → first γ {pick['gamma']}: accuracy {centre[m][r]:.4f} → {first[m][r]:.4f}")
    for name, acc in (("plateau centre (the report)", centre), ("first tied candidate (earlier rule)", first)):
        a, b = acc[MODELS[0]], acc[MODELS[1]]
        print(f"{name}: {MODELS[0]} {a.mean():.4f} vs {MODELS[1]} {b.mean():.4f}, gap {a.mean() - b.mean():+.4f}, "
              f"two-sided paired t-test p = {stats.ttest_rel(a, b).pvalue:.3f}")


if __name__ == "__main__":
    main()
