"""What a serving replica is made of: the sizes decode and prefill read, and the rates it reaches.

Per-scenario constants (weight bytes every step reads, one expert's bytes, the KV cache at the mean
context, the element-wise traffic) and, per efficiency set, the bandwidths, product rates and
collective paths. The experts a batch routes to follow E x (1 - (1 - k/E)^tokens).
"""

from __future__ import annotations

import math
from typing import NamedTuple

from model.architecture import Architecture
from model.communication import GroupPath, group_path
from model.efficiency import Efficiencies, achievable_bandwidth, matmul_ceiling_share, matmul_efficiency
from model.memory import kv_bytes_per_sequence
from model.precision import bytes_per_element, weight_bytes
from model.scenario import Resolved

__all__ = [
    "ServingContext",
    "ServingRates",
    "elementwise_bytes_per_token",
    "expected_experts_touched",
    "serving_context",
    "serving_rates",
    "weights_read",
]


class ServingContext(NamedTuple):
    """Per-scenario constants of the serving model, computed once."""

    dense_weight_bytes: float
    """Weights every step reads whatever the batch, per replica."""
    expert_bytes: float
    """One routed expert of one layer."""
    kv_bytes_mean: float
    """One sequence's KV cache per card at the mean decode context."""
    elementwise_bytes: float
    """Activation bytes the element-wise kernels move per token on one card, all its layers."""
    compute_key: str
    peak_flops: float
    ceiling_share: float | None
    tp: int
    pp: int


def serving_context(r: Resolved, *, tp: int, pp: int, compute_key: str) -> ServingContext:
    """Collect the per-replica sizes decode and prefill need; products run in ``compute_key``."""
    arch, stats = r.arch, r.arch.stats
    # The LM head stays 16-bit under weight-only quantisation (tied or not, it is read every step).
    dense_bytes = weight_bytes(stats.dense_matmul_params, r.precision, stats.head_params)
    context = r.scenario.prompt_len + r.scenario.output_len / 2.0
    return ServingContext(
        dense_weight_bytes=dense_bytes,
        expert_bytes=stats.expert_params * bytes_per_element(r.precision),
        kv_bytes_mean=kv_bytes_per_sequence(arch, context, r.kv_precision, tp, pp),
        elementwise_bytes=elementwise_bytes_per_token(arch, tp) * arch.layers / pp,
        compute_key=compute_key,
        peak_flops=r.gpu.dense_flops_per_s[compute_key],
        ceiling_share=matmul_ceiling_share(r.gpu, compute_key),
        tp=tp,
        pp=pp,
    )


def elementwise_bytes_per_token(arch: Architecture, tp: int) -> float:
    """Bytes the element-wise kernels of one layer read and write per token on one card, serving.

    Counted per tensor with 16-bit activations and the fusions serving engines ship (vLLM's and
    TensorRT-LLM's fused residual-add + RMSNorm): each of the two norms reads the input and the
    residual and writes both (4 x hidden), replicated on every tensor-parallel rank; rotary
    rewrites the queries and keys, and a gated MLP's activation reads two ffn-wide tensors and
    writes one (a plain MLP reads and writes one), both split across ranks.
    """
    head_dim = arch.effective_head_dim
    rotary = 2.0 * (arch.heads + arch.kv_heads) * head_dim
    width = (arch.active_experts + arch.shared_experts) * arch.expert_ffn if arch.is_moe else arch.ffn
    mlp = (3.0 if arch.mlp == "gated" else 2.0) * width
    return 2.0 * (8.0 * arch.hidden + (rotary + mlp) / tp)


def expected_experts_touched(experts: int, active: int, tokens: float) -> float:
    """Return how many distinct experts of one layer a batch of ``tokens`` routes to.

    With uniform routing each token picks ``active`` of ``experts``; an expert is missed by one
    token with probability 1 - active/experts, so E[touched] = E * (1 - (1 - k/E)^tokens).
    At one token this is k; at large batches every expert is read (inference-sim #559 shows
    the cost of forgetting this).
    """
    if experts <= 0:
        return 0.0
    if tokens <= 1.0:
        return float(active) * max(tokens, 0.0)
    miss = 1.0 - active / experts
    return float(experts * (1.0 - miss**tokens))


def weights_read(r: Resolved, ctx: ServingContext, tokens: float) -> float:
    """Weight bytes one forward pass over ``tokens`` tokens reads, per card."""
    arch = r.arch
    experts = 0.0
    if arch.is_moe:
        touched = expected_experts_touched(arch.experts, arch.active_experts, tokens)
        experts = arch.stats.moe_layers * touched * ctx.expert_bytes
    return (ctx.dense_weight_bytes + experts) / (ctx.tp * ctx.pp)


class ServingRates(NamedTuple):
    """What one replica sustains under one efficiency set, computed once per estimate."""

    weight_bandwidth: float
    kv_bandwidth: float
    activation_bandwidth: float
    """Streaming bandwidth of 16-bit activations (element-wise kernels)."""
    decode_flops_per_s: float
    """The products' rate at the precision's ceiling (no tile-size penalty)."""
    half_work_flops: float
    """Size at which a product reaches half its ceiling (see efficiency.matmul_efficiency)."""
    core_flops_per_s: float
    """Attention-core rate (16-bit flash attention)."""
    tp_path: GroupPath
    pp_path: GroupPath
    eff: Efficiencies


def serving_rates(r: Resolved, ctx: ServingContext, eff: Efficiencies) -> ServingRates:
    """Return the bandwidths, rates and paths a replica sees under ``eff``."""
    gpu = r.gpu
    core_key = "bf16" if "bf16" in gpu.dense_flops_per_s else ctx.compute_key
    core_peak = gpu.dense_flops_per_s.get(core_key, ctx.peak_flops)
    # Decode products have a few rows: they run as memory-bound GEMV-like kernels, so no
    # tile-size penalty; the roofline's max() with the memory time sets their speed.
    ceiling = matmul_efficiency(eff, ctx.compute_key, math.inf, ctx.ceiling_share)
    return ServingRates(
        weight_bandwidth=achievable_bandwidth(gpu, eff, r.precision),
        kv_bandwidth=achievable_bandwidth(gpu, eff) * eff.kv_read_bandwidth,
        activation_bandwidth=achievable_bandwidth(gpu, eff),
        decode_flops_per_s=ctx.peak_flops * ceiling,
        half_work_flops=eff.matmul_half_work_flops.get(ctx.compute_key, 2e10),
        core_flops_per_s=core_peak * matmul_efficiency(eff, core_key, math.inf, None) * eff.attention_vs_matmul,
        tp_path=group_path(ctx.tp, 1, r.gpus_per_node, r.scale_up, r.network, eff),
        pp_path=group_path(ctx.pp, ctx.tp, r.gpus_per_node, r.scale_up, r.network, eff),
        eff=eff,
    )
