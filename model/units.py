"""Units and number parsing shared by the engine and the command line.

Every quantity inside the engine is a plain number in SI base units: bytes, seconds, FLOPs,
US dollars, watts, kWh. Catalogs are written in the units vendors print (decimal GB, GB/s,
TFLOPS) and converted once, when they are loaded.
"""

from __future__ import annotations

import math
import re

__all__ = [
    "DAY_S",
    "GB",
    "GIB",
    "HOUR_S",
    "MIB",
    "TERA",
    "format_count",
    "format_duration",
    "format_gb",
    "format_usd",
    "parse_quantity",
]

GB = 1e9
"""Decimal gigabyte: the unit this project reports bytes in. Datasheets print the size in "GB"
though HBM comes in binary stacks: an H100's "80 GB" is 80 GiB, and the driver reports 81,559 MiB
(85.5e9 bytes) of it (see Gpu.capacity_bytes)."""
GIB = 2.0**30
"""Binary gibibyte: what PyTorch reports."""
MIB = 2.0**20
"""Binary mebibyte: what nvidia-smi reports."""
TERA = 1e12
HOUR_S = 3600.0
DAY_S = 86400.0

_SUFFIXES = {"": 1.0, "k": 1e3, "m": 1e6, "b": 1e9, "g": 1e9, "t": 1e12}
_QUANTITY = re.compile(r"^\s*([+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)\s*([kKmMbBgGtT]?)\s*$")


def parse_quantity(text: str | float | int) -> float:
    """Parse a count such as ``7e9``, ``7B``, ``2T``, ``1.5k`` or ``300`` into a float.

    Suffixes: k (thousand), M (million), B or G (billion), T (trillion).

    Raises:
        ValueError: the text is not a finite number with an optional suffix.
    """
    if isinstance(text, bool):
        raise ValueError(f"{text!r} is not a number")
    if isinstance(text, (int, float)):
        value = float(text)
    else:
        match = _QUANTITY.match(text)
        if match is None:
            raise ValueError(f"{text!r} is not a number (examples: 7e9, 7B, 2T, 1.5k)")
        value = float(match.group(1)) * _SUFFIXES[match.group(2).lower()]
    if not math.isfinite(value):
        raise ValueError(f"{text!r} is not a finite number")
    return value


def format_gb(value: float) -> str:
    """Write bytes as decimal gigabytes to one decimal (``139.8 GB``), as the warnings and the CLI do."""
    return f"{value / GB:,.1f} GB"


def format_count(value: float) -> str:
    """Write a count with a T, B, M or k suffix to three significant figures (70e9 becomes ``70B``).

    Counts under ten thousand are written in full with thousands separators ('9,500'); from there
    'k' (385k GPU-hours, not 384,991: a figure read at a glance, as the other suffixes are).
    """
    suffixes = ((1e12, "T", 1e12), (1e9, "B", 1e9), (1e6, "M", 1e6), (1e3, "k", 1e4))
    for index, (scale, suffix, start) in enumerate(suffixes):
        if value >= start:
            scaled = value / scale
            if scaled >= 1000:  # past 1,000 of the largest suffix, whole numbers: '10,000T', never '1e+04T'
                return f"{scaled:,.0f}{suffix}"
            if float(f"{scaled:.3g}") >= 1000:  # 999,999 rounds up to the next suffix: '1M', not '1e+03k'
                larger, name, _ = suffixes[index - 1]
                return f"{value / larger:.3g}{name}"
            return f"{scaled:.3g}{suffix}"
    return f"{value:,.0f}"


def format_duration(seconds: float) -> str:
    """Write seconds in the unit a person reads at a glance: ``850 ms``, ``14.2 s``, ``3.5 min``, ``2.1 h``."""
    if seconds < 1.0:
        return f"{seconds * 1e3:,.0f} ms"
    if seconds < 120.0:
        return f"{seconds:,.1f} s"
    if seconds < 2 * HOUR_S:
        return f"{seconds / 60.0:,.1f} min"
    return f"{seconds / HOUR_S:,.1f} h"


def format_usd(value: float | None) -> str:
    """Write US dollars with a precision a person reads at a glance: $1.20B, $1.20M, $4,300, $4.30, $0.420.

    ``n/a`` when the amount is unknown (None) or not finite.
    """
    if value is None or not math.isfinite(value):
        return "n/a"
    if value >= 1e12:  # $1.16T, not $1,156.95B
        return f"${value / 1e12:,.2f}T"
    if value >= 1e9:
        return f"${value / 1e9:,.2f}B"
    if value >= 1e6:
        return f"${value / 1e6:,.2f}M"
    if value >= 100:
        return f"${value:,.0f}"
    if value >= 1:
        return f"${value:,.2f}"
    return f"${value:,.3f}"
