"""One decode step: a sum over the kernels it runs, each at its own roofline (Williams et al. 2009).

The matrix products read every weight matrix once (all experts a batch routes to) or do their
FLOPs, whichever takes longer; the attention kernel then streams each sequence's KV cache at its
mean context, a separate kernel, so its time adds; the element-wise kernels move the activations;
plus the per-layer floor and two tensor-parallel all-reduces per layer (Megatron). The seeds'
"time per token = bytes of weights / memory bandwidth" is the batch-1 ideal.
"""

from __future__ import annotations

from typing import NamedTuple

from model.communication import all_reduce_time, all_to_all_time, p2p_time
from model.inference.context import (
    ServingContext,
    ServingRates,
    expert_tile_use,
    split_products,
    weights_read,
    weights_read_time,
)
from model.scenario import Resolved

__all__ = ["DecodeStep", "decode_step", "ideal_decode_step", "with_scheduling"]


class DecodeStep(NamedTuple):
    """One decode step of a replica at a given batch, in seconds over all its pipeline stages.

    The parts add up: total = max(weights, compute) + kv + elementwise + layers + communication + drafting
    + host + scheduling.
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
    host: float = 0.0
    """With offload, the host CPU's part: the layers or experts kept in host memory, read at the host's
    bandwidth after the cards' part (model.inference.offload; 0 without offload)."""
    scheduling: float = 0.0
    """The server's host work for the step's running sequences that the GPU waits for
    (:attr:`model.efficiency.Efficiencies.sequence_host_s` each; 0 for typical)."""

    @property
    def per_token(self) -> float:
        """Seconds per output token of each sequence: the step over the tokens it emits."""
        return self.total / self.tokens_per_step

    @property
    def memory_time(self) -> float:
        """The roofline's memory side: weights and KV cache read (the host's part with them: it streams host memory)."""
        return self.weights + self.kv + self.host

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
            ("host memory", self.host),
            ("scheduling", self.scheduling),
        )


def _micro_batch(batch: float, ctx: ServingContext) -> float:
    """Return the sequences each pipeline stage runs at once: the batch over pp micro-batches in flight.

    Never less than one whole sequence: a sequence's token cannot be split, so with fewer sequences
    than stages the stages wait on each other rather than run fractions of one. A stack that does
    not pipeline decode (a desk runner's layer split) runs the whole batch through each stage in turn.
    """
    if not ctx.pipelined:
        return max(batch, 1e-9)
    return max(batch / ctx.pp, min(batch, 1.0), 1e-9)


def ideal_decode_step(r: Resolved, ctx: ServingContext, batch: float) -> float:
    """Return the roofline time per output token at datasheet peaks (no efficiencies or overheads).

    At batch 1 this is the seeds' rule: bytes of weights read / memory bandwidth. It bounds the
    expected step from below on the same work: under attention data parallelism the busiest card's
    share of the sequences and routed tokens (as :func:`decode_step` counts them), and with drafts
    the verifying pass over the tokens it gains (Leviathan et al. 2023, eq. 1).
    """
    stats, per_sequence = r.arch.stats, 1 + r.scenario.draft_tokens
    micro = _micro_batch(batch, ctx)
    local = ctx.local_sequences(micro)
    weights = weights_read(r, ctx, micro * per_sequence)
    routed = 2.0 * stats.moe_layers * r.arch.active_experts * stats.expert_params if r.arch.is_moe else 0.0
    products = (2.0 * stats.matmul_params_active - routed) * local + routed * micro / ctx.ep
    flops = products * per_sequence / (ctx.tp * ctx.pp)
    memory = (weights + local * ctx.kv_bytes_mean) / r.gpu.memory_bandwidth_bytes_per_s
    return max(memory, flops / ctx.peak_flops) * ctx.pp / _tokens_gained(r)


def _tokens_gained(r: Resolved) -> float:
    """Return the tokens a sequence gains per step: 1, or (1 - a^(n+1)) / (1 - a) with n drafts at acceptance a.

    Leviathan et al. 2023, eq. 1.
    """
    drafts, accept = r.scenario.draft_tokens, r.scenario.draft_acceptance
    return (1.0 - accept ** (drafts + 1)) / (1.0 - accept) if drafts else 1.0


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
    if drafts:
        one = _forward_step(r, ctx, batch, rates, 1)
        drafting = drafts * one.total / r.arch.layers
        verify = verify._replace(drafting=drafting, total=verify.total + drafting, tokens_per_step=_tokens_gained(r))
    return with_scheduling(verify, batch, rates)


def with_scheduling(step: DecodeStep, batch: float, rates: ServingRates) -> DecodeStep:
    """Return ``step`` with the server's host work for its ``batch`` running sequences added (one replica).

    The host checks each sequence's stop criteria, hands back its token and prepares the next
    step (its cache table included) between GPU steps; a server that does not overlap this with the
    GPU (TensorRT-LLM's C++ executor before its overlap scheduler, vLLM's V0 engine) pays it every step.
    """
    scheduling = rates.eff.sequence_host_s * batch
    if scheduling <= 0.0:
        return step
    return step._replace(scheduling=scheduling, total=step.total + scheduling)


def _forward_step(r: Resolved, ctx: ServingContext, batch: float, rates: ServingRates, per_sequence: int) -> DecodeStep:
    """One forward pass of ``per_sequence`` new tokens for each of ``batch`` sequences (no drafting).

    Under attention data parallelism (ctx.ep > 1) the busiest card attends to its own share of the
    sequences and multiplies 1/ep of every routed token's expert rows; each MoE layer dispatches
    its tokens to their experts' cards and combines them back (two all-to-alls).
    """
    arch, eff, stats = r.arch, rates.eff, r.arch.stats
    micro = _micro_batch(batch, ctx)
    tokens = micro * per_sequence
    local = ctx.local_sequences(micro) * per_sequence  # tokens the busiest card attends to
    weights = weights_read_time(r, ctx, tokens, rates)
    # The attention kernel streams each sequence's cache and scores every new token against it:
    # whichever takes longer (MLA's latent attention is compute-bound at large batches).
    attending = ctx.local_sequences(micro)
    kv = max(
        attending * ctx.kv_bytes_mean / rates.kv_bandwidth, local * ctx.attention_flops_mean / rates.core_flops_per_s
    )
    routed = 2.0 * stats.moe_layers * arch.active_experts * stats.expert_params if arch.is_moe else 0.0
    shards = ctx.tp * ctx.pp
    dense = (2.0 * stats.matmul_params_active - routed) * local / shards
    experts = routed * tokens / (shards * ctx.ep)
    if arch.is_moe:
        # Decode products run as GEMV-like kernels at the ceiling, but the grouped expert products
        # also multiply the padding that fills each expert's tiles.
        experts /= expert_tile_use(arch, tokens)
    compute = (dense + experts) / rates.decode_flops_per_s
    layers = arch.layers / ctx.pp
    # Every kernel's least time: off the roofline, paid at every batch.
    floor = ctx.kernels * eff.kernel_floor_s
    elementwise = local * ctx.elementwise_bytes / rates.activation_bandwidth
    communication = 0.0
    if ctx.tp > 1:
        message = local * arch.hidden * 2.0
        communication = 2.0 * layers * all_reduce_time(message, ctx.tp, rates.tp_path, eff.own_all_reduce_bytes)
        communication += split_products(arch, layers) * eff.split_sync_s
    if ctx.ep > 1:
        dispatched = local * arch.active_experts * arch.hidden * 2.0  # 16-bit rows to the experts' cards
        communication += 2.0 * stats.moe_layers / ctx.pp * all_to_all_time(dispatched, ctx.ep, rates.ep_path)
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
