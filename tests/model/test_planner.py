"""The planner: its best option meets every target, and nothing in a brute-forced space is cheaper."""

import dataclasses
import json

import pytest

from model import Scenario, ScenarioError, default_catalog, estimate, pareto_front, plan_serving, plan_training
from model.cli import main

CATALOG = default_catalog()
FOUR = ("h100-sxm", "a100-sxm-80gb", "l40s", "rtx-4090")
SERVE = Scenario(model="llama-3.1-8b", prompt_len=1024, output_len=256)
TRAIN = Scenario(model="llama-3.1-8b", tokens=2e11)


def _price(gpu):
    return estimate(Scenario(gpu=gpu), CATALOG).resolved.price_per_gpu_hour


def test_the_best_serving_option_re_estimated_meets_every_target():
    plan = plan_serving(SERVE, 20_000, tpot_s=0.04, ttft_s=2.0, gpus=FOUR, max_cards=64)
    best = plan.options[0]
    replicas = best.layout["dp"]
    replica = best.layout["tp"] * best.layout["pp"]
    pinned = {"tp": best.layout["tp"], "pp": best.layout["pp"], "batch": best.batch}
    again = estimate(
        dataclasses.replace(SERVE, gpu=best.gpu, cards=best.cards, precision=best.precision, **pinned), CATALOG
    ).inference
    assert replicas * replica == best.cards
    assert again.decode_tokens_per_s >= 20_000 * 0.999
    assert again.tpot_s <= 0.04 and again.ttft_s <= 2.0
    assert [o.cost_per_hour_usd for o in plan.options] == sorted(o.cost_per_hour_usd for o in plan.options)


def test_no_brute_forced_serving_setup_is_cheaper_than_the_plan():
    target, tpot = 20_000, 0.04
    plan = plan_serving(SERVE, target, tpot_s=tpot, gpus=FOUR, max_cards=64)
    cheapest = plan.options[0].cost_per_hour_usd
    for gpu in FOUR:
        for cards in (1, 2, 4, 8, 16, 32, 64):
            for batch in (1, 2, 4, 8, 16, 32, 64, 128, 256, 512):
                result = estimate(dataclasses.replace(SERVE, gpu=gpu, cards=cards, batch=batch), CATALOG).inference
                if result.fits and result.tpot_s <= tpot and result.decode_tokens_per_s >= target:
                    assert cards * _price(gpu) >= cheapest * 0.999, (gpu, cards, batch)


def test_the_best_training_option_re_estimated_meets_the_deadline_and_budget():
    plan = plan_training(TRAIN, days=20, budget_usd=100_000, gpus=FOUR, max_cards=64)
    best = plan.options[0]
    again = estimate(dataclasses.replace(TRAIN, gpu=best.gpu, cards=best.cards), CATALOG).training
    assert again.fits and again.time_s <= 20 * 86_400 and again.cost_usd <= 100_000
    assert again.cost_usd == pytest.approx(best.cost_usd)


def test_no_brute_forced_training_setup_is_cheaper_than_the_plan():
    plan = plan_training(TRAIN, days=20, gpus=FOUR, max_cards=64)
    cheapest = plan.options[0].cost_usd
    for gpu in FOUR:
        for cards in (1, 2, 4, 8, 16, 32, 64):
            training = estimate(dataclasses.replace(TRAIN, gpu=gpu, cards=cards), CATALOG).training
            if training.fits and training.time_s <= 20 * 86_400:
                assert training.cost_usd >= cheapest * 0.999, (gpu, cards)


def test_a_target_nobody_can_meet_gives_no_option_and_says_why():
    serving = plan_serving(SERVE, 1e9, tpot_s=1e-4, gpus=FOUR, max_cards=8)
    assert serving.options == () and set(serving.excluded) == set(FOUR)
    assert all(reason for reason in serving.excluded.values())
    training = plan_training(Scenario(model="llama-3.1-405b", tokens=15e12), days=1, gpus=FOUR, max_cards=64)
    assert training.options == () and set(training.excluded) == set(FOUR)


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda: plan_serving(SERVE, 0), "output_tokens_per_s"),
        (lambda: plan_serving(SERVE, 100, tpot_s=-1), "tpot_s"),
        (lambda: plan_training(TRAIN, days=0), "days"),
        (lambda: plan_training(TRAIN, gpus=["nope"]), "gpus"),
    ],
)
def test_bad_targets_name_their_field(call, field):
    with pytest.raises(ScenarioError) as error:
        call()
    assert error.value.field == field


def test_the_command_line_plans_as_json_and_refuses_bad_targets(capsys):
    assert main(["plan", "serve", "--model", "llama-3.1-8b", "--output-tokens-per-s", "5000", "--tpot-ms", "40",
                 "--gpus", "h100-sxm,l40s", "--json"]) == 0  # fmt: skip
    data = json.loads(capsys.readouterr().out)
    option = data["options"][0]
    assert {"gpu", "cards", "precision", "layout", "batch", "cost_per_hour_usd", "tpot_s", "ttft_s",
            "decode_tokens_per_s", "memory_per_gpu", "headroom"} <= set(option)  # fmt: skip
    assert set(option["layout"]) == {"tp", "pp", "dp", "ep", "zero"}
    with pytest.raises(SystemExit) as exit_:
        main(["plan", "train", "--tokens", "1T", "--days", "-3"])
    assert exit_.value.code == 2
    assert "--days" in capsys.readouterr().err


def test_owning_prices_the_plan_by_purchase_and_power(capsys):
    assert main(["plan", "train", "--model", "llama-3.1-8b", "--tokens", "2e11", "--days", "20",
                 "--gpus", "h100-sxm", "--own", "--years", "5", "--json"]) == 0  # fmt: skip
    owned = json.loads(capsys.readouterr().out)["options"][0]
    assert owned["price_per_gpu_hour"] == pytest.approx(30_000 / (5 * 8760) + 0.7 * 1.3 * 0.10)


def test_faster_serving_variants_meet_the_targets_and_trade_money_for_speed():
    plan = plan_serving(SERVE, 20_000, tpot_s=0.04, gpus=FOUR, max_cards=64)
    assert plan.faster, "each option's replica at smaller batches"
    by_gpu = {option.gpu: option for option in plan.options}
    for variant in plan.faster:
        base = by_gpu[variant.gpu]
        assert variant.batch < base.batch and variant.tpot_s < base.tpot_s
        assert variant.cost_per_hour_usd >= base.cost_per_hour_usd
        pinned = {"tp": variant.layout["tp"], "pp": variant.layout["pp"], "batch": variant.batch}
        again = estimate(
            dataclasses.replace(SERVE, gpu=variant.gpu, cards=variant.cards, precision=variant.precision, **pinned),
            CATALOG,
        ).inference
        assert again.decode_tokens_per_s >= 20_000 * 0.999 and again.tpot_s <= 0.04
    front = pareto_front(plan)
    assert len({round(option.tpot_s, 4) for option in front}) >= 3, "the front spans per-user speeds"
    costs = [option.cost_per_hour_usd for option in front]
    assert costs == sorted(costs) and [o.tpot_s for o in front] == sorted((o.tpot_s for o in front), reverse=True)


def test_a_free_run_within_a_budget_has_unbounded_headroom_not_a_division_by_zero():
    # Found by the full CLI fuzz: --price-per-gpu-hour 0 with --budget divided by a zero cost.
    found = plan_training(TRAIN, budget_usd=2.0, gpus=("h100-sxm",), price_per_gpu_hour=0.0, max_cards=64)
    assert found.options and found.options[0].cost_usd == 0.0
    assert found.options[0].headroom == float("inf")


def test_a_serving_option_prices_a_million_output_tokens_at_the_target_rate():
    # Issue 31: the planner's serving table had no $ per million tokens to set beside an API's price.
    target = 20_000
    plan = plan_serving(SERVE, target, tpot_s=0.04, gpus=FOUR, max_cards=64)
    for option in (*plan.options, *plan.faster):
        assert option.cost_per_million_output_tokens_usd == pytest.approx(
            option.cost_per_hour_usd / (target * 3600) * 1e6
        )
        # The fleet holds the target (headroom >= 1), so a million tokens never costs less than at its full rate.
        full_rate = option.cost_per_hour_usd / (option.decode_tokens_per_s * 3600) * 1e6
        assert option.cost_per_million_output_tokens_usd >= full_rate * (1 - 1e-9)
    training = plan_training(TRAIN, days=20, gpus=FOUR, max_cards=64)
    assert all(option.cost_per_million_output_tokens_usd is None for option in training.options)
