"""The command line's value parsers: numbers with suffixes, read against the engine's one table of ranges.

Every scenario flag's range is :data:`model.limits.INT_LIMITS` or :data:`model.limits.FLOAT_LIMITS`
(the one home each range has); a flag that is not a scenario field (the planner's targets) names
its own. A parser raises ``argparse.ArgumentTypeError``, which argparse prints as one line.
"""

from __future__ import annotations

import argparse
import math
import re
from collections.abc import Callable
from typing import Any

from model.limits import FLOAT_LIMITS, INT_LIMITS
from model.scenario import MAX_BATCH, dram_bandwidth_gb_s
from model.units import parse_quantity

__all__ = [
    "batch",
    "finite",
    "fraction",
    "host_bandwidth",
    "quantity",
    "scenario_number",
    "scenario_whole",
    "whole",
]

_DRAM = re.compile(r"ddr[45]-(\d{3,5})(?:x(\d{1,3}))?")
"""A memory by its transfer rate and channels: ddr5-5600x2 (two channels; 2 when left out), ddr4-3200x8."""


def quantity(kind: str, minimum: float, maximum: float) -> Callable[[str], float]:
    """Return a parser of a number (7e9, 7B, 2T, 1.5k) from ``minimum`` to ``maximum``."""

    def parse(text: str) -> float:
        try:
            value = parse_quantity(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{text!r} is not a number; expected {kind} (e.g. 7e9, 7B, 2T, 1.5k)"
            ) from None
        if not minimum <= value <= maximum:
            raise argparse.ArgumentTypeError(
                f"{text!r} is out of range; expected {kind} from {minimum:g} to {maximum:g}"
            )
        return value

    return parse


def whole(kind: str, minimum: int, maximum: int) -> Callable[[str], int]:
    """Return a parser of a whole number from ``minimum`` to ``maximum`` (suffixes allowed: 2k)."""
    counted = quantity(kind, minimum, maximum)

    def parse(text: str) -> int:
        value = counted(text)
        if value != int(value):
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number; expected {kind}")
        return int(value)

    return parse


def scenario_whole(field: str, kind: str) -> Callable[[str], int]:
    """Return the parser of a whole-number scenario field, in the range :data:`INT_LIMITS` gives it."""
    low, high = INT_LIMITS[field]
    return whole(kind, low, high)


def scenario_number(field: str, kind: str) -> Callable[[str], float]:
    """Return the parser of a scenario field that is a number, in the range :data:`FLOAT_LIMITS` gives it."""
    low, high, _ = FLOAT_LIMITS[field]
    return quantity(kind, low, high)


def fraction(text: str) -> float:
    """Parse a fraction above 0 and at most 1 (a utilisation, an acceptance rate)."""
    try:
        value = parse_quantity(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number; expected a fraction between 0 and 1") from None
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"{text!r} is out of range; expected a fraction above 0 and at most 1")
    return value


def batch(text: str) -> int | str:
    """Parse a serving batch: a whole number of sequences, or max."""
    if text.strip().lower() == "max":
        return "max"
    return whole("a batch size or max", 1, MAX_BATCH)(text)


def finite(value: Any) -> Any:
    """Replace non-finite floats (never expected) with None, so the JSON printed stays valid."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(item) for item in value]
    return value


def host_bandwidth(text: str) -> float:
    """Parse a host memory bandwidth: GB/s (89.6), or a DDR4/DDR5 memory by channels (ddr5-5600x2, ddr5-4800x12).

    Channels multiply: a server's sockets each bring theirs (two sockets of twelve: ddr5-4800x24).
    """
    low, high, allowed = FLOAT_LIMITS["host_bandwidth_gb_s"]
    found = _DRAM.fullmatch(text.strip().lower())
    if found is None:
        return quantity(f"{allowed}, or a memory by channels such as ddr5-5600x2", low, high)(text)
    channels = int(found.group(2) or 2)
    value = dram_bandwidth_gb_s(float(found.group(1)), channels)
    if not low <= value <= high or channels < 1:
        raise argparse.ArgumentTypeError(f"{text!r} gives {value:g} GB/s; expected {allowed}")
    return value
