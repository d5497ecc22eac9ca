"""Mechanisms the calibration added (issue 4): each one checked on its own physics."""

import dataclasses

import pytest

from model import Scenario, default_catalog, estimate
from model.communication import all_gather_time, all_to_all_time, group_path
from model.efficiency import EXPECTED
from model.inference import decode_step, elementwise_bytes_per_token, serving_context, serving_rates

CATALOG = default_catalog()


def _replica(scenario):
    full = estimate(scenario, CATALOG)
    r, inference = full.resolved, full.inference
    key = inference.compute_precision
    ctx = serving_context(r, tp=inference.tp, pp=inference.pp, compute_key=key)
    return r, ctx, serving_rates(r, ctx, EXPECTED)


def test_elementwise_traffic_counts_each_tensor_once_per_read_or_write():
    # Llama 2 7B (hidden 4,096, 32 heads of 128, ffn 11,008, gated MLP), 16-bit activations:
    # two fused add+RMSNorms 8 x 4,096; rotary rewrites q and k 2 x (32 + 32) x 128; SwiGLU
    # reads gate and up and writes one: 3 x 11,008. The MLP and rotary split across TP ranks.
    arch = CATALOG.models["llama-2-7b"].architecture
    assert elementwise_bytes_per_token(arch, 1) == 2 * (8 * 4096 + 2 * 64 * 128 + 3 * 11008)
    assert elementwise_bytes_per_token(arch, 4) == 2 * (8 * 4096 + (2 * 64 * 128 + 3 * 11008) / 4)


def test_the_kv_read_adds_to_the_products_rather_than_hiding_under_them():
    # Attention is its own kernel: at a compute-bound batch the step is the products' time plus
    # the KV stream, not the larger of the two.
    scenario = Scenario(
        model="llama-3.1-8b", gpu="h100-sxm", cards=1, precision="fp8", prompt_len=1000, output_len=1000
    )
    r, ctx, rates = _replica(scenario)
    step = decode_step(r, ctx, 256, rates)
    kv = 256 * ctx.kv_bytes_mean / rates.kv_bandwidth
    weights = step.memory_time - kv
    assert step.total == pytest.approx(max(weights, step.compute_time) + kv + step.overhead, rel=1e-9)


def test_an_all_to_all_across_nodes_is_limited_by_one_nic_per_gpu():
    # A ring gains one NIC per member on the node (rails); an all-to-all sends each GPU's
    # off-node share through its own NIC (DeepSeek-V3 sec. 3.2.2).
    h100 = CATALOG.gpus["h100-sxm"]
    up, net = CATALOG.interconnects["nvlink4"], CATALOG.networks["ib-ndr"]
    path = group_path(64, 1, 8, up, net, EXPECTED)
    assert path.crosses_nodes
    ring_share = all_gather_time(1e9, 64, path)
    exchange = all_to_all_time(1e9, 64, path)
    nic = net.bandwidth_bytes_per_s * (net.measured_efficiency or EXPECTED.network_bandwidth)
    assert exchange > 4 * ring_share
    assert exchange == pytest.approx(path.latency_s + 63 / 64 * 1e9 / (nic / (56 / 64)), rel=1e-9)
    assert h100.memory_bytes > 0  # the catalog row the path belongs to is present


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


def test_the_default_batch_is_llama_2s_four_million_tokens():
    training = estimate(Scenario(model="llama-2-7b", gpu="a100-sxm-80gb", cards=64, seq_len=4096), CATALOG).training
    assert training.global_batch * 4096 == 4 * 2**20


def test_throughput_and_mfu_describe_the_steps_and_wall_time_adds_the_runs_losses():
    training = estimate(Scenario(model="llama-2-7b", gpu="a100-sxm-80gb", cards=64, tokens=1e11), CATALOG).training
    step_seconds = training.tokens / (training.tokens_per_s_per_gpu * 64)
    failures = EXPECTED.failure_rate_per_gpu_hour * 64 * EXPECTED.hours_lost_per_failure
    assert training.time_s == pytest.approx(step_seconds * (1 + EXPECTED.run_overhead + failures), rel=1e-9)
