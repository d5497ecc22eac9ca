"""The software stack as an input (issue 33): its profile's mechanisms and constants, applied by model.stacks."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import yaml

from model import CatalogError, Scenario, ScenarioError, auto_kv_precision, default_catalog, estimate
from model.catalog import STACK_IDS
from model.catalog.stacks import read_stacks
from model.stacks import platform_of, serving_efficiencies, training_knobs, with_constants

CATALOG = default_catalog()
DESK = Scenario(model="llama-3.1-8b", gpu="rtx-4090", cards=1, precision="q4_k_m", prompt_len=16, output_len=128)
"""One user on a desk: Llama 3.1 8B in Q4_K_M on one RTX 4090."""


def _tpot(scenario: Scenario, catalog=CATALOG) -> float:  # type: ignore[no-untyped-def]
    return estimate(scenario, catalog).inference.tpot_s


def test_every_stack_has_a_profile_with_a_source_and_platforms() -> None:
    assert set(CATALOG.stacks) == set(STACK_IDS)
    for stack in CATALOG.stacks.values():
        assert stack.source and stack.platforms, stack.id
        assert set(stack.platforms) <= set(CATALOG.platforms), stack.id


def test_typical_is_the_default_and_changes_nothing() -> None:
    assert Scenario().stack == "typical"
    typical = CATALOG.stacks["typical"]
    assert not typical.constants and not typical.training and typical.multi_card == "search"
    platform = platform_of(CATALOG, CATALOG.gpus["h100-sxm"])
    eff = estimate(Scenario()).resolved
    assert serving_efficiencies(eff.stack, platform, _expected()) is _expected()


def _expected():  # type: ignore[no-untyped-def]
    from model.efficiency import EXPECTED

    return EXPECTED


def test_a_stack_that_only_trains_serves_as_typical_and_one_that_only_serves_trains_as_typical() -> None:
    base = Scenario(model="llama-3.1-8b", gpu="h100-sxm", cards=8, batch=4)
    typical = estimate(base)
    trains_only = estimate(dataclasses.replace(base, stack="megatron"))
    serves_only = estimate(dataclasses.replace(base, stack="llamacpp"))
    assert trains_only.inference.tpot_s == typical.inference.tpot_s
    assert serves_only.training.time_s == typical.training.time_s


def test_a_stack_off_its_platform_is_refused_naming_the_field() -> None:
    with pytest.raises(ScenarioError) as refused:
        estimate(Scenario(gpu="mi300x", stack="trtllm"))
    assert refused.value.field == "stack"
    assert "TensorRT-LLM" in str(refused.value) and "ROCm" in str(refused.value)
    with pytest.raises(ScenarioError, match="stack"):
        estimate(Scenario(gpu="h100-sxm", stack="mlx"))


def test_an_unknown_stack_names_the_allowed_ones() -> None:
    with pytest.raises(ScenarioError, match="one of typical, vllm"):
        estimate(Scenario(stack="nonsense"))  # type: ignore[arg-type]


def test_llamacpp_on_two_cards_decodes_no_faster_per_token_than_one() -> None:
    # Issue 33, done when: llama.cpp's default layer split is a pipeline one token crosses in turn.
    one = estimate(dataclasses.replace(DESK, stack="llamacpp"))
    two = estimate(dataclasses.replace(DESK, stack="llamacpp", cards=2))
    assert one.inference.fits and two.inference.fits
    assert (two.inference.tp, two.inference.pp, two.inference.dp) == (1, 2, 1)
    assert two.inference.tpot_s >= one.inference.tpot_s
    # A data-centre server instead splits every layer's matrices over both cards for one user: faster than
    # itself on one card (not necessarily than llama.cpp's own kernels there: their constants are fitted apart).
    server = estimate(dataclasses.replace(DESK, stack="vllm", cards=2)).inference
    alone = estimate(dataclasses.replace(DESK, stack="vllm")).inference
    assert server.tp == 2 and server.tpot_s < alone.tpot_s


def test_llamacpp_splits_layers_over_every_card_and_ollama_keeps_a_model_that_fits_on_one() -> None:
    four = dataclasses.replace(DESK, cards=4)
    assert estimate(dataclasses.replace(four, stack="llamacpp")).inference.pp == 4
    ollama = estimate(dataclasses.replace(four, stack="ollama")).inference
    assert (ollama.pp, ollama.dp) == (1, 1)
    big = dataclasses.replace(four, model="llama-3.1-70b", stack="ollama")  # ~42 GB: not on one 24 GB card
    assert estimate(big).inference.pp == 4


def test_exllamav2_fills_the_fewest_cards_that_hold_the_model() -> None:
    big = Scenario(model="llama-3.1-70b", gpu="rtx-4090", cards=8, precision="q4_k_m", stack="exllamav2")
    served = estimate(big).inference
    assert served.fits and served.tp == 1 and served.dp == 1
    assert 2 <= served.pp < 8


def test_a_fixed_tp_on_llamacpp_is_its_row_split_and_pays_a_synchronising_copy_per_product() -> None:
    row = dataclasses.replace(DESK, cards=2, tp=2, stack="llamacpp")
    free = with_constants(CATALOG, {"llamacpp": {"split_sync_s": 0.0}}, {})
    costly = with_constants(CATALOG, {"llamacpp": {"split_sync_s": 40e-6}}, {})
    layers = CATALOG.models["llama-3.1-8b"].architecture.layers
    extra = _tpot(row, costly) - _tpot(row, free)
    assert extra == pytest.approx(layers * 7 * 40e-6, rel=1e-6)  # Q, K, V, output and three MLP products


def test_a_stack_whose_quantised_kernels_read_at_a_higher_share_decodes_faster() -> None:
    slow = with_constants(CATALOG, {"llamacpp": {"quantized_read_share": 0.7}}, {})
    fast = with_constants(CATALOG, {"llamacpp": {"quantized_read_share": 1.0}}, {})
    desk = dataclasses.replace(DESK, stack="llamacpp")
    assert _tpot(desk, fast) < _tpot(desk, slow)
    bf16 = dataclasses.replace(desk, precision="bf16")
    assert _tpot(bf16, fast) == pytest.approx(_tpot(bf16, slow))  # 16-bit weights are not its quantised kernels


def test_a_stack_without_cuda_graphs_pays_the_hosts_launch_pace() -> None:
    base = Scenario(model="llama-3.1-8b", gpu="h100-sxm", cards=1, prompt_len=16, output_len=128)
    assert _tpot(dataclasses.replace(base, stack="peft")) > 1.5 * _tpot(base)


def test_a_stacks_build_on_a_platform_moves_only_that_platform() -> None:
    amd = Scenario(model="mixtral-8x7b", gpu="mi300x", cards=1, stack="sglang", prompt_len=16, output_len=128)
    nvidia = dataclasses.replace(amd, gpu="h200")
    slow = with_constants(CATALOG, {}, {}, {("sglang", "rocm"): {"kernel_floor_scale": 2.0}})
    prior = with_constants(CATALOG, {}, {}, {("sglang", "rocm"): {}})
    assert _tpot(amd, slow) > _tpot(amd, prior)
    assert _tpot(nvidia, slow) == pytest.approx(_tpot(nvidia, prior))


def test_ollama_runs_llamacpps_kernels_and_so_its_constants() -> None:
    changed = with_constants(CATALOG, {"llamacpp": {"kernel_floor_s": 9e-6}}, {})
    assert dict(changed.stacks["ollama"].constants) == {"kernel_floor_s": 9e-6}
    assert dict(CATALOG.stacks["ollama"].constants) == dict(CATALOG.stacks["llamacpp"].constants)


def test_a_training_stack_sets_the_knobs_the_user_left_free() -> None:
    lora = Scenario(model="llama-3.1-70b", gpu="a100-sxm-80gb", cards=8, finetune="lora", stack="torchtune")
    trained = estimate(lora).training
    assert (trained.parallelism.tp, trained.parallelism.pp, trained.parallelism.zero) == (1, 1, 3)
    assert trained.recompute == "full"
    kept = estimate(dataclasses.replace(lora, zero=2, recompute="none")).training
    assert (kept.parallelism.zero, kept.recompute) == (2, "none")
    assert "zero" not in training_knobs(CATALOG.stacks["torchtune"], 1)  # nothing to shard on one card


def test_the_command_line_takes_the_stack_and_lists_the_stacks(capsys: pytest.CaptureFixture[str]) -> None:
    from model.cli import main

    assert main(["list", "stacks"]) == 0
    listed = capsys.readouterr().out
    assert "llamacpp" in listed and "layer" in listed
    args = ["estimate", "--model", "llama-3.1-8b", "--gpu", "rtx-4090", "--cards", "2", "--precision", "q4_k_m"]
    assert main([*args, "--stack", "llamacpp", "--json"]) == 0
    assert '"stack": "llamacpp"' in capsys.readouterr().out
    with pytest.raises(SystemExit) as exited:
        main(["estimate", "--gpu", "mi300x", "--stack", "trtllm"])
    assert exited.value.code == 2
    assert "argument --stack" in capsys.readouterr().err


def test_a_desk_runner_budgets_all_but_its_margin_and_a_server_ninety_percent():
    """llama.cpp allocates what it needs and --fit keeps 1024 MiB free per card; vLLM takes 0.9 of the card."""
    seventy = Scenario(model="llama-3.1-70b", precision="q4_k_m", gpu="rtx-4090", cards=2, batch=1)
    desk = estimate(dataclasses.replace(seventy, stack="llamacpp")).resolved
    server = estimate(dataclasses.replace(seventy, stack="vllm")).resolved
    card = desk.gpu.capacity_bytes
    assert desk.serving_budget.of(card) == card - 2**30
    assert server.serving_budget.of(card) == 0.9 * card
    # More room on the card: at least as many sequences of the same context fit on the same layout.
    assert estimate(dataclasses.replace(seventy, stack="llamacpp", batch="max")).inference.max_batch >= 3


@pytest.mark.parametrize(("stack", "kv"), [("vllm", "bf16"), ("sglang", "bf16"), ("trtllm", "fp8"), ("typical", "fp8")])
def test_fp8_weights_keep_the_cache_the_software_keeps_when_none_is_named(stack: str, kv: str) -> None:
    # vLLM's and SGLang's --kv-cache-dtype auto is the model's 16-bit type; TensorRT-LLM's FP8 checkpoints keep FP8.
    result = estimate(Scenario(model="llama-3.1-70b", gpu="h100-sxm", cards=8, precision="fp8", stack=stack))
    assert result.resolved.kv_precision == kv == auto_kv_precision("fp8", stack, "h100-sxm")
    named = estimate(
        Scenario(model="llama-3.1-70b", gpu="h100-sxm", cards=8, precision="fp8", stack=stack, kv_precision="fp8")
    )
    assert named.resolved.kv_precision == "fp8"  # a format the user names is kept, whatever the software
    if kv == "bf16":  # a 16-bit cache holds half the tokens: fewer sequences fit the same cards
        assert result.inference.max_batch < named.inference.max_batch


def test_tensorrt_llm_gives_its_cache_a_share_of_the_memory_left_after_the_model():
    """KvCacheConfig.free_gpu_memory_fraction: 0.9 of what is free once the engine is loaded, not of the card.

    Llama 3.1 70B in FP8 fills 71 of an H100's 85 GB: vLLM's 0.9 of the card leaves about 5 GB for the
    cache, TensorRT-LLM's 0.9 of the rest about 12 GB, so it runs over twice the sequences.
    """
    seventy = Scenario(model="llama-3.1-70b", precision="fp8", kv_precision="fp8", gpu="h100-sxm", cards=1, tp=1)
    seventy = dataclasses.replace(seventy, batch="max", prompt_len=1000, output_len=1000)
    trt = estimate(dataclasses.replace(seventy, stack="trtllm"))
    vllm = estimate(dataclasses.replace(seventy, stack="vllm"))
    budget, card = trt.resolved.serving_budget, trt.resolved.gpu.capacity_bytes
    memory = trt.inference.memory_per_gpu
    held = memory.weights + memory.other  # loaded before the cache is sized
    assert budget.of_free and not vllm.resolved.serving_budget.of_free
    assert budget.of(card, held) == pytest.approx(held + 0.9 * (card - held))
    assert trt.inference.budget_per_gpu == pytest.approx(budget.of(card, held))
    assert budget.of(card) == pytest.approx(0.9 * card)  # nothing held: the least it gives, a share of the card
    assert trt.inference.max_batch > 2 * vllm.inference.max_batch
    # The largest batch is the last that fits under the same budget: one more does not.
    largest = trt.inference.max_batch
    assert estimate(dataclasses.replace(seventy, stack="trtllm", batch=largest)).inference.fits
    assert not estimate(dataclasses.replace(seventy, stack="trtllm", batch=largest + 1)).inference.fits


def test_a_budget_of_the_free_memory_must_say_true_or_false():
    document = yaml.safe_load(Path("data/stacks.yaml").read_text())
    trt = next(row for row in document["stacks"] if row["id"] == "trtllm")
    trt["memory_of_free"] = 0.9
    with pytest.raises(CatalogError, match=r"memory_of_free.*true or false"):
        read_stacks(document)
