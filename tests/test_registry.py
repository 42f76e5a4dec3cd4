"""One registry per concept (kernelviz.registry): its names agree with the backend, every
place the app names a choice takes the registry's label, and a kernel's facts (one row per
kernel) are what the kernel does."""

from __future__ import annotations

import numpy as np
import pytest

import kernelviz as kv
from kernelviz import registry, state

pytestmark = pytest.mark.unit

BACKEND_NAMES = {
    "MODELS": lambda: [name for name in kv.models.MODELS if name != "Kernel SVM"],
    "SCALINGS": lambda: list(kv.data.SCALINGS),
    "SELECTIONS": lambda: list(kv.data.SELECTIONS),
    "PARTITIONS": lambda: list(kv.partitions.METHODS),
}


@pytest.mark.parametrize("concept", sorted(BACKEND_NAMES))
def test_each_registry_lists_exactly_the_backends_names_in_its_order(concept):
    assert list(getattr(registry, concept)) == BACKEND_NAMES[concept]()


def test_labels_are_unique_within_a_registry_and_every_choice_is_explained():
    registries = [value for value in vars(registry).values()
                  if isinstance(value, dict) and value and all(isinstance(c, registry.Choice) for c in value.values())]
    assert len(registries) >= 7
    for entries in registries:
        labels = [choice.label for choice in entries.values()]
        assert len(set(labels)) == len(labels), labels
        assert all(choice.help.strip().endswith(".") for choice in entries.values())


def test_the_settings_table_allows_exactly_the_registered_choices():
    for name, concept in {"view": registry.VIEWS, "source": registry.SOURCES, "scaling": registry.SCALINGS,
                          "label_how": registry.SELECTIONS, "partition": registry.PARTITIONS,
                          "kernels": registry.KERNELS, "models": registry.MODELS}.items():
        assert state.BY_NAME[name].choices() == tuple(concept), name
        assert [state.BY_NAME[name].label(v) for v in concept] == [c.label for c in concept.values()]


def test_figures_name_kernels_and_models_as_the_registry_does():
    assert kv.figures.kernel_label("lap") == registry.KERNELS["lap"].label == "Laplacian (LAP)"
    for name, entry in {**registry.KERNELS, **registry.MODELS}.items():
        assert kv.figures.kernel_label(name) == entry.label
    assert kv.figures.kernel_label("not a kernel") == "not a kernel"


def test_a_phrase_falls_back_to_the_label():
    assert registry.phrase(registry.SCALINGS, "zscore") == "z-scored"
    assert registry.phrase(registry.PARTITIONS, "gmm") == "GMM"


def _kernel_classes(cls=kv.kernels.Kernel):
    """Every kernel class of kv.kernels that has a name of its own (the private bases have none)."""
    found = {}
    for sub in cls.__subclasses__():
        if "name" in vars(sub):
            found[sub.name] = sub
        found.update(_kernel_classes(sub))
    return found


def test_every_kernel_class_has_a_row_and_every_row_makes_its_kernel():
    assert set(_kernel_classes()) == set(registry.KERNELS)
    assert kv.kernels.names() == list(registry.KERNELS)
    for name, cls in _kernel_classes().items():
        assert type(kv.kernels.make(name)) is cls


@pytest.mark.parametrize("name", list(registry.KERNELS))
def test_a_kernels_facts_are_what_the_kernel_does(name):
    facts = registry.KERNELS[name]
    params = kv.kernels.make(name).get_params(deep=False)
    assert facts.uses_partition == ("partition" in params)
    assert facts.has_scale == (params.get("normalize") in kv.registry.CKRBF_SCALES)
    assert facts.color.startswith("#") and kv.figures.kernel_color(name) == facts.color
    X = np.random.default_rng(0).normal(size=(40, 2))
    kernel = kv.kernels.make(name, gamma=0.7).fit(X)
    K = kernel(X)  # through the family or the Gram, as the row says: the other way does not exist
    assert kernel.gamma_convertible == facts.gamma_convertible
    if facts.gamma_convertible:
        family = kernel.gamma_family(X)
        np.testing.assert_allclose(family.gram(0.7), K, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(family.gram(2.0), kernel.set_params(gamma=2.0)(X), rtol=1e-10, atol=1e-12)
    else:
        with pytest.raises(ValueError, match="not of the form"):
            kernel.gamma_family(X)
    if facts.psd_proven:
        assert kv.kernels.psd_report(K)["is_psd"], name


def test_every_kernel_has_its_own_colour():
    colors = [facts.color.upper() for facts in registry.KERNELS.values()]
    assert len(set(colors)) == len(colors)


def test_the_kernel_matrix_caption_names_the_kernels_a_theorem_makes_psd():
    from kernelviz.ui.views import kernel_matrix

    proven, unproven = kernel_matrix.psd_note().split(" are PSD by a theorem; ")
    assert "Laplacian (LAP)" in proven and "CkRBF" in proven and "RWM" not in proven
    assert unproven.startswith("GMM distance and RWM need not be")


def test_a_views_facts_are_its_one_row():
    """Every fact the app reads about a view comes from its row: its module draws it, its stage and
    live kind exist, and the tables that used to list views separately are built from the rows."""
    import importlib

    from kernelviz import codegen, lattice, pipeline
    from kernelviz.ui import live

    for view, facts in registry.VIEWS.items():
        module = importlib.import_module(f"kernelviz.ui.views.{facts.module}")
        assert callable(module.show), view
        assert facts.fails_on in ("",) + tuple(pipeline.STAGES), view
        assert facts.live in ("", "decision", "similarity"), view
        assert facts.live == "" or facts.live in lattice.CODECS, view
    assert live.VIEW_KINDS == {"boundaries": "decision", "similarity": "similarity"}
    assert codegen.VIEWS == tuple(v for v in registry.VIEWS if v != "theory")
    assert not registry.VIEWS["data"].needs_partition and registry.VIEWS["grid"].needs_partition
