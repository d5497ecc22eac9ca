"""The VRAM page's takeaways: what takes the memory, what each knob would do, how far serving can go.

Pure functions: engine results in, sentences out in the visit's language.
"""

from __future__ import annotations

import math

from model import Estimate, TrainingMemory, training_refused
from model.analyses.fit import KnobSweep, largest_component
from ui.format import bytes_gb, duration
from ui.i18n import tr, translatable
from ui.layout_rows import training_layout_text
from ui.memory_rows import budget_text
from ui.text import sentences

__all__ = ["inference_takeaway", "training_takeaway"]

_NAMES = {
    "weights": translatable("weights"),
    "gradients": translatable("gradients"),
    "optimizer": translatable("optimizer states"),
    "activations": translatable("activations"),
    "adapters": translatable("LoRA adapters"),
    "kv_cache": "KV cache",
    "other": translatable("other"),
}
"""What the takeaway calls each memory component."""


def _total(memory: TrainingMemory, fits: bool) -> str:
    total = bytes_gb(memory.total)
    return tr("{total} (fits)", total=total) if fits else tr("{total} (does not fit)", total=total)


def _training_head(result: Estimate) -> str:
    training = result.training
    memory = training.memory_per_gpu
    biggest = largest_component(memory)
    fields = {
        "layout": training_layout_text(result),
        "total": bytes_gb(memory.total),
        "capacity": bytes_gb(result.resolved.gpu.capacity_bytes),
        "biggest": tr(_NAMES[biggest]),
        "size": bytes_gb(getattr(memory, biggest)),
    }
    if training.fits:
        return tr(
            "Training with {layout} needs {total} per card, which fits in the card's {capacity}; "
            "{biggest} take the most ({size}).",
            **fields,
        )
    return tr(
        "Training with {layout} needs {total} per card, which does not fit in the card's {capacity}; "
        "{biggest} take the most ({size}).",
        **fields,
    )


def training_takeaway(result: Estimate, zero: KnobSweep, recompute: KnobSweep, tp: KnobSweep) -> str:
    """Say in words what takes the memory in training and what each knob would do to it."""
    training = result.training
    memory, layout = training.memory_per_gpu, training.parallelism
    parts = [_training_head(result)]
    if training_refused(result.resolved):
        refusal = tr(
            "{precision} is a weight format for serving, not trained in full: the figures here are what bf16 "
            "training would need.",
            precision=result.resolved.precision,
        )
        parts.insert(0, refusal)
    factor, stage0, stage3 = zero.shrink_factor("optimizer", 0, 1), zero.at(0), zero.at(3)
    if layout.dp > 1 and factor and stage0 and stage3:
        parts.append(
            tr(
                "Across {dp} data-parallel replicas, ZeRO-1 and up cut the optimizer states {factor}-fold: "
                "ZeRO-0 would need {zero0}, ZeRO-3 {zero3}.",
                dp=str(layout.dp),
                factor=f"{factor:,.0f}",
                zero0=_total(stage0.memory, stage0.fits),
                zero3=_total(stage3.memory, stage3.fits),
            )
        )
    else:
        parts.append(tr("With a single data-parallel replica, the ZeRO stage changes nothing."))
    full = recompute.at("full")
    if full and not full.chosen and full.fits and training.fits:
        parts.append(
            tr(
                "Full recomputation would keep {kept} of activations instead of {now}, {total} in all; "
                "training would take {time} instead of {now_time}.",
                kept=bytes_gb(full.memory.activations),
                now=bytes_gb(memory.activations),
                total=_total(full.memory, full.fits),
                time=duration(full.time_s),
                now_time=duration(training.time_s),
            )
        )
    elif full and not full.chosen:  # one side cannot run, so neither gets a time
        parts.append(
            tr(
                "Full recomputation would keep {kept} of activations instead of {now}, {total} in all.",
                kept=bytes_gb(full.memory.activations),
                now=bytes_gb(memory.activations),
                total=_total(full.memory, full.fits),
            )
        )
    elif full:
        parts.append(
            tr(
                "Full recomputation already keeps only each layer's input ({activations} of activations).",
                activations=bytes_gb(memory.activations),
            )
        )
    widest = tp.points[-1]
    if not widest.chosen:
        parts.append(
            tr(
                "Tensor parallelism of {tp} would split weights, gradients and activations {tp}-fold: {total} in all.",
                tp=str(widest.value),
                total=_total(widest.memory, widest.fits),
            )
        )
    return sentences(parts)


def inference_takeaway(result: Estimate, context: float) -> str:
    """Say in words what serving holds per card, the budget it holds it in, and how far batch and context go.

    Args:
        result: the estimate; its ``inference.max_batch`` is the largest batch (the engine's one rule).
        context: the largest context at the scenario's batch (``model.analyses.fit.largest_inference_context``).
    """
    inference, scenario = result.inference, result.resolved.scenario
    memory, largest = inference.memory_per_gpu, inference.max_batch
    head = tr(
        "Serving holds {weights} of weights per card and {kv} of KV cache for {batch} sequences of {context} tokens.",
        weights=bytes_gb(memory.weights),
        kv=bytes_gb(memory.kv_cache),
        batch=f"{inference.batch:,}",
        context=f"{scenario.prompt_len + scenario.output_len:,}",
    )
    capacity = result.resolved.gpu.capacity_bytes
    budget = tr(
        "{reserve} Here that is {budget} of the card's {capacity}.",
        reserve=budget_text(result.resolved.serving_budget),
        budget=bytes_gb(result.inference.budget_per_gpu),
        capacity=bytes_gb(capacity),
    )
    if not largest:
        return sentences([head, budget, tr("Not even one sequence fits at this context.")])
    if not math.isfinite(context):
        reach = tr("at this batch the context is not limited by memory")
    elif context >= 2:
        reach = tr(
            "at {batch} sequences the context can reach {context} tokens",
            batch=f"{inference.batch:,}",
            context=f"{context:,.0f}",
        )
    else:
        reach = tr("{batch} sequences do not fit at any context", batch=f"{inference.batch:,}")
    return sentences(
        [head, budget, tr("Up to {batch} sequences fit at this context; {reach}.", batch=f"{largest:,}", reach=reach)]
    )
