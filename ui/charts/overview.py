"""The Overview page's chart: time per generated token, GPU against CPU (the seeds' rule)."""

from __future__ import annotations

import altair as alt

from ui.charts import ChartData, data_of

__all__ = ["token_time_chart"]

_KIND_COLORS = alt.Scale(domain=["ideal", "expected"], range=["#9ecae9", "#1f77b4"])


def token_time_chart(rows: ChartData) -> alt.LayerChart:
    """Horizontal bars of time per generated token (ms, linear: lengths compare directly).

    Args:
        rows: rows of {label, kind, ms}; kind is 'ideal' (bytes ÷ bandwidth) or 'expected'.
    """
    base = alt.Chart(data_of(rows)).encode(
        y=alt.Y("label:N", title=None, sort=None, axis=alt.Axis(labelLimit=160, labelFontSize=12)),
        yOffset=alt.YOffset("kind:N", sort=["ideal", "expected"]),
        x=alt.X("ms:Q", title="Time per generated token, one card (ms)", axis=alt.Axis(labelFontSize=12)),
        tooltip=[
            alt.Tooltip("label:N", title="Device"),
            alt.Tooltip("kind:N", title="Figure"),
            alt.Tooltip("ms:Q", title="ms per token", format=",.1f"),
        ],
    )
    legend = alt.Legend(
        title=None,
        orient="bottom",
        direction="vertical",
        labelFontSize=12,
        labelExpr="datum.label == 'ideal' ? 'ideal: bytes ÷ bandwidth' : 'expected: with efficiencies'",
    )
    bars = base.mark_bar().encode(color=alt.Color("kind:N", scale=_KIND_COLORS, legend=legend))
    labels = base.mark_text(align="left", dx=3, fontSize=12).encode(text=alt.Text("ms:Q", format=",.1f"))
    return alt.layer(bars, labels).properties(height=190)
