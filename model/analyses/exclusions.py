"""Why the planner leaves a GPU out: a small fixed set of reasons, each a code with its values.

The CLI and the JSON output join the English sentences with '; '; the interface words each code in
the visit's language from the same templates (:data:`REASONS`).
"""

from __future__ import annotations

from collections.abc import Mapping, Set
from typing import Final

from model.results import Message

__all__ = ["REASONS", "Reason", "worded"]

REASONS: Final[dict[str, str]] = {
    "no_price": "no price known and none given",
    "no_fit": "does not fit",
    "tpot": "misses the time per token at any batch",
    "ttft": "misses the time to first token at the batch that meets the time per token",
    "max_cards": "needs more than {cards} cards",
    "no_fit_max_cards": "does not fit on up to {cards} cards",
    "deadline": "misses the deadline at every card count that fits",
    "budget": "over the budget at every card count that meets the deadline",
    "none": "no option found",
}
"""Reason code -> English template; its fields are the reason's values, already formatted."""


class Reason(Message):
    """One reason a GPU cannot meet the targets: a code of :data:`REASONS`."""

    TABLE = REASONS


def worded(found: Mapping[str, Set[Reason]]) -> tuple[dict[str, str], dict[str, tuple[Reason, ...]]]:
    """Return each GPU's reasons as one English sentence and as a tuple, both sorted by the English.

    A GPU with no reason recorded gets 'no option found'.
    """
    ordered = {gpu: tuple(sorted(reasons, key=lambda r: r.text)) or (Reason("none"),) for gpu, reasons in found.items()}
    return {gpu: "; ".join(reason.text for reason in reasons) for gpu, reasons in ordered.items()}, ordered
