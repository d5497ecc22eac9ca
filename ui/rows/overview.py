"""The Overview page's shaping: the seeds' time per token on the GPU against a server CPU, and its words."""

from __future__ import annotations

from typing import Any

from model import Estimate
from model.analyses.compare import TokenTimeComparison
from model.units import format_count
from ui.format import duration
from ui.i18n import tr, translatable

__all__ = ["NOT_RUN", "also_heading", "bound_text", "regime_text", "token_time_rows", "tokens_caption"]

NOT_RUN = "—"
"""What a figure shows when its mode cannot run: a dash, never a number for a setup that cannot exist."""
_REGIMES = (
    translatable("fp32"),
    translatable("pure 16-bit"),
    translatable("mixed precision with fp32 master weights"),
)
"""The engine's names of full-training regimes (model.memory.training_regime); adapters are '{METHOD} rank {r}'."""
_BOUNDS = {"memory": translatable("Memory-bound"), "compute": translatable("Compute-bound")}


def tokens_caption(result: Estimate) -> str:
    """Say what the training time is for: '27.7 days to train on 161B tokens (20 per parameter)'."""
    training, scenario = result.training, result.resolved.scenario
    params = result.resolved.arch.stats.total_params
    per_parameter = tr("{n} per parameter", n=f"{training.tokens / params:,.3g}")
    if scenario.tokens is not None:
        why = per_parameter
    elif scenario.finetune != "none":
        why = tr("the fine-tuning default, {per_parameter}", per_parameter=per_parameter)
    else:
        why = tr("{per_parameter}, the Chinchilla default", per_parameter=per_parameter)
    return tr(
        "{time} to train on **{tokens} tokens** ({why})",
        time=duration(training.time_s),
        tokens=format_count(training.tokens),
        why=why,
    )


def regime_text(label: str) -> str:
    """Name a training regime in the visit's language: 'LoRA rank 16', 'pure 16-bit'."""
    method, _, rank = label.partition(" rank ")
    if rank:
        return tr("{method} rank {rank}", method=method, rank=rank)
    return tr(label)  # one of _REGIMES; an unknown label stays as the engine wrote it


def bound_text(bound: str) -> str:
    """Name the side of the roofline a step is on: 'Memory-bound' or 'Compute-bound'."""
    return tr(_BOUNDS[bound]) if bound in _BOUNDS else f"{bound.capitalize()}-bound"


def also_heading(noun: str) -> str:
    """Head the mode that follows the goal: 'Also: serving' (English lower-cased, other scripts as they are)."""
    return tr("Also: {mode}", mode=noun.lower() if noun.isascii() else noun)


def token_time_rows(comparison: TokenTimeComparison, gpu_name: str, cpu_name: str) -> list[dict[str, Any]]:
    """Return the seed comparison as chart rows in milliseconds per token, the kinds named for the chart."""
    ideal, expected = tr("ideal"), tr("expected")
    return [
        {"label": gpu_name, "kind": ideal, "ms": comparison.gpu_ideal_s * 1e3},
        {"label": gpu_name, "kind": expected, "ms": comparison.gpu_expected_s * 1e3},
        {"label": cpu_name, "kind": ideal, "ms": comparison.cpu_ideal_s * 1e3},
        {"label": cpu_name, "kind": expected, "ms": comparison.cpu_expected_s * 1e3},
    ]
