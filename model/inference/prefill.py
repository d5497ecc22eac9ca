"""Prefill: 2 N FLOPs per prompt token plus causal attention, each product family at its shape's efficiency."""

from __future__ import annotations

from model.architecture import product_work
from model.communication import all_reduce_time, all_to_all_time
from model.inference.context import (
    ServingContext,
    ServingRates,
    expert_tile_use,
    grouped_expert_work,
    split_products,
    weights_read_time,
)
from model.scenario import Resolved

__all__ = ["prefill_time"]


def _prefill_stage(r: Resolved, ctx: ServingContext, tokens: float, prompt_len: float, rates: ServingRates) -> float:
    """Seconds for one pipeline stage to prefill ``tokens`` tokens of prompts of ``prompt_len``.

    Under attention data parallelism each card prefills its share of the prompts and multiplies
    its share of the routed rows, after a dispatch and before a combine per MoE layer.
    """
    arch, eff = r.arch, rates.eff
    shards = ctx.tp * ctx.pp
    stats = arch.stats
    local = tokens / ctx.ep  # the prompts are spread over the data-parallel attention ranks
    attention = stats.attention_flops_per_token_per_key * prompt_len / 2.0 * local / shards
    # Three families of products, each at the efficiency its shape earns: attention
    # projections, the MLP (or the experts a token reaches) and the LM head.
    # Each as frameworks launch it (model.architecture.product_work); an expert-sized product for a MoE
    # model's dense layers and shared experts, whose tokens are not routed.
    attention_work, mlp_work, head_work = product_work(arch, local, ctx.tp, routed=False)
    routed, routed_term = 0.0, 0.0
    if arch.is_moe:
        # One grouped launch multiplies every routed token by its experts, each expert's rows
        # padded to whole tiles (model.inference.context): the padded rows are multiplied
        # (1 / tile use); the launch's fixed cost is paid once: time = flops x (1 / use + W0 / W) / rate.
        routed = stats.moe_layers * arch.active_experts * stats.expert_params
        work = grouped_expert_work(arch, local, ctx.tp)
        routed_term = routed * (1.0 / expert_tile_use(arch, tokens) + rates.half_work_flops / work)
    # efficiency = ceiling x W / (W + W0), so time = flops / (peak x ceiling) x (1 + W0 / W).
    half = rates.half_work_flops
    products = (
        stats.attention_params * (1.0 + half / attention_work)
        + (stats.matmul_params_active - stats.attention_params - stats.head_params - routed) * (1.0 + half / mlp_work)
        + routed_term
        + stats.head_params * (1.0 + half / head_work)
    ) * (2.0 * local / shards)
    products /= rates.decode_flops_per_s
    compute = products + attention / rates.core_flops_per_s
    memory = weights_read_time(r, ctx, tokens, rates)
    elementwise = local * ctx.elementwise_bytes / rates.activation_bandwidth
    layers = arch.layers / ctx.pp
    communication = 0.0
    if ctx.tp > 1:
        # Paid in full, as in decode: a server all-reduces each row-parallel product's output after
        # it, on the same stream (vLLM's RowParallelLinear.forward calls tensor_model_parallel_all_reduce
        # on its output; SGLang's linear layers are vLLM's), so nothing hides it. Training's overlap
        # (Efficiencies.tp_overlap) is Megatron-Core's, which no serving stack runs by default.
        message = local * arch.hidden * 2.0
        all_reduce = all_reduce_time(message, ctx.tp, rates.tp_path, eff.own_all_reduce_bytes)
        communication = 2.0 * layers * all_reduce
        communication += split_products(arch, layers) * eff.split_sync_s
    if ctx.ep > 1:
        dispatched = local * arch.active_experts * arch.hidden * 2.0
        communication += 2.0 * stats.moe_layers / ctx.pp * all_to_all_time(dispatched, ctx.ep, rates.ep_path)
    return max(compute, memory) + elementwise + ctx.kernels * eff.kernel_floor_s + communication


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
