"""Training against serving cost over time: the one-time bill against months of serving.

:func:`cost_over_time` sets the one-time training bill, paid at month 0, against what serving a
daily traffic costs month by month, self-hosted or through an API (:func:`api_price` picks the
API row), with the break-even month. It is built from :func:`estimate`. The companion analysis,
training time and cost as the card count grows, is :mod:`model.analyses.scaling`.

A month is 365.25 / 12 = 30.44 days (the Julian year over 12). Costs are US dollars; a GPU
without a known cloud price gives ``None`` costs rather than an invented one.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from model.catalog import ApiPrice, Catalog, default_catalog
from model.estimate import estimate, training_refused
from model.layouts.serving import replicas_needed
from model.limits import ScenarioError
from model.results import Note
from model.scenario import Scenario, with_batch
from model.units import DAY_S, HOUR_S

__all__ = ["DAYS_PER_MONTH", "FALLBACK_API_PRICE", "CostMonth", "CostOverTime", "api_price", "cost_over_time"]


DAYS_PER_MONTH = 365.25 / 12.0
"""A month: 30.44 days (a derived definition: the Julian year of 365.25 days over 12)."""
HOURS_PER_MONTH = DAYS_PER_MONTH * DAY_S / HOUR_S
FALLBACK_API_PRICE = "gpt-4o-2024-08"
"""The API price compared when no catalog price names the scenario's model (GPT-4o, 2024-08-06)."""
_FIRST_MONTH = (0.0, 0.125, 0.25, 0.5, 0.75)
"""Rows inside the first month (cumulative costs are linear, so these are exact)."""


class CostMonth(NamedTuple):
    """Cumulative costs at the end of one month (US dollars; ``None`` where no price is known)."""

    month: float
    """0, a few points inside the first month (so a log-scale chart starts smoothly), then whole months."""
    training_usd: float | None
    """The one-time training bill: flat, paid at month 0."""
    serving_usd: float | None
    """Self-hosted serving, cumulative."""
    total_usd: float | None
    """Train, then self-host: training plus cumulative serving."""
    api_usd: float | None
    """The same traffic through the API, cumulative."""


class CostOverTime(NamedTuple):
    """The result of :func:`cost_over_time`."""

    rows: tuple[CostMonth, ...]
    """Month 0 to the horizon: a few rows in the first month, then one per month."""
    tokens_per_day: float
    """Output tokens served per day."""
    prompt_tokens_per_day: float
    """Prompt tokens that come with them (the scenario's prompt/output ratio)."""
    training_usd: float | None
    training_time_s: float | None
    """Wall time; None (like the costs) when training does not fit."""
    training_gpu_hours: float | None
    training_fits: bool
    training_refused: bool
    """True when the format is not trained in full (int8 or int4 weights): no bill, and no memory to blame."""
    price_per_gpu_hour: float | None
    serving_fits: bool
    cost_per_million_output_tokens_usd: float | None
    """Self-hosted, at full load and the scenario's utilisation."""
    utilization: float
    """The share of each hour the serving cards do useful work (the scenario's)."""
    replica_cards: int
    """Cards in one serving replica (tp x pp, or ep under attention data parallelism), as the
    engine lays the scenario out at full load."""
    replica_tokens_per_s: float | None
    """Output tokens per second one replica gives at full load (prefill included); None when it does not fit."""
    replicas: int
    """Replicas the traffic takes at the scenario's utilisation (:func:`model.layouts.serving.replicas_needed`,
    at least 1); 0 when serving does not fit."""
    serving_cards: int
    """Cards the traffic takes: replicas x replica_cards (0 when serving does not fit)."""
    replica_usd_per_month: float | None
    """One replica running around the clock."""
    serving_usd_per_month: float | None
    """The replicas the traffic takes, around the clock: replicas x one replica's month."""
    replica_floor_applies: bool
    """True when the traffic is too small to keep even one replica busy: you pay for idle time."""
    api: ApiPrice | None
    api_usd_per_month: float | None
    break_even_month: float | None
    """When cumulative self-hosted serving equals the training bill; None beyond the horizon."""
    api_crossover_month: float | None
    """When train + self-host becomes cheaper than the API; None if not within the horizon."""
    api_crossover_usd: float | None
    """What each has cost by then (the two lines cross)."""
    months: int
    notes: tuple[Note, ...]
    """What does not fit, what has no price (codes of :data:`model.results.NOTES`; ``.text`` in English)."""

    @property
    def break_even_s(self) -> float | None:
        """The break-even in seconds (a fine-tune's bill can be overtaken within hours)."""
        return None if self.break_even_month is None else self.break_even_month * DAYS_PER_MONTH * DAY_S


def api_price(
    catalog: Catalog, price_id: str | None, model: str | None, params: float | None = None
) -> ApiPrice | None:
    """Return the API price to compare: the one asked for, else one for a model of the same size class.

    Args:
        catalog: the catalog whose ``prices`` are searched.
        price_id: a price row's id, or ``None`` for automatic: the first row whose
            ``comparable_model`` is ``model``; else the row whose comparable open model is nearest
            in parameter count to ``params`` (by ratio: a 9B model is compared with an 8B API, a
            100B one with a 70B one); else GPT-4o at its 2024-08-06 price, else the first.
        model: the scenario's model preset id (``None`` for a custom size).
        params: the scenario's parameter count, for the size-class match.

    Returns:
        The price row, or ``None`` when the catalog has no prices (or not the id asked for).
    """
    by_id = {price.id: price for price in catalog.prices}
    if price_id is not None:
        return by_id.get(price_id)
    for price in catalog.prices:
        if model is not None and price.comparable_model == model:
            return price
    sized = [
        (abs(math.log(catalog.models[p.comparable_model].architecture.stats.total_params / params)), index)
        for index, p in enumerate(catalog.prices)
        if params and p.comparable_model is not None and p.comparable_model in catalog.models
    ]
    if sized:
        return catalog.prices[min(sized)[1]]
    return by_id.get(FALLBACK_API_PRICE) or (catalog.prices[0] if catalog.prices else None)


def cost_over_time(
    scenario: Scenario,
    catalog: Catalog | None,
    tokens_per_day: float,
    months: int,
    api: ApiPrice | None,
) -> CostOverTime:
    """Compare the training bill with the cumulative cost of serving ``tokens_per_day``.

    Training is paid once, at month 0: ``estimate(scenario).training.cost_usd`` (GPU-hours x
    price per GPU-hour). Self-hosted serving runs at the scenario's full-load throughput
    (``batch="max"``, continuous batching, prefill included) at its utilisation, so a month
    takes ``replicas_needed(tokens per second, one replica's rate, utilisation)`` whole replicas
    (the engine's one rule for a fleet's size: ceil(traffic / (rate x utilisation)), at least one),
    and a month costs those replicas' cards around the clock at the GPU-hour price: the bill and
    the cards it pays for are one figure, and below one replica's worth you pay for idle time.
    The API bills output tokens and the prompt tokens that come with them (prompt/output in the
    scenario's ratio) at its list prices (data/prices.yaml). All three are derived definitions of
    cost = rate x quantity.

    The break-even month is training / monthly serving: when serving has cost as much as training
    did. Train + self-host beats the API from month training / (API - serving) per month,
    where the API costs more per month.

    Args:
        scenario: the training and serving setup (its cards serve as well as train).
        catalog: the catalog (``None``: the built-in one).
        tokens_per_day: output tokens served per day (positive).
        months: the horizon, in whole months (1 or more).
        api: the API price to compare, or ``None``.

    Raises:
        ScenarioError: a bad scenario, traffic or horizon.
    """
    if isinstance(tokens_per_day, bool) or not (isinstance(tokens_per_day, (int, float)) and tokens_per_day > 0):
        raise ScenarioError("tokens_per_day", tokens_per_day, "a positive number of output tokens per day")
    if not math.isfinite(tokens_per_day):
        raise ScenarioError("tokens_per_day", tokens_per_day, "a finite number of output tokens per day")
    if isinstance(months, bool) or not isinstance(months, int) or not 1 <= months <= 1200:
        raise ScenarioError("months", months, "a whole number of months from 1 to 1,200")
    catalog = catalog or default_catalog()
    trained = estimate(scenario, catalog)
    served = estimate(with_batch(scenario, "max"), catalog).inference
    training, price, gpu = trained.training, trained.resolved.price_per_gpu_hour, trained.resolved.gpu
    notes: list[Note] = []
    if price is None:
        notes.append(Note("costs_no_price", {"gpu": gpu.name}))
    if training_refused(trained.resolved):
        notes.append(Note("costs_training_refused", {"precision": trained.resolved.precision}))
    elif not training.fits:
        needed, capacity = training.memory_per_gpu.total / 1e9, gpu.capacity_bytes / 1e9
        sizes = {"needed": f"{needed:,.0f}", "capacity": f"{capacity:,.0f}"}
        one = scenario.cards == 1
        notes.append(
            Note("costs_training_one_card" if one else "costs_training", {**sizes, "cards": f"{scenario.cards:,}"})
        )
    replica_cards = served.tp * served.pp * served.ep
    if not served.fits:
        one_card = replica_cards == 1
        notes.append(Note("costs_serving_one_card" if one_card else "costs_serving", {"cards": f"{replica_cards:,}"}))
    training_usd = training.cost_usd if training.fits else None
    per_million = served.cost_per_million_output_tokens_usd if served.fits else None
    replica_rate = served.decode_tokens_per_s / served.dp if served.fits else None
    replicas = replicas_needed(tokens_per_day / DAY_S, replica_rate, scenario.utilization) if replica_rate else 0
    serving_usd = replica_usd = None
    floor_applies = replicas == 1 and tokens_per_day / DAY_S < (replica_rate or 0.0) * scenario.utilization
    if price is not None and replicas:
        replica_usd = replica_cards * price * HOURS_PER_MONTH
        serving_usd = replicas * replica_usd
    prompt_per_day = tokens_per_day * scenario.prompt_len / scenario.output_len
    api_usd = (
        DAYS_PER_MONTH
        * (prompt_per_day * api.input_usd_per_million + tokens_per_day * api.output_usd_per_million)
        / 1e6
        if api is not None
        else None
    )
    break_even = None
    if training_usd is not None and serving_usd is not None and serving_usd > 0:
        break_even = _within(training_usd / serving_usd, months)
    crossover = crossover_usd = None
    if training_usd is not None and serving_usd is not None and api_usd is not None and api_usd > serving_usd:
        crossover = _within(training_usd / (api_usd - serving_usd), months)
        crossover_usd = api_usd * crossover if crossover is not None else None
    rows = tuple(
        CostMonth(
            month=month,
            training_usd=training_usd,
            serving_usd=serving_usd * month if serving_usd is not None else None,
            total_usd=training_usd + serving_usd * month
            if training_usd is not None and serving_usd is not None
            else None,
            api_usd=api_usd * month if api_usd is not None else None,
        )
        for month in (*_FIRST_MONTH, *range(1, months + 1))
    )
    return CostOverTime(
        rows=rows,
        tokens_per_day=float(tokens_per_day),
        prompt_tokens_per_day=prompt_per_day,
        training_usd=training_usd,
        training_time_s=training.time_s if training.fits else None,
        training_gpu_hours=training.gpu_hours if training.fits else None,
        training_fits=training.fits,
        training_refused=training_refused(trained.resolved),
        price_per_gpu_hour=price,
        serving_fits=served.fits,
        cost_per_million_output_tokens_usd=per_million,
        utilization=scenario.utilization,
        replica_cards=replica_cards,
        replica_tokens_per_s=replica_rate,
        replicas=replicas,
        serving_cards=replicas * replica_cards,
        replica_usd_per_month=replica_usd,
        serving_usd_per_month=serving_usd,
        replica_floor_applies=floor_applies,
        api=api,
        api_usd_per_month=api_usd,
        break_even_month=break_even,
        api_crossover_month=crossover,
        api_crossover_usd=crossover_usd,
        months=months,
        notes=tuple(notes),
    )


def _within(month: float, horizon: int) -> float | None:
    return month if month <= horizon else None
