"""Throughput charts: decode tokens/s in total and per user against batch, with the roofline."""

from __future__ import annotations

from typing import Literal

import altair as alt

from app_pages.tokens.decode import STEP_PART_ORDER
from app_pages.tokens.rows import EXPECTED, ROOFLINE
from ui.charts import ChartData, data_of
from ui.i18n import tr

__all__ = ["BOUND_COLORS", "step_breakdown_chart", "total_throughput_chart", "user_speed_chart"]

BOUND_COLORS: dict[str, str] = {"memory-bound": "#4C78A8", "compute-bound": "#E45756"}
"""One colour per side of the roofline (the rows name each in the visit's language)."""
_BATCH_TICKS = [4**power for power in range(11)]
"""Powers of four on the batch axis: readable labels without a log axis's minor grid."""
_RATE_TICKS = [base * 10**power for power in range(10) for base in (1, 3)]
"""1-3-10 steps on a log tokens/s axis."""
_HEIGHT = 330
_INK = "#555555"


def _batch_axis() -> alt.X:
    return alt.X(
        "batch:Q",
        title=tr("Batch (concurrent sequences per replica, log scale)"),
        scale=alt.Scale(type="log"),
        axis=alt.Axis(format=",d", values=_BATCH_TICKS),
    )


def _translated(colors: dict[str, str]) -> alt.Scale:
    """A colour scale whose categories are named in the visit's language, as the rows name them."""
    return alt.Scale(domain=[tr(name) for name in colors], range=list(colors.values()))


def _layers(
    y: alt.Y,
    field: str,
    data: dict[str, ChartData],
    free_corner: Literal["top", "bottom"],
) -> list[alt.Chart]:
    """Return the layers both charts share: curves, coloured points, the knee rule, the chosen batch.

    ``free_corner`` says where the chart's right side is empty (labels go there): the total
    flattens at the top right, each user's speed falls to the bottom right.
    """
    curves = (
        alt.Chart(data_of(data["lines"]))
        .mark_line(color="#7f7f7f", strokeWidth=2)
        .encode(
            x=_batch_axis(),
            y=y,
            strokeDash=alt.StrokeDash(
                "series:N",
                scale=alt.Scale(domain=[tr(EXPECTED), tr(ROOFLINE)], range=[[1, 0], [6, 4]]),
                title=None,
                legend=alt.Legend(
                    orient="top",
                    direction="vertical",
                    symbolType="stroke",
                    symbolSize=600,
                    symbolStrokeWidth=2,
                    symbolStrokeColor="#7f7f7f",
                ),
            ),
            detail="series:N",
            tooltip=[
                alt.Tooltip("series:N", title=tr("Curve")),
                alt.Tooltip("batch:Q", title=tr("Batch"), format=",d"),
                alt.Tooltip(f"{field}_text:N", title="tokens/s"),
                alt.Tooltip("tpot_text:N", title=tr("ms per token")),
            ],
        )
    )
    dots = (
        alt.Chart(data_of(data["points"]))
        .mark_circle(size=70, opacity=1)
        .encode(
            x=_batch_axis(),
            y=y,
            color=alt.Color(
                "bound:N",
                title=None,
                scale=_translated(BOUND_COLORS),
                legend=alt.Legend(orient="top", direction="vertical"),
            ),
            tooltip=[
                alt.Tooltip("batch:Q", title=tr("Batch"), format=",d"),
                alt.Tooltip("sequences_text:N", title=tr("Sequences, all replicas")),
                alt.Tooltip(f"{field}_text:N", title=tr("tokens/s (expected)")),
                alt.Tooltip("tpot_text:N", title="TPOT"),
                alt.Tooltip("ttft_text:N", title="TTFT"),
                alt.Tooltip("bound:N", title=tr("Decode step")),
            ],
        )
    )
    knee_tooltip = [alt.Tooltip("batch:Q", title=tr("Knee (sequences)"), format=",.0f")]
    rule = (
        alt.Chart(data_of(data["knee"]))
        .mark_rule(color=_INK, strokeDash=[3, 3], size=1.5)
        .encode(x=alt.X("batch:Q", scale=alt.Scale(type="log")), tooltip=knee_tooltip)
    )
    at_top = free_corner == "top"
    text_y = alt.value(0) if at_top else alt.value({"expr": "height"})
    baseline, shift = ("top", 4) if at_top else ("bottom", -4)
    knee_labels = [
        alt.Chart(data_of(data["knee"]))
        .mark_text(fontSize=12, align=align, dx=dx, dy=shift, baseline=baseline, color=_INK)
        .encode(x="batch:Q", y=text_y, text=f"{side}:N", tooltip=knee_tooltip)
        for align, dx, side in (("right", -5, "memory"), ("left", 5, "compute"))
    ]
    # Text fields, printed as the metrics print them: a tooltip and a metric never round apart.
    chosen_tooltip = [
        alt.Tooltip("label:N", title=tr("Chosen")),
        alt.Tooltip("sequences_text:N", title=tr("Sequences, all replicas")),
        alt.Tooltip(f"{field}_text:N", title="tokens/s"),
        alt.Tooltip("tpot_text:N", title="TPOT"),
        alt.Tooltip("ttft_text:N", title="TTFT"),
    ]
    ring = (
        alt.Chart(data_of(data["chosen"]))
        .mark_point(size=320, shape="circle", filled=False, color="#111111", strokeWidth=2)
        .encode(x=_batch_axis(), y=y, tooltip=chosen_tooltip)
    )
    # The label sits on the side of the point away from the curves: below a rising total,
    # above a falling per-user speed.
    ring_label = (
        alt.Chart(data_of(data["chosen"]))
        .mark_text(fontSize=12, align="left", dx=12, dy=-12 if at_top else 14, fontWeight="bold", color="#111111")
        .encode(x=_batch_axis(), y=y, text="label:N", tooltip=chosen_tooltip)
    )
    return [curves, dots, rule, *knee_labels, ring, ring_label]


def total_throughput_chart(points: ChartData, lines: ChartData, knee: ChartData, chosen: ChartData) -> alt.LayerChart:
    """Output tokens/s over all replicas against batch, log-log, expected under the roofline.

    Args:
        points: rows of {batch, total, per_user, bound, tpot_ms, ttft_ms}, and as printed {total_text,
            per_user_text, tpot_text, ttft_text, sequences_text}: the expected points.
        lines: rows of {batch, series, total, per_user, tpot_ms, total_text, per_user_text, tpot_text};
            series 'expected' or 'roofline (ideal)'.
        knee: zero or one row {batch, memory, compute}: the memory/compute-bound knee and its labels.
        chosen: zero or one row, as a point's with a label: the batch the metrics show.
    """
    y = alt.Y(
        "total:Q",
        title=tr("Output tokens/s, all replicas (log scale)"),
        scale=alt.Scale(type="log"),
        axis=alt.Axis(format="~s", values=_RATE_TICKS),
    )
    data = {"points": points, "lines": lines, "knee": knee, "chosen": chosen}
    return alt.layer(*_layers(y, "total", data, free_corner="bottom")).properties(height=_HEIGHT)


def user_speed_chart(
    points: ChartData, lines: ChartData, knee: ChartData, chosen: ChartData, target: ChartData
) -> alt.LayerChart:
    """Tokens/s each user sees against batch (log batch axis), with the latency target as a floor.

    Args:
        points: the expected points, as for :func:`total_throughput_chart`.
        lines: the expected and roofline curves, as for :func:`total_throughput_chart`.
        knee: zero or one knee row, as for :func:`total_throughput_chart`.
        chosen: the chosen batch's row, as for :func:`total_throughput_chart`.
        target: one row {per_user, target_ms, label}: the target as tokens/s per user (1000 / ms).
    """
    # Log scale, as the total's: the roofline can sit ten times above what a server gives one user
    # (a mixture of experts at batch 1), and a linear axis then flattens the expected curve.
    y = alt.Y(
        "per_user:Q",
        title=tr("Tokens/s per user (log scale)"),
        scale=alt.Scale(type="log"),
        axis=alt.Axis(format="~s", values=_RATE_TICKS),
    )
    data = {"points": points, "lines": lines, "knee": knee, "chosen": chosen}
    target_tooltip = [
        alt.Tooltip("target_ms:Q", title=tr("Target (ms per token)"), format=",g"),
        alt.Tooltip("per_user:Q", title=tr("tokens/s per user"), format=",.1f"),
    ]
    rule = (
        alt.Chart(data_of(target))
        .mark_rule(color="#d62728", strokeDash=[6, 3], size=2)
        .encode(y="per_user:Q", tooltip=target_tooltip)
    )
    label = (
        alt.Chart(data_of(target))
        .mark_text(fontSize=12, align="left", baseline="bottom", dy=-4, color="#d62728", fontWeight="bold")
        .encode(x=alt.value(4), y="per_user:Q", text="label:N", tooltip=target_tooltip)
    )
    return alt.layer(*_layers(y, "per_user", data, free_corner="top"), rule, label).properties(height=_HEIGHT)


_PART_COLORS = dict(
    zip(
        STEP_PART_ORDER,
        ["#4C78A8", "#E45756", "#F58518", "#9D755D", "#BAB0AC", "#B279A2", "#72B7B2", "#EECA3B", "#54A24B"],
        strict=True,
    )
)


def step_breakdown_chart(rows: ChartData) -> alt.LayerChart:
    """Stacked shares of one decode step (%) per batch: weight reads or products, KV cache, the rest.

    Args:
        rows: rows of {batch, part, ms, pct, order}; part is one of STEP_PART_ORDER.
    """
    bars = (
        alt.Chart(data_of(rows))
        .mark_bar()
        .encode(
            x=alt.X("batch:O", title=tr("Batch (concurrent sequences per replica)"), axis=alt.Axis(labelAngle=0)),
            y=alt.Y(
                "sum(pct):Q", title=tr("Share of one decode step (%)"), stack="zero", scale=alt.Scale(domain=[0, 100])
            ),
            color=alt.Color("part:N", title=None, scale=_translated(_PART_COLORS), legend=alt.Legend(orient="right")),
            order=alt.Order("order:Q"),
            tooltip=[
                alt.Tooltip("batch:O", title=tr("Batch")),
                alt.Tooltip("part:N", title=tr("Part")),
                alt.Tooltip("ms:Q", title=tr("ms per step"), format=",.3f"),
                alt.Tooltip("pct:Q", title=tr("% of the step"), format=".1f"),
            ],
        )
    )
    return alt.layer(bars).properties(height=300)
