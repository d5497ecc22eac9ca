"""The VRAM page's shaping: control values to scenario fields, sweeps to chart rows, metrics and takeaways.

Pure functions: engine results in, lists of dicts and sentences out (decimal GB, tokens as counts).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from model import Estimate
from model.analyses.fit import KnobSweep, LoadPoint, largest_component
from model.layouts.serving import replica_name
from model.memory import TrainingMemory
from ui.controls import MICRO_BATCH_OPTIONS, RECOMPUTE_OPTIONS, TP_OPTIONS, ZERO_OPTIONS
from ui.format import bytes_gb, duration
from ui.rows.layout import training_layout_text

__all__ = [
    "KNOB_TITLES",
    "LOAD_AXES",
    "OPTIONS",
    "inference_metrics",
    "inference_takeaway",
    "knob_rows",
    "limit_row",
    "load_rows",
    "training_metrics",
    "training_takeaway",
    "vram_settings",
]

OPTIONS: dict[str, tuple[str, ...]] = {
    "zero": ZERO_OPTIONS,
    "tp": TP_OPTIONS,
    "recompute": RECOMPUTE_OPTIONS,
    "micro": MICRO_BATCH_OPTIONS,
}
"""The choices of the page's segmented controls (the values ui.controls accepts)."""
LOAD_AXES = {
    "tokens": "Context per sequence (tokens, prompt + output, log scale)",
    "sequences": "Concurrent sequences per replica (log scale)",
}
"""The x axis title of each serving-load chart, by the unit it counts."""
KNOB_TITLES = {"zero": "ZeRO stage", "recompute": "Recomputation", "tp": "Tensor-parallel degree"}
"""The axis title of each knob's chart."""
_COMPONENTS = (
    ("frozen_weights", "weights"),
    ("adapters", "adapters"),
    ("gradients", "gradients"),
    ("optimizer", "optimizer"),
    ("activations", "activations"),
    ("kv_cache", "KV cache"),
    ("other", "other"),
)
_NAMES = dict(_COMPONENTS) | {"weights": "weights", "optimizer": "optimizer states", "adapters": "LoRA adapters"}


def vram_settings(state: Mapping[str, Any]) -> dict[str, Any]:
    """Return the page's own Scenario field: the serving batch it sizes (the training knobs are every page's)."""
    return {"batch": int(state["batch"])}


def _status(gb: float, fits: bool) -> str:
    return f"{gb:,.1f} GB: {'fits' if fits else 'does not fit'}"


def knob_rows(sweep: KnobSweep) -> list[dict[str, Any]]:
    """Return one row per memory component per knob setting (GB per card), the current setting marked."""
    rows = []
    for point in sweep.points:
        option = f"{point.value} (now)" if point.chosen else str(point.value)
        status = _status(point.memory.total / 1e9, point.fits)
        for order, (field, name) in enumerate(_COMPONENTS):
            if hasattr(point.memory, field) and (field != "adapters" or point.memory.adapters):
                gb = getattr(point.memory, field) / 1e9
                rows.append({"option": option, "component": name, "gb": gb, "order": order, "status": status})
    return rows


def load_rows(points: Sequence[LoadPoint]) -> list[dict[str, Any]]:
    """Return {x, gb, status} rows: total inference memory per card at each context or batch."""
    return [
        {"x": point.x, "gb": point.memory.total / 1e9, "status": "fits" if point.fits else "does not fit"}
        for point in points
    ]


def limit_row(largest: float, unit: str) -> list[dict[str, Any]]:
    """Return the largest value that fits as a one-row list for a marker (empty when none, or unbounded)."""
    if not math.isfinite(largest) or largest < 1:
        return []
    return [{"x": largest, "label": f"largest: {largest:,.0f} {unit}"}]


def _fits_delta(fits: bool) -> dict[str, Any]:
    return {
        "delta": "fits" if fits else "does not fit",
        "delta_color": "normal" if fits else "inverse",
        "delta_arrow": "off",
    }


def _chosen(value: int) -> dict[str, Any]:
    return {"delta": f"you chose {value:,}", "delta_color": "off", "delta_arrow": "off"}


def _sequences(value: int) -> str:
    return "none fits" if value < 1 else f"{value:,} sequence{'s' if value > 1 else ''}"


def _tokens(value: float) -> str:
    if not math.isfinite(value):
        return "no memory limit"
    return f"{value:,.0f} tokens" if value >= 1 else "none fits"


def training_metrics(result: Estimate, micro_batch: int, seq_len: int) -> list[dict[str, Any]]:
    """Return st.metric arguments: training memory per card, the largest micro-batch and sequence length."""
    training, capacity = result.training, result.resolved.gpu.memory_bytes
    shape = training_layout_text(result)
    return [
        {
            "label": "Training memory per card",
            "value": bytes_gb(training.memory_per_gpu.total),
            **_fits_delta(training.fits),
            "help": f"Of {bytes_gb(capacity, 0)} per card. Layout: {shape}; {training.regime}.",
        },
        {
            "label": "Largest micro-batch",
            "value": _sequences(micro_batch),
            **_chosen(training.micro_batch),
            "help": f"Sequences per card per step that fit at {training.seq_len:,} tokens with {shape}.",
        },
        {
            "label": "Largest training sequence",
            "value": _tokens(seq_len),
            **_chosen(training.seq_len),
            "help": f"At micro-batch {training.micro_batch:,} with {shape}. The model was built for "
            f"{result.resolved.arch.max_context:,} tokens.",
        },
    ]


def inference_metrics(result: Estimate, batch: int, context: float) -> list[dict[str, Any]]:
    """Return st.metric arguments: inference memory per card, the largest batch and context."""
    inference, capacity = result.inference, result.resolved.gpu.memory_bytes
    scenario, arch = result.resolved.scenario, result.resolved.arch
    replica = f"a replica of {replica_name(inference.tp, inference.pp, inference.ep)}"
    window = f" Its {arch.sliding_window:,}-token sliding window caps the KV cache." if arch.sliding_window else ""
    return [
        {
            "label": "Inference memory per card",
            "value": bytes_gb(inference.memory_per_gpu.total),
            **_fits_delta(inference.fits),
            "help": f"Of {bytes_gb(capacity, 0)} per card: {inference.batch:,} sequences of "
            f"{scenario.prompt_len + scenario.output_len:,} tokens on {replica}.",
        },
        {
            "label": "Largest batch",
            "value": _sequences(batch),
            **_chosen(inference.batch),
            "help": f"Concurrent sequences per replica ({replica}) at "
            f"{scenario.prompt_len:,} + {scenario.output_len:,} tokens each.",
        },
        {
            "label": "Largest context at this batch",
            "value": _tokens(context),
            **_chosen(scenario.prompt_len + scenario.output_len),
            "help": f"Prompt + output tokens per sequence for {inference.batch:,} sequences, in the same "
            f"prompt:output mix. The model was built for {arch.max_context:,} tokens.{window}",
        },
    ]


def _total(memory: TrainingMemory, fits: bool) -> str:
    return f"{bytes_gb(memory.total)} ({'fits' if fits else 'does not fit'})"


def training_takeaway(result: Estimate, zero: KnobSweep, recompute: KnobSweep, tp: KnobSweep) -> str:
    """Say in words what takes the memory in training and what each knob would do to it."""
    training = result.training
    memory, layout = training.memory_per_gpu, training.parallelism
    biggest = largest_component(memory)
    verdict = "fits in" if training.fits else "does not fit in"
    sentences = [
        f"Training with {training_layout_text(result)} needs {bytes_gb(memory.total)} per card, which {verdict} "
        "the card's "
        f"{bytes_gb(result.resolved.gpu.memory_bytes, 0)}; {_NAMES[biggest]} take the most "
        f"({bytes_gb(getattr(memory, biggest))})."
    ]
    factor, stage0, stage3 = zero.shrink_factor("optimizer", 0, 1), zero.at(0), zero.at(3)
    if layout.dp > 1 and factor and stage0 and stage3:
        sentences.append(
            f"Across {layout.dp} data-parallel replicas, ZeRO-1 and up cut the optimizer states {factor:,.0f}-fold: "
            f"ZeRO-0 would need {_total(stage0.memory, stage0.fits)}, ZeRO-3 {_total(stage3.memory, stage3.fits)}."
        )
    else:
        sentences.append("With a single data-parallel replica, the ZeRO stage changes nothing.")
    full = recompute.at("full")
    if full and not full.chosen:
        sentences.append(
            f"Full recomputation would keep {bytes_gb(full.memory.activations)} of activations instead of "
            f"{bytes_gb(memory.activations)}, {_total(full.memory, full.fits)} in all; training would take "
            f"{duration(full.time_s)} instead of {duration(training.time_s)}."
        )
    elif full:
        sentences.append(
            f"Full recomputation already keeps only each layer's input ({bytes_gb(memory.activations)} of activations)."
        )
    widest = tp.points[-1]
    if not widest.chosen:
        sentences.append(
            f"Tensor parallelism of {widest.value} would split weights, gradients and activations "
            f"{widest.value}-fold: {_total(widest.memory, widest.fits)} in all."
        )
    return " ".join(sentences)


def inference_takeaway(result: Estimate, batch: int, context: float) -> str:
    """Say in words what serving holds per card and how far batch and context can go."""
    inference, scenario = result.inference, result.resolved.scenario
    memory = inference.memory_per_gpu
    head = (
        f"Serving holds {bytes_gb(memory.weights)} of weights per card and {bytes_gb(memory.kv_cache)} of KV cache "
        f"for {inference.batch:,} sequences of {scenario.prompt_len + scenario.output_len:,} tokens."
    )
    if not batch:
        return f"{head} Not even one sequence fits at this context: add cards or raise the tensor-parallel degree."
    reach = (
        "at this batch the context is not limited by memory"
        if not math.isfinite(context)
        else f"at {inference.batch:,} sequences the context can reach {context:,.0f} tokens"
        if context >= 2
        else f"{inference.batch:,} sequences do not fit at any context"
    )
    return f"{head} Up to {batch:,} sequences fit at this context; {reach}."
