"""How the engine split the cards and why: the chosen layouts, their step, and the runner-ups weighed.

Pure functions for the VRAM and Method pages: engine results in, sentences and table rows out.
"""

from __future__ import annotations

from typing import Any

from model import Estimate, TrainingEstimate
from model.layouts.serving import replica_name
from ui.format import bytes_gb, duration
from ui.rows.costs import STEP_PARTS

__all__ = [
    "recompute_text",
    "serving_candidate_rows",
    "serving_choice",
    "step_rows",
    "training_candidate_rows",
    "training_choice",
    "training_layout_text",
]


def recompute_text(training: TrainingEstimate, layers_per_stage: int) -> str:
    """Say how activations are recomputed: 'no recomputation', 'full recomputation of 3 of 8 layers per stage'."""
    if training.recompute == "full" and training.recomputed_layers < layers_per_stage:
        return f"full recomputation of {training.recomputed_layers} of {layers_per_stage} layers per stage"
    return "no recomputation" if training.recompute == "none" else f"{training.recompute} recomputation"


def _layers_per_stage(result: Estimate) -> int:
    return -(-result.resolved.arch.layers // result.training.parallelism.pp)


def training_layout_text(result: Estimate) -> str:
    """Name the training layout: 'tp 8 × pp 16 × dp 64, 4 chunks per stage, ZeRO 1, no recomputation'."""
    training = result.training
    layout = training.parallelism
    parts = [f"tp {layout.tp} × pp {layout.pp} × dp {layout.dp}" + (f" × ep {layout.ep}" if layout.ep > 1 else "")]
    if training.vp > 1:
        parts.append(f"{training.vp} chunks per stage")
    parts += [f"ZeRO {layout.zero}", recompute_text(training, _layers_per_stage(result))]
    return ", ".join(parts)


def training_choice(result: Estimate) -> str:
    """Say which training layout was chosen, from how many, with what batch, and how close the next one came."""
    training = result.training
    fixed = [
        name
        for name in ("tp", "pp", "dp", "ep", "zero", "recompute", "micro_batch", "vp", "global_batch")
        if getattr(result.resolved.scenario, name) is not None
    ]
    if not training.fits:
        head = f"Nothing fits; the layout needing the least memory is {training_layout_text(result)}."
    else:
        head = (
            f"The fastest of {training.layouts_timed:,} layouts timed that fits: {training_layout_text(result)}; "
            f"{training.microbatches:,} micro-batch{'es' if training.microbatches > 1 else ''} of "
            f"{training.micro_batch:,} × {training.seq_len:,} tokens per replica per step "
            f"({training.global_batch:,} sequences)."
        )
    candidates = training.layout_candidates
    if training.fits and len(candidates) > 1:
        gap = candidates[1].time_s / candidates[0].time_s - 1.0
        head += f" The runner-up takes {gap:.1%} longer."
    if fixed:
        head += " You fixed " + ", ".join(name.replace("_", " ") for name in fixed) + "; the search kept them."
    return head


def step_rows(result: Estimate) -> list[dict[str, Any]]:
    """Return the chosen layout's step by part: {step, part, seconds, pct, order}, parts that take time only."""
    step = result.training.step
    name = "One step" if result.training.fits else "One step (does not fit)"
    rows = []
    for order, (field, label) in enumerate(STEP_PARTS):
        seconds = getattr(step, field)
        if seconds > 0:
            share = seconds / step.total * 100.0
            rows.append({"step": name, "part": label, "seconds": seconds, "pct": share, "order": order})
    return rows


def training_candidate_rows(result: Estimate) -> list[dict[str, Any]]:
    """Return one table row per training layout weighed, the chosen first: layout, time, memory."""
    training = result.training
    stage_layers = result.resolved.arch.layers
    best = training.layout_candidates[0].time_s if training.layout_candidates else None
    rows = []
    for rank, c in enumerate(training.layout_candidates):
        per_stage = -(-stage_layers // c.pp)
        recompute = c.recompute if c.recompute != "full" else f"full, {c.recomputed_layers} of {per_stage} layers"
        rows.append(
            {
                "": "chosen" if rank == 0 else f"#{rank + 1}",
                "Layout": f"tp {c.tp} × pp {c.pp} × dp {c.dp}" + (f" × ep {c.ep}" if c.ep > 1 else ""),
                "Chunks per stage": c.vp,
                "ZeRO": c.zero,
                "Recomputation": recompute,
                "Micro-batch": c.micro_batch,
                "Batch (sequences)": f"{c.global_batch:,}",
                "Time to train": duration(c.time_s),
                "vs chosen": "" if rank == 0 or not best else f"+{c.time_s / best - 1.0:.1%}",
                "GB per card": bytes_gb(c.memory_per_gpu),
            }
        )
    return rows


def serving_choice(result: Estimate) -> str:
    """Say which serving replica answers the question asked, and why."""
    inference, scenario = result.inference, result.resolved.scenario
    question = (
        "the lowest time per token for one user"
        if scenario.batch == 1
        else "the most output tokens per second per card"
        + (f" within {scenario.target_tpot_s * 1e3:,.0f} ms per token" if scenario.target_tpot_s else "")
    )
    return (
        f"Serving: replicas of {replica_name(inference.tp, inference.pp, inference.ep)} ({inference.dp:,} of them), "
        "the layout with "
        f"{question} at {inference.batch:,} sequence{'s' if inference.batch > 1 else ''} per replica."
    )


def serving_candidate_rows(result: Estimate) -> list[dict[str, Any]]:
    """Return one table row per serving replica weighed, the chosen first."""
    rows = []
    for rank, c in enumerate(result.inference.layout_candidates):
        rows.append(
            {
                "": "chosen" if rank == 0 else f"#{rank + 1}",
                "Replica": replica_name(c.tp, c.pp, c.ep),
                "Replicas": f"{c.dp:,}",
                "Batch per replica": f"{c.batch:,}",
                "ms per output token": f"{c.tpot_s * 1e3:,.1f}",
                "Output tokens/s (all)": f"{c.decode_tokens_per_s:,.0f}",
                "GB per card": bytes_gb(c.memory_per_gpu),
            }
        )
    return rows
