"""Serving replicas under a concurrency over all the cards: each replica serves its share."""

import dataclasses
import math

import pytest

from model import Scenario, ScenarioError, estimate
from model.analyses.serving import batch_sweep
from model.layouts.serving import replicas_needed
from model.validation import load_references

LOADED = Scenario(model="llama-3.1-8b", gpu="h100-sxm", cards=8, prompt_len=1000, output_len=1000)


@pytest.mark.parametrize("concurrency", [8, 100, 333])
def test_a_concurrency_is_split_over_the_replicas_the_engine_picks(concurrency):
    served = estimate(dataclasses.replace(LOADED, concurrency=concurrency)).inference
    assert served.batch == math.ceil(concurrency / served.dp)
    for option in served.layout_candidates:  # every replica weighed carries its own share
        assert option.batch == math.ceil(concurrency / option.dp)


def test_a_concurrency_that_fills_every_replica_evenly_is_that_batch_on_each():
    pinned = dataclasses.replace(LOADED, tp=2, pp=1)  # four replicas
    spread = estimate(dataclasses.replace(pinned, concurrency=128)).inference
    each = estimate(dataclasses.replace(pinned, batch=32)).inference
    assert (spread.dp, spread.batch) == (4, 32)
    assert spread.decode_tokens_per_s == pytest.approx(each.decode_tokens_per_s)
    assert spread.tpot_s == pytest.approx(each.tpot_s)


def test_replicas_a_concurrency_leaves_idle_produce_nothing():
    pinned = dataclasses.replace(LOADED, tp=1, pp=1)  # eight replicas, three users
    three = estimate(dataclasses.replace(pinned, concurrency=3)).inference
    everyone = estimate(dataclasses.replace(pinned, batch=1)).inference
    assert three.batch == 1
    assert three.decode_tokens_per_s == pytest.approx(everyone.decode_tokens_per_s * 3 / 8)


def test_more_replicas_do_not_serve_more_users_than_the_concurrency():
    # Per replica, smaller replicas would each take the whole batch; over the cards they share it.
    per_replica = estimate(dataclasses.replace(LOADED, batch=100)).inference
    shared = estimate(dataclasses.replace(LOADED, concurrency=100)).inference
    assert shared.dp * shared.batch < per_replica.dp * per_replica.batch or per_replica.dp == 1
    assert shared.decode_tokens_per_s <= per_replica.decode_tokens_per_s


def test_a_concurrency_of_one_is_one_user():
    one = estimate(dataclasses.replace(LOADED, concurrency=1)).inference
    alone = estimate(dataclasses.replace(LOADED, batch=1)).inference
    assert (one.tp, one.pp, one.ep, one.batch) == (alone.tp, alone.pp, alone.ep, 1)
    assert one.tpot_s == pytest.approx(alone.tpot_s)


def test_batch_and_concurrency_together_are_refused_naming_the_field():
    with pytest.raises(ScenarioError) as raised:
        estimate(dataclasses.replace(LOADED, batch=8, concurrency=64))
    assert raised.value.field == "concurrency" and "not both" in str(raised.value)


def test_batch_sweeps_of_a_scenario_with_a_concurrency_count_per_replica():
    points = batch_sweep(dataclasses.replace(LOADED, concurrency=64), None, [1, 16])
    assert [point.batch for point in points] == [1, 16]


def test_benchmarks_at_a_fixed_concurrency_are_typed_with_it_and_no_replica():
    loaded = [r for r in load_references() if r.typed is not None and r.typed.concurrency]
    assert len(loaded) >= 8
    for reference in loaded:
        assert reference.typed.batch == 1 and reference.typed.tp is None and reference.typed.attention_dp is None
        assert reference.typed.concurrency == reference.scenario.concurrency


def test_a_traffic_needs_the_ceiling_of_its_rate_over_what_a_busy_replica_gives():
    # 1,000 tokens/s on replicas of 300 tokens/s at full load: 4 at utilisation 1, 5 busy 70 % of the time.
    assert replicas_needed(1000.0, 300.0) == 4
    assert replicas_needed(1000.0, 300.0, 0.7) == 5
    assert replicas_needed(900.0, 300.0) == 3  # exactly three replicas' worth is three, not four
    assert replicas_needed(1.0, 300.0) == 1
    assert replicas_needed(1000.0, 0.0) == 0  # a replica that does not run serves nothing
