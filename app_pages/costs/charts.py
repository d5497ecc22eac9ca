"""Cost charts: training against serving over months, and training as the card count grows."""

from __future__ import annotations

import altair as alt

from app_pages.costs.rows import COST_SERIES, IDEAL_SETUP
from model.analyses.scaling import SETUP_LABELS
from ui.charts import ChartData, data_of, part_color_scale
from ui.i18n import tr

__all__ = ["cost_over_time_chart", "scaling_time_chart", "step_share_chart"]

_MARK_COLOR = "#333333"


def _series_scale(values: list) -> alt.Scale:
    """A scale over the cost lines, named in the visit's language."""
    return alt.Scale(domain=[tr(series) for series in COST_SERIES], range=values)


def cost_over_time_chart(lines: ChartData, marks: ChartData) -> alt.LayerChart:
    """Cumulative cost (US$, log) against months: training, self-hosted serving, both, and the API.

    The cost axis is logarithmic: a training bill of $15k and an API bill of $600k both stay
    readable, and the break-even crossing does not sink into the axis.

    Args:
        lines: rows of {month, series, usd, order}; series is one of COST_SERIES, translated; usd > 0.
        marks: rows of {month, usd, label, align, dx, dy}: the break-even and API crossover
            months, with where each label goes relative to its point.
    """
    y = alt.Y("usd:Q", title=tr("Cumulative cost (US$, log scale)"), scale=alt.Scale(type="log"))
    colors = _series_scale(["#7f7f7f", "#4C78A8", "#F58518", "#E45756"])
    dashes = _series_scale([[6, 3], [1, 0], [1, 0], [1, 0]])
    costs = (
        alt.Chart(data_of(lines))
        .mark_line(strokeWidth=2.5)
        .encode(
            x=alt.X("month:Q", title=tr("Months from the start of training (30.44-day months)")),
            y=y.axis(format="$,.2~s"),
            color=alt.Color("series:N", title=None, scale=colors, legend=alt.Legend(orient="top")),
            strokeDash=alt.StrokeDash("series:N", scale=dashes, legend=None),
            order=alt.Order("month:Q"),
            tooltip=[
                alt.Tooltip("series:N", title=tr("Line")),
                alt.Tooltip("month:Q", title=tr("Month"), format=",.2~f"),
                alt.Tooltip("usd:Q", title="US$", format="$,.0f"),
            ],
        )
    )
    tooltip = [
        alt.Tooltip("label:N", title=tr("Mark")),
        alt.Tooltip("month:Q", title=tr("Month"), format=",.1f"),
        alt.Tooltip("usd:Q", title=tr("US$ by then"), format="$,.0f"),
    ]
    base = alt.Chart(data_of(marks)).encode(x="month:Q", tooltip=tooltip)
    rule = base.mark_rule(color=_MARK_COLOR, strokeDash=[4, 3])
    point = base.mark_point(color=_MARK_COLOR, filled=True, size=70).encode(y="usd:Q")
    label = base.mark_text(
        fontSize=12,
        align=alt.expr("datum.align"),
        dx=alt.expr("datum.dx"),
        dy=alt.expr("datum.dy"),
        fontWeight="bold",
        color=_MARK_COLOR,
    ).encode(y="usd:Q", text="label:N")
    return alt.layer(costs, rule, point, label).properties(height=360)


def scaling_time_chart(rows: ChartData) -> alt.LayerChart:
    """Training time (days, log) against cards (log), one line per link setup plus perfect scaling.

    Args:
        rows: rows of {cards, setup, days} (and links, cost_usd, gpu_hours, mfu_pct for estimates);
            setup is one of the engine's SETUP_LABELS or IDEAL_SETUP, translated.
    """
    ideal_setup = tr(IDEAL_SETUP)
    cards = alt.Axis(format="~s")
    x = alt.X("cards:Q", title=tr("Cards (log scale)"), scale=alt.Scale(type="log", nice=False), axis=cards)
    y = alt.Y("days:Q", title=tr("Training time (days, log scale)"), scale=alt.Scale(type="log", nice=False))
    # One column: two did not fit half a 1280 px page ("PCIe inside the node" was cut at the chart edge).
    legend = alt.Legend(orient="top", columns=1, labelLimit=260, symbolType="stroke")
    setups = alt.Scale(domain=[*map(tr, SETUP_LABELS), ideal_setup], range=["#4C78A8", "#F58518", "#E45756", "#7f7f7f"])
    color = alt.Color("setup:N", title=None, scale=setups, legend=legend)
    estimates = alt.Chart(data_of(rows)).transform_filter(alt.datum.setup != ideal_setup)
    tooltip = [
        alt.Tooltip("setup:N", title=tr("Setup")),
        alt.Tooltip("links:N", title=tr("Links")),
        alt.Tooltip("cards:Q", title=tr("Cards"), format=","),
        alt.Tooltip("days:Q", title=tr("Days"), format=",.2f"),
        alt.Tooltip("cost_usd:Q", title=tr("Cost (US$)"), format="$,.0f"),
        alt.Tooltip("gpu_hours:Q", title=tr("GPU-hours"), format=",.0f"),
        alt.Tooltip("mfu_pct:Q", title="MFU (%)", format=".0f"),
    ]
    lines = estimates.mark_line(strokeWidth=2).encode(x=x, y=y, color=color, tooltip=tooltip)
    points = estimates.mark_point(filled=True, size=45).encode(x=x, y=y, color=color, tooltip=tooltip)
    ideal = (
        alt.Chart(data_of(rows))
        .transform_filter(alt.datum.setup == ideal_setup)
        .mark_line(strokeDash=[6, 4], strokeWidth=1.5)
        .encode(
            x=x,
            y=y,
            color=color,
            tooltip=[
                alt.Tooltip("setup:N", title=tr("Line")),
                alt.Tooltip("cards:Q", title=tr("Cards"), format=","),
                alt.Tooltip("days:Q", title=tr("Days"), format=",.2f"),
            ],
        )
    )
    return alt.layer(ideal, lines, points).properties(height=330)


def step_share_chart(rows: ChartData) -> alt.LayerChart:
    """Stacked shares of one training step (%) per card count: compute, each communication, bubble.

    Args:
        rows: rows of {cards, part, pct, order}; part is a label of STEP_PARTS, translated.
    """
    bars = (
        alt.Chart(data_of(rows))
        .mark_bar()
        .encode(
            x=alt.X("cards:O", title=tr("Cards (powers of two)"), axis=alt.Axis(labelAngle=0, labelOverlap=True)),
            y=alt.Y(
                "sum(pct):Q", title=tr("Share of the step time (%)"), stack="zero", scale=alt.Scale(domain=[0, 100])
            ),
            color=alt.Color("part:N", title=None, scale=part_color_scale(), legend=alt.Legend(orient="right")),
            order=alt.Order("order:Q"),
            tooltip=[
                alt.Tooltip("cards:O", title=tr("Cards")),
                alt.Tooltip("part:N", title=tr("Part")),
                alt.Tooltip("pct:Q", title=tr("% of the step"), format=".1f"),
            ],
        )
    )
    return alt.layer(bars).properties(height=330)
