"""Shape the serving sweep for the tokens-per-second page: control steps and chart rows.

Pure functions: engine results in, plain lists and labels out (milliseconds and tokens/s as
labelled; the only arithmetic is unit conversion). The page's metrics and sentences are
:mod:`app_pages.tokens.sentences`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from model.analyses.serving import BatchPoint, Knee
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
    "line_rows",
    "point_rows",
    "seconds_from_ms",
    "target_label",
    "target_rows",
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


def batch_options(points: Sequence[BatchPoint], chosen: int, largest: int) -> list[int]:
    """Return the swept batches plus the chosen one, in order, none beyond ``largest`` (the most that fit).

    Empty when nothing fits (``largest`` 0): there is no batch to choose.
    """
    return sorted(batch for batch in {point.batch for point in points} | {chosen} if batch <= largest)


def token_count_label(tokens: int) -> str:
    """Label a token count ('1,024')."""
    return f"{tokens:,}"


def target_label(target_ms: float) -> str:
    """Label a latency target ('50 ms')."""
    return f"{target_ms:g} ms"


def seconds_from_ms(milliseconds_value: float) -> float:
    """Convert milliseconds to seconds."""
    return milliseconds_value / 1e3


def _texts(point: BatchPoint) -> dict[str, str]:
    """The point's figures as the metrics print them, so a tooltip and a metric round alike."""
    return {
        "total_text": per_second(point.tokens_per_s),
        "per_user_text": per_second(point.tokens_per_s_per_user),
        "tpot_text": milliseconds(point.tpot_s, 2),
        "ttft_text": duration(point.ttft_s),
        "sequences_text": f"{point.sequences:,}",
    }


def point_rows(points: Sequence[BatchPoint]) -> list[dict[str, Any]]:
    """Return one row per batch that fits: expected tokens/s in total and per user, the bound, TTFT/TPOT in ms.

    Each row also carries those figures as the metrics print them (``*_text``) for the tooltips.
    """
    return [
        {
            "batch": point.batch,
            "total": point.tokens_per_s,
            "per_user": point.tokens_per_s_per_user,
            "bound": tr(BOUND_LABELS[point.bound]),
            "tpot_ms": point.tpot_s * 1e3,
            "ttft_ms": point.ttft_s * 1e3,
            **_texts(point),
        }
        for point in points
        if point.fits
    ]


def line_rows(points: Sequence[BatchPoint]) -> list[dict[str, Any]]:
    """Return the expected and the roofline curves over the batches that fit.

    Rows of {batch, series, total, per_user, tpot_ms}, and those figures as the metrics print them (``*_text``).
    """
    curves = (
        (EXPECTED, lambda point: (point.tokens_per_s, point.tokens_per_s_per_user, point.tpot_s)),
        (
            ROOFLINE,
            lambda point: (point.roofline_tokens_per_s, point.roofline_tokens_per_s_per_user, point.tpot_roofline_s),
        ),
    )
    return [
        {
            "batch": point.batch,
            "series": tr(series),
            "total": total,
            "per_user": per_user,
            "tpot_ms": tpot * 1e3,
            "total_text": per_second(total),
            "per_user_text": per_second(per_user),
            "tpot_text": milliseconds(tpot, 2),
        }
        for series, figures in curves
        for point in points
        if point.fits
        for total, per_user, tpot in (figures(point),)
    ]


def chosen_rows(point: BatchPoint) -> list[dict[str, Any]]:
    """Return the chosen batch as a one-row list for the highlight ring (none when it does not fit)."""
    if not point.fits:
        return []
    return [
        {
            "batch": point.batch,
            "total": point.tokens_per_s,
            "per_user": point.tokens_per_s_per_user,
            "label": tr("batch {batch}", batch=f"{point.batch:,}"),
            "tpot_ms": point.tpot_s * 1e3,
            "ttft_ms": point.ttft_s * 1e3,
            **_texts(point),
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
