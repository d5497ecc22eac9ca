"""Pinned layouts and the sweeps: what each knob does to memory per card, the layout held."""

import dataclasses

import pytest

from model import Scenario, default_catalog, estimate
from model.analyses.fit import (
    inference_batch_sweep,
    inference_context_sweep,
    largest_component,
    largest_inference_batch,
    largest_inference_context,
    pinned_training,
    recompute_sweep,
    tp_sweep,
    with_context,
    zero_stage_sweep,
)

CATALOG = default_catalog()
LLAMA_8B_ON_ONE = Scenario(model="llama-3.1-8b", gpu="h100-sxm", cards=1, prompt_len=3000, output_len=1000, batch=8)
LLAMA_8B_ON_EIGHT = Scenario(model="llama-3.1-8b", gpu="h100-sxm", cards=8, batch=32)


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
    largest = largest_inference_batch(LLAMA_8B_ON_ONE, CATALOG)
    points = inference_batch_sweep(LLAMA_8B_ON_ONE, CATALOG, largest=largest)
    totals = [point.memory.total for point in points]
    assert totals == sorted(totals)
    assert points[0].x == 1
    assert all(point.fits == (point.x <= largest) for point in points)


def test_the_largest_component_names_the_biggest_share():
    memory = estimate(LLAMA_8B_ON_EIGHT, CATALOG).training.memory_per_gpu
    name = largest_component(memory)
    assert getattr(memory, name) == max(memory.weights, memory.gradients, memory.optimizer, memory.activations)
