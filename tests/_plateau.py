"""The selection rule every runner follows, written out independently of
``kernelviz.evaluation.best_cell`` for the tests that recompute a choice with plain scikit-learn:
of the candidates tied at the best score, the one nearest the centre of their plateau (the mean of
their grid indices), ties going to the smaller index on the first axis, then on the next."""
from __future__ import annotations


def centre_of_plateau(scores: dict) -> tuple:
    """``scores``: {index tuple: score}. Returns the index tuple read."""
    best = max(scores.values())
    tied = [index for index, score in scores.items() if abs(score - best) <= 1e-12]
    centre = [sum(index[k] for index in tied) / len(tied) for k in range(len(tied[0]))]
    return min(tied, key=lambda index: (round(sum((a - c) ** 2 for a, c in zip(index, centre)), 9), index))
