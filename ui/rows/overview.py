"""The Overview page's shaping: the seeds' time per token on the GPU against a server CPU."""

from __future__ import annotations

from typing import Any

from model.analyses.compare import TokenTimeComparison

__all__ = ["token_time_rows"]


def token_time_rows(comparison: TokenTimeComparison, gpu_name: str, cpu_name: str) -> list[dict[str, Any]]:
    """Return the seed comparison as chart rows in milliseconds per token."""
    return [
        {"label": f"{gpu_name} · ideal", "kind": "ideal", "ms": comparison.gpu_ideal_s * 1e3},
        {"label": f"{gpu_name} · expected", "kind": "expected", "ms": comparison.gpu_expected_s * 1e3},
        {"label": f"{cpu_name} · ideal", "kind": "ideal", "ms": comparison.cpu_ideal_s * 1e3},
        {"label": f"{cpu_name} · expected", "kind": "expected", "ms": comparison.cpu_expected_s * 1e3},
    ]
