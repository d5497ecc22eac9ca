"""How the cards are split: the layout search for training and the serving replica."""

import dataclasses

from model import Scenario, default_catalog, estimate
from model.memory import ServingLoad, training_regime
from model.parallelism import choose_inference_layout, choose_training_layout

CATALOG = default_catalog()
H100 = CATALOG.gpus["h100-sxm"]
LLAMA_70B = CATALOG.models["llama-3.1-70b"].architecture
LLAMA_8B = CATALOG.models["llama-3.1-8b"].architecture
REGIME_70B = training_regime(LLAMA_70B, "bf16", "adamw", "none", 16, True)


def _train(arch=LLAMA_70B, regime=REGIME_70B, **settings):
    options = {
        "cards": 64,
        "gpus_per_node": 8,
        "capacity_bytes": H100.memory_bytes,
        "seq_len": 4096,
        "global_tokens": 4 * 2**20,
        "micro_batch": 1,
        "recompute": None,
        "flash_attention": True,
        "runtime_bytes": 1e9,
    }
    return choose_training_layout(arch, regime, **{**options, **settings})


def test_the_training_layout_fits_uses_every_card_and_keeps_tensor_parallelism_in_a_node():
    plan = _train()
    layout = plan.layout
    assert plan.fits
    assert plan.memory.total <= H100.memory_bytes
    assert layout.tp * layout.pp * layout.dp == 64
    assert layout.tp <= 8


def test_values_the_user_fixes_are_kept():
    plan = _train(tp=4, pp=2, zero=1, recompute="full")
    assert (plan.layout.tp, plan.layout.pp, plan.layout.zero, plan.recompute) == (4, 2, 1, "full")
    assert plan.layout.dp == 8


def test_when_nothing_fits_the_layout_needing_least_memory_is_reported_as_not_fitting():
    plan = _train(cards=1)
    assert not plan.fits
    assert plan.memory.total > H100.memory_bytes
    assert plan.recompute == "full"  # tried after selective: it keeps the least
    assert plan.memory.total < _train(cards=1, recompute="selective").memory.total


def test_every_replica_gets_whole_micro_batches_of_the_global_batch():
    plan = _train()
    sequences = round(4 * 2**20 / 4096)
    assert plan.global_batch >= sequences
    assert plan.global_batch == plan.microbatches * plan.layout.dp  # micro-batch 1


def test_the_serving_replica_is_the_smallest_that_holds_the_weights_and_the_batch():
    load = ServingLoad(precision="bf16", kv_precision="bf16", context=2048, prompt_len=1024)
    plan = choose_inference_layout(
        LLAMA_70B, load, cards=8, gpus_per_node=8, capacity_bytes=H100.memory_bytes, batch=1, tp=None, pp=None
    )
    assert plan.fits
    assert plan.tp * plan.pp == 2  # 141 GB of bf16 weights: one 80 GB card is too small, two hold them
    assert plan.dp == 4
    smaller = choose_inference_layout(
        LLAMA_8B, load, cards=8, gpus_per_node=8, capacity_bytes=H100.memory_bytes, batch=1, tp=None, pp=None
    )
    assert (smaller.tp, smaller.pp, smaller.dp) == (1, 1, 8)


def test_a_serving_replica_that_cannot_fit_says_so():
    load = ServingLoad(precision="bf16", kv_precision="bf16", context=2048, prompt_len=1024)
    plan = choose_inference_layout(
        LLAMA_70B, load, cards=1, gpus_per_node=1, capacity_bytes=H100.memory_bytes, batch=1, tp=None, pp=None
    )
    assert not plan.fits
    assert plan.memory.total > H100.memory_bytes


def test_experts_spread_across_nodes_when_the_data_parallel_group_is_wide():
    result = estimate(Scenario(model="mixtral-8x7b", gpu="h100-sxm", cards=256, tokens=1e12), CATALOG)
    layout = result.training.parallelism
    assert layout.ep == 8  # every one of Mixtral's 8 experts on its own rank, beyond one node's 8 / tp


def test_the_global_batch_caps_data_parallelism_and_more_cards_add_model_parallelism():
    # 512 sequences per step cannot feed more than 512 replicas of one micro-batch each.
    base = Scenario(model="llama-3.1-8b", gpu="h100-sxm", tokens=1e12, seq_len=8192, global_batch=512)
    for cards in (256, 2048, 8192):
        training = estimate(dataclasses.replace(base, cards=cards), CATALOG).training
        layout = training.parallelism
        assert layout.dp <= 512
        assert training.global_batch == 512
        assert layout.tp * layout.pp * layout.dp == cards
