"""One-line takeaways: plain sentences built from estimates (no arithmetic beyond formatting)."""

from __future__ import annotations

import functools
from collections.abc import Sequence

from model import Estimate
from ui.i18n import tr

__all__ = ["escape_markdown", "likely_text", "listed", "range_text", "sentences", "span"]

_MARKDOWN_SPECIALS = frozenset("\\`*_{}[]()<>#+-.!|$~:")


def escape_markdown(text: str) -> str:
    """Return ``text`` with every Markdown (and Streamlit directive or LaTeX) character escaped.

    For messages that quote what a visitor typed or uploaded: shown through st.warning or
    st.error, which render Markdown, a quoted '![x](http://...)' must stay text, not an image.
    """
    return "".join("\\" + c if c in _MARKDOWN_SPECIALS else c for c in text)


def range_text(result: Estimate, name: str, formatter: type | object = None) -> str:
    """Return 'low–high' for a headline figure, formatted like the figure."""
    low_high = result.ranges.get(name)
    if low_high is None:
        return tr("no range")
    fmt = formatter if callable(formatter) else str
    return f"{fmt(low_high.low)} – {fmt(low_high.high)}"


def likely_text(result: Estimate, name: str, formatter: type | object = None) -> str:
    """Return 'likely low–high' when the calibration leaves the figure uncertain, else ''."""
    bounds = result.uncertain_range(name)
    if bounds is None:
        return ""
    fmt = formatter if callable(formatter) else str
    return tr("likely {span}", span=span(fmt(bounds.low), fmt(bounds.high)))


def span(low: str, high: str) -> str:
    """Join two formatted ends, naming a shared unit once: '5.3 ms', '7.6 ms' -> '5.3–7.6 ms'."""
    low_number, _, low_unit = low.rpartition(" ")
    high_number, _, high_unit = high.rpartition(" ")
    if low_number and high_number and low_unit == high_unit:
        return f"{low_number}–{high}"
    return f"{low}–{high}"


def sentences(parts: Sequence[str]) -> str:
    """Join sentences as the visit's language does: with a space in English, none in Chinese."""
    return functools.reduce(lambda first, second: tr("{first} {second}", first=first, second=second), parts)


def listed(parts: Sequence[str]) -> str:
    """Join items with the visit's list comma: 'a, b, c' in English, 'a，b，c' in Chinese."""
    return functools.reduce(lambda first, second: tr("{first}, {second}", first=first, second=second), parts)
