"""The Grid search and P_f(α) views' page (issue 29): what they say after a Cancel, how P_f(α)
starts, and where the grid's ★ sits."""

from __future__ import annotations

import pytest

from _charts import figures
from apptest import cancel_at_ckrbf, assert_clean, open_app, unescaped

pytestmark = pytest.mark.app

SMALL = {"gen_params": "n_samples:80", "kernels": "rbf,ckrbf", "grid_steps": "3", "cv": "2"}


def small(seed: int) -> dict:
    """SMALL drawn with a seed of the test's own: a search another test finished (kept for every
    session, on disk too) must not stand in for the one this test starts."""
    return {**SMALL, "data_seed": str(seed)}


def infos(at) -> list[str]:
    return [unescaped(i.value) for i in at.info]


def run_search(at, label: str = "Run grid search"):
    next(b for b in at.button if b.label == label).click()
    at.run()
    at.session_state["_computed"]["_grid_job"].job.result(300)
    return at.run()


def test_after_cancel_the_grid_says_in_one_sentence_what_happened_and_what_the_button_does(monkeypatch):
    cancel_at_ckrbf(monkeypatch)
    at = open_app(dict(view="grid", **small(101)))
    run_search(at)
    assert_clean(at)
    assert infos(at) == ["CkRBF: the search was cancelled; the figure shows what finished, marked incomplete. "
                         "Searching again takes 18 SVM fits, in the background: the other views stay usable."
                         ], infos(at)
    (fig,) = figures(at)
    assert "incomplete" in fig["layout"]["title"]["text"]


def test_after_cancel_pf_says_the_search_was_cancelled_without_promising_a_figure(monkeypatch):
    cancel_at_ckrbf(monkeypatch)
    at = open_app(dict(view="grid", **small(102)))
    run_search(at)
    at.segmented_control(key="view").set_value("pf")
    at.run()
    assert_clean(at)
    assert infos(at) == ["CkRBF: the search was cancelled. Searching again takes 18 SVM fits, in the background: "
                         "the other views stay usable.",
                         # the other scale's search is its own curve, named as its legend names it
                         "CkRBF (unit scale): not searched yet with these settings (18 SVM fits). It runs in the "
                         "background: the other views stay usable."], infos(at)


def test_pf_opened_starts_its_searches_in_the_background_without_a_button():
    """Opened with no search done, P_f(α) computes (progress, Cancel) instead of waiting for a
    button, and draws its curves when the searches end."""
    at = open_app(dict(view="pf", **small(103)))
    assert not at.exception
    assert not [b for b in at.button if b.label == "Run grid search"]
    job = at.session_state["_computed"]["_grid_job"].job
    assert set(job.names) == {"rbf", "ckrbf"}
    assert [b for b in at.button if b.label == "Cancel"]
    job.result(300)
    at.run()
    assert_clean(at)
    (fig,) = figures(at)
    assert sorted(t["name"].split(" (AUC")[0] for t in fig["data"] if "AUC" in t.get("name", "")) == ["CkRBF", "RBF"]


def test_pf_does_not_start_again_a_search_that_was_cancelled(monkeypatch):
    cancel_at_ckrbf(monkeypatch)
    at = open_app(dict(view="pf", **small(104)))
    job = at.session_state["_computed"]["_grid_job"].job
    job.result(300)
    at.run()
    at.run()
    assert at.session_state["_computed"]["_grid_job"].job is job  # no new search behind the person's Cancel
    assert [b for b in at.button if b.label == "Run grid search"]
    assert infos(at)[0].startswith("CkRBF: the search was cancelled."), infos(at)
