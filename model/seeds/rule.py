"""The one rule that judges a seed claim against the engine, and the wording every check shares.

A claim, widened by its tolerance (:data:`SPEC_TOLERANCE` for datasheet figures,
:data:`APPROXIMATE_TOLERANCE` for figures the seed gives as "about"), is consistent when it
overlaps the engine's range, partly right within :data:`PARTLY_FACTOR`, else contradicted
(:func:`verdict`). Shared by the catalog and engine checks; :mod:`model.seeds` exports the rule and
its constants.
"""

from __future__ import annotations

import math

from model.catalog import ApiPrice, Catalog
from model.seeds.claims import VERDICTS, Verdict

__all__ = [
    "APPROXIMATE_TOLERANCE",
    "PARTLY_FACTOR",
    "SPEC_TOLERANCE",
    "point",
    "price_row",
    "verdict",
    "worst_verdict",
]


SPEC_TOLERANCE = 0.02
"""A datasheet figure the seed rounds (989 for 989.4) still matches within 2 %."""
APPROXIMATE_TOLERANCE = 0.15
"""A figure the seed gives as about (约, ~) or as a round estimate matches within 15 %."""
PARTLY_FACTOR = 1.5
"""Outside its tolerance but within this factor, a claim is partly right; beyond it, contradicted."""


def verdict(claimed: tuple[float, float], engine: tuple[float, float], tolerance: float) -> Verdict:
    """Compare a claimed interval with the engine's (low, high) and return the verdict.

    The claim, widened by ``tolerance``, is consistent when it overlaps the engine's range;
    partly right when the gap between them is within :data:`PARTLY_FACTOR`; else contradicted.
    """
    low, high = claimed[0] / (1.0 + tolerance), claimed[1] * (1.0 + tolerance)
    if not all(math.isfinite(value) for value in engine):
        return "contradicts"
    if engine[1] >= low and engine[0] <= high:
        return "consistent"
    gap = low / engine[1] if engine[1] < low else engine[0] / high
    return "partly" if gap <= PARTLY_FACTOR else "contradicts"


def worst_verdict(*verdicts: Verdict) -> Verdict:
    """Return the worst of ``verdicts``: contradicts, then partly, then consistent."""
    return max(verdicts, key=VERDICTS.index)


def point(value: float) -> tuple[float, float]:
    """Return ``value`` as a range of one point, (value, value)."""
    return value, value


def price_row(catalog: Catalog, price_id: str) -> ApiPrice | None:
    """Return the catalog's API price row ``price_id``, or ``None`` when it has none."""
    return next((price for price in catalog.prices if price.id == price_id), None)
