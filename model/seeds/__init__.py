"""Every seed claim set beside what the catalog and the engine compute, with a verdict.

:func:`check_claims` runs each claim's check (:data:`model.seeds._catalog_checks.CATALOG_CHECKS`
reads catalog rows, :data:`model.seeds._engine_checks.ENGINE_CHECKS` runs the engine on a stated
reference setup) and returns a :class:`ClaimCheck` per claim, never a stored answer. Every
verdict comes from one rule, :func:`verdict` in :mod:`model.seeds.rule`. The claims themselves
are :mod:`model.seeds.claims`. This package exports what other code reads.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

from model.catalog import Catalog, default_catalog
from model.seeds._catalog_checks import CATALOG_CHECKS
from model.seeds._engine_checks import ENGINE_CHECKS, REFERENCE_SERVING, REFERENCE_TRAINING
from model.seeds.claims import SEED_CLAIMS, VERDICTS, ClaimCheck, SeedClaim, Verdict
from model.seeds.rule import APPROXIMATE_TOLERANCE, PARTLY_FACTOR, SPEC_TOLERANCE, verdict

__all__ = [
    "APPROXIMATE_TOLERANCE",
    "PARTLY_FACTOR",
    "REFERENCE_SERVING",
    "REFERENCE_TRAINING",
    "SEED_CLAIMS",
    "SPEC_TOLERANCE",
    "VERDICTS",
    "ClaimCheck",
    "SeedClaim",
    "Verdict",
    "check_claims",
    "verdict",
]

_CHECKS: dict[str, Callable[[SeedClaim, Catalog], ClaimCheck]] = {**CATALOG_CHECKS, **ENGINE_CHECKS}


def _check(claim: SeedClaim, catalog: Catalog) -> ClaimCheck:
    """Run one claim's check; a catalog row the user replaced without the figure needed is a result."""
    try:
        return _CHECKS[claim.id](claim, catalog)
    except (KeyError, ArithmeticError, ValueError) as error:  # ScenarioError is a ValueError
        return ClaimCheck(claim, "n/a", math.nan, "partly", f"Not checked: the catalog lacks a figure ({error}).")


@functools.lru_cache(maxsize=8)
def _checked(catalog: Catalog) -> tuple[ClaimCheck, ...]:
    return tuple(_check(claim, catalog) for claim in SEED_CLAIMS)


def check_claims(catalog: Catalog | None = None) -> tuple[ClaimCheck, ...]:
    """Set every seed claim beside the catalog's and the engine's figures, in :data:`SEED_CLAIMS` order.

    Computed once per catalog (the catalog is immutable); the user's added rows do not change
    the reference setups, which name built-in ids.
    """
    return _checked(catalog or default_catalog())
