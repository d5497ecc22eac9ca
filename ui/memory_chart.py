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
        budget: zero or one row {gb, label}: what the serving software uses of it (serving's limit), a dotted
            rule; both are named under the chart (:func:`ui.memory_rows.limits_caption`), so no label
            overlaps or is cut.
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
    # The card and the server's budget are named under the chart (ui.memory_rows.limits_caption), never
    # as text beside their rules: two labels 10 % apart overlapped, and one at the chart's edge was cut.
    layers = [bars]
    for rows, kind, dash in ((capacity, tr("Capacity"), [6, 3]), (budget, tr("Serving"), [2, 2])):
        if rows is None:
            continue
        layers.append(
            alt.Chart(data_of(rows))
            .mark_rule(color="#d62728", size=2, strokeDash=dash)
            .encode(
                x="gb:Q",
                tooltip=[alt.Tooltip("label:N", title=kind), alt.Tooltip("gb:Q", title="GB", format=",.1f")],
            )
        )
    return alt.layer(*layers).properties(height=170)
