"""The Overview page's chart: one user's time per generated token, the scenario's cards against a CPU."""

from __future__ import annotations

import altair as alt

from ui.charts import ChartData, data_of
from ui.i18n import tr

__all__ = ["token_time_chart"]

_KIND_RANGE = ["#9ecae9", "#1f77b4"]


def token_time_chart(rows: ChartData) -> alt.LayerChart:
    """Horizontal bars of time per generated token (ms, linear: lengths compare directly).

    Args:
        rows: rows of {label, kind, ms}; kind is tr('ideal') (bytes ÷ bandwidth) or tr('expected').
    """
    kinds = [tr("ideal"), tr("expected")]
    base = alt.Chart(data_of(rows)).encode(
        y=alt.Y("label:N", title=None, sort=None, axis=alt.Axis(labelLimit=200)),
        yOffset=alt.YOffset("kind:N", sort=kinds),
        x=alt.X("ms:Q", title=tr("ms per token, one user")),
        tooltip=[
            alt.Tooltip("label:N", title=tr("Device")),
            alt.Tooltip("kind:N", title=tr("Figure")),
            alt.Tooltip("ms:Q", title=tr("ms per token"), format=",.1f"),
        ],
    )
    # No legend: at a projector's width it was cut; the heading above names the light and dark bars.
    color = alt.Color("kind:N", scale=alt.Scale(domain=kinds, range=_KIND_RANGE), legend=None)
    bars = base.mark_bar().encode(color=color)
    # Two bars a device, each tall enough for its value label (16 px while presenting), labels at the bars' ends.
    labels = base.mark_text(align="left", baseline="middle", dx=4).encode(text=alt.Text("ms:Q", format=",.1f"))
    return alt.layer(bars, labels).properties(height=260)
