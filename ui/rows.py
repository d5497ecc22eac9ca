"""Shape engine results into the rows charts and tables show (unit conversion happens here).

Pure functions: estimates in, lists of dicts out, decimal GB and plain units as labelled.
"""

from __future__ import annotations

from typing import Any

from model import Estimate
from model.analysis import TokenTimeComparison
from model.catalog import Gpu

__all__ = ["capacity_row", "memory_rows", "token_time_rows"]

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
    return [{"gb": gpu.memory_bytes / 1e9, "label": f"{gpu.name.split(' (')[0]}: {gpu.memory_bytes / 1e9:g} GB"}]


def token_time_rows(comparison: TokenTimeComparison, gpu_name: str, cpu_name: str) -> list[dict[str, Any]]:
    """Return the seed comparison as chart rows in milliseconds per token."""
    return [
        {"label": f"{gpu_name} · ideal", "kind": "ideal", "ms": comparison.gpu_ideal_s * 1e3},
        {"label": f"{gpu_name} · expected", "kind": "expected", "ms": comparison.gpu_expected_s * 1e3},
        {"label": f"{cpu_name} · ideal", "kind": "ideal", "ms": comparison.cpu_ideal_s * 1e3},
        {"label": f"{cpu_name} · expected", "kind": "expected", "ms": comparison.cpu_expected_s * 1e3},
    ]
