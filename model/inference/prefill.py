"""Prefill: 2 N FLOPs per prompt token plus causal attention, each product family at its shape's efficiency."""

from __future__ import annotations

from model.communication import all_reduce_time
from model.inference.context import ServingContext, ServingRates, weights_read
from model.scenario import Resolved

__all__ = ["prefill_time"]


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
    memory = weights_read(r, ctx, tokens) / rates.weight_bandwidth
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
