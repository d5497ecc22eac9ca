"""Rows, control steps and labels for the training-vs-serving cost page (its sentences: app_pages.costs.sentences).

Pure helpers: engine results in, lists of dicts (days, percent, US dollars) or labels out, in the
visit's language. The page reads the sentences through this module too (they are in ``__all__``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from app_pages.costs.sentences import (
    api_help,
    cost_takeaway,
    elapsed_text,
    fleet_text,
    month_text,
    scaling_takeaway,
    serving_help,
    traffic_label,
    training_help,
)
from model import Catalog
from model.analyses.economics import CostOverTime, api_price
from model.analyses.scaling import CardScaling
from model.catalog import ApiPrice
from model.units import DAY_S, format_count
from ui.controls import AUTO
from ui.format import NOT_RUN, dollars, duration
from ui.i18n import tr, translatable
from ui.layout_rows import STEP_PARTS

__all__ = [
    "BREAK_EVEN_HELP",
    "COST_SERIES",
    "IDEAL_SETUP",
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
    "elapsed_text",
    "fleet_text",
    "money",
    "month_text",
    "scaling_rows",
    "scaling_takeaway",
    "sentence",
    "serving_delta",
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
COST_SERIES = (
    translatable("Training (one-time)"),
    translatable("Self-hosted serving"),
    translatable("Train + self-host"),
    translatable("API"),
)
"""The cost chart's lines, in legend order (English: rows and charts show ``tr(series)``)."""
IDEAL_SETUP = translatable("Perfect scaling")
SETUP_TEXTS = (
    translatable("Scenario's links"),
    translatable("PCIe inside the node"),
    translatable("100 Gb Ethernet between nodes"),
)
"""The engine's SETUP_LABELS as keys of their translations: rows show ``tr(setup)``."""
BREAK_EVEN_HELP = translatable(
    "The month when cumulative self-hosted serving has cost as much as training (30.44-day months)."
)


def tokens_label(tokens: float) -> str:
    """Label a training-token step: 0 is the Chinchilla default."""
    return tr("auto: 20 per parameter") if tokens == 0 else tr("{count} tokens", count=format_count(tokens))


def api_label(price: ApiPrice) -> str:
    """Label an API price briefly: provider, model, $ in / $ out per million tokens (the date goes below)."""
    return f"{price.provider} {price.model} · ${price.input_usd_per_million:g} / ${price.output_usd_per_million:g}"


def api_terms(price: ApiPrice | None) -> str:
    """Say an API's list prices and their date: '$0.18 in / $0.18 out per M tokens · 2026-01-24'."""
    if price is None:
        return tr("no API price in the catalog")
    return tr(
        "{input} in / {output} out per M tokens · {date}",
        input=f"${price.input_usd_per_million:g}",
        output=f"${price.output_usd_per_million:g}",
        date=price.date,
    )


def chosen_api_price(catalog: Catalog, choice: str, model: str | None, params: float | None = None) -> ApiPrice | None:
    """Return the price row the API control names ('auto': the scenario model's own, else its size class)."""
    return api_price(catalog, None if choice == AUTO else choice, model, params)


def api_labeller(catalog: Catalog, model: str | None, params: float | None = None) -> Callable[[str], str]:
    """Return the API selectbox's label function; 'auto' names the row it picks.

    The model and the words are bound now: AppTest re-applies format functions outside the script run.
    """
    by_id = {price.id: price for price in catalog.prices}
    automatic = api_price(catalog, None, model, params)
    auto = (
        tr("auto: {api}", api=f"{automatic.provider} {automatic.model}")
        if automatic
        else tr("auto: no API price known")
    )

    def label(choice: str) -> str:
        if choice == AUTO:
            return auto
        return api_label(by_id[choice]) if choice in by_id else choice

    return label


MONTH_S = 30.44 * DAY_S
YEAR_S = 365 * DAY_S


def short_duration(seconds: float | None) -> str:
    """Format a duration to fit a metric tile at 1280 px: '45 days', '9.5 mo', '3.2 yr' (at most 7 characters).

    Eight characters ('9.2 days') already end in an ellipsis in a fifth of a 1280 px page, so from
    3 days on whole days are shown (the page's sentence gives the exact figure).
    """
    if seconds is None or not math.isfinite(seconds) or seconds < 3 * DAY_S:
        return duration(seconds)
    if seconds < 60 * DAY_S:
        return tr("{n} days", n=f"{seconds / DAY_S:,.0f}")
    if seconds < 2 * YEAR_S:
        return tr("{n} mo", n=f"{seconds / MONTH_S:,.1f}")
    years = seconds / YEAR_S
    for scale, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if years >= scale:
            digits = 1 if years < 100 * scale else 0
            return tr("{n} yr", n=f"{years / scale:.{digits}f}{suffix}")
    return tr("{n} yr", n=f"{years:.1f}" if years < 100 else f"{years:.0f}")


def money(value: float | None) -> str:
    """Write dollars in at most six characters, for a tile a fifth of a 1280 px page wide.

    '$824', '$8.2k', '$84k', '$1.5M', '$44M', '$1.2B'; '—' when there is no cost. The page's
    sentence and the tile's help give the exact amount.
    """
    if value is None:
        return NOT_RUN
    if not math.isfinite(value) or value < 1e3:
        return dollars(value)
    scale, suffix = 1e12, "T"
    for candidate, name in ((1e3, "k"), (1e6, "M"), (1e9, "B")):
        if value < 999.5 * candidate:  # 999,600 is "$1.0M", not "$1000k"
            scale, suffix = candidate, name
            break
    amount = value / scale
    return f"${amount:,.1f}{suffix}" if amount < 9.95 else f"${amount:,.0f}{suffix}"


def break_even_text(result: CostOverTime) -> str:
    """Say when serving has cost as much as training: '3.1 mo', '6.7 h', '> 24 mo', '—' when a cost is unknown.

    The figure is the chart's mark and the sentence's, rounded once (:func:`elapsed_text`); within
    the first month it is said in days or hours: '0.0 mo' would hide a fine-tune that serving
    overtakes in an afternoon.
    """
    if result.training_usd is None or result.serving_usd_per_month is None:
        return NOT_RUN
    if result.break_even_month is None:
        return tr("> {n} mo", n=f"{result.months:,}")
    return elapsed_text(result.break_even_month)


def serving_delta(result: CostOverTime) -> str | None:
    """Say under the monthly serving bill how many cards it pays for: '1,414 cards' (None when it does not run)."""
    if not result.replicas:
        return None
    return tr("1 card") if result.serving_cards == 1 else tr("{n} cards", n=f"{result.serving_cards:,}")


def sentence(note: str) -> str:
    """Turn an engine note (lower case, no full stop) into a sentence."""
    return tr("{sentence}.", sentence=f"{note[:1].upper()}{note[1:]}")


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
                rows.append({"month": row.month, "series": tr(series), "usd": usd, "order": order})
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
                "label": tr("break-even: {month}", month=month_text(result.break_even_month, result.months)),
                "dy": 16,
            }
        )
    if result.api_crossover_month is not None and result.api_crossover_usd:
        marks.append(
            {
                "month": result.api_crossover_month,
                "usd": result.api_crossover_usd,
                "label": tr(
                    "cheaper than the API from {month}", month=month_text(result.api_crossover_month, result.months)
                ),
                "dy": -12,
            }
        )
    for mark in marks:
        near_right = mark["month"] > 0.6 * result.months
        mark["align"], mark["dx"] = ("right", -8) if near_right else ("left", 8)
    return marks


def scaling_rows(scaling: CardScaling) -> list[dict[str, Any]]:
    """Return training time per card count and link setup, in days, plus the perfect-scaling line."""
    rows = [
        {
            "cards": row.cards,
            "setup": tr(row.setup),  # one of SETUP_TEXTS
            "links": row.links,
            "days": row.time_s / DAY_S,
            "cost_usd": row.cost_usd,
            "gpu_hours": row.gpu_hours,
            "mfu_pct": row.mfu * 100.0,
        }
        for row in scaling.rows
        if row.fits
    ]
    rows += [{"cards": point.cards, "setup": tr(IDEAL_SETUP), "days": point.time_s / DAY_S} for point in scaling.ideal]
    return rows


def step_share_rows(scaling: CardScaling, setup: str) -> list[dict[str, Any]]:
    """Return what one step is made of, in percent, per card count for one link setup (the engine's label)."""
    rows = []
    for row in scaling.rows:
        if row.setup != setup or not row.fits:
            continue
        for order, (field, label) in enumerate(STEP_PARTS):
            share = getattr(row, field)
            if share > 0:
                rows.append({"cards": row.cards, "part": tr(label), "pct": share * 100.0, "order": order})
    return rows
