"""Invariants over random scenarios (hypothesis)."""

import dataclasses
import math

from hypothesis import given, settings
from hypothesis import strategies as st

from model import PRECISIONS, Scenario, default_catalog, estimate
from model.analyses.fit import pinned_serving, pinned_training
from model.efficiency import EXPECTED, OPTIMISTIC, PESSIMISTIC

CATALOG = default_catalog()
GPU_IDS = sorted(CATALOG.gpus)
MODEL_IDS = sorted(CATALOG.models)

scenarios = st.builds(
    Scenario,
    model=st.sampled_from(MODEL_IDS),
    gpu=st.sampled_from(GPU_IDS),
    cards=st.sampled_from([1, 2, 3, 8, 16, 64, 512, 4096, 100_000]),
    precision=st.sampled_from(PRECISIONS),
    batch=st.one_of(st.integers(1, 4096), st.just("max")),
    prompt_len=st.integers(1, 32_000),
    output_len=st.integers(1, 8_000),
    tokens=st.one_of(st.none(), st.floats(1e6, 1e14)),
    finetune=st.sampled_from(["none", "full", "lora", "qlora"]),
    optimizer=st.sampled_from(["adamw", "adamw-8bit", "sgd", "adafactor"]),
    recompute=st.sampled_from([None, "none", "selective", "full"]),
    utilization=st.floats(0.05, 1.0),
    network=st.sampled_from([None, *sorted(CATALOG.networks)]),
    interconnect=st.sampled_from([None, *sorted(CATALOG.interconnects)]),
)


def _numbers(value, path=""):
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _numbers(item, f"{path}.{key}")
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            yield from _numbers(item, f"{path}[{index}]")
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        yield path, value


@settings(max_examples=300)
@given(scenarios)
def test_no_output_is_negative_nan_or_infinite(scenario):
    result = estimate(scenario).to_dict()
    for path, value in _numbers({k: result[k] for k in ("training", "inference", "ranges")}):
        assert math.isfinite(value), path
        assert value >= 0, path


@settings(max_examples=150)
@given(scenarios)
def test_the_expected_figure_lies_between_the_optimistic_and_pessimistic_ones(scenario):
    # Each efficiency set estimated on its own: the expected set must sit between the range's
    # ends, so a factor that made the optimistic set slower somewhere would fail here.
    # The layouts are the expected set's (the range keeps them): pin them, training and serving apart.
    for part, pinned in (("training", pinned_training(scenario)), ("inference", pinned_serving(scenario))):
        fast, middle, slow = (estimate(pinned, efficiencies=eff) for eff in (OPTIMISTIC, EXPECTED, PESSIMISTIC))
        for name in ("time_s", "tpot_s", "ttft_s"):
            if hasattr(getattr(middle, part), name):
                values = [getattr(getattr(result, part), name) for result in (fast, middle, slow)]
                assert values[0] <= values[1] * (1 + 1e-9) and values[1] <= values[2] * (1 + 1e-9), name


shapes = st.fixed_dictionaries(
    {
        "layers": st.integers(2, 96),
        "hidden": st.sampled_from([1024, 2048, 4096, 8192]),
        "ffn": st.integers(1024, 32_768),
        "cards": st.sampled_from([1, 8, 64]),
        "gpu": st.sampled_from(["h100-sxm", "a100-sxm-80gb", "mi300x", "rtx-4090"]),
    }
)


@given(shapes, st.sampled_from(["layers", "hidden", "ffn"]))
def test_more_parameters_never_need_less_memory_or_time(shape, grown):
    # The same family made bigger in one dimension, on a fixed layout.
    fixed = {
        "tp": 1,
        "pp": 1,
        "zero": 3 if shape["cards"] > 1 else 0,
        "recompute": "selective",
        "tokens": 1e10,
        "micro_batch": 1,
        "vp": 1,
        "global_batch": 64,
    }
    base = {**shape, **fixed, "heads": 16, "kv_heads": 8, "batch": 4}
    bigger = dict(base)
    bigger[grown] = base[grown] * 2
    small, large = estimate(Scenario(**base)), estimate(Scenario(**bigger))
    assert large.inputs["params"] > small.inputs["params"]
    assert large.training.memory_per_gpu.total >= small.training.memory_per_gpu.total
    assert large.inference.memory_per_gpu.total >= small.inference.memory_per_gpu.total
    assert large.training.time_s >= small.training.time_s
    assert large.inference.tpot_s >= small.inference.tpot_s


@given(st.sampled_from(GPU_IDS), st.floats(1.01, 10.0), st.sampled_from(MODEL_IDS), st.integers(1, 512))
def test_more_bandwidth_never_decodes_slower(gpu_id, factor, model_id, batch):
    gpu = CATALOG.gpus[gpu_id]
    faster = dataclasses.replace(
        gpu, id="faster", memory_bandwidth_bytes_per_s=gpu.memory_bandwidth_bytes_per_s * factor
    )
    catalog = CATALOG.merged(dataclasses.replace(CATALOG, gpus={"faster": faster}))
    common = {"model": model_id, "cards": 8, "batch": batch, "precision": "bf16"}
    base = estimate(Scenario(gpu=gpu_id, **common), catalog).inference
    quick = estimate(Scenario(gpu="faster", **common), catalog).inference
    assert quick.tpot_s <= base.tpot_s * (1 + 1e-12)
    # The roofline is not what the layout choice minimises (a faster card may pick a smaller tensor-
    # parallel group whose expected time is lower and ideal time higher): compare it on one layout.
    same = estimate(Scenario(gpu="faster", tp=base.tp, pp=base.pp, attention_dp=base.ep, **common), catalog).inference
    assert same.tpot_roofline_s <= base.tpot_roofline_s * (1 + 1e-12)


@given(st.sampled_from(MODEL_IDS), st.sampled_from(["h100-sxm", "h200", "b200", "mi300x"]), st.integers(0, 8))
def test_more_cards_never_need_more_memory_per_card_under_zero3(model_id, gpu_id, doublings):
    cards = 8 * 2**doublings
    # The layout is pinned (expert parallelism too: a wider ep gathers fewer experts per layer).
    layout = {"zero": 3, "tp": 1, "pp": 1, "ep": 1, "recompute": "full", "micro_batch": 1}
    common = {"model": model_id, "gpu": gpu_id, **layout}
    fewer = estimate(Scenario(cards=cards, **common)).training.memory_per_gpu.total
    more = estimate(Scenario(cards=cards * 2, **common)).training.memory_per_gpu.total
    assert more <= fewer * (1 + 1e-12)
