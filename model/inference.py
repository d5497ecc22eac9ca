"""Serving speed: prefill (time to first token), decode (time per output token), loaded throughput.

Decode step (per pipeline stage), a sum over the kernels a step runs, each at its own roofline
(Williams et al. 2009): the matrix products read every weight matrix once (all experts a batch
routes to, E x (1 - (1 - k/E)^tokens)) or do their FLOPs, whichever takes longer; the attention
kernel then streams each sequence's KV cache at its mean context (the cache grows from the prompt
to prompt + output) — a separate kernel, so its time adds rather than hiding under the products';
the element-wise kernels (norms, residual adds, rotary, the MLP's activation) read and write the
activations; plus per-layer launch overhead and two tensor-parallel all-reduces per layer
(Megatron). The seeds' "time per token = bytes of weights / memory bandwidth" is the batch-1 ideal.
Prefill: 2 N FLOPs per prompt token plus causal attention, at the products' efficiency.
Under continuous batching a replica also prefills arriving requests, so its output rate is
output tokens over prefill plus decode time (Sarathi-Serve, Agrawal et al. 2024, sec. 2).
"""

from __future__ import annotations

import math
from typing import Literal, NamedTuple

from model.architecture import Architecture
from model.communication import GroupPath, all_reduce_time, group_path, p2p_time
from model.efficiency import Efficiencies, achievable_bandwidth, matmul_ceiling_share, matmul_efficiency
from model.memory import kv_bytes_per_sequence
from model.precision import bytes_per_element, weight_bytes
from model.scenario import Resolved

__all__ = [
    "DecodeStep",
    "LoadedServing",
    "ServingContext",
    "ServingRates",
    "decode_step",
    "elementwise_bytes_per_token",
    "expected_experts_touched",
    "ideal_decode_step",
    "loaded_serving",
    "prefill_time",
    "serving_context",
    "serving_rates",
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


class DecodeStep(NamedTuple):
    """One decode step of a replica at a given batch, in seconds over all its pipeline stages.

    The parts add up: total = max(weights, compute) + kv + elementwise + layers + communication + drafting.
    """

    weights: float
    """Reading the weights the step multiplies (dense, and every expert the batch routes to)."""
    compute: float
    """The products' FLOPs at their ceiling; the larger of this and ``weights`` is paid."""
    kv: float
    """Streaming each sequence's KV cache (the attention kernel, after the products)."""
    elementwise: float
    """Norms, residual adds, rotary, the MLP's activation: activation bytes in and out."""
    layers: float
    """The per-layer floor: kernel launches and minimum kernel times, paid at every batch."""
    communication: float
    """Tensor-parallel all-reduces and pipeline transfers."""
    drafting: float
    """Speculative decoding: the draft passes before the verifying step (0 when off)."""
    total: float
    """The whole step, all pipeline stages: what one step takes, whatever it emits."""
    tokens_per_step: float = 1.0
    """Tokens each sequence gains per step: 1, or more when drafts are verified (Leviathan et al. 2023)."""

    @property
    def per_token(self) -> float:
        """Seconds per output token of each sequence: the step over the tokens it emits."""
        return self.total / self.tokens_per_step

    @property
    def memory_time(self) -> float:
        """The roofline's memory side: weights and KV cache read."""
        return self.weights + self.kv

    @property
    def compute_time(self) -> float:
        """The roofline's compute side."""
        return self.compute

    @property
    def overhead(self) -> float:
        """Time off the roofline: element-wise kernels and the per-layer floor."""
        return self.elementwise + self.layers

    @property
    def parts(self) -> tuple[tuple[str, float], ...]:
        """The step by where its time goes, in order; they add up to ``total``."""
        products = ("weight reads", self.weights) if self.weights >= self.compute else ("matrix products", self.compute)
        return (
            products,
            ("KV cache", self.kv),
            ("element-wise", self.elementwise),
            ("per-layer floor", self.layers),
            ("communication", self.communication),
            ("drafting", self.drafting),
        )


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


def _weights_read(r: Resolved, ctx: ServingContext, tokens: float) -> float:
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


def ideal_decode_step(r: Resolved, ctx: ServingContext, batch: float) -> float:
    """Return the roofline time per output token at datasheet peaks (no efficiencies or overheads).

    At batch 1 this is the seeds' rule: bytes of weights read / memory bandwidth.
    """
    micro = max(batch / ctx.pp, 1e-9)
    weights = _weights_read(r, ctx, micro)
    flops = 2.0 * r.arch.stats.matmul_params_active * micro / (ctx.tp * ctx.pp)
    memory = (weights + micro * ctx.kv_bytes_mean) / r.gpu.memory_bandwidth_bytes_per_s
    return max(memory, flops / ctx.peak_flops) * ctx.pp


def decode_step(r: Resolved, ctx: ServingContext, batch: float, rates: ServingRates) -> DecodeStep:
    """Return one decode step's time for ``batch`` concurrent sequences on one replica.

    With ``draft_tokens`` n > 0 (speculative decoding) the step verifies n drafted tokens and one
    more per sequence in one pass: n + 1 tokens through the products, one KV read per sequence,
    and n draft passes first, each one layer of the model (DeepSeek-V3's multi-token prediction
    module is one transformer block, sec. 2.2). A sequence gains (1 - a^(n+1)) / (1 - a) tokens a
    step at acceptance a (Leviathan et al. 2023, eq. 1).
    """
    drafts = r.scenario.draft_tokens
    verify = _forward_step(r, ctx, batch, rates, 1 + drafts)
    if not drafts:
        return verify
    one = _forward_step(r, ctx, batch, rates, 1)
    drafting = drafts * one.total / r.arch.layers
    accept = r.scenario.draft_acceptance
    gained = (1.0 - accept ** (drafts + 1)) / (1.0 - accept)
    return verify._replace(drafting=drafting, total=verify.total + drafting, tokens_per_step=gained)


def _forward_step(r: Resolved, ctx: ServingContext, batch: float, rates: ServingRates, per_sequence: int) -> DecodeStep:
    """One forward pass of ``per_sequence`` new tokens for each of ``batch`` sequences (no drafting)."""
    arch, eff = r.arch, rates.eff
    micro = max(batch / ctx.pp, 1e-9)  # the batch is split into pp micro-batches in flight
    tokens = micro * per_sequence
    weights = _weights_read(r, ctx, tokens) / rates.weight_bandwidth
    kv = micro * ctx.kv_bytes_mean / rates.kv_bandwidth
    compute = 2.0 * arch.stats.matmul_params_active * tokens / (ctx.tp * ctx.pp) / rates.decode_flops_per_s
    layers = arch.layers / ctx.pp
    # Launches and the element-wise kernels: time off the roofline, paid at every batch.
    floor = layers * eff.decode_layer_overhead_s
    elementwise = tokens * ctx.elementwise_bytes / rates.activation_bandwidth
    communication = 0.0
    if ctx.tp > 1:
        communication = 2.0 * layers * all_reduce_time(tokens * arch.hidden * 2.0, ctx.tp, rates.tp_path)
    # The products hide their weight reads under their FLOPs (or the reverse); the attention
    # kernel runs after them, so its KV stream adds.
    stage = max(weights, compute) + kv + elementwise + floor + communication
    transfer = 0.0
    if ctx.pp > 1:
        transfer = (ctx.pp - 1) * p2p_time(tokens * arch.hidden * 2.0, rates.pp_path)
    p = ctx.pp
    return DecodeStep(
        weights * p, compute * p, kv * p, elementwise * p, floor * p, communication * p + transfer, 0.0,
        stage * p + transfer,
    )  # fmt: skip


def _prefill_stage(r: Resolved, ctx: ServingContext, tokens: float, prompt_len: float, rates: ServingRates) -> float:
    """Seconds for one pipeline stage to prefill ``tokens`` tokens of prompts of ``prompt_len``."""
    arch, eff = r.arch, rates.eff
    shards = ctx.tp * ctx.pp
    stats = arch.stats
    attention = stats.attention_flops_per_token_per_key * prompt_len / 2.0 * tokens / shards
    # Three families of products, each at the efficiency its shape earns: attention
    # projections, the MLP (or the experts a token reaches) and the LM head.
    if arch.is_moe:
        # Each expert multiplies only the tokens routed to it (k/E of them), whole on its card.
        mlp_work = 2.0 * max(tokens * arch.active_experts / arch.experts, 1.0) * arch.hidden * arch.expert_ffn
    else:
        mlp_work = 2.0 * tokens * arch.hidden * arch.ffn / ctx.tp
    # efficiency = ceiling x W / (W + W0), so time = flops / (peak x ceiling) x (1 + W0 / W).
    half = rates.half_work_flops
    hidden = arch.hidden
    products = (
        stats.attention_params * (1.0 + half * ctx.tp / (2.0 * tokens * hidden * hidden))
        + (stats.matmul_params_active - stats.attention_params - stats.head_params) * (1.0 + half / mlp_work)
        + stats.head_params * (1.0 + half * ctx.tp / (2.0 * tokens * hidden * arch.vocab))
    ) * (2.0 * tokens / shards)
    products /= rates.decode_flops_per_s
    compute = products + attention / rates.core_flops_per_s
    memory = _weights_read(r, ctx, tokens) / rates.weight_bandwidth
    elementwise = tokens * ctx.elementwise_bytes / rates.activation_bandwidth
    layers = arch.layers / ctx.pp
    communication = 0.0
    if ctx.tp > 1:
        message = tokens * arch.hidden * 2.0
        exposed = 1.0 - eff.tp_overlap
        communication = 2.0 * layers * all_reduce_time(message, ctx.tp, rates.tp_path) * exposed
    return max(compute, memory) + elementwise + layers * eff.decode_layer_overhead_s + communication


def prefill_time(r: Resolved, ctx: ServingContext, prompts: float, rates: ServingRates) -> float:
    """Return the seconds a replica takes to prefill ``prompts`` prompts of the scenario's length.

    One prompt on a pipeline passes through every stage in turn; many prompts are split into
    pp micro-batches that fill the pipeline ((2 pp - 1) stage times).
    """
    prompt_len = float(r.scenario.prompt_len)
    if ctx.pp == 1:
        return _prefill_stage(r, ctx, prompts * prompt_len, prompt_len, rates)
    if prompts <= 1:
        return ctx.pp * _prefill_stage(r, ctx, prompt_len, prompt_len, rates)
    chunk = prompts * prompt_len / ctx.pp
    return (2 * ctx.pp - 1) * _prefill_stage(r, ctx, chunk, prompt_len, rates)


class LoadedServing(NamedTuple):
    """A replica serving ``batch`` users under continuous batching, in seconds and tokens/s."""

    step: DecodeStep
    tpot_s: float
    """Time between one user's tokens: the step plus its share of the other users' prefills."""
    ttft_s: float
    """One prompt's prefill, plus half a running step to wait for when others are in flight."""
    tokens_per_s: float
    """Output tokens/s over ``replicas`` replicas: output over prefill plus decode time."""
    prefill_tokens_per_s: float
    """Prompt tokens/s over ``replicas`` replicas when every user's prompt is prefilled."""
    bound: Literal["memory", "compute"]
    """Which side of the roofline the decode step is on."""


def loaded_serving(r: Resolved, ctx: ServingContext, rates: ServingRates, batch: int, replicas: int) -> LoadedServing:
    """Return what a loaded replica delivers at ``batch`` concurrent users.

    Continuous batching (Orca, Yu et al. 2022; Sarathi-Serve, Agrawal et al. 2024, sec. 2): in a
    cycle a replica prefills its ``batch`` users' prompts and decodes ``output`` tokens for each,
    so total = replicas x batch x output / (prefill(batch) + output x step); each user's tokens
    also wait for the other users' prefills: TPOT = step + prefill(batch) x (batch - 1) / batch / output.
    """
    output = float(r.scenario.output_len)
    step = decode_step(r, ctx, batch, rates)
    single = prefill_time(r, ctx, 1, rates)
    prefill_all = single if batch == 1 else prefill_time(r, ctx, batch, rates)
    return LoadedServing(
        step=step,
        tpot_s=step.per_token + prefill_all * (batch - 1) / batch / output,
        ttft_s=single + (0.5 * step.total if batch > 1 else 0.0),
        tokens_per_s=replicas * batch * output / (prefill_all + output * step.per_token),
        prefill_tokens_per_s=replicas * batch * r.scenario.prompt_len / prefill_all,
        bound="memory" if step.memory_time >= step.compute_time else "compute",
    )
