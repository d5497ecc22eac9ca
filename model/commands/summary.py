"""``python -m model estimate`` without ``--json``: the estimate as a few lines a person reads.

A part that does not fit the cards is reported as such, with the changes that make it fit (each
checked by the engine, :func:`model.analyses.verdict.goal_verdict`), never with a time or a price
worked out for a setup that cannot run.
"""

from __future__ import annotations

from model.analyses.verdict import Fix, Goal, goal_verdict
from model.catalog import Catalog
from model.layouts.serving import replica_name
from model.results import Estimate
from model.scenario import ADAPTER_NAMES, offered_concurrency
from model.units import DAY_S, GB, format_gb

__all__ = ["summary"]


def _fix(fix: Fix) -> str:
    value = fix.value
    change = {
        "cards": f"{value:,} cards" if isinstance(value, int) else str(value),
        "precision": f"{value} weights",
        "finetune": ADAPTER_NAMES.get(str(value), str(value)),
        "context": f"a context of {value:,} tokens" if isinstance(value, int) else str(value),
        "seq_len": f"sequences of {value:,} tokens" if isinstance(value, int) else str(value),
    }.get(fix.knob, f"{fix.knob} {value}")
    return f"{change} ({format_gb(fix.needed_bytes)} per card)"


def _not_run(result: Estimate, goal: Goal, needed: float, catalog: Catalog | None) -> str:
    capacity = result.resolved.gpu.capacity_bytes
    verdict = goal_verdict(result.resolved.scenario, goal, catalog)
    fixes = verdict.fixes
    remedy = "; fits with: " + ", ".join(_fix(fix) for fix in fixes) if fixes else "; no single change makes it fit"
    if verdict.refusal == "untrainable_precision":
        precision = result.resolved.precision
        return f"not run: {precision} is a weight format for serving, not trained, so no time or cost{remedy}"
    budget = result.inference.budget_per_gpu
    room = (
        f"a server budgets {format_gb(budget)} of the card's {format_gb(capacity)}"
        if goal == "serve"
        else f"the card has {format_gb(capacity)}"
    )
    return f"not run: needs {format_gb(needed)} per card, {room}, so no time or cost{remedy}"


def _offloaded(result: Estimate) -> str:
    """Say where the part the cards cannot hold went: host memory, layers or experts (empty without offload)."""
    split = result.inference.offload
    host = format_gb(split.host_bytes)
    if split.mode == "layers":
        return f" (with offload: {split.layers_on_card} of {split.layers} layers on the card, {host} in host memory)"
    if split.mode == "experts":
        return (
            f" (with offload: the routed experts of the first {split.cpu_moe_layers} of {split.layers} layers"
            f" in host memory, {host})"
        )
    return ""


def summary(result: Estimate, catalog: Catalog | None = None) -> str:
    """Return the estimate as text: inputs, then training and serving, then the warnings."""
    t, i = result.training, result.inference
    inputs = result.inputs
    memory = t.memory_per_gpu
    layers_per_stage = -(-result.resolved.arch.layers // t.parallelism.pp)
    lines = [
        f"{inputs['model_name']} ({inputs['params'] / 1e9:,.2f}B params) on "
        f"{inputs['cards']} x {inputs['gpu_name']}, {inputs['precision']}",
        "training:",
        f"  fits: {'yes' if t.fits else 'no'}; memory per card {memory.total / GB:,.1f} GB "
        f"(weights {memory.weights / GB:,.1f}"
        + (f" of which adapters {memory.adapters / GB:,.2f}, " if memory.adapters else ", ")
        + f"gradients {memory.gradients / GB:,.1f}, optimizer {memory.optimizer / GB:,.1f}, "
        f"activations {memory.activations / GB:,.1f}, other {memory.other / GB:,.1f})",
        f"  layout: tp {t.parallelism.tp} x pp {t.parallelism.pp} x dp {t.parallelism.dp}, ep {t.parallelism.ep}"
        + (f", {t.vp} chunks per stage" if t.vp > 1 else "")
        + f", ZeRO {t.parallelism.zero}, recompute {t.recompute}"
        + (f" ({t.recomputed_layers} of {layers_per_stage} layers per stage)" if t.recompute == "full" else "")
        + f"; {t.microbatches} micro-batches of {t.micro_batch} per replica, {t.global_batch:,} sequences per step"
        + f" ({'lightest' if t.memory_per_gpu.total > result.resolved.gpu.capacity_bytes else 'fastest'}"
        f" of {t.layouts_timed} layouts timed)",
    ]
    flops = f"  {t.tokens:.3g} tokens: {t.total_flops:.3g} FLOPs"
    if t.fits:
        lines.append(
            f"{flops}, {t.time_s / DAY_S:,.1f} days, {t.gpu_hours:,.0f} GPU-hours, "
            + (f"${t.cost_usd:,.0f}, " if t.cost_usd is not None else "")
            + (f"{t.energy_kwh:,.0f} kWh, " if t.energy_kwh is not None else "")
            + f"MFU {t.mfu:.0%}, {t.tokens_per_s_per_gpu:,.0f} tokens/s per card"
        )
    else:
        goal: Goal = "pretrain" if result.resolved.scenario.finetune == "none" else "finetune"
        lines.append(f"{flops}; {_not_run(result, goal, memory.total, catalog)}")
    lines += [
        "inference:",
        f"  fits: {'yes' if i.fits else 'no'}{_offloaded(result)}; "
        f"memory per card {i.memory_per_gpu.total / GB:,.1f} GB "
        f"(weights {i.memory_per_gpu.weights / GB:,.1f}, KV cache {i.memory_per_gpu.kv_cache / GB:,.1f}); "
        f"replica {replica_name(i.tp, i.pp, i.ep, times='x')}, {i.dp} replicas; batch {i.batch:,} per replica, "
        f"{offered_concurrency(result.resolved.scenario) or i.dp * i.batch:,} in all"
        + (f", {i.queued:,} waiting for a slot" if i.queued else "")
        + f" (max {i.max_batch:,} per replica)",
    ]
    if i.fits:
        lines.append(
            f"  TTFT {i.ttft_s * 1e3:,.1f} ms"
            + (f" ({i.queue_wait_s * 1e3:,.1f} ms of it in the queue)" if i.queue_wait_s else "")
            + f", TPOT {i.tpot_s * 1e3:,.2f} ms "
            f"(roofline {i.tpot_roofline_s * 1e3:,.2f} ms), "
            f"{i.decode_tokens_per_s_per_user:,.1f} tokens/s per user, {i.decode_tokens_per_s:,.0f} tokens/s in total, "
            f"{i.bound}-bound"
            + (
                f", ${i.cost_per_million_output_tokens_usd:,.2f} per million output tokens"
                if i.cost_per_million_output_tokens_usd is not None
                else ""
            )
        )
    elif i.max_batch > 0:
        lines.append(f"  not run at batch {i.batch}: at most {i.max_batch} sequences fit a replica, so no time or cost")
    else:
        lines.append(f"  {_not_run(result, 'serve', i.memory_per_gpu.total, catalog)}")
    lines += [f"warning: {w}" for w in result.warnings]
    return "\n".join(lines)
