"""How the cards are split: the training layout search, its batch, and what the user fixes."""

import dataclasses
import itertools

import pytest

from model import Scenario, ScenarioError, default_catalog, estimate
from model.batch import TOKENS_PER_GPU_FLOOR, default_global_batch
from model.layouts.grid import model_parallel_pairs
from model.layouts.training import CANDIDATES_SHOWN

CATALOG = default_catalog()


def _training(**settings):
    return estimate(Scenario(**settings), CATALOG).training


@pytest.mark.parametrize(
    "base",
    [
        {"model": "llama-3.1-8b", "gpu": "h100-sxm", "cards": 8, "tokens": 1e11},
        {"model": "llama-3.1-70b", "gpu": "a100-sxm-80gb", "cards": 16, "tokens": 1e11, "seq_len": 2048},
    ],
)
def test_the_chosen_layout_is_never_slower_than_any_other_that_fits(base):
    # Brute force over a small space: every combination the user could fix by hand, at the batch
    # the search aims for (each layout rounds it up to whole micro-batches, as the search's own
    # candidates do; the time to train the same tokens compares them per token). Interleaving
    # needs whole groups of pp micro-batches (Megatron-Core refuses other counts).
    chosen = _training(**base)
    assert chosen.fits
    arch = CATALOG.models[base["model"]].architecture
    target = default_global_batch(arch, base["tokens"], base["cards"], chosen.seq_len)
    assert target <= chosen.global_batch < 2 * target
    best = None
    for tp, pp, zero, recompute, micro_batch, vp in itertools.product(
        (1, 2, 4, 8), (1, 2, 4), (1, 2, 3), ("none", "selective", "full"), (1, 2, 4), (1, 2, 4)
    ):
        if tp * pp > base["cards"] or (vp > 1 and pp <= 2):
            continue
        try:
            fixed = {"tp": tp, "pp": pp, "zero": zero, "recompute": recompute, "micro_batch": micro_batch, "vp": vp}
            other = _training(**base, **fixed, global_batch=target)
        except ScenarioError:
            continue
        used = other.parallelism.tp * other.parallelism.pp * other.parallelism.dp
        if other.fits and used == base["cards"] and not (vp > 1 and other.microbatches % pp):
            best = other.time_s if best is None else min(best, other.time_s)
    assert best is not None
    assert chosen.time_s <= best * (1 + 1e-9)


def test_every_value_the_user_fixes_is_kept():
    fixed = _training(
        model="llama-3.1-70b", gpu="h100-sxm", cards=64, tp=4, pp=2, zero=1, recompute="full", micro_batch=2, vp=1
    )
    layout = fixed.parallelism
    assert (layout.tp, layout.pp, layout.dp, layout.zero) == (4, 2, 8, 1)
    assert (fixed.recompute, fixed.micro_batch, fixed.vp) == ("full", 2, 1)
    batch = _training(model="llama-3.1-8b", gpu="h100-sxm", cards=64, global_batch=640)
    assert batch.global_batch == 640


def test_more_cards_never_train_longer_at_the_same_batch():
    times = [
        _training(model="llama-3.1-8b", gpu="h100-sxm", cards=cards, tokens=1e11, global_batch=512).time_s
        for cards in (8, 16, 32, 64, 128, 256)
    ]
    assert all(later <= earlier * (1 + 1e-9) for earlier, later in itertools.pairwise(times)), times


def test_a_tiny_model_on_many_cards_is_not_split_by_tensor_parallelism():
    for cards in (64, 256, 1024):
        layout = _training(model="tinyllama-1.1b", gpu="h100-sxm", cards=cards).parallelism
        assert (layout.tp, layout.pp) == (1, 1), cards
        assert layout.dp == cards


def test_a_big_model_at_scale_is_not_left_with_one_micro_batch_per_replica():
    # The case: 405B on 8,192 H100s given as a user would type it.
    training = _training(model="llama-3.1-405b", gpu="h100-sxm", cards=8192, tokens=15e12, seq_len=8192)
    assert training.fits
    assert training.global_batch * 8192 >= 8192 * TOKENS_PER_GPU_FLOOR * 0.99
    if training.parallelism.pp > 1:
        assert training.microbatches >= training.parallelism.pp
    assert training.mfu > 0.3


def test_tensor_parallelism_stays_inside_a_node_and_divides_the_heads():
    for tp, pp in model_parallel_pairs(heads=40, layers=40, cards=64, gpus_per_node=8, tp=None, pp=None):
        assert tp <= 8 and 40 % tp == 0
        assert tp * pp <= 64


def test_the_estimate_reports_its_choice_and_the_runner_ups_with_time_and_memory():
    training = _training(model="llama-3.1-70b", gpu="h100-sxm", cards=64)
    candidates = training.layout_candidates
    assert 2 <= len(candidates) <= 1 + CANDIDATES_SHOWN
    first = candidates[0]
    layout = training.parallelism
    assert (first.tp, first.pp, first.dp, first.zero) == (layout.tp, layout.pp, layout.dp, layout.zero)
    assert first.time_s == pytest.approx(training.time_s)
    assert [c.time_s for c in candidates] == sorted(c.time_s for c in candidates)
    assert all(c.memory_per_gpu <= CATALOG.gpus["h100-sxm"].capacity_bytes for c in candidates)


def test_when_nothing_fits_the_layout_needing_least_memory_is_reported_as_not_fitting():
    training = _training(model="llama-3.1-70b", gpu="h100-sxm", cards=1)
    assert not training.fits
    assert training.recompute == "full"
    assert training.memory_per_gpu.total > CATALOG.gpus["h100-sxm"].memory_bytes
    assert training.layout_candidates[0].memory_per_gpu == training.memory_per_gpu.total


def test_fine_tuning_gets_a_small_batch():
    training = _training(model="llama-3.1-8b", gpu="h100-sxm", cards=8, finetune="lora")
    assert training.global_batch <= 256
    assert dataclasses.replace(Scenario(), finetune="lora").tokens is None


def test_full_recomputation_covers_only_the_layers_the_card_needs():
    # Llama 3.1 405B at tp 8 x pp 16 (the paper's layout) does not fit without recomputation; the
    # search recomputes the fewest of each stage's 8 layers that fit, and one fewer would not (at
    # its ZeRO stage: a higher one may fit with fewer, and move more bytes).
    base = {"model": "llama-3.1-405b", "gpu": "h100-sxm", "cards": 8192, "seq_len": 8192, "tokens": 1e12,
            "tp": 8, "pp": 16, "vp": 4, "global_batch": 2048}  # fmt: skip
    chosen = _training(**base)
    assert chosen.fits and chosen.recompute == "full"
    assert 1 <= chosen.recomputed_layers < 8
    zero = chosen.parallelism.zero
    if chosen.recomputed_layers > 1:
        fewer = _training(**base, zero=zero, recompute="full", recompute_layers=chosen.recomputed_layers - 1)
        assert not fewer.fits
    every = _training(**base, recompute="full")
    assert every.recomputed_layers == 8
    assert chosen.time_s < every.time_s
    assert chosen.memory_per_gpu.activations > every.memory_per_gpu.activations


def test_recomputing_fewer_layers_costs_less_compute_and_more_memory():
    base = {"model": "llama-3.1-70b", "gpu": "h100-sxm", "cards": 64, "seq_len": 8192, "tokens": 1e11,
            "tp": 8, "pp": 4, "global_batch": 64, "micro_batch": 1, "zero": 1, "vp": 1}  # fmt: skip
    runs = [_training(**base, recompute="full", recompute_layers=k) for k in (5, 10, 20)]
    assert [run.recomputed_layers for run in runs] == [5, 10, 20]
    assert runs[0].step.compute < runs[1].step.compute < runs[2].step.compute
    assert runs[0].memory_per_gpu.activations > runs[1].memory_per_gpu.activations > runs[2].memory_per_gpu.activations
    assert runs[0].total_flops < runs[2].total_flops


def test_recompute_layers_needs_full_recomputation():
    with pytest.raises(ScenarioError, match="recompute_layers"):
        _training(model="llama-3.1-8b", recompute="selective", recompute_layers=4)


@pytest.mark.parametrize(
    "base",
    [
        # Llama 3 8B on one 8 x H100 node: with nothing recomputed an 8,192-token sequence does not fit.
        {"model": "llama-3.1-8b", "cards": 8, "seq_len": 8192, "micro_batch": 1, "zero": 1, "global_batch": 16},
        {"model": "llama-3.1-8b", "cards": 64, "seq_len": 8192, "micro_batch": 2, "zero": 2, "global_batch": 256},
        {"model": "llama-3.1-8b", "cards": 8, "seq_len": 8192, "micro_batch": 2, "zero": 2, "global_batch": 32},
    ],
)
def test_the_chosen_recomputation_is_never_slower_than_any_other_at_the_same_layout(base):
    # Per-op selective recomputation reruns half the products; full recomputation of a few layers
    # may rerun fewer. Every mode and every count of fully recomputed layers, the rest held.
    base = {"gpu": "h100-sxm", "tokens": 1e10, "tp": 1, "pp": 1, "vp": 1, **base}
    assert not _training(**base, recompute="none").fits
    chosen = _training(**base)
    every = -(-default_catalog().models[base["model"]].architecture.layers // chosen.parallelism.pp)
    options = [{"recompute": "selective"}]
    options += [{"recompute": "full", "recompute_layers": k} for k in range(1, every + 1)]
    times = [t.time_s for t in (_training(**base, **option) for option in options) if t.fits]
    assert chosen.fits and len(times) > 1
    assert chosen.time_s <= min(times) * (1 + 1e-9)


def test_a_fixed_interleaving_on_a_partial_group_of_micro_batches_is_kept_and_flagged():
    # Megatron-Core takes an interleaved schedule's micro-batches pp at a time; 500 over pp 8 is not.
    fixed = estimate(Scenario(model="llama-2-70b", cards=64, tp=8, pp=8, vp=4, micro_batch=1, global_batch=500))
    assert fixed.training.vp == 4 and fixed.training.microbatches == 500
    assert "vp_partial_group" in {note.code for note in fixed.notes}
    whole = estimate(Scenario(model="llama-2-70b", cards=64, tp=8, pp=8, vp=4, micro_batch=1, global_batch=512))
    assert "vp_partial_group" not in {note.code for note in whole.notes}
    assert "vp_partial_group" not in {note.code for note in estimate(Scenario(model="llama-2-70b", cards=64)).notes}


@pytest.mark.parametrize(
    ("fixed", "expected"),
    [
        ({"tp": 8, "dp": 8}, (8, 1, 8)),  # a published run typed with its tp and dp: pp 1, not an added pp
        ({"dp": 8}, None),
        ({"tp": 4}, None),
        ({"pp": 4}, None),
        ({"tp": 2, "pp": 4, "dp": 8}, (2, 4, 8)),
    ],
)
def test_fixed_dimensions_are_kept_and_the_free_ones_fill_the_cards(fixed, expected):
    # Issue 29: --dp 8 on 64 cards picked tp 4 x pp 16 x dp 8, 512 cards, and timed it.
    training = _training(model="llama-3.1-70b", gpu="h100-sxm", cards=64, tokens=1e11, **fixed)
    layout = training.parallelism
    assert layout.tp * layout.pp * layout.dp == 64
    assert all(getattr(layout, name) == value for name, value in fixed.items())
    if expected:
        assert (layout.tp, layout.pp, layout.dp) == expected


def test_a_fixed_dp_that_leaves_no_whole_replica_shape_idles_the_rest_and_says_so():
    result = estimate(Scenario(model="llama-3.1-70b", gpu="h100-sxm", cards=24, dp=8, tokens=1e11), CATALOG)
    layout = result.training.parallelism
    used = layout.tp * layout.pp * layout.dp
    assert layout.dp == 8 and used < 24  # tp and pp are powers of two: 3 cards per replica cannot be filled
    assert [note.fields for note in result.notes if note.code == "cards_idle"] == [
        {"shape": f"tp {layout.tp} x pp {layout.pp} x dp 8", "used": str(used), "cards": "24"}
    ]


@pytest.mark.parametrize(
    ("fixed", "field"),
    [({"tp": 8, "dp": 16}, "dp"), ({"dp": 12}, "dp"), ({"tp": 8, "pp": 16}, "pp"), ({"ep": 128}, "ep")],
)
def test_fixed_dimensions_the_cards_cannot_hold_are_a_bad_input_naming_the_field(fixed, field):
    with pytest.raises(ScenarioError) as raised:
        estimate(Scenario(model="mixtral-8x7b", gpu="h100-sxm", cards=64, **fixed), CATALOG)
    assert raised.value.field == field


@pytest.mark.parametrize(
    "base",
    [
        # Found by the invariant suite (issue 29): a fine-tune's small batch on many cards ran slower on twice
        # the cards, its extra replicas splitting too few micro-batches (a wider bubble) or forcing deeper pipelines.
        {"model": "llama-3.1-70b", "gpu": "rtx-5090", "cards": 1024, "precision": "fp16", "finetune": "full"},
        {"model": "mixtral-8x7b", "gpu": "tpu-v5p", "cards": 4096, "precision": "fp8", "finetune": "qlora"},
        {"model": "qwen2.5-72b", "gpu": "l4", "cards": 1024, "precision": "fp16", "finetune": "lora"},
        # The bound skipped micro-batch 1, and the search then stopped before micro-batch 2, which interleaves.
        {"model": "gpt-3-175b", "gpu": "t4", "cards": 47902, "precision": "fp8", "recompute": "selective"},
    ],
)
def test_twice_the_cards_never_trains_slower_leaving_cards_idle_if_it_must(base):
    one = _training(**base)
    two = estimate(Scenario(**{**base, "cards": 2 * base["cards"]}), CATALOG)
    assert one.fits and two.training.fits
    assert two.training.time_s <= one.time_s
    layout = two.training.parallelism
    used = layout.tp * layout.pp * layout.dp
    assert used <= 2 * base["cards"]
    assert any(note.code == "cards_idle" for note in two.notes) == (used < 2 * base["cards"])


def test_a_fixed_ep_is_met_even_where_the_batch_leaves_fewer_sequences_than_replicas():
    # Found by the invariant run: a fine-tune's small batch capped dp below every tp x dp that ep 32 divides.
    tuned = Scenario(model="mixtral-8x7b", gpu="ascend-910b", cards=21537, tp=3, ep=32, finetune="lora")
    layout = estimate(tuned, CATALOG).training.parallelism
    assert layout.ep == 32 and (layout.tp * layout.dp) % 32 == 0
