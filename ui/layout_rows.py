"""How the engine split the cards and why: the chosen layouts, their step, and the runner-ups weighed.

Pure functions for the Overview, VRAM and Method pages, and the step parts the cost page stacks:
engine results in, sentences and table rows out.
"""

from __future__ import annotations

from typing import Any

from model import Estimate, TrainingEstimate, replica_name
from ui.format import NOT_RUN, bytes_gb, duration
from ui.i18n import tr, translatable
from ui.text import listed, sentences

__all__ = [
    "OPTION_WORDS",
    "STEP_PARTS",
    "option_labels",
    "option_word",
    "recompute_text",
    "replica_text",
    "serving_candidate_rows",
    "serving_choice",
    "step_rows",
    "training_candidate_rows",
    "training_choice",
    "training_layout_text",
]

STEP_PARTS: tuple[tuple[str, str], ...] = (
    ("compute", translatable("compute")),
    ("tensor_parallel", translatable("tensor-parallel all-reduce")),
    ("data_parallel", translatable("data-parallel gradients")),
    ("expert_parallel", translatable("expert all-to-all")),
    ("pipeline_transfer", translatable("pipeline transfer")),
    ("bubble", translatable("pipeline bubble")),
    ("optimizer", translatable("optimizer update")),
    ("moe_host", translatable("MoE host wait")),
)
"""Step-time fields of a scaling row and their chart labels (English: show ``tr(label)``), in stacking order."""
OPTION_WORDS = {
    "auto": translatable("auto"),
    "none": translatable("none"),
    "selective": translatable("selective"),
    "full": translatable("full"),
}
"""The layout controls' options that are words (the rest are numbers), as the page shows them."""
_RECOMPUTE = {
    "none": translatable("no recomputation"),
    "selective": translatable("selective recomputation"),
    "full": translatable("full recomputation"),
}
_FIXED = {
    "zero": translatable("zero"),
    "recompute": translatable("recompute"),
    "micro_batch": translatable("micro batch"),
    "global_batch": translatable("global batch"),
}
"""The scenario fields a visitor can fix, as the choice sentence names them (the rest are codes: tp, pp)."""


def option_word(option: object) -> str:
    """Return a control option as the visit's language shows it: 'auto' -> '自动'; numbers as they are."""
    text = str(option)
    return tr(OPTION_WORDS[text]) if text in OPTION_WORDS else text


def option_labels(options: tuple[str, ...]) -> dict[str, str]:
    """Return each control option as the visit's language shows it (bind it when the widget is built)."""
    return {option: option_word(option) for option in options}


def replica_text(tp: int, pp: int, ep: int = 1) -> str:
    """Name a serving replica in the visit's language: 'tp 8 × pp 2', 'attention DP 8 × EP 8'."""
    if ep > 1:
        return tr("attention DP {ep} × EP {ep}", ep=str(ep))
    return replica_name(tp, pp)


def recompute_text(training: TrainingEstimate, layers_per_stage: int) -> str:
    """Say how activations are recomputed: 'no recomputation', 'full recomputation of 3 of 8 layers per stage'."""
    if training.recompute == "full" and training.recomputed_layers < layers_per_stage:
        return tr(
            "full recomputation of {layers} of {per_stage} layers per stage",
            layers=str(training.recomputed_layers),
            per_stage=str(layers_per_stage),
        )
    if training.recompute in _RECOMPUTE:
        return tr(_RECOMPUTE[training.recompute])
    return f"{training.recompute} recomputation"


def _layers_per_stage(result: Estimate) -> int:
    return -(-result.resolved.arch.layers // result.training.parallelism.pp)


def training_layout_text(result: Estimate) -> str:
    """Name the training layout: 'tp 8 × pp 16 × dp 64, 4 chunks per stage, ZeRO 1, no recomputation'."""
    training = result.training
    layout = training.parallelism
    parts = [f"tp {layout.tp} × pp {layout.pp} × dp {layout.dp}" + (f" × ep {layout.ep}" if layout.ep > 1 else "")]
    if training.vp > 1:
        parts.append(tr("{vp} chunks per stage", vp=str(training.vp)))
    parts += [f"ZeRO {layout.zero}", recompute_text(training, _layers_per_stage(result))]
    return listed(parts)


def training_choice(result: Estimate) -> str:
    """Say which training layout was chosen, from how many, with what batch, and how close the next one came."""
    training = result.training
    fixed = [
        name
        for name in ("tp", "pp", "dp", "ep", "zero", "recompute", "micro_batch", "vp", "global_batch")
        if getattr(result.resolved.scenario, name) is not None
    ]
    if not training.fits:
        head = tr("Nothing fits; the layout needing the least memory is {layout}.", layout=training_layout_text(result))
    else:
        fields = {
            "timed": f"{training.layouts_timed:,}",
            "layout": training_layout_text(result),
            "count": f"{training.microbatches:,}",
            "micro": f"{training.micro_batch:,}",
            "seq": f"{training.seq_len:,}",
            "sequences": f"{training.global_batch:,}",
        }
        if training.microbatches > 1:
            head = tr(
                "The fastest of {timed} layouts timed that fits: {layout}; {count} micro-batches of {micro} × {seq} "
                "tokens per replica per step ({sequences} sequences).",
                **fields,
            )
        else:
            head = tr(
                "The fastest of {timed} layouts timed that fits: {layout}; {count} micro-batch of {micro} × {seq} "
                "tokens per replica per step ({sequences} sequences).",
                **fields,
            )
    candidates = training.layout_candidates
    if training.fits and len(candidates) > 1:
        gap = candidates[1].time_s / candidates[0].time_s - 1.0
        head = sentences([head, tr("The runner-up takes {gap} longer.", gap=f"{gap:.1%}")])
    if fixed:
        names = listed([tr(_FIXED[name]) if name in _FIXED else name for name in fixed])
        head = sentences([head, tr("You fixed {names}; the search kept them.", names=names)])
    return head


def step_rows(result: Estimate) -> list[dict[str, Any]]:
    """Return the chosen layout's step by part: {step, part, seconds, pct, order}, parts that take time only.

    None when training does not fit: a step that cannot run has no time.
    """
    if not result.training.fits:
        return []
    step = result.training.step
    name = tr("One step")
    rows = []
    for order, (field, label) in enumerate(STEP_PARTS):
        seconds = getattr(step, field)
        if seconds > 0:
            share = seconds / step.total * 100.0
            rows.append({"step": name, "part": tr(label), "seconds": seconds, "pct": share, "order": order})
    return rows


def training_candidate_rows(result: Estimate) -> list[dict[str, Any]]:
    """Return one table row per training layout weighed, the chosen first: layout, time, memory.

    When training does not fit, the layouts listed do not either: their time is a dash, not a number.
    """
    training = result.training
    stage_layers = result.resolved.arch.layers
    best = training.layout_candidates[0].time_s if training.layout_candidates else None
    rows = []
    for rank, c in enumerate(training.layout_candidates):
        per_stage = -(-stage_layers // c.pp)
        recompute = (
            option_word(c.recompute)
            if c.recompute != "full"
            else tr("full, {layers} of {per_stage} layers", layers=str(c.recomputed_layers), per_stage=str(per_stage))
        )
        rows.append(
            {
                "": tr("chosen") if rank == 0 else f"#{rank + 1}",
                tr("Layout"): f"tp {c.tp} × pp {c.pp} × dp {c.dp}" + (f" × ep {c.ep}" if c.ep > 1 else ""),
                tr("Chunks per stage"): c.vp,
                "ZeRO": c.zero,
                tr("Recomputation"): recompute,
                tr("Micro-batch"): c.micro_batch,
                tr("Batch (sequences)"): f"{c.global_batch:,}",
                tr("Time to train"): duration(c.time_s) if training.fits else NOT_RUN,
                tr("vs chosen"): "" if rank == 0 or not best or not training.fits else f"+{c.time_s / best - 1.0:.1%}",
                tr("GB per card"): bytes_gb(c.memory_per_gpu),
            }
        )
    return rows


def serving_choice(result: Estimate) -> str:
    """Say which serving replica answers the question asked, and why."""
    inference, scenario = result.inference, result.resolved.scenario
    if scenario.batch == 1:
        question = tr("the lowest time per token for one user")
    elif scenario.target_tpot_s:
        question = tr(
            "the most output tokens per second per card within {ms} ms per token",
            ms=f"{scenario.target_tpot_s * 1e3:,.0f}",
        )
    else:
        question = tr("the most output tokens per second per card")
    fields = {
        "replica": replica_text(inference.tp, inference.pp, inference.ep),
        "replicas": f"{inference.dp:,}",
        "question": question,
        "batch": f"{inference.batch:,}",
    }
    if not inference.fits:
        return tr(
            "Serving: no replica holds {batch} sequences; the one that comes closest is {replica} "
            "({replicas} of them).",
            **fields,
        )
    if inference.batch > 1:
        return tr(
            "Serving: replicas of {replica} ({replicas} of them), the layout with {question} at {batch} sequences "
            "per replica.",
            **fields,
        )
    return tr(
        "Serving: replicas of {replica} ({replicas} of them), the layout with {question} at {batch} sequence "
        "per replica.",
        **fields,
    )


def serving_candidate_rows(result: Estimate) -> list[dict[str, Any]]:
    """Return one table row per serving replica weighed, the chosen first.

    When serving does not fit, the one replica listed (the closest) does not either: a dash for its speed.
    """
    runs = result.inference.fits
    rows = []
    for rank, c in enumerate(result.inference.layout_candidates):
        rows.append(
            {
                "": tr("chosen") if rank == 0 else f"#{rank + 1}",
                tr("Replica"): replica_text(c.tp, c.pp, c.ep),
                tr("Replicas"): f"{c.dp:,}",
                tr("Batch per replica"): f"{c.batch:,}",
                tr("ms per output token"): f"{c.tpot_s * 1e3:,.1f}" if runs else NOT_RUN,
                tr("Output tokens/s (all)"): f"{c.decode_tokens_per_s:,.0f}" if runs else NOT_RUN,
                tr("GB per card"): bytes_gb(c.memory_per_gpu),
            }
        )
    return rows
