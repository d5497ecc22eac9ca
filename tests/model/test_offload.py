"""Serving with part of the model in host memory (model.inference.offload), and the machines on a desk."""

import dataclasses
import json

import pytest

from model import Scenario, ScenarioError, default_catalog, estimate, parse_user_catalog
from model.analyses.serving import batch_sweep
from model.analyses.verdict import goal_verdict
from model.cli import main
from model.scenario import dram_bandwidth_gb_s

CATALOG = default_catalog()
LLAMA_70B_Q4 = Scenario(model="llama-3.1-70b", gpu="rtx-4090", cards=1, precision="q4_k_m", host_memory_gb=64)
"""Issue 32's question: Llama 3.1 70B in Q4_K_M on one RTX 4090 in a desktop with 64 GB of DDR5."""


def test_llama_70b_q4_k_m_on_a_4090_with_64_gb_of_ddr5_runs_with_offload():
    # About half the layers on the card, a few tokens a second. Published figures: llama.cpp issue 2496
    # (a 3090 user running 70B q4_K_M with -ngl 40, "40 ... of 83 layers"); gigagpu.com "CPU-GPU Offload
    # Strategy for 70B Models" (an RTX 3090 with Llama 3 70B Q4: "50% GPU / 50% CPU offload: ~4-6
    # tokens/sec", "20% GPU / 80% CPU: ~2-3"); craftrigs.pages.dev (an RTX 4090 with Llama 3.3 70B
    # Q4_K_M spilling 18 of 80 layers to DDR5-5600: 2.1 tok/s). The physics: ~21 GB of layers on
    # the host at 0.8 x 89.6 GB/s is ~0.3 s a token. Tolerance: 30-50 layers, 1.5-5 tokens/s.
    inference = estimate(LLAMA_70B_Q4).inference
    split = inference.offload
    assert inference.fits and inference.verdict == "fits_with_offload"
    assert split.mode == "layers" and split.layers == 80
    assert 30 <= split.layers_on_card <= 50
    assert not split.head_on_card  # llama.cpp puts the output layer on the card only with every layer
    assert 1.5 <= inference.decode_tokens_per_s_per_user <= 5.0
    assert inference.decode.host > inference.decode.weights  # the host's part is most of a token
    assert split.host_bytes <= split.host_budget_bytes


def test_the_same_on_an_m_series_max_with_128_gb_fits_in_its_unified_memory():
    # macOS lets the GPU wire ~75 % of 128 GB (96 GB): 42.5 GB of weights fit, nothing is offloaded.
    # Measured on an M3 Max 40-core 64 GB: 7.65 tokens/s (XiongjieDai/GPU-Benchmarks-on-LLM-Inference).
    for gpu in ("apple-m3-max", "apple-m4-max"):
        inference = estimate(dataclasses.replace(LLAMA_70B_Q4, gpu=gpu, host_memory_gb=None)).inference
        assert inference.fits and inference.verdict == "fits", gpu
        assert inference.offload.mode == "none"
        assert 4.0 <= inference.decode_tokens_per_s_per_user <= 12.0, gpu


def test_a_unified_memory_has_no_host_memory_to_offload_to():
    result = estimate(dataclasses.replace(LLAMA_70B_Q4, gpu="apple-m3-pro"))  # 36 GB: 25 GB for the GPU
    assert result.resolved.host is None
    assert result.inference.verdict == "wont_run" and result.inference.offload.mode == "none"
    assert "offload_shared_memory" in [note.code for note in result.notes]


def test_offload_is_used_only_when_the_cards_cannot_hold_the_model():
    fits = Scenario(model="llama-3.1-8b", gpu="rtx-4090", cards=1, precision="q4_k_m")
    alone = estimate(fits).inference
    with_host = estimate(dataclasses.replace(fits, host_memory_gb=64)).inference
    assert with_host.verdict == alone.verdict == "fits"
    assert with_host.offload.mode == "none"
    assert with_host.tpot_s == alone.tpot_s and with_host.ttft_s == alone.ttft_s
    assert with_host.memory_per_gpu == alone.memory_per_gpu


def test_offload_never_decodes_faster_than_the_cards_would_hold_it():
    # The same model on two 4090s holds every layer on the cards: faster than one card and the host.
    offloaded = estimate(LLAMA_70B_Q4).inference
    two = estimate(dataclasses.replace(LLAMA_70B_Q4, cards=2, host_memory_gb=None)).inference
    assert two.fits and two.offload.mode == "none"
    assert offloaded.tpot_s > two.tpot_s


def test_more_host_bandwidth_never_decodes_slower():
    rates = []
    for bandwidth in (51.2, 89.6, 204.8, 460.8):  # DDR4-3200 x2, DDR5-5600 x2, x4, DDR5-4800 x12
        inference = estimate(dataclasses.replace(LLAMA_70B_Q4, host_bandwidth_gb_s=bandwidth)).inference
        rates.append(inference.decode_tokens_per_s_per_user)
    assert rates == sorted(rates) and rates[-1] > 2 * rates[0]


def test_the_split_is_monotone_in_the_cards_memory():
    rows = "\n".join(
        f"  - {{id: card-{gb}, name: Card {gb}, memory_gb: {gb}, memory_bandwidth_gb_per_s: 1000,"
        f" dense_tflops: {{bf16: 160}}, host_link: pcie-gen4, source: a test card}}"
        for gb in (12, 16, 24, 32, 40, 44)
    )
    catalog = CATALOG.merged(parse_user_catalog(f"gpus:\n{rows}\n"))
    on_card, rates = [], []
    # Up to 44 GB: run as llama.cpp runs a GGUF file (all but 1 GiB), 48 GB holds the 42.5 GB of weights whole.
    for gb in (12, 16, 24, 32, 40, 44):
        inference = estimate(dataclasses.replace(LLAMA_70B_Q4, gpu=f"card-{gb}"), catalog).inference
        assert inference.verdict == "fits_with_offload", gb
        on_card.append(inference.offload.layers_on_card)
        rates.append(inference.decode_tokens_per_s_per_user)
    assert on_card == sorted(on_card) and on_card[0] < on_card[-1]
    assert rates == sorted(rates)


def test_a_mixture_of_experts_keeps_its_layers_on_the_card_and_its_experts_on_the_host():
    moe = Scenario(model="qwen3-235b-a22b", gpu="rtx-4090", cards=1, precision="q4_k_m", host_memory_gb=256)
    experts = estimate(moe).inference  # auto: llama.cpp's --n-cpu-moe
    layers = estimate(dataclasses.replace(moe, offload="layers")).inference  # -ngl
    assert experts.offload.mode == "experts" and layers.offload.mode == "layers"
    assert experts.offload.layers_on_card == 94 and 0 < experts.offload.cpu_moe_layers < 94
    assert experts.offload.host_kv_bytes == 0.0  # every layer's cache stays with its layer, on the card
    # Only the routed experts a token reaches are read on the host: faster than whole layers there.
    assert experts.decode_tokens_per_s_per_user > layers.decode_tokens_per_s_per_user


def test_experts_asked_of_a_dense_model_offload_whole_layers_and_say_so():
    result = estimate(dataclasses.replace(LLAMA_70B_Q4, offload="experts"))
    assert result.inference.offload.mode == "layers"
    assert "offload_experts_dense" in [note.code for note in result.notes]


def test_too_little_host_memory_wont_run_and_says_what_it_needs_and_has():
    result = estimate(dataclasses.replace(LLAMA_70B_Q4, host_memory_gb=16))
    inference = result.inference
    assert not inference.fits and inference.verdict == "wont_run"
    assert inference.offload.needed_bytes > inference.offload.has_bytes
    note = next(note for note in result.notes if note.code == "inference_wont_run")
    assert note.text.startswith("won't run: needs 44")
    data = result.to_dict()["inference"]
    assert data["tpot_s"] is None and data["verdict"] == "wont_run"


def test_offload_turned_off_or_without_host_memory_does_not_run():
    off = estimate(dataclasses.replace(LLAMA_70B_Q4, offload="none")).inference
    assert off.verdict == "wont_run" and off.offload.mode == "none"
    with pytest.raises(ScenarioError, match="host_memory_gb"):
        estimate(dataclasses.replace(LLAMA_70B_Q4, host_memory_gb=None, offload="layers"))


def test_training_never_offloads():
    training = Scenario(model="llama-3.1-8b", gpu="rtx-4090", cards=1, finetune="qlora")
    alone, with_host = estimate(training).training, estimate(dataclasses.replace(training, host_memory_gb=128)).training
    assert alone == with_host


def test_every_surface_reads_the_same_verdict():
    result = estimate(LLAMA_70B_Q4)
    verdict = goal_verdict(LLAMA_70B_Q4, "serve")
    assert verdict.runs and verdict.code == result.inference.verdict == "fits_with_offload"
    assert verdict.offload == result.inference.offload
    assert verdict.tokens_per_s == pytest.approx(result.inference.decode_tokens_per_s_per_user)
    point = batch_sweep(LLAMA_70B_Q4, CATALOG, [1], replica_for="scenario")[0]
    assert point.tpot_s == pytest.approx(result.inference.tpot_s, rel=1e-12)
    assert point.tpot_roofline_s == pytest.approx(result.inference.tpot_roofline_s, rel=1e-12)
    assert dict(point.step_parts)["host memory"] == pytest.approx(result.inference.decode.host)


def test_the_command_line_takes_host_memory_by_size_and_channels(capsys):
    assert dram_bandwidth_gb_s(5600, 2) == pytest.approx(89.6)
    assert dram_bandwidth_gb_s(4800, 12) == pytest.approx(460.8)
    argv = ["estimate", "--model", "llama-3.1-70b", "--gpu", "rtx-4090", "--cards", "1", "--precision", "q4_k_m"]
    assert main([*argv, "--host-memory", "64", "--host-bandwidth", "ddr5-5600x2", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["inputs"]["host_bandwidth_gb_s"] == pytest.approx(89.6)
    assert data["inference"]["verdict"] == "fits_with_offload"
    assert data["inference"]["offload"]["layers_on_card"] == estimate(LLAMA_70B_Q4).inference.offload.layers_on_card
    assert any(warning.startswith("fits with offload: ") for warning in data["warnings"])
    assert main([*argv, "--host-memory", "64"]) == 0
    assert "fits: yes (with offload: " in capsys.readouterr().out
    with pytest.raises(SystemExit) as exit_:
        main([*argv, "--host-memory", "64", "--host-bandwidth", "ddr5-5600x0"])
    assert exit_.value.code == 2
    assert "--host-bandwidth" in capsys.readouterr().err
