"""One registry per concept (kernelviz.registry): its names agree with the backend, and every
place the app names a choice takes the registry's label."""

from __future__ import annotations

import pytest

import kernelviz as kv
from kernelviz import registry, state

BACKEND_NAMES = {
    "KERNELS": lambda: list(kv.kernels.names()),
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
