"""The formula record and its groups (the table itself is :mod:`model.explain.formulas`)."""

from __future__ import annotations

from dataclasses import dataclass, replace

__all__ = ["FORMULA_GROUPS", "Formula", "filed", "scientific"]


@dataclass(frozen=True, slots=True)
class Formula:
    """One formula: its name, the equation (LaTeX), what it feeds, its source and its code."""

    name: str
    latex: str
    used_for: str
    source: str
    code: str
    """Dotted path of the function (or module) that computes it."""
    group: str = ""


FORMULA_GROUPS: tuple[str, ...] = ("Model size", "Memory", "Training time", "Communication", "Serving", "Hardware")


def filed(table: tuple[str | Formula, ...]) -> tuple[Formula, ...]:
    """Return the table's formulas, each filed under the group name written above it."""
    group, filed = "", []
    for item in table:
        if isinstance(item, str):
            group = item
        else:
            filed.append(replace(item, group=group))
    return tuple(filed)


def scientific(value: float) -> str:
    """Write a number as LaTeX scientific notation (1.2e10 becomes 1.2 times 10 to the 10)."""
    mantissa, exponent = f"{value:.1e}".split("e")
    return rf"{float(mantissa):g} \times 10^{{{int(exponent)}}}"
