"""How every number is made: the formulas with their sources, and what one scenario assumes."""

from model.explain._formula import FORMULA_GROUPS, Formula
from model.explain._texts import ASSUMPTION_TEXTS
from model.explain.assumptions import Assumption, assumptions, range_multipliers
from model.explain.formulas import FORMULAS

__all__ = [
    "ASSUMPTION_TEXTS",
    "FORMULAS",
    "FORMULA_GROUPS",
    "Assumption",
    "Formula",
    "assumptions",
    "range_multipliers",
]
