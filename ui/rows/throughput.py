"""Shape the serving sweep for the tokens-per-second page: control steps, chart rows, the takeaway.

Pure functions: engine results in, plain lists, labels and sentences out (milliseconds and
tokens/s as labelled; the only arithmetic is unit conversion).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from model import Scenario
from model.analyses.serving import BatchPoint, Knee, LatencyFit
from ui.format import duration, milliseconds, per_second

__all__ = [
    "BOUND_LABELS",
    "OUTPUT_STEPS",
    "PROMPT_STEPS",
    "ROOFLINE",
    "STEP_PART_ORDER",
    "TARGET_STEPS_MS",
    "batch_options",
    "breakdown_rows",
    "breakdown_takeaway",
    "chosen_rows",
    "knee_rows",
    "knee_text",
    "line_rows",
    "metric_rows",
    "point_rows",
    "seconds_from_ms",
    "speculative_label",
    "speculative_settings",
    "target_label",
    "target_rows",
    "throughput_takeaway",
    "token_count_label",
]

PROMPT_STEPS: tuple[int, ...] = (
    16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072,
)  # fmt: skip
"""Prompt lengths on a doubling scale (a shared link may add its own value)."""
OUTPUT_STEPS: tuple[int, ...] = (16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384)
"""Output lengths on a doubling scale."""
TARGET_STEPS_MS: tuple[float, ...] = (
    1.0, 2.0, 3.0, 5.0, 7.0, 10.0, 15.0, 20.0, 25.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 100.0,
    150.0, 200.0, 300.0, 500.0, 700.0, 1000.0, 2000.0, 5000.0, 10000.0,
)  # fmt: skip
"""Latency targets in ms per output token, roughly log-spaced (1 ms to 10 s)."""
BOUND_LABELS = {"memory": "memory-bound", "compute": "compute-bound"}
"""How the chart legend names each side of the roofline."""
ROOFLINE = "roofline (ideal)"
EXPECTED = "expected"
STEP_PART_ORDER: tuple[str, ...] = (
    "weight reads",
    "matrix products",
    "KV cache",
    "element-wise",
    "per-layer floor",
    "communication",
    "drafting",
)
"""The decode step's parts (model.inference.DecodeStep.parts), in stacking and legend order."""


def batch_options(points: Sequence[BatchPoint], chosen: int) -> list[int]:
    """Return the swept batches plus the chosen one, in order."""
    return sorted({point.batch for point in points} | {chosen})


def token_count_label(tokens: int) -> str:
    """Label a token count ('1,024')."""
    return f"{tokens:,}"


def target_label(target_ms: float) -> str:
    """Label a latency target ('50 ms')."""
    return f"{target_ms:g} ms"


def seconds_from_ms(milliseconds_value: float) -> float:
    """Convert milliseconds to seconds."""
    return milliseconds_value / 1e3


def point_rows(points: Sequence[BatchPoint]) -> list[dict[str, Any]]:
    """Return one row per batch: expected tokens/s in total and per user, the bound, TTFT/TPOT in ms."""
    return [
        {
            "batch": point.batch,
            "total": point.tokens_per_s,
            "per_user": point.tokens_per_s_per_user,
            "bound": BOUND_LABELS[point.bound],
            "tpot_ms": point.tpot_s * 1e3,
            "ttft_ms": point.ttft_s * 1e3,
        }
        for point in points
    ]


def line_rows(points: Sequence[BatchPoint]) -> list[dict[str, Any]]:
    """Return the expected and the roofline curves as rows of {batch, series, total, per_user, tpot_ms}."""
    curves = (
        (EXPECTED, lambda point: (point.tokens_per_s, point.tokens_per_s_per_user, point.tpot_s)),
        (
            ROOFLINE,
            lambda point: (point.roofline_tokens_per_s, point.roofline_tokens_per_s_per_user, point.tpot_roofline_s),
        ),
    )
    return [
        {"batch": point.batch, "series": series, "total": total, "per_user": per_user, "tpot_ms": tpot * 1e3}
        for series, figures in curves
        for point in points
        for total, per_user, tpot in (figures(point),)
    ]


def chosen_rows(point: BatchPoint) -> list[dict[str, Any]]:
    """Return the chosen batch as a one-row list for the highlight ring."""
    return [
        {
            "batch": point.batch,
            "total": point.tokens_per_s,
            "per_user": point.tokens_per_s_per_user,
            "label": f"batch {point.batch:,}",
            "tpot_ms": point.tpot_s * 1e3,
            "ttft_ms": point.ttft_s * 1e3,
        }
    ]


def knee_rows(knee: Knee) -> list[dict[str, Any]]:
    """Return the expected knee as a one-row list, or none when it is absent or beyond what fits."""
    if knee.expected is None or knee.expected > knee.largest_batch:
        return []
    return [{"batch": knee.expected, "memory": "← memory-bound", "compute": "compute-bound →"}]


def target_rows(target_ms: float) -> list[dict[str, Any]]:
    """Return the latency target as a per-user speed (1000 / ms per token = tokens/s) for a rule."""
    speed = 1e3 / target_ms
    return [
        {"per_user": speed, "target_ms": target_ms, "label": f"target {target_ms:g} ms/token = {speed:,.3g} tokens/s"}
    ]


def knee_text(knee: Knee) -> tuple[str, str]:
    """Return the knee metric's value and the sentence under it."""
    if knee.expected is None:
        return "none", "memory-bound at every batch"
    value = f"≈ {knee.expected:,.0f}"
    if knee.largest_batch < 1:
        return value, "nothing fits"
    if knee.expected > knee.largest_batch:
        return value, f"beyond the {knee.largest_batch:,} that fit"
    return value, f"within the {knee.largest_batch:,} that fit"


def _rate(tokens_per_s: float | None) -> str:
    """Format a rate for a metric whose label names the unit ('25,353')."""
    return per_second(tokens_per_s, unit="").strip()


def _quiet(delta: str) -> dict[str, Any]:
    return {"delta": delta, "delta_color": "off", "delta_arrow": "off"}


def metric_rows(
    chosen: BatchPoint, knee: Knee, fit: LatencyFit, target_ms: float, prompt_len: int
) -> list[list[dict[str, Any]]]:
    """Return the page's two rows of metrics as ``st.metric`` keyword arguments.

    The first row is the chosen batch (TTFT, TPOT with its roofline, tokens/s per user and in
    total); the second the knee, the largest batch that fits, and the largest within the target.
    """
    misfit = {} if chosen.fits else {"delta": "does not fit", "delta_color": "inverse", "delta_arrow": "off"}
    knee_value, knee_note = knee_text(knee)
    ideal_knee = "none" if knee.ideal is None else f"≈ {knee.ideal:,.0f}"
    within = "none" if fit.batch is None else f"{fit.batch:,}"
    if fit.batch is None:
        stop = "nothing fits" if fit.limit == "memory" else "even one user misses it"
    else:
        stop = "limited by memory" if fit.limit == "memory" else "the next batch misses it"
    at_batch = f"At batch {chosen.batch:,}."
    return [
        [
            {
                "label": "Time to first token",
                "value": duration(chosen.ttft_s),
                **misfit,
                "help": f"{at_batch} Prefill of one {prompt_len:,}-token prompt, plus the decode step in flight.",
            },
            {
                "label": "Time per output token",
                "value": milliseconds(chosen.tpot_s, 2),
                **_quiet(f"ideal {milliseconds(chosen.tpot_roofline_s, 2)}"),
                "help": f"{at_batch} Expected (efficiencies, overheads, other users' prefills) beside the "
                "roofline at datasheet peaks.",
            },
            {
                "label": "Tokens/s per user",
                "value": _rate(chosen.tokens_per_s_per_user),
                **_quiet(f"ideal {per_second(chosen.roofline_tokens_per_s_per_user)}"),
                "help": f"{at_batch} 1 / time per output token.",
            },
            {
                "label": "Tokens/s in total",
                "value": _rate(chosen.tokens_per_s),
                **_quiet(BOUND_LABELS[chosen.bound]),
                "help": f"{at_batch} Output tokens over prefill plus decode time, every replica.",
            },
        ],
        [
            {
                "label": "Knee batch",
                "value": knee_value,
                **_quiet(knee_note),
                "help": "Sequences per replica at which decode's compute time equals its memory time. "
                f"At datasheet peaks: {ideal_knee}.",
            },
            {
                "label": "Largest batch",
                "value": f"{knee.largest_batch:,}",
                "help": "Concurrent sequences per replica that fit in memory at this prompt + output length.",
            },
            {
                "label": "Batch within target",
                "value": within,
                **_quiet(stop),
                "help": f"The largest batch whose expected time per output token is at most {target_label(target_ms)}.",
            },
            {
                "label": "Tokens/s within target",
                "value": _rate(fit.tokens_per_s),
                **({} if fit.batch is None else _quiet(f"{per_second(fit.tokens_per_s_per_user)} per user")),
                "help": "Output tokens/s over every replica at the largest batch within the target.",
            },
        ],
    ]


def _knee_clause(knee: Knee) -> str:
    if knee.expected is None:
        return (
            "Decode stays memory-bound at every batch: each sequence's KV-cache reads take longer than its "
            "arithmetic, so there is no knee"
        )
    if knee.expected > knee.largest_batch:
        return (
            f"Every batch that fits is memory-bound: the knee (≈ {knee.expected:,.0f} sequences) lies beyond "
            f"the {knee.largest_batch:,} that fit"
        )
    return (
        f"Past ≈ {knee.expected:,.0f} sequences decode turns compute-bound and the total stops growing with the batch"
    )


def throughput_takeaway(fit: LatencyFit, knee: Knee, target_ms: float, first: BatchPoint) -> str:
    """Say in a sentence or two what the latency target allows and where the knee is.

    Args:
        fit: the largest batch within the target.
        knee: the memory/compute knee.
        target_ms: the target in ms per output token.
        first: the sweep's batch-1 point (one user's speed).
    """
    target = target_label(target_ms)
    if knee.largest_batch < 1:
        return "The model does not fit on this replica: not even one sequence fits in memory."
    if fit.batch is None:
        return (
            f"Even one user waits {milliseconds(first.tpot_s)} per token, more than the {target} target: "
            f"a faster card, more cards per replica or a smaller precision would be needed. {_knee_clause(knee)}."
        )
    reach = (
        f"every batch that fits meets the {target} target, so memory caps a replica at {fit.batch:,} users"
        if fit.limit == "memory"
        else f"at the {target} target a replica serves up to **{fit.batch:,} users**"
    )
    return (
        f"One user gets {per_second(first.tokens_per_s_per_user)}; {reach}, "
        f"**{per_second(fit.tokens_per_s)}** in total ({per_second(fit.tokens_per_s_per_user)} each). "
        f"{_knee_clause(knee)}."
    )


def breakdown_rows(points: Sequence[BatchPoint]) -> list[dict[str, Any]]:
    """Return one row per batch and part of the decode step: {batch, part, ms, pct, order}."""
    rows = []
    for point in points:
        if not point.fits or point.step_s <= 0:
            continue
        for part, seconds in point.step_parts:
            if seconds > 0:
                rows.append(
                    {
                        "batch": point.batch,
                        "part": part,
                        "ms": seconds * 1e3,
                        "pct": seconds / point.step_s * 100.0,
                        "order": STEP_PART_ORDER.index(part),
                    }
                )
    return rows


def _largest_part(point: BatchPoint) -> tuple[str, float]:
    part, seconds = max(point.step_parts, key=lambda item: item[1])
    return part, seconds / point.step_s


def breakdown_takeaway(points: Sequence[BatchPoint]) -> str:
    """Say how far one user's step sits above the seeds' rule and what takes its time, alone and full."""
    fitting = [point for point in points if point.fits and point.step_s > 0]
    if not fitting:
        return ""
    one, full = fitting[0], fitting[-1]
    part, share = _largest_part(one)
    text = (
        f"The seeds' rule (weights read ÷ bandwidth, at datasheet peak) gives {milliseconds(one.tpot_roofline_s)} "
        f"per token for one user; the expected step takes {milliseconds(one.step_s)}, "
        f"{one.step_s / one.tpot_roofline_s:,.1f}× the rule: **{part}** takes {share:.0%} of it."
    )
    if full.batch != one.batch:
        part, share = _largest_part(full)
        text += f" At {full.batch:,} sequences, **{part}** takes {share:.0%}."
    return text


def speculative_settings(state: Mapping[str, Any]) -> dict[str, Any]:
    """Map the page's speculative-decoding controls onto Scenario fields ('off' is none drafted)."""
    drafts = 0 if state["draft"] == "off" else int(state["draft"])
    return {"draft_tokens": drafts, "draft_acceptance": float(state["accept"])}


def speculative_label(scenario: Scenario) -> str:
    """Say which server the figures describe: a stock one, or one verifying drafted tokens."""
    if not scenario.draft_tokens:
        return "These figures are a stock server's: one token per sequence per step, no speculative decoding."
    drafts = scenario.draft_tokens
    return (
        f"These figures assume speculative decoding: {drafts} token{'s' if drafts > 1 else ''} drafted per step, "
        f"each accepted {scenario.draft_acceptance:.0%} of the time (Leviathan et al. 2023); a stock server is "
        "slower per user."
    )
