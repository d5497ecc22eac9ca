"""Memory per card as chart rows, for the Overview and VRAM pages (decimal GB)."""

from __future__ import annotations

from typing import Any

from model import Estimate
from model.catalog import Gpu
from ui.format import capacity_text
from ui.i18n import tr

__all__ = ["capacity_row", "memory_rows"]

_TRAINING_PARTS = ("weights", "adapters", "gradients", "optimizer", "activations", "other")
_INFERENCE_PARTS = (
    ("weights", "weights"),
    ("kv_cache", "KV cache"),
    ("activations", "activations"),
    ("other", "other"),
)
_ORDER = {"weights": 0, "adapters": 1, "gradients": 2, "optimizer": 3, "activations": 4, "KV cache": 5, "other": 6}


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
