"""One-line takeaways: plain sentences built from estimates (no arithmetic beyond formatting)."""

from __future__ import annotations

from model import Estimate
from model.units import format_usd
from ui.format import bytes_gb, duration, per_second

__all__ = ["escape_markdown", "joined", "likely_text", "overview_takeaway", "range_text", "span"]

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
        return "no range"
    fmt = formatter if callable(formatter) else str
    return f"{fmt(low_high.low)} – {fmt(low_high.high)}"


def likely_text(result: Estimate, name: str, formatter: type | object = None) -> str:
    """Return 'likely low–high' when the calibration leaves the figure uncertain, else ''."""
    bounds = result.uncertain_range(name)
    if bounds is None:
        return ""
    fmt = formatter if callable(formatter) else str
    return f"likely {span(fmt(bounds.low), fmt(bounds.high))}"


def span(low: str, high: str) -> str:
    """Join two formatted ends, naming a shared unit once: '5.3 ms', '7.6 ms' -> '5.3–7.6 ms'."""
    low_number, _, low_unit = low.rpartition(" ")
    high_number, _, high_unit = high.rpartition(" ")
    if low_number and high_number and low_unit == high_unit:
        return f"{low_number}–{high}"
    return f"{low}–{high}"


def joined(*parts: str) -> str:
    """Join the non-empty parts with a middle dot."""
    return " · ".join(part for part in parts if part)


def overview_takeaway(one: Estimate, full: Estimate, capacity_bytes: float) -> str:
    """Say in one sentence whether it fits, how long training takes and what serving delivers."""
    t = one.training
    training = (
        f"Training fits ({bytes_gb(t.memory_per_gpu.total)} of {bytes_gb(capacity_bytes, 0)} per card) and takes "
        f"{duration(t.time_s)}" + (f" for {format_usd(t.cost_usd)}" if t.cost_usd is not None else "")
        if t.fits
        else f"Training does not fit: it needs {bytes_gb(t.memory_per_gpu.total)} per card, the card has "
        f"{bytes_gb(capacity_bytes, 0)}"
    )
    served = full.inference
    if not served.fits:
        serving = f"serving does not fit: the weights alone need {bytes_gb(served.memory_per_gpu.weights)} per card"
    else:
        serving = (
            f"serving gives one user {per_second(one.inference.decode_tokens_per_s_per_user)}, and at full load "
            f"({served.batch:,} sequences per replica) {per_second(served.decode_tokens_per_s)} in total"
            + (
                f" at {format_usd(served.cost_per_million_output_tokens_usd)} per million output tokens"
                if served.cost_per_million_output_tokens_usd is not None
                else ""
            )
        )
    return f"{training}; {serving}."
