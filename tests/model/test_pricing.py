"""Renting and owning a GPU-hour."""

import dataclasses

import pytest

from model import ScenarioError, default_catalog
from model.pricing import HOURS_PER_YEAR, Owning, owning_price, rent_to_price_ratio, rental_price

CATALOG = default_catalog()


def test_the_rent_ratio_is_the_median_of_the_catalogs_rent_over_price():
    both = [g for g in CATALOG.gpus.values() if g.cloud_usd_per_gpu_hour and g.purchase_usd]
    ratio = rent_to_price_ratio(both)
    below = sum(g.cloud_usd_per_gpu_hour / g.purchase_usd < ratio for g in both)
    above = sum(g.cloud_usd_per_gpu_hour / g.purchase_usd > ratio for g in both)
    assert abs(below - above) <= 1
    # A rented card pays its price back within one to three years of use (market fact, not a fit).
    assert 1 / 3 < ratio * HOURS_PER_YEAR < 3


def test_a_catalog_rate_is_used_as_it_is_and_a_missing_one_is_estimated_from_the_purchase_price():
    h100 = CATALOG.gpus["h100-sxm"]
    assert rental_price(h100, 1e-4).usd_per_gpu_hour == h100.cloud_usd_per_gpu_hour
    unrented = dataclasses.replace(h100, cloud_usd_per_gpu_hour=None)
    quote = rental_price(unrented, 1e-4)
    assert quote.source == "estimated" and quote.usd_per_gpu_hour == pytest.approx(h100.purchase_usd * 1e-4)
    assert "purchase" in quote.note


def test_owning_is_depreciation_plus_power_at_the_pue():
    h100 = CATALOG.gpus["h100-sxm"]
    quote = owning_price(h100, Owning(years=3, usd_per_kwh=0.1, pue=1.5))
    assert quote.usd_per_gpu_hour == pytest.approx(30_000 / (3 * 8760) + 0.7 * 1.5 * 0.1)
    # Longer depreciation and cheaper power both lower the hourly cost.
    assert owning_price(h100, Owning(years=5)).usd_per_gpu_hour < owning_price(h100, Owning(years=3)).usd_per_gpu_hour
    assert owning_price(h100, Owning(usd_per_kwh=0.05)).usd_per_gpu_hour < quote.usd_per_gpu_hour


def test_a_card_that_is_not_sold_cannot_be_owned_and_says_so():
    unsold = dataclasses.replace(CATALOG.gpus["h100-sxm"], purchase_usd=None)
    quote = owning_price(unsold)
    assert quote.usd_per_gpu_hour is None and "not sold" in quote.note


@pytest.mark.parametrize("owning", [Owning(years=0), Owning(usd_per_kwh=-1), Owning(pue=0.5)])
def test_owning_terms_out_of_range_name_their_field(owning):
    with pytest.raises(ScenarioError) as error:
        owning_price(CATALOG.gpus["h100-sxm"], owning)
    assert error.value.field in ("years", "usd_per_kwh", "pue")
