"""Memory charts: what each card holds, by component, against its capacity."""

from __future__ import annotations

import altair as alt

from ui.charts import ChartData, component_color_scale, data_of
from ui.i18n import tr

__all__ = ["memory_breakdown_chart"]


def memory_breakdown_chart(parts: ChartData, capacity: ChartData, budget: ChartData | None = None) -> alt.LayerChart:
    """Stacked bars of memory per card (GB) for each workload, with the card's capacity as a rule.

    Args:
        parts: rows of {workload, component, gb, order}.
        capacity: one row {gb, label}: the card's memory.
        budget: zero or one row {gb, label}: what a server uses of it (serving's limit), a dotted
            rule labelled to its left, so the two labels never overlap.
    """
    bars = (
        alt.Chart(data_of(parts))
        .mark_bar(height={"band": 0.7})
        .encode(
            x=alt.X("sum(gb):Q", title=tr("Memory per card (GB, decimal)"), stack="zero"),
            y=alt.Y("workload:N", title=None, sort=None, axis=alt.Axis(labelLimit=220)),
            color=alt.Color(
                "component:N", title=tr("Component"), scale=component_color_scale(), legend=alt.Legend(orient="right")
            ),
            order=alt.Order("order:Q"),
            tooltip=[
                alt.Tooltip("workload:N", title=tr("Workload")),
                alt.Tooltip("component:N", title=tr("Component")),
                alt.Tooltip("gb:Q", title="GB", format=",.1f"),
            ],
        )
    )
    capacity_tooltip = [alt.Tooltip("label:N", title=tr("Capacity")), alt.Tooltip("gb:Q", title="GB", format=",.1f")]
    rule = (
        alt.Chart(data_of(capacity))
        .mark_rule(color="#d62728", strokeDash=[6, 3], size=2)
        .encode(x="gb:Q", tooltip=capacity_tooltip)
    )
    label = (
        alt.Chart(data_of(capacity))
        .mark_text(fontSize=12, align="left", dx=4, dy=-6, color="#d62728", fontWeight="bold")
        .encode(x="gb:Q", y=alt.value(0), text="label:N", tooltip=capacity_tooltip)
    )
    layers = [bars, rule, label]
    if budget is not None:
        budget_tooltip = [alt.Tooltip("label:N", title=tr("Serving")), alt.Tooltip("gb:Q", title="GB", format=",.1f")]
        layers += [
            alt.Chart(data_of(budget))
            .mark_rule(color="#d62728", strokeDash=[2, 2], size=2)
            .encode(x="gb:Q", tooltip=budget_tooltip),
            alt.Chart(data_of(budget))
            .mark_text(fontSize=12, align="right", dx=-4, dy=-6, color="#d62728")
            .encode(x="gb:Q", y=alt.value(0), text="label:N", tooltip=budget_tooltip),
        ]
    return alt.layer(*layers).properties(height=170)
