"""Memory per card as chart rows, for the Overview and VRAM pages (decimal GB)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from model import Estimate
from model.catalog import Gpu, ServingBudget
from ui.format import bytes_gb, capacity_text
from ui.i18n import tr, translatable

__all__ = ["budget_text", "capacity_row", "limits_caption", "memory_rows", "regime_text", "serving_budget_row"]

_REGIMES = (
    translatable("fp32"),
    translatable("pure 16-bit"),
    translatable("mixed precision with fp32 master weights"),
)
"""The engine's names of full-training regimes (model.memory.training_regime); adapters are '{METHOD} rank {r}'."""
_TRAINING_PARTS = ("weights", "adapters", "gradients", "optimizer", "activations", "other")
_INFERENCE_PARTS = (
    ("weights", "weights"),
    ("kv_cache", "KV cache"),
    ("activations", "activations"),
    ("other", "other"),
)
_ORDER = {"weights": 0, "adapters": 1, "gradients": 2, "optimizer": 3, "activations": 4, "KV cache": 5, "other": 6}


def regime_text(label: str) -> str:
    """Name a training regime in the visit's language: 'LoRA rank 16', 'pure 16-bit'."""
    method, _, rank = label.partition(" rank ")
    if rank:
        return tr("{method} rank {rank}", method=method, rank=rank)
    return tr(label)  # one of _REGIMES; an unknown label stays as the engine wrote it


def memory_rows(
    result: Estimate,
    training_label: str | None = None,
    inference_label: str | None = None,
    workloads: tuple[str, ...] = ("training", "inference"),
) -> list[dict[str, Any]]:
    """Return one row per memory component per workload ('training', 'inference'), in GB per card.

    Components are named in the visit's language (the colour scale's names); labels default to 'Training', 'Inference'.
    """
    training_label = tr("Training") if training_label is None else training_label
    inference_label = tr("Inference") if inference_label is None else inference_label
    training = result.training.memory_per_gpu
    inference = result.inference.memory_per_gpu
    parts = []
    if "training" in workloads:
        parts += [
            (training_label, name, _training_part(training, name))
            for name in _TRAINING_PARTS
            if name != "adapters" or training.adapters  # a LoRA bar only when adapters train
        ]
    if "inference" in workloads:
        parts += [(inference_label, name, getattr(inference, field)) for field, name in _INFERENCE_PARTS]
    return [
        {"workload": workload, "component": tr(name), "gb": value / 1e9, "order": _ORDER[name]}
        for workload, name, value in parts
    ]


def _training_part(memory: Any, name: str) -> float:
    """The weights bar is the frozen part; adapters, when LoRA trains, are their own bar."""
    return float(memory.frozen_weights if name == "weights" else getattr(memory, name))


def capacity_row(gpu: Gpu) -> list[dict[str, Any]]:
    """Return the card's memory as a one-row list for a capacity rule."""
    return [{"gb": gpu.capacity_bytes / 1e9, "label": capacity_text(gpu)}]


def serving_budget_row(gpu: Gpu, budget: float, short: bool = False) -> list[dict[str, Any]]:
    """Return what the serving stack uses of the card (the engine's budget) as a one-row list for a rule.

    Args:
        gpu: the card.
        budget: bytes the stack uses of each card (``Estimate.inference.budget_per_gpu``).
        short: label it with the budget alone ('serving budget 22.6 GB'), for a chart whose line it may cross;
            else with its share of the card too.
    """
    if short:
        label = tr("serving budget {budget}", budget=bytes_gb(budget))
    else:
        label = tr(
            "serving budget {budget} ({share} of {capacity})",
            budget=bytes_gb(budget),
            share=f"{budget / gpu.capacity_bytes:.0%}",
            capacity=bytes_gb(gpu.capacity_bytes),
        )
    return [{"gb": budget / 1e9, "label": label}]


def budget_text(serving: ServingBudget) -> str:
    """Say once, in words, what the serving stack budgets of each card and why it keeps the rest."""
    if serving.reserve_bytes:
        return tr(
            "A desk runner allocates only what it needs and leaves {reserve} of each card free "
            "(the driver's context, its buffers, the display).",
            reserve=bytes_gb(serving.reserve_bytes),
        )
    if serving.of_free:
        return tr(
            "TensorRT-LLM loads the model first, then gives the KV cache {share} of the memory left "
            "(its default free_gpu_memory_fraction) and keeps the rest in reserve.",
            share=f"{serving.fraction:.0%}",
        )
    return tr(
        "A server fills {share} of each card (vLLM's default gpu_memory_utilization) and keeps the rest in reserve.",
        share=f"{serving.fraction:.0%}",
    )


def limits_caption(capacity: Sequence[Mapping[str, Any]], budget: Sequence[Mapping[str, Any]] | None = None) -> str:
    """Name the memory chart's rules: the card (red dashed) and, for serving, the server's budget (dotted)."""
    if not budget:
        return tr("Red dashed line: {capacity}.", capacity=capacity[0]["label"])
    return tr(
        "Red dashed line: {capacity}; dotted: {budget}.", capacity=capacity[0]["label"], budget=budget[0]["label"]
    )
