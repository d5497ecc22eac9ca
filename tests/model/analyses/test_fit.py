import dataclasses
import math

import pytest

from model import Scenario, default_catalog, estimate
from model.analyses.fit import (
    inference_batch_sweep,
    inference_context_sweep,
    largest_component,
    largest_inference_context,
    largest_training_micro_batch,
    largest_training_seq_len,
    pinned_serving,
    pinned_training,
    recompute_sweep,
    tp_sweep,
    with_context,
    zero_stage_sweep,
)
from model.scenario import with_batch

CATALOG = default_catalog()
LLAMA_8B_ON_ONE = Scenario(model="llama-3.1-8b", gpu="h100-sxm", cards=1, prompt_len=3000, output_len=1000, batch=8)
LLAMA_8B_ON_EIGHT = Scenario(model="llama-3.1-8b", gpu="h100-sxm", cards=8, batch=32)
# Few sequences fit: the prefill chunk is smaller than the engine's full-chunk allowance.
LLAMA_70B_TIGHT = Scenario(model="llama-3.1-70b", gpu="h100-sxm", cards=2, prompt_len=256, output_len=2048, batch=1)
NOTHING_FITS = Scenario(model="llama-3.1-405b", gpu="rtx-4090", cards=1, batch=1)


def _serves(scenario, **changes):
    return estimate(dataclasses.replace(scenario, **changes), CATALOG).inference.fits


def _largest_batch(scenario):
    return estimate(scenario, CATALOG).inference.max_batch


def _trains(scenario, **changes):
    return estimate(dataclasses.replace(scenario, **changes), CATALOG).training.fits


@pytest.mark.parametrize("scenario", [LLAMA_8B_ON_ONE, LLAMA_8B_ON_EIGHT, LLAMA_70B_TIGHT])
def test_the_largest_inference_batch_fits_and_one_more_does_not(scenario):
    # The engine's max_batch is the one answer (model.inference.max_batch_that_fits): exact on the replica.
    pinned = pinned_serving(scenario, CATALOG)
    largest = _largest_batch(pinned)
    assert largest >= 1
    assert _serves(pinned, batch=largest)
    assert not _serves(pinned, batch=largest + 1)


def test_pinning_the_replica_keeps_the_engines_largest_batch():
    for scenario in (LLAMA_8B_ON_ONE, LLAMA_70B_TIGHT):
        engine = estimate(scenario, CATALOG).inference.max_batch
        assert _largest_batch(pinned_serving(scenario, CATALOG)) == engine


def test_the_largest_context_fits_and_ten_percent_more_does_not():
    assert CATALOG.models["llama-3.1-8b"].architecture.sliding_window is None
    largest = largest_inference_context(LLAMA_8B_ON_ONE, CATALOG, batch=8)
    pinned = dataclasses.replace(pinned_serving(LLAMA_8B_ON_ONE, CATALOG), batch=8)
    assert 2 <= largest < math.inf
    assert estimate(with_context(pinned, int(largest)), CATALOG).inference.fits
    assert not estimate(with_context(pinned, int(largest * 1.1)), CATALOG).inference.fits
    assert not estimate(with_context(pinned, int(largest) + 1), CATALOG).inference.fits


def test_the_largest_context_is_about_the_free_memory_over_the_kv_cache_per_token():
    # Llama 3.1 8B: 2 (K, V) x 32 layers x 8 KV heads x 128 x 2 bytes = 131,072 bytes per token
    # (config.json). What is left after weights, runtime and activations holds batch x context of it.
    memory = estimate(LLAMA_8B_ON_ONE, CATALOG).inference.memory_per_gpu
    # What is left is of the server's budget (90 % of the card), the one serving rule.
    free = 0.9 * CATALOG.gpus[LLAMA_8B_ON_ONE.gpu].capacity_bytes - (memory.total - memory.kv_cache)
    largest = largest_inference_context(LLAMA_8B_ON_ONE, CATALOG, batch=8)
    assert largest == pytest.approx(free / (8 * 131_072), rel=0.01)


def test_a_sliding_window_leaves_the_context_unbounded_by_memory():
    # Mistral 7B caches at most its 4,096-token window (Mistral 7B paper, Table 1).
    scenario = Scenario(model="mistral-7b", gpu="h100-sxm", cards=1, batch=8)
    assert largest_inference_context(scenario, CATALOG, batch=8) == math.inf


def test_the_largest_context_shrinks_as_the_batch_grows():
    few = largest_inference_context(LLAMA_8B_ON_ONE, CATALOG, batch=4)
    many = largest_inference_context(LLAMA_8B_ON_ONE, CATALOG, batch=64)
    assert many < few


def test_the_largest_training_micro_batch_fits_and_one_more_does_not():
    largest = largest_training_micro_batch(LLAMA_8B_ON_EIGHT, CATALOG)
    pinned = pinned_training(LLAMA_8B_ON_EIGHT, CATALOG)
    assert largest >= 1
    assert _trains(pinned, micro_batch=largest)
    assert not _trains(pinned, micro_batch=largest + 1)


def test_the_largest_training_sequence_fits_and_one_more_token_does_not():
    largest = largest_training_seq_len(LLAMA_8B_ON_EIGHT, CATALOG)
    pinned = pinned_training(LLAMA_8B_ON_EIGHT, CATALOG)
    assert largest >= 128
    assert _trains(pinned, seq_len=largest)
    assert not _trains(pinned, seq_len=largest + 1)


def test_the_searches_answer_zero_when_nothing_fits():
    assert _largest_batch(NOTHING_FITS) == 0
    assert largest_inference_context(NOTHING_FITS, CATALOG, batch=1) == 0
    assert largest_training_micro_batch(NOTHING_FITS, CATALOG) == 0
    assert largest_training_seq_len(NOTHING_FITS, CATALOG) == 0


def test_with_context_keeps_the_prompt_output_mix_and_the_total():
    longer = with_context(LLAMA_8B_ON_ONE, 40_000)
    assert longer.prompt_len + longer.output_len == 40_000
    assert longer.prompt_len == 30_000


def test_pinning_fixes_the_layout_the_engine_chose():
    chosen = estimate(LLAMA_8B_ON_EIGHT, CATALOG).training
    pinned = pinned_training(LLAMA_8B_ON_EIGHT, CATALOG)
    assert (pinned.tp, pinned.pp, pinned.dp, pinned.zero) == (
        chosen.parallelism.tp,
        chosen.parallelism.pp,
        chosen.parallelism.dp,
        chosen.parallelism.zero,
    )
    assert pinned.recompute == chosen.recompute


def test_the_zero_sweep_never_needs_more_memory_at_a_higher_stage():
    sweep = zero_stage_sweep(LLAMA_8B_ON_EIGHT, CATALOG)
    totals = [point.memory.total for point in sweep.points]
    assert [point.value for point in sweep.points] == [0, 1, 2, 3]
    assert totals == sorted(totals, reverse=True)
    assert totals[3] < totals[0]
    assert sum(point.chosen for point in sweep.points) == 1


def test_zero_1_shards_the_optimizer_states_over_the_data_parallel_group():
    # Rajbhandari et al. 2020, Figure 1: stage 1 keeps 12Ψ/N_d bytes of optimizer state per card.
    sweep = zero_stage_sweep(dataclasses.replace(LLAMA_8B_ON_EIGHT, tp=1, pp=1), CATALOG)
    assert sweep.shrink_factor("optimizer", 0, 1) == pytest.approx(8)
    assert sweep.shrink_factor("weights", 0, 3) == pytest.approx(8)
    # Only the sharded states move: activations stay as they are.
    assert len({point.memory.activations for point in sweep.points}) == 1


def test_full_recomputation_keeps_less_activation_memory_than_selective():
    sweep = recompute_sweep(LLAMA_8B_ON_EIGHT, CATALOG)
    selective, full = sweep.at("selective"), sweep.at("full")
    assert selective is not None and full is not None
    assert full.memory.activations < selective.memory.activations
    assert full.memory.weights == selective.memory.weights


def test_tp_8_holds_an_eighth_of_the_weights_of_tp_1():
    # Megatron-LM (Shoeybi et al. 2019): each tensor-parallel rank holds 1/t of every split matrix.
    sweep = tp_sweep(dataclasses.replace(LLAMA_8B_ON_EIGHT, zero=1), CATALOG)
    assert [point.value for point in sweep.points] == [1, 2, 4, 8]
    assert sweep.shrink_factor("weights", 1, 8) == pytest.approx(8)


def test_the_tp_sweep_only_offers_degrees_the_cards_can_hold():
    sweep = tp_sweep(dataclasses.replace(LLAMA_8B_ON_EIGHT, cards=2), CATALOG)
    assert [point.value for point in sweep.points] == [1, 2]


def test_inference_memory_grows_with_context_and_crosses_capacity_at_the_largest_context():
    largest = largest_inference_context(LLAMA_8B_ON_ONE, CATALOG, batch=8)
    points = inference_context_sweep(LLAMA_8B_ON_ONE, CATALOG, batch=8, largest=largest)
    totals = [point.memory.total for point in points]
    assert totals == sorted(totals)
    assert int(largest) in [point.x for point in points]
    assert all(point.fits == (point.x <= largest) for point in points)
    assert points[-1].x >= CATALOG.models["llama-3.1-8b"].architecture.max_context


def test_inference_memory_grows_with_batch_and_crosses_capacity_at_the_largest_batch():
    largest = _largest_batch(LLAMA_8B_ON_ONE)
    points = inference_batch_sweep(LLAMA_8B_ON_ONE, CATALOG, largest=largest)
    totals = [point.memory.total for point in points]
    assert totals == sorted(totals)
    assert points[0].x == 1
    assert all(point.fits == (point.x <= largest) for point in points)


def test_the_largest_component_names_the_biggest_share():
    memory = estimate(LLAMA_8B_ON_EIGHT, CATALOG).training.memory_per_gpu
    name = largest_component(memory)
    assert getattr(memory, name) == max(memory.weights, memory.gradients, memory.optimizer, memory.activations)


@pytest.mark.parametrize(
    "scenario",
    [
        Scenario(model="llama-3.1-8b", gpu="h100-sxm", cards=1, batch=8),
        Scenario(model="llama-3.1-70b", gpu="rtx-4090", cards=2, precision="int4"),
        Scenario(model="deepseek-v3", gpu="h200", cards=16, precision="fp8", batch=64),
        Scenario(model="mistral-7b", gpu="a10", cards=1, prompt_len=30_000, output_len=2_000),
        Scenario(model="llama-3.1-8b", gpu="h100-sxm", cards=8, concurrency=100),
    ],
)
def test_the_serving_sweeps_size_each_point_as_an_estimate_of_it_would(scenario):
    # The sweeps size memory directly on the engine's replica (one estimate, not one per point):
    # each point must be what estimate() says for that batch or context on that replica.
    pinned = pinned_serving(scenario, CATALOG)
    for point in inference_batch_sweep(scenario, CATALOG):
        engine = estimate(with_batch(pinned, point.x), CATALOG).inference
        assert point.memory == engine.memory_per_gpu and point.fits == engine.fits, point.x
    for point in inference_context_sweep(scenario, CATALOG, batch=2):
        engine = estimate(with_context(with_batch(pinned, 2), point.x), CATALOG).inference
        assert point.memory == engine.memory_per_gpu and point.fits == engine.fits, point.x


SIZED_TRAINING = [
    LLAMA_8B_ON_EIGHT,
    Scenario(model="llama-3.1-70b", gpu="h100-sxm", cards=64),
    Scenario(model="llama-3.1-70b", gpu="a100-sxm-80gb", cards=16, finetune="lora"),
    Scenario(model="mixtral-8x7b", gpu="h100-sxm", cards=32),
    Scenario(model="llama-3.1-8b", gpu="rtx-4090", cards=2, finetune="qlora", precision="int4"),
    Scenario(model="llama-3.1-70b", gpu="h100-sxm", cards=8, recompute="full", recompute_layers=20),
    Scenario(model="llama-3.1-8b", gpu="h100-sxm", cards=1, precision="int4"),  # refused: nothing fits
]


@pytest.mark.parametrize("scenario", SIZED_TRAINING)
def test_the_training_sweeps_size_each_point_as_an_estimate_of_it_would(scenario):
    # The zero and recompute sweeps and the micro-batch and sequence searches size memory on the held
    # layout without an estimate each: every point must be what estimate() says for the pinned scenario
    # with that one change (full recomputation: every layer of a stage).
    base = estimate(scenario, CATALOG)
    pinned = pinned_training(base)
    every = math.ceil(base.resolved.arch.layers / base.training.parallelism.pp)
    cases = [(point, {"zero": point.value}) for point in zero_stage_sweep(base, CATALOG).points]
    for point in recompute_sweep(base, CATALOG).points:
        if point.value in ("none", "selective"):
            cases.append((point, {"recompute": point.value, "recompute_layers": None}))
        elif point.value == "full":
            cases.append((point, {"recompute": "full", "recompute_layers": every}))
    for point, change in cases:
        engine = estimate(dataclasses.replace(pinned, **change), CATALOG).training
        assert point.memory.total == pytest.approx(engine.memory_per_gpu.total, rel=1e-12), change
        assert point.fits == engine.fits, change
    micro, seq = largest_training_micro_batch(base, CATALOG), largest_training_seq_len(base, CATALOG)
    if micro:
        assert _trains(pinned, micro_batch=micro) and not _trains(pinned, micro_batch=micro + 1)
        assert _trains(pinned, seq_len=seq) and not _trains(pinned, seq_len=seq + 1)
    else:
        assert not _trains(pinned, micro_batch=1) and seq == 0


def test_a_page_that_passes_its_estimate_asks_the_engine_no_more_for_memory(monkeypatch):
    # Only the timed points estimate again: the other tp degrees and the full-recomputation point.
    import model.analyses.fit as fit_module

    base = estimate(LLAMA_8B_ON_EIGHT, CATALOG)
    calls = []
    real = fit_module.estimate
    monkeypatch.setattr(fit_module, "estimate", lambda *a, **k: calls.append(a[0]) or real(*a, **k))
    largest_training_micro_batch(base, CATALOG)
    largest_training_seq_len(base, CATALOG)
    zero_stage_sweep(base, CATALOG)
    largest_inference_context(base, CATALOG, batch=8)
    inference_batch_sweep(base, CATALOG)
    inference_context_sweep(base, CATALOG)
    assert calls == []
    recompute_sweep(base, CATALOG)
    assert len(calls) <= 1
