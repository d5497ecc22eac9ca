"""The Overview page's shaping: the seeds' time per token on the GPU against a server CPU."""

from __future__ import annotations

from typing import Any

from model import Estimate
from model.analyses.compare import TokenTimeComparison
from model.units import format_count
from ui.format import duration

__all__ = ["NOT_RUN", "token_time_rows", "tokens_caption"]

NOT_RUN = "—"
"""What a figure shows when its mode cannot run: a dash, never a number for a setup that cannot exist."""


def tokens_caption(result: Estimate) -> str:
    """Say what the training time is for: '27.7 days to train on 161B tokens (20 per parameter)'."""
    training, scenario = result.training, result.resolved.scenario
    params = result.resolved.arch.stats.total_params
    per_parameter = f"{training.tokens / params:,.3g} per parameter"
    if scenario.tokens is not None:
        why = per_parameter
    elif scenario.finetune != "none":
        why = f"the fine-tuning default, {per_parameter}"
    else:
        why = f"{per_parameter}, the Chinchilla default"
    return f"{duration(training.time_s)} to train on **{format_count(training.tokens)} tokens** ({why})"


def token_time_rows(comparison: TokenTimeComparison, gpu_name: str, cpu_name: str) -> list[dict[str, Any]]:
    """Return the seed comparison as chart rows in milliseconds per token."""
    return [
        {"label": gpu_name, "kind": "ideal", "ms": comparison.gpu_ideal_s * 1e3},
        {"label": gpu_name, "kind": "expected", "ms": comparison.gpu_expected_s * 1e3},
        {"label": cpu_name, "kind": "ideal", "ms": comparison.cpu_ideal_s * 1e3},
        {"label": cpu_name, "kind": "expected", "ms": comparison.cpu_expected_s * 1e3},
    ]
