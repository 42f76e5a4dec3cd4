"""The settings table and its URL round trip (kernelviz.state) — no Streamlit involved."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kernelviz as kv
from kernelviz import state

from _hostile import hostile_text

pytestmark = pytest.mark.unit


def test_defaults_encode_to_an_empty_query_and_parse_back():
    assert state.encode(state.defaults()) == {}
    values, problems = state.parse({})
    assert problems == []
    assert values.keys() == state.defaults().keys()


def test_every_default_is_valid_for_its_own_setting():
    for s in state.SETTINGS:
        if s.default is not None:
            state.validate(s.name, s.default)


def test_choices_that_come_from_the_backend_exist():
    assert set(state.BY_NAME["generator"].choices()) == set(kv.data.GENERATORS)
    assert set(kv.data.samples()) <= set(state.BY_NAME["sample"].choices())


def test_seeds_and_changed_values_go_into_the_link():
    values = state.defaults()
    values.update(data_seed=42, partition_seed=3, cv_seed=9, log_gamma=-1.5, kernels=["rwm", "rbf"])
    query = state.encode(values)
    assert query == {"data_seed": "42", "partition_seed": "3", "cv_seed": "9", "log_gamma": "-1.5",
                     "kernels": "rwm,rbf"}
    assert state.parse(query)[0]["kernels"] == ["rwm", "rbf"]  # order kept: it is the panel order


@pytest.mark.parametrize("name, raw", [
    ("log_gamma", "abc"), ("log_gamma", "nan"), ("log_gamma", "7"), ("n_components", "0"), ("n_components", "2.5"),
    ("kernels", "rbf,unknown"), ("kernels", "rbf,rbf"), ("view", "nowhere"), ("scaling", "log"),
    ("grid_log_C", "3_1"), ("grid_log_C", "a_b"), ("gen_params", "noise"), ("gen_params", "noise:x"),
    ("points", "1_2"), ("points", "1_a_1"), ("label_fraction", "0"), ("grid_log_C", "nan_nan"),
    ("grid_log_gamma", "inf_inf"), ("ref_x", "1"), ("ref_y", "-2.5"),
])
def test_an_unreadable_value_falls_back_to_its_default_with_a_reason(name, raw):
    values, problems = state.parse({name: raw, "data_seed": "5"})
    assert len(problems) == 1 and name in problems[0]
    assert state._equal(values[name], state.BY_NAME[name].default)
    assert values["data_seed"] == 5  # the rest of the link still applies


def test_a_range_that_is_not_finite_is_refused_in_our_words():
    _, problems = state.parse({"grid_log_C": "nan_nan"})
    assert problems == ["Ignored the link's grid_log_C: grid_log_C must be two whole numbers lo_hi; got 'nan_nan', "
                        "which is not finite."]


def test_a_reference_coordinate_without_the_other_is_dropped_with_a_reason():
    values, problems = state.parse({"ref_x": "5"})
    assert values["ref_x"] is None and "needs ref_y" in problems[0]
    values, problems = state.parse({"ref_x": "5", "ref_y": "oops"})
    assert values["ref_x"] is None and values["ref_y"] is None
    assert len(problems) == 2 and "ref_y" in problems[0] and "needs ref_y" in problems[1]
    assert state.parse({"ref_x": "5", "ref_y": "-1"}) == ({**state.defaults(), "ref_x": 5.0, "ref_y": -1.0}, [])


@settings(max_examples=300, deadline=None)
@given(name=st.sampled_from(sorted(state.BY_NAME)), raw=hostile_text)
def test_every_link_value_is_taken_or_refused_with_a_sentence_naming_it(name, raw):
    """Nothing a link holds is dropped silently: a value either is the setting's new value or
    comes back as a problem that names the setting."""
    values, problems = state.parse({name: raw})
    if problems:
        assert all(name in p for p in problems)
        assert state._equal(values[name], state.BY_NAME[name].default)
    else:
        assert state._equal(values[name], state.validate(name, raw))


def test_hand_typed_choices_are_read_whatever_their_case():
    values, problems = state.parse({"models": "mkrbf,MCPM,kfd", "kernels": "RBF,ckrbf", "view": "Boundaries"})
    assert problems == []
    assert values["models"] == ["mkRBF", "MCPM", "KFD"] and values["kernels"] == ["rbf", "ckrbf"]
    assert values["view"] == "boundaries"


def test_unknown_keys_are_ignored_and_lists_take_the_last_value():
    values, problems = state.parse({"utm_source": "x", "log_C": ["1", "2"]})
    assert problems == [] and values["log_C"] == 2.0


def test_generator_parameters_round_trip_with_their_types():
    text = state.encode_params({"noise": 0.25, "n_samples": 120})
    assert text == "n_samples:120,noise:0.25"
    decoded = state.decode_params(text)
    assert decoded == {"n_samples": 120, "noise": 0.25}
    assert isinstance(decoded["n_samples"], int) and isinstance(decoded["noise"], float)


def test_drawn_points_are_in_the_link_only_for_drawn_data_and_not_too_many():
    pts = np.array([[0.12345, -1.0, 1.0], [2.0, 3.5, -1.0], [0.0, 0.0, 0.0]])
    values = state.defaults()
    values.update(source="drawn", points=pts)
    query = state.encode(values)
    assert query["points"] == "0.123_-1_1~2_3.5_-1~0_0_0"
    np.testing.assert_allclose(state.parse(query)[0]["points"], np.round(pts, state.POINT_DECIMALS))
    values["source"] = "generator"
    assert "points" not in state.encode(values)
    values.update(source="drawn", points=np.zeros((state.MAX_POINTS_IN_URL + 1, 3)))
    assert "points" not in state.encode(values)


def test_presets_are_valid_and_start_from_defaults():
    for preset in state.PRESETS:
        values = state.apply_preset(preset)
        for name, value in preset.settings.items():
            assert state._equal(values[name], state.validate(name, value))
        assert values["data_seed"] == 0
        assert preset.look_for and preset.title


def test_every_setting_has_help_and_choice_settings_explain_each_choice():
    for s in state.SETTINGS:
        assert s.help.strip().endswith("."), s.name
        if s.kind in ("str", "list") and not callable(s.allowed):
            help_text = s.widget_help()
            for value in s.choices():
                assert f"**{s.label(value)}**" in help_text, (s.name, value)


def _value_strategy(s: state.Setting):
    if s.kind == "str":
        return st.sampled_from(s.choices())
    if s.kind == "int":
        return st.integers(*s.allowed)
    if s.kind in ("float", "optfloat"):
        return st.floats(*s.allowed, allow_nan=False)
    if s.kind == "list":
        return st.lists(st.sampled_from(s.choices()), unique=True, max_size=len(s.choices()))
    if s.kind == "range":
        lo, hi = s.allowed
        # a range slider can give equal ends (a single value)
        return st.tuples(st.integers(lo, hi), st.integers(0, hi - lo)).map(lambda t: (t[0], min(t[0] + t[1], hi)))
    if s.kind == "params":
        return st.dictionaries(st.sampled_from(["noise", "n_samples", "factor"]),
                               st.one_of(st.integers(0, 10_000), st.floats(-1e6, 1e6, allow_nan=False)))
    return st.none()


@settings(max_examples=60, deadline=None)
@given(st.fixed_dictionaries({s.name: _value_strategy(s) for s in state.SETTINGS if s.kind != "points"}))
def test_any_valid_settings_survive_the_round_trip(values):
    full = state.defaults()
    full.update(values)
    parsed, problems = state.parse(state.encode(full))
    assert problems == []
    for name, value in full.items():
        if name == "points":
            continue
        assert state._equal(parsed[name], state.validate(name, value)), name


NUMERIC_KINDS = ("int", "float", "optfloat", "range")


def _widget_values(s: state.Setting):
    """What the setting's widget can produce: the app bounds each numeric widget by
    ``state.bounds`` (test_app checks that), with any value in between."""
    lo, hi = state.bounds(s.name)
    if s.kind == "int":
        return st.integers(lo, hi)
    if s.kind == "range":
        return st.tuples(st.integers(lo, hi), st.integers(lo, hi)).map(sorted).map(tuple)
    return st.floats(lo, hi, allow_nan=False)


def _pair_of(name: str) -> tuple[str, ...]:
    """The settings the app always sets with ``name`` (the reference point's two coordinates), or itself."""
    return next((pair for pair in state.PAIRED_SETTINGS if name in pair), (name,))


@settings(max_examples=200, deadline=None)
@given(st.sampled_from([s for s in state.SETTINGS if s.kind in NUMERIC_KINDS]).flatmap(
    lambda s: st.tuples(st.just(s.name), _widget_values(s))))
def test_every_value_a_widget_can_produce_round_trips_through_the_link(name_value):
    name, value = name_value
    values = state.defaults()
    values.update({partner: value for partner in _pair_of(name)})
    parsed, problems = state.parse(state.encode(values))
    assert problems == []
    assert state._equal(parsed[name], value), (name, value, parsed[name])


@pytest.mark.parametrize("name", [s.name for s in state.SETTINGS if s.kind in NUMERIC_KINDS])
def test_the_ends_of_every_widget_round_trip(name):
    lo, hi = state.bounds(name)
    ends = [(lo, lo), (hi, hi), (lo, hi)] if state.BY_NAME[name].kind == "range" else [lo, hi]
    for value in ends:
        parsed, problems = state.parse(state.encode({partner: value for partner in _pair_of(name)}))
        assert problems == [] and state._equal(parsed[name], value), (name, value)


def test_bounds_are_only_for_numbers_and_ranges():
    assert state.bounds("grid_log_C") == (-4, 6) and state.bounds("ref_x") == (-1e6, 1e6)
    with pytest.raises(ValueError, match="only numbers and ranges"):
        state.bounds("kernels")


# ----------------------------------------------------------------------------- bad input (issue 29)


@pytest.mark.parametrize("name", [s.name for s in state.SETTINGS])
@pytest.mark.parametrize("value", [None, 3, 2.5, True, object(), {}, {"a": 1}, [None], [[1, 2]]],
                         ids=["None", "int", "float", "bool", "object", "empty dict", "dict", "[None]", "nested"])
def test_a_value_of_the_wrong_type_is_refused_with_a_value_error_naming_the_setting(name, value):
    """validate's documented failure is a ValueError saying why, whatever the value's type: a
    caller (the app, codegen, a notebook) catches that one error, never a TypeError."""
    try:
        state.validate(name, value)
    except ValueError as err:
        assert name in str(err)


def test_a_list_setting_given_none_says_it_wants_a_list():
    with pytest.raises(ValueError, match="kernels must be a comma-separated text or a list of names; got None"):
        state.validate("kernels", None)


@pytest.mark.parametrize("name, raw", [
    ("data_seed", "1_000"), ("log_gamma", "0_5"), ("log_gamma", "١"), ("n_components", "٣"), ("cv", "３"),
    ("ref_x", "1_0"), ("grid_log_C", "1_٢"), ("grid_steps", "5\u00a0"), ("log_C", "1e1_0"),
])
def test_numbers_in_a_link_are_plain_ascii_digits(name, raw):
    """Python's float() reads "1_000" and digits of every script ("١", "３"): a link holding them
    opened silently with a number nobody typed in those words. They are refused, saying why."""
    values, problems = state.parse({name: raw, **({"ref_y": "0"} if name == "ref_x" else {})})
    # (ref_y then goes too, in a second sentence: the two make one point)
    assert len(problems) == (2 if name == "ref_x" else 1), problems
    assert name in problems[0] and "digits 0-9" in problems[0], problems
    assert state._equal(values[name], state.BY_NAME[name].default)


@pytest.mark.parametrize("text", ["noise:0_3", "n_samples:١٠٠"])
def test_generator_parameters_in_a_link_are_plain_ascii_digits(text):
    values, problems = state.parse({"gen_params": text})
    assert len(problems) == 1 and "gen_params" in problems[0] and "digits 0-9" in problems[0], problems
    assert values["gen_params"] == {}


@pytest.mark.parametrize("text", ["١_0_1", "0_0_1~1_٠_-1", "0_0_1~1_0_１"])
def test_drawn_points_in_a_link_are_plain_ascii_digits(text):
    values, problems = state.parse({"source": "drawn", "points": text})
    assert len(problems) == 1 and "points" in problems[0] and "digits 0-9" in problems[0], problems
    assert values["points"] is None


@pytest.mark.parametrize("name, raw, value", [
    ("log_gamma", "-1.5", -1.5), ("log_gamma", "+.5", 0.5), ("log_gamma", "1e-1", 0.1), ("ref_x", "-2E3", -2000.0),
    ("data_seed", "42", 42), ("grid_log_C", "-2_4", (-2, 4)), ("gen_params", "noise:0.25,n_samples:120",
                                                              {"noise": 0.25, "n_samples": 120}),
])
def test_ordinary_numbers_in_a_link_are_still_read(name, raw, value):
    values, problems = state.parse({name: raw, **({"ref_y": "0"} if name == "ref_x" else {})})
    assert problems == [] and state._equal(values[name], value)


@pytest.mark.parametrize("raw, value", [("draw", "drawn"), ("Draw", "drawn"), ("drawn", "drawn"),
                                        ("generate", "generator")])
def test_a_source_named_as_its_control_shows_it_is_read_as_the_one_link_name(raw, value):
    """The Source control says "draw" and "generate"; links say "drawn" and "generator". A link
    typed from what the control shows opens the same data, and is written back in the one name."""
    values, problems = state.parse({"source": raw})
    assert problems == [] and values["source"] == value
    assert state.encode(values).get("source") == (None if value == "generator" else value)


def test_choices_are_also_read_by_their_labels_in_lists():
    values, problems = state.parse({"view": "decision boundaries", "kernels": "Mahalanobis RBF,rbf"})
    assert problems == [] and values["view"] == "boundaries" and values["kernels"] == ["mrbf", "rbf"]
