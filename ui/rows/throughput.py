"""Shape the serving sweep for the tokens-per-second page: control steps, chart rows, the takeaway.

Pure functions: engine results in, plain lists, labels and sentences out (milliseconds and
tokens/s as labelled; the only arithmetic is unit conversion).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from model.analyses.serving import BatchPoint, Knee, LatencyFit, SweepReplica
from model.layouts.serving import replica_name
from ui.format import duration, milliseconds, per_second
from ui.i18n import tr, translatable

__all__ = [
    "BOUND_LABELS",
    "EXPECTED",
    "OUTPUT_STEPS",
    "PROMPT_STEPS",
    "ROOFLINE",
    "TARGET_STEPS_MS",
    "batch_options",
    "chosen_rows",
    "knee_rows",
    "knee_text",
    "line_rows",
    "metric_rows",
    "point_rows",
    "seconds_from_ms",
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
BOUND_LABELS = {"memory": translatable("memory-bound"), "compute": translatable("compute-bound")}
"""How the chart legend names each side of the roofline (English: ``tr()`` where shown)."""
ROOFLINE = translatable("roofline (ideal)")
EXPECTED = translatable("expected")


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
            "bound": tr(BOUND_LABELS[point.bound]),
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
        {"batch": point.batch, "series": tr(series), "total": total, "per_user": per_user, "tpot_ms": tpot * 1e3}
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
    return [{"batch": knee.expected, "memory": tr("← memory-bound"), "compute": tr("compute-bound →")}]


def target_rows(target_ms: float) -> list[dict[str, Any]]:
    """Return the latency target as a per-user speed (1000 / ms per token = tokens/s) for a rule."""
    speed = 1e3 / target_ms
    label = tr("target {ms} ms/token = {speed} tokens/s", ms=f"{target_ms:g}", speed=f"{speed:,.3g}")
    return [{"per_user": speed, "target_ms": target_ms, "label": label}]


def knee_text(knee: Knee) -> tuple[str, str]:
    """Return the knee metric's value and the sentence under it."""
    if knee.expected is None:
        return tr("none"), tr("memory-bound at every batch")
    value = f"≈ {knee.expected:,.0f}"
    if knee.largest_batch < 1:
        return value, tr("nothing fits")
    if knee.expected > knee.largest_batch:
        return value, tr("beyond the {n} that fit", n=f"{knee.largest_batch:,}")
    return value, tr("within the {n} that fit", n=f"{knee.largest_batch:,}")


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
    misfit = {} if chosen.fits else {"delta": tr("does not fit"), "delta_color": "inverse", "delta_arrow": "off"}
    knee_value, knee_note = knee_text(knee)
    ideal_knee = tr("none") if knee.ideal is None else f"≈ {knee.ideal:,.0f}"
    within = tr("none") if fit.batch is None else f"{fit.batch:,}"
    if fit.batch is None:
        stop = tr("nothing fits") if fit.limit == "memory" else tr("even one user misses it")
    else:
        stop = tr("limited by memory") if fit.limit == "memory" else tr("the next batch misses it")
    at = tr("At batch {batch}.", batch=f"{chosen.batch:,}")
    return [
        [
            {
                "label": tr("Time to first token"),
                "value": duration(chosen.ttft_s),
                **misfit,
                "help": tr(
                    "{at} Prefill of one {prompt}-token prompt, plus the decode step in flight.",
                    at=at,
                    prompt=f"{prompt_len:,}",
                ),
            },
            {
                "label": tr("Time per output token"),
                "value": milliseconds(chosen.tpot_s, 2),
                **_quiet(tr("ideal {value}", value=milliseconds(chosen.tpot_roofline_s, 2))),
                "help": tr(
                    "{at} Expected (efficiencies, overheads, other users' prefills) beside the roofline at "
                    "datasheet peaks.",
                    at=at,
                ),
            },
            {
                "label": tr("Tokens/s per user"),
                "value": _rate(chosen.tokens_per_s_per_user),
                **_quiet(tr("ideal {value}", value=per_second(chosen.roofline_tokens_per_s_per_user))),
                "help": tr("{at} 1 / time per output token.", at=at),
            },
            {
                "label": tr("Tokens/s in total"),
                "value": _rate(chosen.tokens_per_s),
                **_quiet(tr(BOUND_LABELS[chosen.bound])),
                "help": tr("{at} Output tokens over prefill plus decode time, every replica.", at=at),
            },
        ],
        [
            {
                "label": tr("Knee batch"),
                "value": knee_value,
                **_quiet(knee_note),
                "help": tr(
                    "Sequences per replica at which decode's compute time equals its memory time. "
                    "At datasheet peaks: {ideal}.",
                    ideal=ideal_knee,
                ),
            },
            {
                "label": tr("Largest batch"),
                "value": f"{knee.largest_batch:,}",
                "help": tr("Concurrent sequences per replica that fit in memory at this prompt + output length."),
            },
            {
                "label": tr("Batch within target"),
                "value": within,
                **_quiet(stop),
                "help": tr(
                    "The largest batch whose expected time per output token is at most {target}.",
                    target=target_label(target_ms),
                ),
            },
            {
                "label": tr("Tokens/s within target"),
                "value": _rate(fit.tokens_per_s),
                **(
                    {}
                    if fit.batch is None
                    else _quiet(tr("{rate} per user", rate=per_second(fit.tokens_per_s_per_user)))
                ),
                "help": tr("Output tokens/s over every replica at the largest batch within the target."),
            },
        ],
    ]


def _knee_clause(knee: Knee) -> str:
    if knee.expected is None:
        return tr(
            "Decode stays memory-bound at every batch: each sequence's KV-cache reads take longer than its "
            "arithmetic, so there is no knee"
        )
    if knee.expected > knee.largest_batch:
        return tr(
            "Every batch that fits is memory-bound: the knee (≈ {knee} sequences) lies beyond the {largest} that fit",
            knee=f"{knee.expected:,.0f}",
            largest=f"{knee.largest_batch:,}",
        )
    return tr(
        "Past ≈ {knee} sequences decode turns compute-bound and the total stops growing with the batch",
        knee=f"{knee.expected:,.0f}",
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
        return tr("The model does not fit on this replica: not even one sequence fits in memory.")
    if fit.batch is None:
        return tr(
            "Even one user waits {tpot} per token, more than the {target} target: a faster card, more cards per "
            "replica or a smaller precision would be needed. {knee}.",
            tpot=milliseconds(first.tpot_s),
            target=target,
            knee=_knee_clause(knee),
        )
    if fit.limit == "memory":
        reach = tr(
            "every batch that fits meets the {target} target, so memory caps a replica at {batch} users",
            target=target,
            batch=f"{fit.batch:,}",
        )
    else:
        reach = tr(
            "at the {target} target a replica serves up to **{batch} users**", target=target, batch=f"{fit.batch:,}"
        )
    return tr(
        "One user gets {speed}; {reach}, **{total}** in total ({each} each). {knee}.",
        speed=per_second(first.tokens_per_s_per_user),
        reach=reach,
        total=per_second(fit.tokens_per_s),
        each=per_second(fit.tokens_per_s_per_user),
        knee=_knee_clause(knee),
    )


def replica_caption(replica: SweepReplica, chosen: BatchPoint, cards: int) -> str:
    """Say what the batch counts: sequences on each replica, and how many that is over every card."""
    return tr(
        "Each replica is {replica}; {cards} cards hold {replicas}, so batch {batch} on each is {sequences} "
        "sequences in all.",
        replica=replica_name(replica.tp, replica.pp, replica.ep),
        cards=f"{cards:,}",
        replicas=f"{replica.replicas:,}",
        batch=f"{chosen.batch:,}",
        sequences=f"{chosen.sequences:,}",
    )
