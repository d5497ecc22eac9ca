"""The formula record and its groups (the table itself is :mod:`model.explain.formulas`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

__all__ = ["FORMULA_GROUPS", "Formula", "figured", "filed", "scientific"]


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
    template: str = ""
    """``used_for`` with its figures as ``{fields}`` (see :func:`figured`); empty when it has none."""
    fields: Mapping[str, str] = field(default_factory=dict, hash=False)
    """The figures, already formatted, that fill ``template``."""

    @property
    def used_for_template(self) -> str:
        """What the formula is used for, with its figures as fields: the text an interface translates."""
        return self.template or self.used_for


def figured(name: str, latex: str, used_for: str, source: str, code: str, **fields: str) -> Formula:
    """Return a formula whose ``used_for`` names figures: a template filled from ``fields``."""
    return Formula(name, latex, used_for.format(**fields), source, code, template=used_for, fields=fields)


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
