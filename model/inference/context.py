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
from model.inference.memory import kv_bytes_per_sequence
from model.precision.formats import weight_breakdown
from model.scenario import Resolved
from model.stacks import serving_policy

__all__ = [
    "GROUPED_TILE_ROWS",
    "ServingContext",
    "ServingRates",
    "decode_attention_flops_per_key",
    "elementwise_bytes_per_token",
    "expected_experts_touched",
    "expert_tile_use",
    "grouped_expert_work",
    "kernels_per_pass",
    "serving_context",
    "serving_rates",
    "split_products",
    "weights_read",
    "weights_read_time",
]


class ServingContext(NamedTuple):
    """Per-scenario constants of the serving model, computed once."""

    dense_weight_bytes: float
    """Weights every step reads whatever the batch, per replica."""
    expert_bytes: float
    """One routed expert of one layer (the mean over layers, where a llama.cpp mix widens some)."""
    kv_bytes_mean: float
    """One sequence's KV cache per card at the mean decode context."""
    attention_flops_mean: float
    """Decode attention FLOPs of one new token per card at the mean context (its heads' share)."""
    kernels: float
    """Kernels one forward pass launches on one pipeline stage (see :func:`kernels_per_pass`)."""
    elementwise_bytes: float
    """Activation bytes the element-wise kernels move per token on one card, all its layers."""
    compute_key: str
    peak_flops: float
    ceiling_share: float | None
    tp: int
    pp: int
    ep: int = 1
    """Attention data parallelism over ep cards, the routed experts split over them (1: none)."""
    pipelined: bool = True
    """Whether decode keeps pp micro-batches in flight over the stages (a serving engine's pipeline), or
    runs the whole batch through one stage after another (a desk runner's layer split: llama.cpp
    decodes a batch as one micro-batch, :func:`model.stacks.serving_policy`)."""

    def local_sequences(self, sequences: float) -> float:
        """Sequences the busiest card of a replica attends to: all, or its share under attention DP."""
        if self.ep <= 1:
            return sequences
        return max(sequences / self.ep, min(sequences, 1.0))


def serving_context(r: Resolved, *, tp: int, pp: int, compute_key: str, ep: int = 1) -> ServingContext:
    """Collect the per-replica sizes decode and prefill need; products run in ``compute_key``.

    With ``ep`` > 1 (tp and pp 1) every card holds attention and dense weights whole, its own
    sequences' KV cache and 1/ep of the routed experts; each MoE layer adds a dispatch and a
    combine kernel and their all-to-alls (DeepSeek-V3 sec. 3.4; SGLang's DP attention).
    """
    arch, stats = r.arch, r.arch.stats
    # Each tensor in its format's width: the LM head stays 16-bit under weight-only quantisation and is
    # Q6_K in most llama.cpp mixes; tied or not, it is read every step.
    weights = weight_breakdown(arch, r.precision)
    experts = stats.moe_layers * arch.experts
    context = r.scenario.prompt_len + r.scenario.output_len / 2.0
    return ServingContext(
        dense_weight_bytes=weights.read_every_step,
        expert_bytes=weights.routed_experts / experts if experts else 0.0,
        kv_bytes_mean=kv_bytes_per_sequence(arch, context, r.kv_precision, tp, pp),
        attention_flops_mean=decode_attention_flops_per_key(arch) * context / (tp * pp),
        kernels=(kernels_per_pass(arch) + (2.0 * stats.moe_layers if ep > 1 else 0.0)) / pp,
        elementwise_bytes=elementwise_bytes_per_token(arch, tp) * arch.layers / pp,
        compute_key=compute_key,
        peak_flops=r.gpu.dense_flops_per_s[compute_key],
        ceiling_share=matmul_ceiling_share(r.gpu, compute_key),
        tp=tp,
        pp=pp,
        ep=ep,
        pipelined=not serving_policy(r.stack).one_instance,
    )


KERNELS_NORMS = 2
"""Fused residual-add + RMSNorm before attention and before the MLP (vLLM, SGLang, TensorRT-LLM)."""
KERNELS_ATTENTION = {"standard": 4, "mla": 9}
"""QKV projection, rotary, attention, output projection; multi-head latent attention (vLLM's
deepseek_v2.py absorbed decode path): q_a projection, its norm, q_b projection, kv_a norm, rotary,
the two absorbed batched products, FlashMLA attention, output projection."""
KERNELS_DENSE_MLP = 3
"""Gate-and-up projection, activation-and-multiply, down projection."""
KERNELS_MOE = 7
"""Router product, top-k softmax, token sort and alignment, the two grouped expert products, the
activation between them, and the weighted combine (vLLM's fused_moe path); shared experts add a
dense MLP's three."""


def kernels_per_pass(arch: Architecture) -> float:
    """Return the kernels one forward pass of all layers launches (the all-reduces are counted apart)."""
    attention = KERNELS_ATTENTION.get(arch.attention, KERNELS_ATTENTION["standard"])
    moe_layers = arch.stats.moe_layers
    moe = KERNELS_MOE + (KERNELS_DENSE_MLP if arch.shared_experts else 0)
    dense = arch.layers - moe_layers
    return float(arch.layers * (KERNELS_NORMS + attention) + dense * KERNELS_DENSE_MLP + moe_layers * moe)


GROUPED_TILE_ROWS = 16
"""Rows of one tile of a grouped expert product: each expert's tokens are padded to a multiple of
it (vLLM's moe_align_block_size; 16 is fused_moe's smallest BLOCK_SIZE_M, which its tuned
configurations use for decode-sized steps). Larger steps' lower tile efficiency is the launch
size's (model.efficiency.matmul_efficiency), so the padding alone never grows faster than the rows."""


SPLIT_ATTENTION_PRODUCTS = 4
"""Q, K, V and output: llama.cpp's graph multiplies each by its own weight (llm_build_llama: wq, wk, wv, wo)."""


def split_products(arch: Architecture, layers: float) -> float:
    """Return the weight products of ``layers`` layers a row split gathers on the main card, one token pass.

    A row split without a collective library (llama.cpp's ``--split-mode row``, ggml-cuda's
    ggml_cuda_op_mul_mat) multiplies each card's rows of every weight matrix and copies the partial
    results to the main card before the next kernel: Q, K, V, output and the MLP's matrices (three
    gated, two plain) per layer.
    """
    return layers * (SPLIT_ATTENTION_PRODUCTS + (3 if arch.mlp == "gated" else 2))


def grouped_expert_work(arch: Architecture, tokens: float, tp: int) -> float:
    """Return the FLOPs of one layer's grouped expert product for ``tokens`` tokens on one card.

    Serving kernels multiply every expert a step routes to in one grouped launch (vLLM's
    fused_moe, DeepGEMM's grouped GEMMs), so the launch, not each expert, is the unit whose size
    sets the efficiency (model.efficiency.matmul_efficiency).
    """
    return 2.0 * tokens * arch.active_experts * arch.hidden * arch.expert_ffn / tp


def expert_tile_use(arch: Architecture, tokens: float) -> float:
    """Return the share of a grouped product's tile rows that hold tokens, not padding.

    ``tokens`` tokens route to k experts each, spread over the experts they touch; each expert's
    rows are padded to whole tiles (:data:`GROUPED_TILE_ROWS`). Few tokens per expert waste most
    of each tile: a DeepSeek-V3 step of 1,024 tokens gives 32 rows per expert, half a tile.
    """
    touched = expected_experts_touched(arch.experts, arch.active_experts, tokens)
    if touched <= 0:
        return 1.0
    rows = tokens * arch.active_experts / touched
    return rows / (GROUPED_TILE_ROWS * math.ceil(rows / GROUPED_TILE_ROWS))


def decode_attention_flops_per_key(arch: Architecture) -> float:
    """Return the FLOPs one decoding query spends on one cached key, over all layers.

    Multi-head latent attention decodes in the latent space (DeepSeek-V2 sec. 2.1.2: the key and
    value up-projections are absorbed into the query and output): every head scores the 512-wide
    latent plus the 64-wide rope key and sums the latent, 2 x heads x (2 x 512 + 64) per key,
    several times the standard form's, which is why FlashMLA decode is compute-bound.
    """
    if arch.attention == "mla":
        return 2.0 * arch.layers * arch.heads * (2 * arch.kv_lora_rank + arch.qk_rope_head_dim)
    return arch.stats.attention_flops_per_token_per_key


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
    """Weight bytes one forward pass over ``tokens`` tokens (the whole replica's) reads, per card."""
    return (ctx.dense_weight_bytes + _expert_bytes_read(r, ctx, tokens) / ctx.ep) / (ctx.tp * ctx.pp)


def _expert_bytes_read(r: Resolved, ctx: ServingContext, tokens: float) -> float:
    arch = r.arch
    if not arch.is_moe:
        return 0.0
    touched = expected_experts_touched(arch.experts, arch.active_experts, tokens)
    return arch.stats.moe_layers * touched * ctx.expert_bytes


def weights_read_time(r: Resolved, ctx: ServingContext, tokens: float, rates: ServingRates) -> float:
    """Seconds one forward pass over ``tokens`` tokens spends reading weights, per card.

    Dense matrices stream at the weight bandwidth; routed experts at the share of it a grouped
    expert kernel reaches on slices of one expert's size S on a card: S / (S + S0)
    (Efficiencies.expert_read_half_bytes).
    """
    experts = _expert_bytes_read(r, ctx, tokens)
    if not experts:
        return ctx.dense_weight_bytes / rates.weight_bandwidth / (ctx.tp * ctx.pp)
    slice_bytes = ctx.expert_bytes / ctx.tp
    grouped = rates.weight_bandwidth * slice_bytes / (slice_bytes + rates.eff.expert_read_half_bytes)
    return (ctx.dense_weight_bytes / rates.weight_bandwidth + experts / ctx.ep / grouped) / (ctx.tp * ctx.pp)


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
    ep_path: GroupPath
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
        ep_path=group_path(ctx.ep, 1, r.gpus_per_node, r.scale_up, r.network, eff),
        eff=eff,
    )
