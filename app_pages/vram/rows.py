"""The VRAM page's shaping: control values to scenario fields, sweeps to chart rows, metrics.

Pure functions: engine results in, lists of dicts and sentences out (decimal GB, tokens as counts).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from model import Estimate
from model.analyses.fit import KnobSweep, LoadPoint
from ui.controls import MICRO_BATCH_OPTIONS, RECOMPUTE_OPTIONS, TP_OPTIONS, ZERO_OPTIONS
from ui.format import bytes_gb
from ui.i18n import tr, translatable
from ui.layout_rows import option_word, replica_text, training_layout_text
from ui.memory_rows import regime_text

__all__ = [
    "KNOB_TITLES",
    "LOAD_AXES",
    "OPTIONS",
    "fit_word",
    "inference_metrics",
    "knob_rows",
    "limit_row",
    "load_rows",
    "training_metrics",
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
    "tokens": translatable("Context per sequence (tokens, prompt + output, log scale)"),
    "sequences": translatable("Concurrent sequences per replica (log scale)"),
}
"""The x axis title of each serving-load chart, by the unit it counts (English: ``tr()`` where shown)."""
KNOB_TITLES = {
    "zero": translatable("ZeRO stage"),
    "recompute": translatable("Recomputation"),
    "tp": translatable("Tensor-parallel degree"),
}
"""The axis title of each knob's chart (English: ``tr()`` where shown)."""
_COMPONENTS = (
    ("frozen_weights", translatable("weights")),
    ("adapters", translatable("adapters")),
    ("gradients", translatable("gradients")),
    ("optimizer", translatable("optimizer")),
    ("activations", translatable("activations")),
    ("kv_cache", "KV cache"),
    ("other", translatable("other")),
)


def vram_settings(state: Mapping[str, Any]) -> dict[str, Any]:
    """Return the page's own Scenario field: the serving batch it sizes (the training knobs are every page's)."""
    return {"batch": int(state["batch"])}


def fit_word(fits: bool) -> str:
    """Return 'fits' or 'does not fit' in the visit's language."""
    return tr("fits") if fits else tr("does not fit")


def _status(gb: float, fits: bool) -> str:
    value = f"{gb:,.1f}"
    return tr("{gb} GB: fits", gb=value) if fits else tr("{gb} GB: does not fit", gb=value)


def knob_rows(sweep: KnobSweep) -> list[dict[str, Any]]:
    """Return one row per memory component per knob setting (GB per card), the current setting marked."""
    rows = []
    for point in sweep.points:
        value = option_word(point.value)
        option = tr("{value} (now)", value=value) if point.chosen else value
        status = _status(point.memory.total / 1e9, point.fits)
        for order, (field, name) in enumerate(_COMPONENTS):
            if hasattr(point.memory, field) and (field != "adapters" or point.memory.adapters):
                gb = getattr(point.memory, field) / 1e9
                rows.append({"option": option, "component": tr(name), "gb": gb, "order": order, "status": status})
    return rows


def load_rows(points: Sequence[LoadPoint]) -> list[dict[str, Any]]:
    """Return {x, gb, status} rows: total inference memory per card at each context or batch."""
    return [{"x": point.x, "gb": point.memory.total / 1e9, "status": fit_word(point.fits)} for point in points]


def limit_row(largest: float, unit: str) -> list[dict[str, Any]]:
    """Return the largest value that fits as a one-row list for a marker (empty when none, or unbounded)."""
    if not math.isfinite(largest) or largest < 1:
        return []
    value = f"{largest:,.0f}"
    if unit == "tokens":
        return [{"x": largest, "label": tr("largest: {n} tokens", n=value)}]
    if unit == "sequences":
        return [{"x": largest, "label": tr("largest: {n} sequences", n=value)}]
    return [{"x": largest, "label": f"largest: {value} {unit}"}]


def _fits_delta(fits: bool) -> dict[str, Any]:
    return {
        "delta": fit_word(fits),
        "delta_color": "normal" if fits else "inverse",
        "delta_arrow": "off",
    }


def _chosen(value: int) -> dict[str, Any]:
    return {"delta": tr("you chose {value}", value=f"{value:,}"), "delta_color": "off", "delta_arrow": "off"}


def _sequences(value: int) -> str:
    # "seqs": "2,327 sequences" ends in an ellipsis in a third of a 1280 px page.
    if value < 1:
        return tr("none fits")
    return tr("{n} seqs", n=f"{value:,}") if value > 1 else tr("{n} seq", n=f"{value:,}")


def _tokens(value: float) -> str:
    if not math.isfinite(value):
        return tr("no memory limit")
    return tr("{n} tokens", n=f"{value:,.0f}") if value >= 1 else tr("none fits")


def training_metrics(result: Estimate, micro_batch: int, seq_len: int) -> list[dict[str, Any]]:
    """Return st.metric arguments: training memory per card, the largest micro-batch and sequence length."""
    training, capacity = result.training, result.resolved.gpu.capacity_bytes
    shape = training_layout_text(result)
    return [
        {
            "label": tr("Training memory per card"),
            "value": bytes_gb(training.memory_per_gpu.total),
            **_fits_delta(training.fits),
            "help": tr(
                "Of {capacity} per card. Layout: {shape}; {regime}.",
                capacity=bytes_gb(capacity),
                shape=shape,
                regime=regime_text(training.regime),
            ),
        },
        {
            "label": tr("Largest micro-batch"),
            "value": _sequences(micro_batch),
            **_chosen(training.micro_batch),
            "help": tr(
                "Sequences per card per step that fit at {seq} tokens with {shape}.",
                seq=f"{training.seq_len:,}",
                shape=shape,
            ),
        },
        {
            "label": tr("Largest training sequence"),
            "value": _tokens(seq_len),
            **_chosen(training.seq_len),
            "help": tr(
                "At micro-batch {micro} with {shape}. The model was built for {context} tokens.",
                micro=f"{training.micro_batch:,}",
                shape=shape,
                context=f"{result.resolved.arch.max_context:,}",
            ),
        },
    ]


def inference_metrics(result: Estimate, context: float) -> list[dict[str, Any]]:
    """Return st.metric arguments: inference memory per card, the largest batch (the estimate's) and context."""
    inference, capacity = result.inference, result.resolved.gpu.capacity_bytes
    scenario, arch = result.resolved.scenario, result.resolved.arch
    replica = tr("a replica of {name}", name=replica_text(inference.tp, inference.pp, inference.ep))
    window = (
        tr(" Its {window}-token sliding window caps the KV cache.", window=f"{arch.sliding_window:,}")
        if arch.sliding_window
        else ""
    )
    return [
        {
            "label": tr("Inference memory per card"),
            "value": bytes_gb(inference.memory_per_gpu.total),
            **_fits_delta(inference.fits),
            "help": tr(
                "Of the {budget} the serving software uses per card ({capacity} usable): {batch} sequences of "
                "{context} tokens on {replica}.",
                budget=bytes_gb(inference.budget_per_gpu),
                capacity=bytes_gb(capacity),
                batch=f"{inference.batch:,}",
                context=f"{scenario.prompt_len + scenario.output_len:,}",
                replica=replica,
            ),
        },
        {
            "label": tr("Largest batch"),
            "value": _sequences(inference.max_batch),
            **_chosen(inference.batch),
            "help": tr(
                "Concurrent sequences per replica ({replica}) at {prompt} + {output} tokens each.",
                replica=replica,
                prompt=f"{scenario.prompt_len:,}",
                output=f"{scenario.output_len:,}",
            ),
        },
        {
            "label": tr("Largest context at this batch"),
            "value": _tokens(context),
            **_chosen(scenario.prompt_len + scenario.output_len),
            "help": tr(
                "Prompt + output tokens per sequence for {batch} sequences, in the same prompt:output mix. "
                "The model was built for {context} tokens.{window}",
                batch=f"{inference.batch:,}",
                context=f"{arch.max_context:,}",
                window=window,
            ),
        },
    ]
