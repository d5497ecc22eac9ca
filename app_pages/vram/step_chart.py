"""The chosen training layout's step, part by part: one stacked bar in seconds."""

from __future__ import annotations

import altair as alt

from ui.charts import ChartData, data_of, part_color_scale
from ui.i18n import tr

__all__ = ["step_parts_chart"]


def step_parts_chart(rows: ChartData) -> alt.LayerChart:
    """One horizontal bar of the step's seconds, stacked by part (compute, communication, bubble).

    Args:
        rows: rows of {step, part, seconds, pct, order}; part is a label of STEP_PARTS, translated.
    """
    bar = (
        alt.Chart(data_of(rows))
        .mark_bar(height={"band": 0.5})
        .encode(
            x=alt.X("sum(seconds):Q", title=tr("Seconds per optimizer step"), stack="zero"),
            y=alt.Y("step:N", title=None, axis=alt.Axis(labelFontSize=13)),
            color=alt.Color("part:N", title=None, scale=part_color_scale(), legend=alt.Legend(orient="right")),
            order=alt.Order("order:Q"),
            tooltip=[
                alt.Tooltip("part:N", title=tr("Part")),
                alt.Tooltip("seconds:Q", title=tr("Seconds"), format=",.3f"),
                alt.Tooltip("pct:Q", title=tr("% of the step"), format=".1f"),
            ],
        )
    )
    return alt.layer(bar).properties(height=150)
