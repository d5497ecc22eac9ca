"""The cost page's sentences: takeaways and help texts, in the visit's language.

Pure helpers: engine results in, sentences out; numbers are formatted before they go into a
template, the same way in both languages.
"""

from __future__ import annotations

from model.analyses.economics import DAYS_PER_MONTH, CostOverTime
from model.analyses.scaling import CardScaling
from model.units import format_count
from ui.format import dollars, percent
from ui.i18n import tr, translatable

__all__ = [
    "api_help",
    "cost_takeaway",
    "elapsed_text",
    "fleet_text",
    "month_text",
    "scaling_takeaway",
    "serving_help",
    "traffic_label",
    "training_help",
]


def traffic_label(tokens_per_day: float) -> str:
    """Label a traffic step: '1B tokens/day'."""
    return tr("{count} tokens/day", count=format_count(tokens_per_day))


def _point(month: float) -> tuple[str, str]:
    """Round a point in time once, for every place the page names it: ('month', '11.4'), ('day', '9.1').

    Months to one decimal; within the first month days, within the first day hours, within the first
    hour minutes (a fine-tune's bill can be overtaken in an afternoon: '0.0 months' would hide it).
    """
    days = month * DAYS_PER_MONTH
    if month >= 1.0:
        return "month", f"{month:,.1f}"
    if days >= 1.0:
        return "day", f"{days:,.1f}"
    if days * 24.0 >= 1.0:
        return "hour", f"{days * 24.0:,.1f}"
    return "minute", f"{days * 24.0 * 60.0:,.1f}"


_WHEN = {
    "month": translatable("month {n}"),
    "day": translatable("day {n}"),
    "hour": translatable("hour {n}"),
    "minute": translatable("minute {n}"),
}
"""A point in time in a sentence or on the chart, by its unit."""
_ELAPSED = {
    "month": translatable("{n} mo"),
    "day": translatable("{n} days"),
    "hour": translatable("{n} h"),
    "minute": translatable("{n} min"),
}
"""The same point in a metric tile."""
_FLEETS = {
    (True, True): translatable("{traffic} takes 1 replica of 1 card: {cards} × {gpu}"),
    (True, False): translatable("{traffic} takes 1 replica of {size} cards: {cards} × {gpu}"),
    (False, True): translatable("{traffic} takes {replicas} replicas of 1 card: {cards} × {gpu}"),
    (False, False): translatable("{traffic} takes {replicas} replicas of {size} cards: {cards} × {gpu}"),
}
"""What a traffic takes, by (one replica, one card per replica): English needs its singulars."""


def month_text(month: float | None, horizon: int) -> str:
    """Name a point in time for a sentence or a chart label: 'month 11.4', 'day 9.1', or 'after 24 months'.

    The chart's marks and the sentences under it both say it through here, so they give one number.
    """
    if month is None:
        return tr("after {n} months", n=f"{horizon:,}")
    unit, number = _point(month)
    return tr(_WHEN[unit], n=number)


def elapsed_text(month: float) -> str:
    """Say the same point in time for a metric tile: '11.4 mo', '9.1 days', '6.7 h'."""
    unit, number = _point(month)
    return tr(_ELAPSED[unit], n=number)


def fleet_text(result: CostOverTime, gpu_name: str) -> str:
    """Say what the traffic takes: '1B tokens/day takes 3 replicas of 2 cards: 6 × NVIDIA GeForce RTX 4090'.

    Every scaled figure on the page (the monthly bill, the chart's serving line) is for these cards.
    """
    template = _FLEETS[result.replicas == 1, result.replica_cards == 1]
    return tr(
        template,
        traffic=traffic_label(result.tokens_per_day),
        replicas=f"{result.replicas:,}",
        size=f"{result.replica_cards:,}",
        cards=f"{result.serving_cards:,}",
        gpu=gpu_name,
    )


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


def _floor(result: CostOverTime) -> str:
    return tr(" (one replica around the clock, partly idle)") if result.replica_floor_applies else ""


def _serving_only(result: CostOverTime, fleet: str, api: str, ours: float, theirs: float) -> str:
    """Self-hosting against the API month by month (no training bill): ``ours`` and ``theirs`` a month."""
    verdict = (
        tr("self-hosting beats the API from month 1")
        if ours < theirs
        else tr("the API stays cheaper than self-hosting at this traffic")
    )
    return tr(
        "Self-hosted, {fleet}, {ours} a month{floor}, against {theirs} for {api}: {verdict}.",
        fleet=fleet,
        ours=dollars(ours),
        floor=_floor(result),
        theirs=dollars(theirs),
        api=api,
        verdict=verdict,
    )


def cost_takeaway(result: CostOverTime, gpu_name: str, serving_only: bool = False) -> str:
    """Say what the traffic takes, when serving spend overtakes the training bill, and when self-hosting beats the API.

    Every month is named through :func:`month_text`, as the chart's marks are. With
    ``serving_only`` (the goal is to serve an open model, not to train it) the training bill is
    left out: self-hosting is compared with the API month by month.
    """
    api = f"{result.api.provider} {result.api.model}" if result.api is not None else tr("the API")
    fleet = fleet_text(result, gpu_name) if result.replicas else ""
    if serving_only and result.serving_usd_per_month is not None and result.api_usd_per_month is not None:
        return _serving_only(result, fleet, api, result.serving_usd_per_month, result.api_usd_per_month)
    if result.training_usd is None or result.serving_usd_per_month is None:
        text = (
            tr("Self-hosted, {fleet}; there is no break-even to show (see the note above)", fleet=fleet)
            if fleet
            else tr("There is no break-even to show (see the note above)")
        )
        if result.api_usd_per_month is not None:
            cost = dollars(result.api_usd_per_month)
            text += tr("; {api} would cost {cost} a month for this traffic", api=api, cost=cost)
        return _sentence(text)
    bill = dollars(result.training_usd)
    if result.break_even_month is None:
        when = tr(
            "serving does not reach the training bill of {bill} within {months} months",
            bill=bill,
            months=f"{result.months:,}",
        )
    else:
        month = month_text(result.break_even_month, result.months)
        when = tr("serving overtakes the training bill ({bill}) by {month}", bill=bill, month=month)
    text = tr(
        "Self-hosted, {fleet}, {cost} a month{floor}: {when}",
        fleet=fleet,
        cost=dollars(result.serving_usd_per_month),
        floor=_floor(result),
        when=when,
    )
    if result.api_usd_per_month is not None:
        if result.api_crossover_month is not None:
            month = month_text(result.api_crossover_month, result.months)
            text += tr("; train + self-host is cheaper than {api} from {month}", api=api, month=month)
        elif result.api_usd_per_month <= result.serving_usd_per_month:
            cost = dollars(result.api_usd_per_month)
            text += tr("; {api} is cheaper than serving it yourself, at {cost} a month", api=api, cost=cost)
        else:
            months = f"{result.months:,}"
            text += tr("; {api} stays cheaper than training + self-hosting for {months} months", api=api, months=months)
    return _sentence(text)


def scaling_takeaway(scaling: CardScaling, *, refused: bool = False) -> str:
    """Say how close the scenario's links stay to perfect scaling and where slower links start to hurt.

    ``refused``: the format is not trained in full (int8 or int4), so no card count trains it.
    """
    if refused:
        return tr("This format is not trained in full, so no card count trains it: pick bf16, fp16 or fp8.")
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
        setup = tr(slowdown.setup)  # one of the engine's SETUP_LABELS (app_pages.costs.rows.SETUP_TEXTS)
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


def serving_help(result: CostOverTime, gpu_name: str) -> str:
    """Explain the monthly serving figure: the cards the traffic takes, one replica's rate and month."""
    if not result.replicas:
        return tr("Serving does not fit on these cards (see the note above), so it has no cost.")
    return tr(
        "{fleet}. A replica gives {rate} output tokens/s at full load (each new request's prefill included) "
        "and is busy {utilization} of the time; one costs {replica} a month around the clock "
        "({cost} per million output tokens at full load).",
        fleet=fleet_text(result, gpu_name),
        rate=f"{result.replica_tokens_per_s or 0.0:,.0f}",
        utilization=percent(result.utilization),
        replica=dollars(result.replica_usd_per_month),
        cost=dollars(result.cost_per_million_output_tokens_usd),
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
