"""Each field's range and the error that names it: one table (INT_LIMITS, FLOAT_LIMITS), one message shape."""

import math

import pytest

from model import FLOAT_LIMITS, INT_LIMITS, Scenario, ScenarioError
from model.limits import check_choice, check_float, check_int, check_ranges


@pytest.mark.parametrize("field", sorted(INT_LIMITS))
def test_a_whole_number_field_takes_its_ends_and_refuses_one_past_them(field):
    low, high = INT_LIMITS[field]
    check_int(field, low)
    check_int(field, high)
    for bad in (low - 1, high + 1):
        with pytest.raises(ScenarioError) as raised:
            check_int(field, bad)
        assert raised.value.field == field and f"from {low:,} to {high:,}" in str(raised.value)


@pytest.mark.parametrize("bad", [True, 2.0, "8", None])
def test_a_whole_number_field_refuses_what_is_not_an_int(bad):
    with pytest.raises(ScenarioError):
        check_int("cards", bad)


@pytest.mark.parametrize("field", sorted(FLOAT_LIMITS))
def test_a_number_field_refuses_nan_infinity_and_a_bool(field):
    for bad in (math.nan, math.inf, -math.inf, True):
        with pytest.raises(ScenarioError) as raised:
            check_float(field, bad)
        assert raised.value.field == field


def test_only_a_price_may_be_zero():
    check_float("price_per_gpu_hour", 0.0)
    with pytest.raises(ScenarioError):
        check_float("utilization", 0.0)


def test_a_choice_names_what_is_allowed():
    with pytest.raises(ScenarioError) as raised:
        check_choice("precision", "fp3", ("bf16", "fp8"))
    assert str(raised.value) == "precision: fp3 is not allowed; one of bf16, fp8"


def test_a_value_with_control_characters_is_shown_escaped_on_one_line():
    error = ScenarioError("gpu", "h100\nrm -rf", "one of h100")
    assert "\n" not in str(error) and "'h100\\nrm -rf'" in str(error)


def test_every_ranged_field_of_a_valid_scenario_passes_and_the_first_bad_one_is_named():
    check_ranges(Scenario())
    with pytest.raises(ScenarioError) as raised:
        check_ranges(Scenario(cards=0))
    assert raised.value.field == "cards"
