"""The cost page's sentences: takeaways and help texts, in the visit's language.

Pure helpers: engine results in, sentences out; numbers are formatted before they go into a
template, the same way in both languages.
"""

from __future__ import annotations

import math

from model.analyses.economics import CostOverTime
from model.analyses.scaling import CardScaling
from model.units import format_count
from ui.format import dollars, percent
from ui.i18n import tr

__all__ = [
    "api_help",
    "cost_takeaway",
    "month_text",
    "scaling_takeaway",
    "serving_help",
    "traffic_label",
    "training_help",
]


def traffic_label(tokens_per_day: float) -> str:
    """Label a traffic step: '1B tokens/day'."""
    return tr("{count} tokens/day", count=format_count(tokens_per_day))


def month_text(month: float | None, horizon: int) -> str:
    """Say a fractional month plainly: 'month 3.1', or 'after 24 months' when beyond the horizon."""
    if month is None:
        return tr("after {n} months", n=f"{horizon:,}")
    return tr("month {month}", month=f"{month:,.1f}")


def _sentence(text: str) -> str:
    return tr("{text}.", text=text)


def training_help(result: CostOverTime, cards: int) -> str:
    """Explain the training cost: one-time, its GPU-hours and price."""
    if result.training_gpu_hours is None:
        return tr("Training does not fit on these cards: add cards, or use a smaller model or precision.")
    price = result.price_per_gpu_hour
    at = tr(" at {price} per GPU-hour", price=dollars(price)) if price is not None else ""
    return tr(
        "One-time: {gpu_hours} GPU-hours on {cards} cards{price}.",
        gpu_hours=f"{result.training_gpu_hours:,.0f}",
        cards=f"{cards:,}",
        price=at,
    )


def _serving_only(result: CostOverTime, api: str, ours: float, theirs: float) -> str:
    """Self-hosting against the API month by month (no training bill): ``ours`` and ``theirs`` a month."""
    verdict = (
        tr("self-hosting beats the API from month 1")
        if ours < theirs
        else tr("the API stays cheaper than self-hosting at this traffic")
    )
    return tr(
        "Serving {traffic} yourself costs {ours} a month against {theirs} for {api}: {verdict}.",
        traffic=traffic_label(result.tokens_per_day),
        ours=dollars(ours),
        theirs=dollars(theirs),
        api=api,
        verdict=verdict,
    )


def cost_takeaway(result: CostOverTime, serving_only: bool = False) -> str:
    """Say when serving spend overtakes the training bill, and from when self-hosting beats the API.

    With ``serving_only`` (the goal is to serve an open model, not to train it) the training bill is
    left out: self-hosting is compared with the API month by month.
    """
    api = f"{result.api.provider} {result.api.model}" if result.api is not None else tr("the API")
    if serving_only and result.serving_usd_per_month is not None and result.api_usd_per_month is not None:
        return _serving_only(result, api, result.serving_usd_per_month, result.api_usd_per_month)
    if result.training_usd is None or result.serving_usd_per_month is None:
        text = tr("There is no break-even to show (see the note above)")
        if result.api_usd_per_month is not None:
            cost = dollars(result.api_usd_per_month)
            text += tr("; {api} would cost {cost} a month for this traffic", api=api, cost=cost)
        return _sentence(text)
    serving = tr(
        "serving {traffic} costs {cost} a month",
        traffic=traffic_label(result.tokens_per_day),
        cost=dollars(result.serving_usd_per_month),
    )
    if result.replica_floor_applies:
        serving += tr(
            " (the floor: one {cards}-card replica around the clock, partly idle)", cards=f"{result.replica_cards:,}"
        )
    bill = dollars(result.training_usd)
    if result.break_even_month is None:
        when = tr(
            "does not reach the training bill of {bill} within {months} months", bill=bill, months=f"{result.months:,}"
        )
    else:
        month = f"{math.ceil(result.break_even_month):,}"
        when = tr("overtakes the training bill ({bill}) in month {month}", bill=bill, month=month)
    text = tr("Self-hosted, {serving}, and {when}", serving=serving, when=when)
    if result.api_usd_per_month is not None:
        if result.api_crossover_month is not None:
            month = f"{math.ceil(result.api_crossover_month):,}"
            text += tr("; self-hosting beats {api} from month {month}", api=api, month=month)
        elif result.api_usd_per_month <= result.serving_usd_per_month:
            cost = dollars(result.api_usd_per_month)
            text += tr("; {api} is cheaper than serving it yourself, at {cost} a month", api=api, cost=cost)
        else:
            months = f"{result.months:,}"
            text += tr("; {api} stays cheaper than training + self-hosting for {months} months", api=api, months=months)
    return _sentence(text)


def scaling_takeaway(scaling: CardScaling) -> str:
    """Say how close the scenario's links stay to perfect scaling and where slower links start to hurt."""
    if not scaling.rows:
        return tr("Training fits on no card count up to 100,000 with this model and GPU.")
    parts = []
    if scaling.speedup is not None and scaling.smallest_cards and scaling.largest_cards:
        parts.append(
            tr(
                "With the scenario's links, going from {smallest} to {largest} cards trains {speedup}× faster "
                "(perfect scaling: {ideal}×)",
                smallest=f"{scaling.smallest_cards:,}",
                largest=f"{scaling.largest_cards:,}",
                speedup=f"{scaling.speedup:,.1f}",
                ideal=f"{scaling.largest_cards // scaling.smallest_cards:,}",
            )
        )
    for slowdown in scaling.slowdowns:
        setup = tr(slowdown.setup)  # one of the engine's SETUP_LABELS (ui.rows.costs.SETUP_TEXTS)
        if slowdown.first_cards is None:
            worst = f"{slowdown.worst_factor:.2f}"
            parts.append(tr("{setup} costs under 10% at every count (at most {worst}×)", setup=setup, worst=worst))
        else:
            parts.append(
                tr(
                    "{setup} hurts from {first} cards (10% or more slower) and is {factor}× slower at {worst}",
                    setup=setup,
                    first=f"{slowdown.first_cards:,}",
                    factor=f"{slowdown.worst_factor:,.1f}",
                    worst=f"{slowdown.worst_cards:,}",
                )
            )
    return _sentence(tr("; ").join(parts))


def serving_help(result: CostOverTime, utilization: float) -> str:
    """Explain the monthly serving figure: the per-token price, busy cards and the one-replica floor."""
    return tr(
        "Self-hosted at full load and {utilization} utilisation: {cost} per million output tokens, {busy} cards "
        "busy; never under one {cards}-card replica around the clock ({floor} a month).",
        utilization=percent(utilization),
        cost=dollars(result.cost_per_million_output_tokens_usd),
        busy=f"{result.serving_cards_busy:,.1f}",
        cards=f"{result.replica_cards:,}",
        floor=dollars(result.replica_usd_per_month),
    )


def api_help(result: CostOverTime) -> str:
    """Explain the monthly API figure: which API, and the output and prompt tokens it bills."""
    if result.api is None:
        return tr("No API price in the catalog.")
    return tr(
        "{api}: {output} output and {prompt} prompt, at list prices of {date}.",
        api=f"{result.api.provider} {result.api.model}",
        output=traffic_label(result.tokens_per_day),
        prompt=traffic_label(result.prompt_tokens_per_day),
        date=result.api.date,
    )
