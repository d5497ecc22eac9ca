"""Validation chart: the engine's prediction against each published measurement, log-log."""

from __future__ import annotations

import altair as alt

from ui.charts import ChartData, data_of
from ui.i18n import tr, translatable

__all__ = ["KIND_COLORS", "error_chart", "validation_chart"]

KIND_COLORS: dict[str, str] = {
    translatable("Training totals"): "#4C78A8",
    translatable("Training throughput"): "#F58518",
    translatable("Inference"): "#54A24B",
    translatable("MoE serving"): "#E45756",
    translatable("On a desk (local runners)"): "#72B7B2",
    translatable("Memory"): "#B279A2",
}
"""One colour per kind of measurement (the chart rows carry the kind's label in the visit's language)."""
_TICKS = [10.0**power for power in range(-1, 9)]
_HEIGHT = 460


def _kinds() -> list[str]:
    """The kinds' labels in the visit's language, in :data:`KIND_COLORS` order."""
    return [tr(kind) for kind in KIND_COLORS]


def _axis(field: str, title: str) -> alt.X | alt.Y:
    scale = alt.Scale(type="log")
    # Below 1 a decimal ('0.1', never SI's '100m'); from 1,000 k and M as the rest of the app writes counts.
    labels = "datum.value < 1 ? format(datum.value, '.1~f') : format(datum.value, '~s')"
    axis = alt.Axis(values=_TICKS, labelExpr=labels, grid=True)
    return (alt.X if field == "measured" else alt.Y)(f"{field}:Q", title=title, scale=scale, axis=axis)


def validation_chart(points: ChartData, band: ChartData) -> alt.LayerChart:
    """Predicted against measured on log-log axes, with y = x and a ±25 % band.

    Units differ between measurements (GPU-hours, tokens/s, GiB): each point sits in its own
    unit, so only its distance from the y = x line matters.

    Args:
        points: rows of {id, kind, measured, predicted, error, unit, where, source, quote}.
        band: two rows of {measured, low, high}: the ends of y = x and of the band.
    """
    x = _axis("measured", tr("Measured (each in its own unit, log)"))
    shade = (
        alt.Chart(data_of(band))
        .mark_area(color="#9e9e9e", opacity=0.18)
        .encode(x=x, y=alt.Y("low:Q", scale=alt.Scale(type="log")), y2="high:Q")
    )
    identity = (
        alt.Chart(data_of(band))
        .mark_line(color="#555555", strokeDash=[5, 4], strokeWidth=1.5)
        .encode(x=x, y=_axis("measured", ""))
    )
    note = (
        alt.Chart(data_of(band))
        .transform_filter("datum.measured > 1e3")
        .mark_text(align="right", dx=-6, dy=-10, color="#555555", fontSize=12)
        .encode(x=x, y=alt.Y("high:Q", scale=alt.Scale(type="log")), text=alt.value(tr("y = x, band ±25 %")))
    )
    dots = (
        alt.Chart(data_of(points))
        .mark_circle(size=90, opacity=0.9, stroke="white", strokeWidth=1)
        .encode(
            x=x,
            y=_axis("predicted", tr("Predicted (same unit, log)")),
            color=alt.Color(
                "kind:N",
                title=None,
                scale=alt.Scale(domain=_kinds(), range=list(KIND_COLORS.values())),
                # No legend: over the plot it hid the small runs' points, below it was cut on a projector;
                # the chart beside names each colour's kind on its rows (the caption says so).
                legend=None,
            ),
            tooltip=[
                alt.Tooltip("id:N", title=tr("Measurement")),
                alt.Tooltip("where:N", title=tr("Run")),
                alt.Tooltip("measured:Q", title=tr("Measured"), format=",.4~g"),
                alt.Tooltip("predicted:Q", title=tr("Predicted"), format=",.4~g"),
                alt.Tooltip("unit:N", title=tr("Unit")),
                alt.Tooltip("error:Q", title=tr("Error"), format="+.1%"),
                alt.Tooltip("source:N", title=tr("Source")),
                alt.Tooltip("quote:N", title=tr("Quoted row")),
            ],
        )
    )
    return alt.layer(shade, identity, note, dots).properties(height=_HEIGHT)


def error_chart(points: ChartData) -> alt.LayerChart:
    """Each measurement's signed error (predicted ÷ measured − 1), one row per kind, ±25 % shaded.

    Args:
        points: the same rows as :func:`validation_chart`.
    """
    kinds = _kinds()
    shade = [{"low": -0.25, "high": 0.25, "exact": 0.0}]  # one row: one rectangle, one rule
    band = alt.Chart(data_of(shade)).mark_rect(color="#9e9e9e", opacity=0.18).encode(x="low:Q", x2="high:Q")
    zero = alt.Chart(data_of(shade)).mark_rule(color="#555555", strokeDash=[5, 4]).encode(x="exact:Q")
    dots = (
        alt.Chart(data_of(points))
        .mark_circle(size=90, opacity=0.85, stroke="white", strokeWidth=1)
        .encode(
            x=alt.X(
                "error:Q",
                # Short enough for half a 1280-px projector's width in presentation mode's larger text.
                title=tr("Predicted ÷ measured − 1"),
                axis=alt.Axis(format="+.0%", values=[-0.5, -0.25, 0, 0.25, 0.5, 0.75, 1.0]),
                scale=alt.Scale(domain=[-0.6, 1.0], clamp=True),
            ),
            y=alt.Y("kind:N", title=None, sort=kinds, axis=alt.Axis(labelLimit=200)),
            color=alt.Color("kind:N", scale=alt.Scale(domain=kinds, range=list(KIND_COLORS.values())), legend=None),
            tooltip=[
                alt.Tooltip("id:N", title=tr("Measurement")),
                alt.Tooltip("where:N", title=tr("Run")),
                alt.Tooltip("error:Q", title=tr("Error"), format="+.1%"),
                alt.Tooltip("source:N", title=tr("Source")),
            ],
        )
    )
    return alt.layer(band, zero, dots).properties(height=240)
