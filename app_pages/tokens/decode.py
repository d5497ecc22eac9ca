"""One decode step for the tokens-per-second page: where its time goes, and whether it drafts tokens.

Pure functions: the serving sweep and the scenario in, chart rows and sentences out in the visit's language.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from model import Scenario
from model.analyses.serving import BatchPoint
from ui.format import milliseconds
from ui.i18n import tr, translatable
from ui.text import sentences

__all__ = [
    "STEP_PART_ORDER",
    "breakdown_rows",
    "breakdown_takeaway",
    "draft_labels",
    "speculative_label",
    "speculative_settings",
]

STEP_PART_ORDER: tuple[str, ...] = (
    translatable("weight reads"),
    translatable("matrix products"),
    "KV cache",
    translatable("element-wise"),
    translatable("per-layer floor"),
    translatable("communication"),
    translatable("drafting"),
    translatable("host memory"),
    translatable("scheduling"),
)
"""The decode step's parts (model.inference.DecodeStep.parts), in stacking and legend order (English: ``tr()``
where shown)."""


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
                        "part": tr(part),
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
    parts = [
        tr(
            "The seeds' rule (weights read ÷ bandwidth, at datasheet peak) gives {rule} per token for one user; the "
            "expected step takes {step}, {ratio}× the rule: **{part}** takes {share} of it.",
            rule=milliseconds(one.tpot_roofline_s),
            step=milliseconds(one.step_s),
            ratio=f"{one.step_s / one.tpot_roofline_s:,.1f}",
            part=tr(part),
            share=f"{share:.0%}",
        )
    ]
    if full.batch != one.batch:
        part, share = _largest_part(full)
        parts.append(
            tr(
                "At {batch} sequences, **{part}** takes {share}.",
                batch=f"{full.batch:,}",
                part=tr(part),
                share=f"{share:.0%}",
            )
        )
    return sentences(parts)


def draft_labels(options: Sequence[str]) -> dict[str, str]:
    """Return each drafted-tokens option as the page shows it: 'off' in the visit's language, counts as they are."""
    return {option: tr("off") if option == "off" else option for option in options}


def speculative_settings(state: Mapping[str, Any]) -> dict[str, Any]:
    """Map the page's speculative-decoding controls onto Scenario fields ('off' is none drafted)."""
    drafts = 0 if state["draft"] == "off" else int(state["draft"])
    return {"draft_tokens": drafts, "draft_acceptance": float(state["accept"])}


def speculative_label(scenario: Scenario) -> str:
    """Say which server the figures describe: a stock one, or one verifying drafted tokens."""
    if not scenario.draft_tokens:
        return tr("These figures are a stock server's: one token per sequence per step, no speculative decoding.")
    fields = {"drafts": str(scenario.draft_tokens), "rate": f"{scenario.draft_acceptance:.0%}"}
    if scenario.draft_tokens > 1:
        return tr(
            "These figures assume speculative decoding: {drafts} tokens drafted per step, each accepted {rate} of the "
            "time (Leviathan et al. 2023); a stock server is slower per user.",
            **fields,
        )
    return tr(
        "These figures assume speculative decoding: {drafts} token drafted per step, each accepted {rate} of the "
        "time (Leviathan et al. 2023); a stock server is slower per user.",
        **fields,
    )
