"""VRAM charts: memory per card for each setting of one knob, and inference memory against load."""

from __future__ import annotations

import re

import altair as alt

from ui.charts import ChartData, component_color_scale, data_of
from ui.i18n import tr

__all__ = ["knob_memory_chart", "load_memory_chart"]

_CAPACITY_COLOR = "#d62728"


def _fit_colors() -> alt.Scale:
    """Green for 'fits', red for 'does not fit', named in the visit's language as the rows are."""
    return alt.Scale(domain=[tr("fits"), tr("does not fit")], range=["#54A24B", _CAPACITY_COLOR])


def _capacity_rule(capacity: ChartData, outside: bool = False) -> list[alt.Chart]:
    """A dashed horizontal rule at the card's memory, labelled inside at the left, or outside at the right.

    Outside, the label is short ('80 GB') so it fits the margin and never sits on a bar.
    """
    tooltip = [alt.Tooltip("label:N", title=tr("Capacity")), alt.Tooltip("gb:Q", title="GB", format=",.1f")]
    rule = (
        alt.Chart(data_of(capacity))
        .mark_rule(color=_CAPACITY_COLOR, strokeDash=[6, 3], size=2)
        .encode(y="gb:Q", tooltip=tooltip)
    )
    if outside:
        label = (
            alt.Chart(data_of(capacity))
            .transform_calculate(short="format(datum.gb, ',.0f') + ' GB'")
            .mark_text(fontSize=12, align="left", baseline="middle", dx=4, color=_CAPACITY_COLOR, fontWeight="bold")
            .encode(y="gb:Q", x=alt.value("width"), text="short:N")
        )
    else:
        # At the right end and under the rule, where past the largest fit the memory line runs above it;
        # over the rule only when it lies too near the axis to leave room under it.
        near_axis = "scale('y', datum.gb) > height * 0.8"
        label = (
            alt.Chart(data_of(capacity))
            .mark_text(
                fontSize=12,
                align="right",
                baseline=alt.expr(f"{near_axis} ? 'bottom' : 'top'"),
                dx=-4,
                dy=alt.expr(f"{near_axis} ? -3 : 3"),
                color=_CAPACITY_COLOR,
                fontWeight="bold",
            )
            .encode(y="gb:Q", x=alt.value("width"), text="label:N", tooltip=tooltip)
        )
    return [rule, label]


def knob_memory_chart(parts: ChartData, capacity: ChartData, knob_title: str | None = None) -> alt.LayerChart:
    """Stacked columns of training memory per card (GB) for each setting of one knob, against capacity.

    Args:
        parts: rows of {option, component, gb, order, status}: one per memory component per setting.
        capacity: one row {gb, label}: the card's memory.
        knob_title: the knob's name, the x axis title (e.g. 'ZeRO stage'); 'Setting' when not given.
    """
    knob_title = knob_title or tr("Setting")
    bars = (
        alt.Chart(data_of(parts))
        .mark_bar(width={"band": 0.7})
        .encode(
            x=alt.X("option:N", title=knob_title, sort=None, axis=alt.Axis(labelAngle=0, labelLimit=120)),
            y=alt.Y("sum(gb):Q", title=tr("Memory per card (GB, decimal)"), stack="zero"),
            # Three knob charts sit side by side under the main chart's legend: no legend of their own.
            color=alt.Color("component:N", title=tr("Component"), scale=component_color_scale(), legend=None),
            order=alt.Order("order:Q"),
            tooltip=[
                alt.Tooltip("option:N", title=knob_title),
                alt.Tooltip("component:N", title=tr("Component")),
                alt.Tooltip("gb:Q", title="GB", format=",.1f"),
                alt.Tooltip("status:N", title=tr("Total")),
            ],
        )
    )
    return alt.layer(bars, *_capacity_rule(capacity, outside=True)).properties(height=280)


def load_memory_chart(
    points: ChartData, capacity: ChartData, limit: ChartData, x_title: str | None = None
) -> alt.LayerChart:
    """Inference memory per card (GB) against context or batch on a log axis, with capacity and the limit.

    Args:
        points: rows of {x, gb, status}: total memory per card at each context or batch; status is
            'fits' or 'does not fit'.
        capacity: one row {gb, label}: the card's memory.
        limit: zero or one row {x, label}: the largest value that fits, marked by a vertical rule.
        x_title: the x axis title, with its unit in brackets; 'Context (tokens, log scale)' when not given.
    """
    x_title = x_title or tr("Context (tokens, log scale)")
    x = alt.X("x:Q", title=x_title, scale=alt.Scale(type="log"), axis=alt.Axis(format="~s"))
    tooltip = [
        alt.Tooltip("x:Q", title=re.split(r" \(|（", x_title)[0], format=",.0f"),
        alt.Tooltip("gb:Q", title=tr("GB per card"), format=",.1f"),
        alt.Tooltip("status:N", title=tr("Fits?")),
    ]
    base = alt.Chart(data_of(points)).encode(
        x=x, y=alt.Y("gb:Q", title=tr("Memory per card (GB, decimal)")), tooltip=tooltip
    )
    line = base.mark_line(color="#4C78A8")
    dots = base.mark_point(filled=True, size=50).encode(
        color=alt.Color("status:N", title=None, scale=_fit_colors(), legend=alt.Legend(orient="top"))
    )
    limit_rule = (
        alt.Chart(data_of(limit))
        .mark_rule(color="#54A24B", strokeDash=[2, 2], size=2)
        .encode(
            x=alt.X("x:Q", scale=alt.Scale(type="log")), tooltip=[alt.Tooltip("label:N", title=tr("Largest that fits"))]
        )
    )
    # Read away from the nearer edge, so a limit close to the axis does not run into its labels.
    left_half = "scale('x', datum.x) < width / 2"
    limit_label = (
        alt.Chart(data_of(limit))
        .mark_text(
            fontSize=12,
            align=alt.expr(f"{left_half} ? 'left' : 'right'"),
            dx=alt.expr(f"{left_half} ? 4 : -4"),
            baseline="top",
            dy=4,
            color="#2f7d32",
            fontWeight="bold",
        )
        .encode(
            x=alt.X("x:Q", scale=alt.Scale(type="log")),
            y=alt.value(0),
            text="label:N",
            tooltip=[alt.Tooltip("label:N", title=tr("Largest that fits"))],
        )
    )
    return alt.layer(line, dots, limit_rule, limit_label, *_capacity_rule(capacity)).properties(height=300)
