"""The Overview page's shaping: one user's time per token on the scenario's cards against a CPU, and its words."""

from __future__ import annotations

from typing import Any

from model import Estimate, InferenceEstimate, replica_name
from model.analyses.compare import TokenTimeComparison
from model.catalog import Gpu
from model.units import format_count
from ui.format import bytes_gb, duration, milliseconds
from ui.i18n import tr, translatable
from ui.layout_rows import training_layout_text

__all__ = [
    "also_heading",
    "bound_text",
    "full_load_help",
    "full_load_shortfall",
    "replica_label",
    "seeds_rule",
    "token_time_heading",
    "token_time_notes",
    "token_time_rows",
    "tokens_caption",
]

_BOUNDS = {"memory": translatable("Memory-bound"), "compute": translatable("Compute-bound")}


def tokens_caption(result: Estimate) -> str:
    """Say what the training time is for, in GPU-hours and on which layout.

    '27.7 days to train on **161B tokens** (20 per parameter): **42.5k GPU-hours** on tp 1 × pp 1 × dp 64, ...'.
    """
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
        "{time} to train on **{tokens} tokens** ({why}): **{gpu_hours} GPU-hours** on {layout}",
        time=duration(training.time_s),
        tokens=format_count(training.tokens),
        why=why,
        gpu_hours=format_count(training.gpu_hours),
        layout=training_layout_text(result),
    )


def bound_text(bound: str) -> str:
    """Name the side of the roofline a step is on: 'Memory-bound' or 'Compute-bound'."""
    return tr(_BOUNDS[bound]) if bound in _BOUNDS else f"{bound.capitalize()}-bound"


def also_heading(noun: str) -> str:
    """Head the mode that follows the goal: 'Also: serving' (English lower-cased, other scripts as they are)."""
    return tr("Also: {mode}", mode=noun.lower() if noun.isascii() else noun)


def full_load_help(loaded: InferenceEstimate) -> str:
    """Say what the full-load rate counts: the largest batch that fits, on every replica, prefill included."""
    return tr(
        "Output tokens over prefill plus decode time (each new request's prefill included), at the largest batch "
        "that fits: batch {batch} on each replica ({replica}); replicas: {replicas}.",
        batch=f"{loaded.batch:,}",
        replica=replica_name(loaded.tp, loaded.pp, loaded.ep),
        replicas=f"{loaded.dp:,}",
    )


def full_load_shortfall(single: InferenceEstimate, loaded: InferenceEstimate) -> str:
    """Say why full load gives fewer tokens per second than one user, or '' when it does not.

    A loaded server spends part of every second on the prefill of arriving requests (DESIGN.md 6);
    when only one sequence fits per replica, nothing is batched to make up for it.
    """
    if not (single.fits and loaded.fits) or loaded.decode_tokens_per_s >= single.decode_tokens_per_s_per_user:
        return ""
    if loaded.batch == 1:
        return tr(
            "Full load is below one user's rate: only one sequence fits on each replica, so requests run one at a "
            "time and each new request's prefill ({ttft}) is paid between them.",
            ttft=milliseconds(loaded.ttft_s, 0),
        )
    return tr(
        "Full load is below one user's rate: each new request's prefill ({ttft}) is paid in every replica's time.",
        ttft=milliseconds(loaded.ttft_s, 0),
    )


def replica_label(cards: int, gpu_name: str) -> str:
    """Name the cards a replica spans, as the page title does: '8 × NVIDIA H20 96GB'."""
    return f"{cards:,} × {gpu_name}"


def seeds_rule(cpu: Gpu) -> str:
    """State the seeds' rule of thumb with the CPU's bandwidth: time per token ≈ weights ÷ bandwidth."""
    return tr(
        "The seeds' rule: time per token ≈ bytes of weights read ÷ memory bandwidth ({cpu} has {bandwidth} GB/s).",
        cpu=cpu.short_name,
        bandwidth=f"{cpu.memory_bandwidth_bytes_per_s / 1e9:g}",
    )


def token_time_rows(
    comparison: TokenTimeComparison, gpu_label: str, cpu_name: str, laptop_name: str = ""
) -> list[dict[str, Any]]:
    """Return one user's time per token as chart rows in milliseconds: replica, the seeds' laptop, the CPU.

    The laptop is the seeds' M3 Pro. The replica's and the laptop's rows are left out when they cannot
    serve: nothing that cannot run gets a number.
    """
    ideal, expected = tr("ideal"), tr("expected")
    devices = [(cpu_name, comparison.cpu_ideal_s, comparison.cpu_expected_s)]
    if laptop_name and comparison.laptop_ideal_s is not None and comparison.laptop_expected_s is not None:
        devices.insert(0, (laptop_name, comparison.laptop_ideal_s, comparison.laptop_expected_s))
    if comparison.gpu_ideal_s is not None and comparison.gpu_expected_s is not None:
        devices.insert(0, (gpu_label, comparison.gpu_ideal_s, comparison.gpu_expected_s))
    return [
        row
        for label, ideal_s, expected_s in devices
        for row in (
            {"label": label, "kind": ideal, "ms": ideal_s * 1e3},
            {"label": label, "kind": expected, "ms": expected_s * 1e3},
        )
    ]


def token_time_heading(comparison: TokenTimeComparison, gpu_label: str) -> str:
    """Head the GPU-against-CPU chart with the speed-up the chart's expected bars show."""
    if comparison.gpu_speedup is None:
        return tr("**Why GPUs**")  # the caption under it gives the seeds' rule and why there is no chart
    return tr(
        "**Why GPUs**: one user's token on {replica} vs a 64 GB/s server CPU — **{speedup}×** faster "
        "(dark bars: expected; light: the ideal, bytes ÷ bandwidth)",
        replica=gpu_label,
        speedup=f"{comparison.gpu_speedup:,.0f}",
    )


def token_time_notes(
    comparison: TokenTimeComparison, gpu_name: str, gpu_label: str, model_name: str, cpu_memory_bytes: float
) -> list[str]:
    """Say what the chart shows when the seeds' one-card figure is not what these cards give.

    Where one card cannot hold the model, the seeds' figure (bytes ÷ one card's bandwidth, ~9 ms for
    DeepSeek-R1 on an H20) is a roofline, not something that runs: the chart shows the replica the
    engine chose, and its expected time is the page's "per token, 1 user".
    """
    notes = []
    if comparison.gpu_expected_s is None:
        notes.append(
            tr(
                "Serving does not fit on {cards}, so there is no time per token to compare (see the verdict).",
                cards=gpu_label,
            )
        )
    elif not comparison.one_card_fits:
        notes.append(
            tr(
                "The seeds' {one_card} is the roofline of one {gpu}, and one card cannot hold {model}: the chart "
                "shows the replica the engine chose, {cards}, at {expected} per token as above.",
                gpu=gpu_name,
                one_card=milliseconds(comparison.one_card_ideal_s),
                model=model_name,
                cards=gpu_label,
                expected=milliseconds(comparison.gpu_expected_s),
            )
        )
    if not comparison.cpu_fits:
        notes.append(
            tr(
                "A {memory} server could not hold {model} either: its bars are what its bandwidth would give.",
                memory=bytes_gb(cpu_memory_bytes, 0),
                model=model_name,
            )
        )
    return notes
