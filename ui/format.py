"""Number formatting for people: decimal GB unless it says GiB, seconds as ms/min/days."""

from __future__ import annotations

import math

from model.catalog import Gpu
from model.units import format_usd
from ui.i18n import tr

__all__ = [
    "NOT_RUN",
    "billions",
    "bytes_gb",
    "capacity_text",
    "compact_gpu_name",
    "dollars",
    "duration",
    "milliseconds",
    "per_second",
    "percent",
    "sequences_text",
    "short_milliseconds",
]


NOT_RUN = "—"
"""What a figure shows when its mode cannot run (or no price is known): a dash, never a number for a setup
that cannot exist."""


def _missing(value: float | None) -> bool:
    return value is None or (isinstance(value, float) and not math.isfinite(value))


def bytes_gb(value: float | None, digits: int = 1) -> str:
    """Format bytes as decimal gigabytes ('81.2 GB')."""
    if _missing(value):
        return tr("n/a")
    assert value is not None
    return f"{value / 1e9:,.{digits}f} GB"


def capacity_text(gpu: Gpu) -> str:
    """Name a card with what it holds: the driver's total where known ("H100 SXM: 85.5 GB usable")."""
    if gpu.reported_memory_bytes:
        return tr("{gpu}: {size} usable", gpu=gpu.short_name, size=bytes_gb(gpu.capacity_bytes))
    return f"{gpu.short_name}: {bytes_gb(gpu.memory_bytes, 0)}"


def duration(seconds: float | None) -> str:
    """Format a duration with the unit a person would use (ms, s, min, h, days, years)."""
    if _missing(seconds):
        return tr("n/a")
    assert seconds is not None
    if seconds < 1:
        return f"{seconds * 1e3:,.0f} ms"
    if seconds < 120:
        return f"{seconds:,.1f} s"
    if seconds < 7200:
        return tr("{n} min", n=f"{seconds / 60:,.0f}")
    if seconds < 3 * 86400:
        return tr("{n} h", n=f"{seconds / 3600:,.1f}")
    if seconds < 2 * 365 * 86400:
        return tr("{n} days", n=f"{seconds / 86400:,.1f}")
    years = seconds / (365 * 86400)
    if years >= 1e6:
        return tr("{n} years", n=f"{years / 1e6:,.1f}M")
    if years >= 1e3:
        return tr("{n} years", n=f"{years / 1e3:,.1f}k")
    return tr("{n} years", n=f"{years:,.1f}")


def milliseconds(seconds: float | None, digits: int = 1) -> str:
    """Format seconds as milliseconds ('9.2 ms')."""
    if _missing(seconds):
        return tr("n/a")
    assert seconds is not None
    return f"{seconds * 1e3:,.{digits}f} ms"


def short_milliseconds(seconds: float | None) -> str:
    """Milliseconds to two or three significant figures ('27 ms', '8.3 ms'): for tight spaces."""
    if _missing(seconds):
        return tr("n/a")
    assert seconds is not None
    return milliseconds(seconds, 0 if seconds >= 0.01 else 1)


def per_second(value: float | None, unit: str = "tokens/s") -> str:
    """Format a rate with thousands separators ('12,300 tokens/s')."""
    if _missing(value):
        return tr("n/a")
    assert value is not None
    if value >= 100:
        return f"{value:,.0f} {unit}"
    return f"{value:,.1f} {unit}"


def billions(value: float) -> str:
    """Format a parameter count in billions ('70.6B', '0.5B', '1.2T')."""
    if value >= 1e12:
        return f"{value / 1e12:.3g}T"
    return f"{value / 1e9:.3g}B"


def compact_gpu_name(gpu: Gpu) -> str:
    """Return the GPU's name without its vendor's word: 'H100 SXM5 80GB' of 'NVIDIA H100 SXM5 80GB'."""
    name = gpu.short_name
    vendor = gpu.vendor.split()[0] if gpu.vendor else ""
    return name[len(vendor) + 1 :] if vendor and name.startswith(vendor + " ") else name


def sequences_text(count: int) -> str:
    """Write a number of sequences: '1 sequence', '346 sequences'."""
    return tr("1 sequence") if count == 1 else tr("{n} sequences", n=f"{count:,}")


def percent(value: float | None) -> str:
    """Format a fraction as a percentage ('43%')."""
    if _missing(value):
        return tr("n/a")
    assert value is not None
    return f"{value:.0%}"


def dollars(value: float | None) -> str:
    """Format US dollars as the engine does ('$1.20M', '$4.30'), 'n/a' in the visit's language when unknown."""
    return tr("n/a") if _missing(value) else format_usd(value)
