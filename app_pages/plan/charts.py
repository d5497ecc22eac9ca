"""The Plan page's chart: every option's cost against its speed, the Pareto front marked."""

from __future__ import annotations

import altair as alt

from ui.charts import ChartData, data_of
from ui.i18n import tr

__all__ = ["plan_chart"]


def plan_chart(points: ChartData, mine: ChartData, x_title: str, y_title: str) -> alt.LayerChart:
    """Options as points (log cost against speed), the front joined by a line, the user's scenario in red.

    Args:
        points: rows of {label, x, usd, kind}.
        mine: zero or one row, the sidebar's scenario.
        x_title: what x measures (days to train, or ms per output token).
        y_title: what the cost is (dollars in total, or per hour).
    """
    x = alt.X("x:Q", title=x_title, scale=alt.Scale(type="log"), axis=alt.Axis(labelFontSize=12))
    y = alt.Y("usd:Q", title=y_title, scale=alt.Scale(type="log"), axis=alt.Axis(labelFontSize=12, format="$~s"))
    kinds = alt.Scale(
        domain=[tr("option"), tr("Pareto front"), tr("your scenario")], range=["#9ecae9", "#1f77b4", "#d62728"]
    )
    color = alt.Color("kind:N", scale=kinds, title=None, legend=alt.Legend(orient="bottom", labelFontSize=12))
    tooltip = [
        alt.Tooltip("label:N", title=tr("Option")),
        alt.Tooltip("x:Q", format=",.3g"),
        alt.Tooltip("usd:Q", format="$,.0f"),
    ]
    dots = alt.Chart(data_of(points)).mark_circle(size=90, opacity=0.9).encode(x=x, y=y, color=color, tooltip=tooltip)
    front = (
        alt.Chart(data_of(points))
        .transform_filter(alt.datum.kind == tr("Pareto front"))
        .mark_line(color="#1f77b4", strokeDash=[4, 3])
        .encode(x=x, y=y, order="x:Q")
    )
    you = (
        alt.Chart(data_of(mine))
        .mark_point(shape="diamond", size=220, filled=True)
        .encode(x=x, y=y, color=color, tooltip=tooltip)
    )
    return alt.layer(front, dots, you).properties(height=340)
