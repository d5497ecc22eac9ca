"""One estimate: the contract's keys, its warnings, and what its low-high ranges mean."""

import dataclasses
import math

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from model import Scenario, default_catalog, estimate, parse_user_catalog
from model.analyses.fit import pinned_serving, pinned_training
from model.efficiency import EXPECTED, OPTIMISTIC, PESSIMISTIC, PESSIMISTIC_MOVES, RangeMoves, moved
from tests.catalog_rows import UNPRICED_GPU

CATALOG = default_catalog()
TIMES = ("time_s", "gpu_hours", "cost_usd", "energy_kwh", "ttft_s", "tpot_s", "cost_per_million_output_tokens_usd")
RATES = ("tokens_per_s_per_gpu", "mfu", "decode_tokens_per_s", "decode_tokens_per_s_per_user", "prefill_tokens_per_s")
scenarios = st.builds(
    Scenario,
    model=st.sampled_from(sorted(CATALOG.models)),
    gpu=st.sampled_from(sorted(CATALOG.gpus)),
    cards=st.sampled_from([1, 8, 64, 1024]),
    precision=st.sampled_from(["bf16", "fp8", "int4", "fp4"]),
    batch=st.one_of(st.integers(1, 512), st.just("max")),
    finetune=st.sampled_from(["none", "lora"]),
)


def _figure(result, name):
    part = result.training if hasattr(result.training, name) else result.inference
    return getattr(part, name)


def test_the_json_has_every_key_of_the_contract():
    document = estimate(Scenario(model="llama-3.1-70b", gpu="h100-sxm", cards=64), CATALOG).to_dict()
    assert {"inputs", "training", "inference", "ranges", "warnings"} <= set(document)
    assert {"total_flops", "time_s", "gpu_hours", "cost_usd", "energy_kwh", "tokens_per_s_per_gpu", "mfu",
            "memory_per_gpu", "fits", "parallelism"} <= set(document["training"])  # fmt: skip
    assert {"memory_per_gpu", "fits", "max_batch", "ttft_s", "tpot_s", "tpot_roofline_s", "decode_step_s",
            "decode_tokens_per_s", "decode_tokens_per_s_per_user", "prefill_tokens_per_s", "bound",
            "cost_per_million_output_tokens_usd"} <= set(document["inference"])  # fmt: skip
    assert set(document["training"]["parallelism"]) == {"tp", "pp", "dp", "ep", "zero"}
    assert {"weights", "gradients", "optimizer", "activations", "other", "total"} == set(
        document["training"]["memory_per_gpu"]
    )


@settings(max_examples=60, deadline=None)
@given(scenarios)
def test_the_optimistic_efficiencies_give_the_fast_end_of_every_range(scenario):
    result = estimate(scenario, CATALOG)
    # A named or implied stack's constants are applied first and the range moves from that set
    # (model.stacks.serving_efficiencies), so only the engine's own profile has these exact ends.
    assume(result.resolved.stack.id == "typical")
    # The range keeps the expected set's layouts: pin them, training and serving apart.
    training, serving = pinned_training(scenario, CATALOG), pinned_serving(scenario, CATALOG)
    hopeful = {part: estimate(pin, CATALOG, efficiencies=OPTIMISTIC) for part, pin in (("t", training), ("s", serving))}
    gloomy = {part: estimate(pin, CATALOG, efficiencies=PESSIMISTIC) for part, pin in (("t", training), ("s", serving))}
    for name, bounds in result.ranges.items():
        part = "t" if hasattr(result.training, name) else "s"
        fast, slow = _figure(hopeful[part], name), _figure(gloomy[part], name)
        low, high = (fast, slow) if name in TIMES else (slow, fast)
        assert bounds.low == pytest.approx(low, rel=1e-9), name
        assert bounds.high == pytest.approx(high, rel=1e-9), name


def test_a_wider_efficiency_spread_widens_the_range():
    scenario = Scenario(model="llama-3.1-70b", gpu="h100-sxm", cards=64)
    near = estimate(scenario, CATALOG, efficiencies=moved(EXPECTED, PESSIMISTIC_MOVES))
    far = estimate(scenario, CATALOG, efficiencies=moved(EXPECTED, RangeMoves(*(m**2 for m in PESSIMISTIC_MOVES))))
    assert far.training.time_s > near.training.time_s > estimate(scenario, CATALOG).training.time_s
    assert far.inference.tpot_s > near.inference.tpot_s


def test_a_fixed_mfu_collapses_the_training_time_range_to_a_point():
    free = estimate(Scenario(model="llama-3.1-8b", gpu="h100-sxm", cards=64), CATALOG)
    fixed = estimate(Scenario(model="llama-3.1-8b", gpu="h100-sxm", cards=64, mfu=0.4), CATALOG)
    assert free.ranges["time_s"].low < free.ranges["time_s"].high
    for name in ("time_s", "gpu_hours", "tokens_per_s_per_gpu", "mfu"):
        assert fixed.ranges[name].low == pytest.approx(fixed.ranges[name].high, rel=1e-12), name
        assert fixed.uncertain_range(name) is None
    assert fixed.uncertain_range("tpot_s") is not None  # serving keeps its range


def test_an_uncertain_figure_shows_its_range_and_a_counted_one_does_not():
    result = estimate(Scenario(model="llama-3.1-70b", gpu="h100-sxm", cards=64), CATALOG)
    assert result.uncertain_range("time_s") == result.ranges["time_s"]
    assert result.uncertain_range("max_batch") is None  # counted, not rated


def test_training_every_weight_in_int8_is_refused_and_sized_as_its_bf16_fix():
    # One answer (issue 29): the goal verdict refuses it, so the estimate runs no time or price for it either.
    result = estimate(Scenario(model="llama-3.1-8b", gpu="h100-sxm", precision="int8"), CATALOG)
    assert result.training.precision == "bf16" and not result.training.fits
    assert result.training.memory_per_gpu.total <= result.resolved.gpu.capacity_bytes  # what bf16 would need
    assert result.to_dict()["training"]["time_s"] is None
    assert any("weight format for serving" in warning for warning in result.warnings)
    adapters = estimate(Scenario(model="llama-3.1-8b", precision="int4", finetune="qlora"), CATALOG)
    assert adapters.training.precision == "int4"
    assert adapters.training.state_bytes_per_param < result.training.state_bytes_per_param


@pytest.mark.parametrize("precision", ["q4_k_m", "awq_int4", "nf4", "mxfp4", "nvfp4"])
def test_pretraining_in_a_local_or_serving_format_is_refused_and_adapters_on_it_train(precision):
    refused = estimate(Scenario(model="llama-3.1-8b", gpu="h100-sxm", precision=precision), CATALOG)
    assert refused.training.precision == "bf16" and refused.to_dict()["training"]["time_s"] is None
    for finetune in ("lora", "qlora"):
        tuned = estimate(Scenario(model="llama-3.1-8b", gpu="h100-sxm", precision=precision, finetune=finetune))
        assert tuned.training.precision == precision and tuned.to_dict()["training"]["time_s"] is not None


def test_a_gpu_without_a_price_has_no_costs_and_says_so():
    result = estimate(Scenario(model="llama-3.1-8b", gpu="h100-sxm", price_per_gpu_hour=None), CATALOG)
    assert result.training.cost_usd is not None  # the catalog has an H100 price
    unpriced = CATALOG.merged(parse_user_catalog(UNPRICED_GPU, "mine.yaml"))
    missing = estimate(Scenario(model="llama-3.1-8b", gpu="my-card"), unpriced)
    assert missing.training.cost_usd is None and missing.inference.cost_per_million_output_tokens_usd is None
    assert any("no price is known" in warning for warning in missing.warnings)
    typed = estimate(Scenario(model="llama-3.1-8b", gpu="my-card", price_per_gpu_hour=2.0), unpriced)
    assert typed.training.cost_usd == pytest.approx(typed.training.gpu_hours * 2.0)


def test_every_catalog_gpu_has_a_price_for_its_costs():
    for gpu in CATALOG.gpus.values():
        result = estimate(Scenario(model="llama-3.1-8b", gpu=gpu.id, cards=8), CATALOG)
        assert result.resolved.price_per_gpu_hour is not None, gpu.id
        # A machine on a desk is bought, not rented: its hour is the owning price (DESIGN.md 7).
        assert result.resolved.price.source == ("estimated" if gpu.for_rent else "owned") or (
            gpu.for_rent and result.resolved.price.source == "catalog"
        ), gpu.id


def test_the_largest_batch_is_served_when_asked_for_max():
    full = estimate(Scenario(model="llama-3.1-8b", gpu="h100-sxm", cards=1, batch="max"), CATALOG).inference
    assert full.batch == full.max_batch > 1
    assert full.fits


def test_a_model_too_large_for_its_cards_does_not_fit_and_is_still_a_result():
    result = estimate(Scenario(model="llama-3.1-405b", gpu="rtx-4090", cards=1), CATALOG)
    assert not result.training.fits and not result.inference.fits
    assert all(math.isfinite(value) for value in (result.training.time_s, result.inference.tpot_s))
    assert sum("does not fit" in warning for warning in result.warnings) == 2


def test_an_estimate_is_the_same_for_the_same_scenario():
    scenario = Scenario(model="mixtral-8x7b", gpu="mi300x", cards=8, batch=16)
    assert estimate(scenario, CATALOG).to_dict() == estimate(dataclasses.replace(scenario), CATALOG).to_dict()


def test_each_warning_is_also_a_code_with_values_that_fill_its_template():
    # int8 training on a GPU with no price, too large for one 4090: several notes at once.
    result = estimate(Scenario(model="llama-3.1-405b", gpu="rtx-4090", cards=1, precision="int8"), CATALOG)
    codes = [note.code for note in result.notes]
    assert {"not_training_format", "inference_does_not_fit_none"} <= set(codes)  # refused, not "does not fit"
    assert [note.text for note in result.notes] == list(result.warnings)
    assert all(note.template.format(**note.values) == note.text for note in result.notes)
    assert result.to_dict()["notes"][0] == {"code": codes[0], "values": dict(result.notes[0].values)}


def test_more_gpus_per_node_than_cards_is_said_not_silently_capped():
    # Found by the full CLI fuzz: --gpus-per-node 2500 on 1,000 cards became 1,000 without a word.
    result = estimate(Scenario(model="llama-3.1-8b", gpu="h100-sxm", cards=16, gpus_per_node=64))
    assert result.resolved.gpus_per_node == 16
    assert [note.code for note in result.notes if note.code == "gpus_per_node_capped"] == ["gpus_per_node_capped"]
    assert not any("gpus per node" in text for text in estimate(Scenario(model="llama-3.1-8b", cards=16)).warnings)
