"""Serving replicas under a concurrency over all the cards: each serves its share, or what fits while the rest wait."""

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


# A queue: a concurrency above what the replicas hold runs at the largest batch, the rest wait.
# vLLM on one RTX 4090 under overload (Qwen2.5-7B, stackbytes.beehiiv.com, "Why your GPU is idle
# but your requests are queued"): TPOT held at 18.0-18.2 ms while the mean TTFT rose from 0.2 s to
# 144 s as the KV cache filled and requests waited to be admitted; docs/METHOD.md, "Queues".
DESK = Scenario(model="llama-3.1-8b", gpu="rtx-4090", cards=1)  # bf16: 26 sequences of 1,280 tokens fit


def test_more_users_than_fit_run_the_largest_batch_and_the_rest_wait():
    queued = estimate(dataclasses.replace(DESK, concurrency=64))
    full = estimate(dataclasses.replace(DESK, batch="max")).inference
    served = queued.inference
    assert served.fits and served.batch == served.max_batch == full.batch == 26
    assert served.queued == 64 - 26
    # The replica runs full either way: the same rate and time per token as its largest batch.
    assert served.decode_tokens_per_s == pytest.approx(full.decode_tokens_per_s)
    assert served.tpot_s == pytest.approx(full.tpot_s)
    assert served.memory_per_gpu == full.memory_per_gpu
    # Little's law: 38 waiting, sequences leaving at 694 / 256 a second: about 14 s each.
    assert served.queue_wait_s == pytest.approx(38 * DESK.output_len / served.decode_tokens_per_s)
    assert 10.0 < served.queue_wait_s < 20.0
    assert served.ttft_s == pytest.approx(full.ttft_s + served.queue_wait_s)
    note = next(note for note in queued.notes if note.code == "inference_queued")
    assert note.fields == {"queued": "38", "concurrency": "64", "running": "26", "wait": "14.0 s"}
    assert not any(note.code.startswith("inference_does_not_fit") for note in queued.notes)


def test_the_figures_of_a_queue_carry_into_the_json_with_a_range_for_the_wait():
    data = estimate(dataclasses.replace(DESK, concurrency=64)).to_dict()
    served = data["inference"]
    assert served["fits"] is True and served["queued"] == 38 and served["tpot_s"] > 0
    low, high = data["ranges"]["queue_wait_s"]["low"], data["ranges"]["queue_wait_s"]["high"]
    assert low < served["queue_wait_s"] < high


def test_twice_the_users_over_the_limit_wait_longer_at_the_same_rate():
    once = estimate(dataclasses.replace(DESK, concurrency=64)).inference
    twice = estimate(dataclasses.replace(DESK, concurrency=128)).inference
    assert twice.decode_tokens_per_s == pytest.approx(once.decode_tokens_per_s)
    assert twice.queue_wait_s / once.queue_wait_s == pytest.approx((128 - 26) / (64 - 26))
    assert twice.ttft_s > once.ttft_s


def test_a_concurrency_that_fits_has_no_queue_and_serves_as_that_batch_does():
    fitting = estimate(dataclasses.replace(DESK, concurrency=26))
    batch = estimate(dataclasses.replace(DESK, batch=26)).inference
    served = fitting.inference
    assert (served.queued, served.queue_wait_s) == (0, 0.0)
    assert served._replace(layout_candidates=()) == batch._replace(layout_candidates=())
    assert "queue_wait_s" not in fitting.ranges
    assert all(note.code != "inference_queued" for note in fitting.notes)


def test_a_fixed_batch_above_what_fits_still_does_not_fit():
    # A batch per replica is the running batch itself (vLLM's --max-num-seqs): nothing to queue.
    result = estimate(dataclasses.replace(DESK, batch=64))
    assert not result.inference.fits and result.inference.queued == 0
    assert result.to_dict()["inference"]["queue_wait_s"] is None
    assert any(note.code == "inference_does_not_fit_some" for note in result.notes)


def test_a_queue_forms_only_when_no_replica_holds_its_share():
    cards = dataclasses.replace(DESK, cards=8, concurrency=300)
    one_card = estimate(dataclasses.replace(cards, tp=1, pp=1)).inference  # eight replicas of 26 hold 208
    assert one_card.queued == 300 - 8 * 26
    free = estimate(cards).inference  # wider replicas, whose KV cache has more room, hold them all
    assert free.fits and free.queued == 0 and free.dp * free.batch >= 300


def test_a_concurrency_nothing_holds_does_not_fit_and_queues_nothing():
    result = estimate(Scenario(model="llama-3.1-70b", gpu="rtx-4090", cards=1, concurrency=64))
    assert not result.inference.fits and result.inference.queued == 0
    assert any(note.code == "inference_does_not_fit_none" for note in result.notes)


def test_the_traffic_a_fleet_carries_uses_the_full_load_rate_not_the_queue():
    # The Costs page and the planner size fleets at batch "max"; a queued concurrency serves that
    # very rate, so both count the same replicas and nothing is counted twice.
    queued = estimate(dataclasses.replace(DESK, concurrency=64)).inference
    full = estimate(dataclasses.replace(DESK, batch="max")).inference
    assert replicas_needed(5000.0, queued.decode_tokens_per_s / queued.dp) == replicas_needed(
        5000.0, full.decode_tokens_per_s / full.dp
    )
