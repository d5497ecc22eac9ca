"""What one GPU-hour costs: rented at a price, or owned (purchase amortised plus power).

Renting: the catalog's dated on-demand price. A GPU with no published rental price is priced from
its purchase price at the market's rent-to-price ratio, the median over the catalog GPUs that have
both (H100 SXM $2.69/h on $30,000, A100 80GB $1.39/h on $15,000, ...: about 1e-4 of the price per
hour, so a rented card pays for itself in roughly a year of use). Owning: straight-line
depreciation of the purchase price over the years it is kept, plus the card's board power times
the data centre's PUE at the electricity price (the seeds' cost table; PUE as The Green Grid
defines it, facility power over IT power). Both are per card: host, network and staff are left
out of the owning price, which is why it comes out below the rental one.
"""

from __future__ import annotations

import functools
import statistics
from collections.abc import Iterable
from typing import TYPE_CHECKING, Literal, NamedTuple

from model.caches import once
from model.limits import ScenarioError

if TYPE_CHECKING:
    from model.catalog import Gpu

__all__ = [
    "DEFAULT_OWNING",
    "HOURS_PER_YEAR",
    "QUOTE_TEMPLATES",
    "Owning",
    "PriceQuote",
    "PriceSource",
    "market_rent_ratio",
    "owning_price",
    "rent_to_price_ratio",
    "rental_price",
]

HOURS_PER_YEAR = 8760.0
PriceSource = Literal["catalog", "estimated", "owned", "given"]


class Owning(NamedTuple):
    """How an owned card is paid for."""

    years: float = 3.0
    """Depreciation period: three years is the common server schedule (hyperscalers moved to 5-6)."""
    usd_per_kwh: float = 0.10
    """Industrial electricity, US average 2024 (EIA Electric Power Monthly: ~8-9 cents)."""
    pue: float = 1.3
    """Facility power over IT power (Uptime Institute 2024 survey average: 1.56; new builds ~1.2-1.3)."""


DEFAULT_OWNING = Owning()


class PriceQuote(NamedTuple):
    """One GPU-hour's price and where it comes from, in words a page can show."""

    usd_per_gpu_hour: float | None
    source: PriceSource
    note: str
    """Where the price comes from, in English (``template`` filled with ``values``)."""
    template: str = ""
    """The note with its fields, for an interface that says it in another language."""
    values: tuple[tuple[str, str], ...] = ()
    """The note's fields and their values, already formatted (pairs: a quote stays hashable)."""


QUOTE_TEMPLATES: tuple[str, ...] = (
    "on-demand rate, {date}",
    "on-demand rate",
    "no published rental rate: ${purchase} purchase × {ratio} per hour, the catalog's median rent-to-price ratio",
    "no rental or purchase price in the catalog: type one",
    "{gpu} is not sold: rent it, or type a price",
    "${purchase} over {years} years (${capital}/h) + {tdp} W × PUE {pue} at ${kwh}/kWh (${power}/h)",
)
"""Every note a price can carry, with its fields (an interface translates these)."""


def _quote(usd: float | None, source: PriceSource, template: str, **values: str) -> PriceQuote:
    assert template in QUOTE_TEMPLATES, template  # every note is listed, so every note is translated
    return PriceQuote(usd, source, template.format(**values), template, tuple(values.items()))


def rent_to_price_ratio(gpus: Iterable[Gpu]) -> float | None:
    """Return the median on-demand price per hour over purchase price, over GPUs that have both."""
    ratios = [g.cloud_usd_per_gpu_hour / g.purchase_usd for g in gpus if g.cloud_usd_per_gpu_hour and g.purchase_usd]
    return statistics.median(ratios) if ratios else None


@once
def market_rent_ratio() -> float | None:
    """Return :func:`rent_to_price_ratio` over the built-in catalog (user GPUs are priced by it, not in it)."""
    from model.catalog import default_catalog  # late: the catalog module does not need prices

    return rent_to_price_ratio(default_catalog().gpus.values())


@functools.lru_cache(maxsize=1024)
def rental_price(gpu: Gpu, ratio: float | None) -> PriceQuote:
    """Return the price of renting one ``gpu`` for an hour: the catalog's, else estimated from its purchase price.

    A machine no cloud rents (``for_rent`` false: a Mac, a Ryzen AI Max box, a DGX Spark) is bought,
    so its hour is the owning price (:func:`owning_price` with the default terms), not a rent.
    Cached: every estimate resolves its GPU's price, and a quote is an immutable value.
    """
    if not gpu.for_rent and gpu.cloud_usd_per_gpu_hour is None:
        if gpu.purchase_usd is None:
            return _quote(None, "owned", "no rental or purchase price in the catalog: type one")
        return owning_price(gpu)
    if gpu.cloud_usd_per_gpu_hour is not None:
        if gpu.cloud_price_date:
            return _quote(gpu.cloud_usd_per_gpu_hour, "catalog", "on-demand rate, {date}", date=gpu.cloud_price_date)
        return _quote(gpu.cloud_usd_per_gpu_hour, "catalog", "on-demand rate")
    if gpu.purchase_usd is not None and ratio is not None:
        return _quote(
            gpu.purchase_usd * ratio,
            "estimated",
            "no published rental rate: ${purchase} purchase × {ratio} per hour, "
            "the catalog's median rent-to-price ratio",
            purchase=f"{gpu.purchase_usd:,.0f}",
            ratio=f"{ratio:.2e}",
        )
    return _quote(None, "estimated", "no rental or purchase price in the catalog: type one")


def owning_price(gpu: Gpu, owning: Owning = DEFAULT_OWNING) -> PriceQuote:
    """Return what an owned ``gpu`` costs per hour: purchase over its years, plus power at the PUE.

    Raises:
        ScenarioError: a term of ``owning`` is out of range.
    """
    if not 0.5 <= owning.years <= 15:
        raise ScenarioError("years", owning.years, "from 0.5 to 15 years")
    if not 0.0 <= owning.usd_per_kwh <= 2.0:
        raise ScenarioError("usd_per_kwh", owning.usd_per_kwh, "from $0 to $2 per kWh")
    if not 1.0 <= owning.pue <= 3.0:
        raise ScenarioError("pue", owning.pue, "from 1.0 to 3.0")
    if gpu.purchase_usd is None:
        return _quote(None, "owned", "{gpu} is not sold: rent it, or type a price", gpu=gpu.short_name)
    capital = gpu.purchase_usd / (owning.years * HOURS_PER_YEAR)
    power = (gpu.tdp_w or 0.0) / 1000.0 * owning.pue * owning.usd_per_kwh
    return _quote(
        capital + power,
        "owned",
        "${purchase} over {years} years (${capital}/h) + {tdp} W × PUE {pue} at ${kwh}/kWh (${power}/h)",
        purchase=f"{gpu.purchase_usd:,.0f}",
        years=f"{owning.years:g}",
        capital=f"{capital:.2f}",
        tdp=f"{gpu.tdp_w or 0:g}",
        pue=f"{owning.pue:g}",
        kwh=f"{owning.usd_per_kwh:g}",
        power=f"{power:.2f}",
    )
