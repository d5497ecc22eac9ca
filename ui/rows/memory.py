"""Memory per card as chart rows, for the Overview and VRAM pages (decimal GB)."""

from __future__ import annotations

from typing import Any

from model import Estimate
from model.catalog import Gpu

__all__ = ["capacity_row", "memory_rows"]

_TRAINING_PARTS = ("weights", "gradients", "optimizer", "activations", "other")
_INFERENCE_PARTS = (
    ("weights", "weights"),
    ("kv_cache", "KV cache"),
    ("activations", "activations"),
    ("other", "other"),
)
_ORDER = {"weights": 0, "gradients": 1, "optimizer": 2, "activations": 3, "KV cache": 4, "other": 5}


def memory_rows(
    result: Estimate, training_label: str = "Training", inference_label: str = "Inference"
) -> list[dict[str, Any]]:
    """Return one row per memory component per workload, in GB per card."""
    training = result.training.memory_per_gpu
    inference = result.inference.memory_per_gpu
    parts = [(training_label, name, getattr(training, name)) for name in _TRAINING_PARTS]
    parts += [(inference_label, name, getattr(inference, field)) for field, name in _INFERENCE_PARTS]
    return [
        {"workload": workload, "component": name, "gb": value / 1e9, "order": _ORDER[name]}
        for workload, name, value in parts
    ]


def capacity_row(gpu: Gpu) -> list[dict[str, Any]]:
    """Return the card's memory as a one-row list for a capacity rule."""
    return [{"gb": gpu.memory_bytes / 1e9, "label": f"{gpu.short_name}: {gpu.memory_bytes / 1e9:g} GB"}]
