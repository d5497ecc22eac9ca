"""Training against serving cost over months."""

import dataclasses
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from model import Scenario, ScenarioError, default_catalog, estimate, parse_user_catalog
from model.analyses.economics import DAYS_PER_MONTH, HOURS_PER_MONTH, api_price, cost_over_time
from model.layouts.serving import replicas_needed
from model.scenario import with_batch
from tests.catalog_rows import UNPRICED_GPU

CATALOG = default_catalog()
PRICES = {price.id: price for price in CATALOG.prices}
BASE = Scenario(model="llama-3.1-8b", gpu="h100-sxm", cards=8)
BUSY = 1e9  # output tokens per day: keeps several H100s busy, far above the one-replica floor


def _costs(scenario=BASE, tokens_per_day=BUSY, months=24, api=None):
    return cost_over_time(scenario, CATALOG, tokens_per_day, months, api)


def test_a_month_is_a_twelfth_of_a_julian_year():
    assert abs(DAYS_PER_MONTH - 30.44) < 0.005
    assert DAYS_PER_MONTH * 12 == 365.25


def test_break_even_month_times_monthly_serving_equals_the_training_bill():
    result = _costs()
    assert result.break_even_month is not None
    assert result.break_even_month * result.serving_usd_per_month == pytest.approx(result.training_usd)


def test_training_bill_is_the_estimates_training_cost_paid_once_at_month_zero():
    result = _costs()
    assert result.training_usd == pytest.approx(estimate(BASE, CATALOG).training.cost_usd)
    assert {row.training_usd for row in result.rows} == {result.training_usd}
    assert result.rows[0].month == 0 and result.rows[0].serving_usd == 0
    assert result.rows[0].total_usd == result.training_usd


def test_doubling_traffic_doubles_the_replicas_up_to_one_whole_replica_and_the_bill_with_them():
    # Whole replicas (issue 29): twice the traffic takes 2N or 2N - 1 replicas, not exactly twice the bill.
    once, twice = _costs(tokens_per_day=BUSY), _costs(tokens_per_day=2 * BUSY)
    assert not once.replica_floor_applies and not twice.replica_floor_applies
    assert twice.replicas in (2 * once.replicas - 1, 2 * once.replicas)
    assert twice.break_even_month == pytest.approx(once.break_even_month * once.replicas / twice.replicas)


def test_the_traffic_takes_whole_replicas_by_the_engines_rule_and_the_bill_pays_for_their_cards():
    # Was: the bill was the price per million tokens times the month's tokens, a fraction of a card
    # nobody can rent; the page then showed no scale (issue 29: "every scaled figure says its scale").
    result = _costs()
    served = estimate(with_batch(BASE, "max"), CATALOG).inference
    per_replica = served.decode_tokens_per_s / served.dp
    assert result.replica_tokens_per_s == pytest.approx(per_replica)
    assert result.replicas == replicas_needed(BUSY / 86_400, per_replica, BASE.utilization) > 1
    assert result.replica_cards == served.tp * served.pp * served.ep
    assert result.serving_cards == result.replicas * result.replica_cards
    price = CATALOG.gpus["h100-sxm"].cloud_usd_per_gpu_hour
    assert result.serving_usd_per_month == pytest.approx(result.serving_cards * price * HOURS_PER_MONTH)
    # Whole replicas cost at least the traffic at the per-token price, and less than one replica more.
    traffic_usd = BUSY * DAYS_PER_MONTH / 1e6 * served.cost_per_million_output_tokens_usd
    assert traffic_usd <= result.serving_usd_per_month < traffic_usd + result.replica_usd_per_month
    month_12 = next(row for row in result.rows if row.month == 12)
    assert month_12.serving_usd == pytest.approx(12 * result.serving_usd_per_month)
    assert month_12.total_usd == pytest.approx(result.training_usd + month_12.serving_usd)


def test_light_traffic_still_pays_for_one_replica_around_the_clock():
    result = _costs(tokens_per_day=1e5)
    price = CATALOG.gpus["h100-sxm"].cloud_usd_per_gpu_hour
    assert result.replica_floor_applies
    assert result.replica_cards == 1  # Llama 3.1 8B in bf16 fits one 80 GB card
    assert result.serving_usd_per_month == pytest.approx(price * 24.0 * DAYS_PER_MONTH)
    assert _costs(tokens_per_day=1e3).serving_usd_per_month == result.serving_usd_per_month


def test_api_bills_output_and_the_prompt_tokens_that_come_with_them():
    # Together AI Llama 3.1 8B Turbo: $0.18 per million input and output tokens (data/prices.yaml).
    price = PRICES["together-llama-3-1-8b-turbo"]
    scenario = dataclasses.replace(BASE, prompt_len=3000, output_len=1000)
    result = _costs(scenario, api=price)
    month_tokens = BUSY * DAYS_PER_MONTH
    expected = month_tokens * (3 * price.input_usd_per_million + price.output_usd_per_million) / 1e6
    assert result.api_usd_per_month == pytest.approx(expected)
    assert result.prompt_tokens_per_day == pytest.approx(3 * BUSY)


def test_train_and_self_host_meets_the_api_line_at_the_crossover_month():
    result = _costs(api=PRICES["gpt-4o-2024-08"])
    month = result.api_crossover_month
    assert month is not None
    assert result.training_usd + result.serving_usd_per_month * month == pytest.approx(result.api_usd_per_month * month)
    assert result.api_crossover_usd == pytest.approx(result.api_usd_per_month * month)


def test_an_api_cheaper_than_serving_has_no_crossover():
    result = _costs(tokens_per_day=1e5, api=PRICES["gemini-2-0-flash-2025-02"])
    assert result.api_usd_per_month < result.serving_usd_per_month
    assert result.api_crossover_month is None


def test_break_even_beyond_the_horizon_is_none():
    result = _costs(tokens_per_day=1e6, months=1)
    assert result.break_even_month is None
    assert len([row for row in result.rows if row.month == int(row.month)]) == 2  # months 0 and 1


def test_a_gpu_without_a_price_gives_no_costs_and_says_so():
    unpriced = CATALOG.merged(parse_user_catalog(UNPRICED_GPU, "mine.yaml"))
    result = cost_over_time(dataclasses.replace(BASE, gpu="my-card"), unpriced, BUSY, 24, PRICES["gpt-4o-2024-08"])
    assert result.training_usd is None and result.serving_usd_per_month is None
    assert result.break_even_month is None
    assert result.api_usd_per_month is not None
    assert any("no price is known" in note.text for note in result.notes)


def test_a_replica_of_attention_data_parallelism_counts_all_its_cards():
    # DeepSeek-V3 on 16 H200s serves at full load as attention DP 8 x EP 8 (tp 1 x pp 1): a replica is
    # 8 cards, not the 1 that tp x pp alone would say (which priced the fleet at an eighth).
    scenario = Scenario(model="deepseek-v3", gpu="h200", cards=16, precision="fp8")
    served = estimate(with_batch(scenario, "max"), CATALOG).inference
    assert served.ep > 1 and served.tp * served.pp == 1
    result = _costs(scenario)
    assert result.replica_cards == served.ep == scenario.cards // served.dp
    assert result.replica_usd_per_month == pytest.approx(served.ep * result.price_per_gpu_hour * HOURS_PER_MONTH)


def test_serving_that_does_not_fit_takes_no_replicas_and_has_no_cost():
    # Llama 3.1 70B in int4 on 2 x RTX 4090: one sequence needs more than the serving budget (issue 29).
    result = _costs(Scenario(model="llama-3.1-70b", gpu="rtx-4090", cards=2, precision="int4"))
    assert not result.serving_fits
    assert result.replicas == result.serving_cards == 0 and result.replica_tokens_per_s is None
    assert result.serving_usd_per_month is None and result.cost_per_million_output_tokens_usd is None
    assert result.break_even_month is None and result.api_crossover_month is None
    assert any(note.code == "costs_serving" for note in result.notes)


def test_training_that_does_not_fit_has_no_cost_and_a_plain_note():
    result = _costs(Scenario(model="llama-3.1-405b", gpu="rtx-4090", cards=1))
    assert result.training_usd is None and result.training_time_s is None
    assert any(note.text.startswith("training does not fit on 1 card:") for note in result.notes)


@pytest.mark.parametrize(("tokens_per_day", "months"), [(0, 12), (-1.0, 12), (math.nan, 12), (1e9, 0), (1e9, 1.5)])
def test_bad_traffic_or_horizon_is_refused(tokens_per_day, months):
    with pytest.raises(ScenarioError):
        cost_over_time(BASE, CATALOG, tokens_per_day, months, None)


@given(low=st.floats(1e3, 1e12), factor=st.floats(1.0, 100.0))
def test_more_traffic_never_costs_less_to_serve(low, factor):
    assert _costs(tokens_per_day=low * factor).serving_usd_per_month >= _costs(tokens_per_day=low).serving_usd_per_month


def test_auto_api_price_is_the_one_serving_the_scenarios_model():
    assert api_price(CATALOG, None, "llama-3.1-70b").comparable_model == "llama-3.1-70b"
    assert api_price(CATALOG, None, None).id == "gpt-4o-2024-08"
    assert api_price(CATALOG, None, "gpt-3-175b").id == "gpt-4o-2024-08"
    assert api_price(CATALOG, "gpt-5-2025-08", "llama-3.1-70b").id == "gpt-5-2025-08"


def test_an_api_of_the_same_size_class_is_compared_by_default():
    small = Scenario(model=None, params=9e9)
    large = Scenario(model=None, params=100e9)
    assert api_price(CATALOG, None, None, 9e9).comparable_model == "llama-3.1-8b"
    assert api_price(CATALOG, None, None, 100e9).comparable_model in ("llama-3.1-70b", "qwen2.5-72b")
    assert api_price(CATALOG, None, None, 1e12).comparable_model in ("deepseek-v3", "deepseek-r1")
    assert small.params < large.params


def test_a_format_that_is_not_trained_has_no_bill_and_says_why_not_how_big():
    # int4 weights are served, not trained in full: the note names the format, not a memory shortfall.
    int4 = Scenario(model="llama-3.1-70b", gpu="rtx-4090", cards=4, precision="int4")
    costs = cost_over_time(int4, CATALOG, 1e9, 24, None)
    assert costs.training_refused and not costs.training_fits and costs.training_usd is None
    assert [note.code for note in costs.notes if note.code.startswith("costs_training")] == ["costs_training_refused"]
