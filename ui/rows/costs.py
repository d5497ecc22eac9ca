"""Rows, control steps, labels and takeaways for the training-vs-serving cost page.

Pure helpers: engine results in, lists of dicts (days, percent, US dollars) or sentences out.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from model import Catalog
from model.analyses.economics import CostOverTime, api_price
from model.analyses.scaling import CardScaling
from model.catalog import ApiPrice
from model.units import DAY_S, format_count, format_usd
from ui.controls import AUTO
from ui.format import duration, percent

__all__ = [
    "BREAK_EVEN_HELP",
    "COST_SERIES",
    "IDEAL_SETUP",
    "NOT_RUN",
    "STEP_PARTS",
    "TOKEN_STEPS",
    "TRAFFIC_STEPS",
    "api_help",
    "api_label",
    "api_labeller",
    "api_terms",
    "break_even_text",
    "chosen_api_price",
    "cost_marks",
    "cost_rows",
    "cost_takeaway",
    "money",
    "month_text",
    "scaling_rows",
    "scaling_takeaway",
    "sentence",
    "serving_help",
    "short_duration",
    "step_share_rows",
    "tokens_label",
    "traffic_label",
    "training_help",
]

_ONE_TWO_FIVE = (1.0, 2.0, 5.0)
TRAFFIC_STEPS: tuple[float, ...] = (
    *(m * 10.0**e for e in range(6, 12) for m in _ONE_TWO_FIVE),
    1e12,
)
"""Output tokens per day on a log grid from 1M to 1T."""
TOKEN_STEPS: tuple[float, ...] = (0.0, *(m * 10.0**e for e in range(9, 16) for m in _ONE_TWO_FIVE), 1e16)
"""Training tokens: 0 (20 per parameter) then a log grid from 1B to 10 quadrillion."""
COST_SERIES = ("Training (one-time)", "Self-hosted serving", "Train + self-host", "API")
"""The cost chart's lines, in legend order."""
IDEAL_SETUP = "Perfect scaling"
BREAK_EVEN_HELP = "The month when cumulative self-hosted serving has cost as much as training (30.44-day months)."
STEP_PARTS: tuple[tuple[str, str], ...] = (
    ("compute", "compute"),
    ("tensor_parallel", "tensor-parallel all-reduce"),
    ("data_parallel", "data-parallel gradients"),
    ("expert_parallel", "expert all-to-all"),
    ("pipeline_transfer", "pipeline transfer"),
    ("bubble", "pipeline bubble"),
    ("optimizer", "optimizer update"),
)
"""Step-time fields of a scaling row and their chart labels, in stacking order."""


def traffic_label(tokens_per_day: float) -> str:
    """Label a traffic step: '1B tokens/day'."""
    return f"{format_count(tokens_per_day)} tokens/day"


def tokens_label(tokens: float) -> str:
    """Label a training-token step: 0 is the Chinchilla default."""
    return "auto: 20 per parameter" if tokens == 0 else f"{format_count(tokens)} tokens"


def api_label(price: ApiPrice) -> str:
    """Label an API price briefly: provider, model, $ in / $ out per million tokens (the date goes below)."""
    return f"{price.provider} {price.model} · ${price.input_usd_per_million:g} / ${price.output_usd_per_million:g}"


def api_terms(price: ApiPrice | None) -> str:
    """Say an API's list prices and their date: '$0.18 in / $0.18 out per M tokens · 2026-01-24'."""
    if price is None:
        return "no API price in the catalog"
    return f"${price.input_usd_per_million:g} in / ${price.output_usd_per_million:g} out per M tokens · {price.date}"


def chosen_api_price(catalog: Catalog, choice: str, model: str | None, params: float | None = None) -> ApiPrice | None:
    """Return the price row the API control names ('auto': the scenario model's own, else its size class)."""
    return api_price(catalog, None if choice == AUTO else choice, model, params)


def api_labeller(catalog: Catalog, model: str | None, params: float | None = None) -> Callable[[str], str]:
    """Return the API selectbox's label function; 'auto' names the row it picks.

    The model is bound now: AppTest re-applies format functions outside the script run.
    """
    by_id = {price.id: price for price in catalog.prices}
    automatic = api_price(catalog, None, model, params)

    def label(choice: str) -> str:
        if choice == AUTO:
            return f"auto: {automatic.provider} {automatic.model}" if automatic else "auto: no API price known"
        return api_label(by_id[choice]) if choice in by_id else choice

    return label


def short_duration(seconds: float | None) -> str:
    """Format a duration to fit a metric tile: whole days from 10 days on ('291 days')."""
    if seconds is not None and 10 * DAY_S <= seconds < 2 * 365 * DAY_S:
        return f"{seconds / DAY_S:,.0f} days"
    return duration(seconds)


def month_text(month: float | None, horizon: int) -> str:
    """Say a fractional month plainly: 'month 3.1', or 'after 24 months' when beyond the horizon."""
    if month is None:
        return f"after {horizon} months"
    return f"month {month:,.1f}"


NOT_RUN = "—"
"""A cost that cannot exist (its mode does not fit, or no price is known) shows a dash, never a number."""


def money(value: float | None) -> str:
    """Write dollars compactly enough for a metric at a projector's width: '$120k', '$1.2M', '—'."""
    if value is None:
        return NOT_RUN
    if 1e4 <= value < 1e6:
        return f"${value / 1e3:,.0f}k"
    return format_usd(value)


def break_even_text(result: CostOverTime) -> str:
    """Say the break-even month briefly: 'month 3.1', '> 24 months' beyond the horizon, '—' when a cost is unknown."""
    if result.training_usd is None or result.serving_usd_per_month is None:
        return NOT_RUN
    if result.break_even_month is None:
        return f"> {result.months} mo"
    return f"month {result.break_even_month:,.1f}"


def sentence(note: str) -> str:
    """Turn an engine note (lower case, no full stop) into a sentence."""
    return f"{note[:1].upper()}{note[1:]}."


def training_help(result: CostOverTime, cards: int) -> str:
    """Explain the training cost: one-time, its GPU-hours and price."""
    if result.training_gpu_hours is None:
        return "Training does not fit on these cards: add cards, or use a smaller model or precision."
    price = f" at {format_usd(result.price_per_gpu_hour)} per GPU-hour" if result.price_per_gpu_hour is not None else ""
    return f"One-time: {result.training_gpu_hours:,.0f} GPU-hours on {cards:,} cards{price}."


def cost_rows(result: CostOverTime) -> list[dict[str, Any]]:
    """Return the cost lines as long rows {month, series, usd, order}.

    Unknown costs and zeros (month 0 of a cumulative line) are left out: the chart's cost axis is
    logarithmic.
    """
    rows = []
    for row in result.rows:
        values = (row.training_usd, row.serving_usd, row.total_usd, row.api_usd)
        for order, (series, usd) in enumerate(zip(COST_SERIES, values, strict=True)):
            if usd:
                rows.append({"month": row.month, "series": series, "usd": usd, "order": order})
    return rows


def cost_marks(result: CostOverTime) -> list[dict[str, Any]]:
    """Return the months to mark {month, usd, label, align, dx, dy}: break-even and the API crossover.

    The break-even label sits below its point, the API one above; both go left of the point
    near the chart's right edge.
    """
    marks = []
    if result.break_even_month is not None and result.training_usd:
        marks.append(
            {
                "month": result.break_even_month,
                "usd": result.training_usd,
                "label": f"break-even: {month_text(result.break_even_month, result.months)}",
                "dy": 16,
            }
        )
    if result.api_crossover_month is not None and result.api_crossover_usd:
        marks.append(
            {
                "month": result.api_crossover_month,
                "usd": result.api_crossover_usd,
                "label": f"cheaper than the API from {month_text(result.api_crossover_month, result.months)}",
                "dy": -12,
            }
        )
    for mark in marks:
        near_right = mark["month"] > 0.6 * result.months
        mark["align"], mark["dx"] = ("right", -8) if near_right else ("left", 8)
    return marks


def cost_takeaway(result: CostOverTime, serving_only: bool = False) -> str:
    """Say when serving spend overtakes the training bill, and from when self-hosting beats the API.

    With ``serving_only`` (the goal is to serve an open model, not to train it) the training bill is
    left out: self-hosting is compared with the API month by month.
    """
    api = f"{result.api.provider} {result.api.model}" if result.api is not None else "the API"
    if serving_only and result.serving_usd_per_month is not None and result.api_usd_per_month is not None:
        ours, theirs = result.serving_usd_per_month, result.api_usd_per_month
        verdict = (
            "self-hosting beats the API from month 1"
            if ours < theirs
            else "the API stays cheaper than self-hosting at this traffic"
        )
        return (
            f"Serving {traffic_label(result.tokens_per_day)} yourself costs {format_usd(ours)} a month against "
            f"{format_usd(theirs)} for {api}: {verdict}."
        )
    if result.training_usd is None or result.serving_usd_per_month is None:
        text = "There is no break-even to show (see the note above)"
        if result.api_usd_per_month is not None:
            text += f"; {api} would cost {format_usd(result.api_usd_per_month)} a month for this traffic"
        return text + "."
    floor = f" (the floor: one {result.replica_cards}-card replica around the clock, partly idle)"
    serving = (
        f"serving {traffic_label(result.tokens_per_day)} costs {format_usd(result.serving_usd_per_month)} a month"
        + (floor if result.replica_floor_applies else "")
    )
    if result.break_even_month is None:
        when = f"does not reach the training bill of {format_usd(result.training_usd)} within {result.months} months"
    else:
        when = (
            f"overtakes the training bill ({format_usd(result.training_usd)}) in month "
            f"{math.ceil(result.break_even_month):,}"
        )
    text = f"Self-hosted, {serving}, and {when}"
    if result.api_usd_per_month is not None:
        if result.api_crossover_month is not None:
            text += f"; self-hosting beats {api} from month {math.ceil(result.api_crossover_month):,}"
        elif result.api_usd_per_month <= result.serving_usd_per_month:
            text += f"; {api} is cheaper than serving it yourself, at {format_usd(result.api_usd_per_month)} a month"
        else:
            text += f"; {api} stays cheaper than training + self-hosting for {result.months} months"
    return text + "."


def scaling_rows(scaling: CardScaling) -> list[dict[str, Any]]:
    """Return training time per card count and link setup, in days, plus the perfect-scaling line."""
    rows = [
        {
            "cards": row.cards,
            "setup": row.setup,
            "links": row.links,
            "days": row.time_s / DAY_S,
            "cost_usd": row.cost_usd,
            "gpu_hours": row.gpu_hours,
            "mfu_pct": row.mfu * 100.0,
        }
        for row in scaling.rows
        if row.fits
    ]
    rows += [{"cards": point.cards, "setup": IDEAL_SETUP, "days": point.time_s / DAY_S} for point in scaling.ideal]
    return rows


def step_share_rows(scaling: CardScaling, setup: str) -> list[dict[str, Any]]:
    """Return what one step is made of, in percent, per card count for one link setup."""
    rows = []
    for row in scaling.rows:
        if row.setup != setup or not row.fits:
            continue
        for order, (field, label) in enumerate(STEP_PARTS):
            share = getattr(row, field)
            if share > 0:
                rows.append({"cards": row.cards, "part": label, "pct": share * 100.0, "order": order})
    return rows


def scaling_takeaway(scaling: CardScaling) -> str:
    """Say how close the scenario's links stay to perfect scaling and where slower links start to hurt."""
    if not scaling.rows:
        return "Training fits on no card count up to 100,000 with this model and GPU."
    parts = []
    if scaling.speedup is not None and scaling.smallest_cards and scaling.largest_cards:
        parts.append(
            f"With the scenario's links, going from {scaling.smallest_cards:,} to {scaling.largest_cards:,} cards "
            f"trains {scaling.speedup:,.1f}× faster (perfect scaling: "
            f"{scaling.largest_cards // scaling.smallest_cards:,}×)"
        )
    for slowdown in scaling.slowdowns:
        if slowdown.first_cards is None:
            parts.append(f"{slowdown.setup} costs under 10% at every count (at most {slowdown.worst_factor:.2f}×)")
        else:
            parts.append(
                f"{slowdown.setup} hurts from {slowdown.first_cards:,} cards (10% or more slower) and is "
                f"{slowdown.worst_factor:,.1f}× slower at {slowdown.worst_cards:,}"
            )
    return "; ".join(parts) + "."


def serving_help(result: CostOverTime, utilization: float) -> str:
    """Explain the monthly serving figure: the per-token price, busy cards and the one-replica floor."""
    return (
        f"Self-hosted at full load and {percent(utilization)} utilisation: "
        f"{format_usd(result.cost_per_million_output_tokens_usd)} per million output tokens, "
        f"{result.serving_cards_busy:,.1f} cards busy; never under one {result.replica_cards}-card replica "
        f"around the clock ({format_usd(result.replica_usd_per_month)} a month)."
    )


def api_help(result: CostOverTime) -> str:
    """Explain the monthly API figure: which API, and the output and prompt tokens it bills."""
    if result.api is None:
        return "No API price in the catalog."
    return (
        f"{result.api.provider} {result.api.model}: {traffic_label(result.tokens_per_day)} output and "
        f"{traffic_label(result.prompt_tokens_per_day)} prompt, at list prices of {result.api.date}."
    )
