"""Anatomy charts: the memory hierarchy as capacity against bandwidth, the links, the generations."""

from __future__ import annotations

import altair as alt

from app_pages.anatomy.rows import BANDWIDTH_TBS, DENSE_TFLOPS, MEMORY_GB
from model.analyses.anatomy import PHRASES
from ui.charts import ChartData, data_of
from ui.i18n import tr, translatable

__all__ = ["KIND_COLORS", "ROLE_COLORS", "generations_chart", "hierarchy_chart", "links_chart"]

KIND_COLORS: dict[str, str] = {
    translatable("catalog"): "#4C78A8",
    translatable("derived"): "#F58518",
    translatable("measured"): "#54A24B",
}
"""How a bandwidth figure was obtained: a catalog (vendor) figure, derived, or measured (rows carry ``tr(kind)``)."""
ROLE_COLORS: dict[str, str] = {
    PHRASES["role_scale_up"]: "#4C78A8",
    PHRASES["role_network"]: "#E45756",
    PHRASES["role_host"]: "#BAB0AC",
}
"""The engine's link roles, in English (rows carry them worded: ``app_pages.anatomy.rows.worded``)."""


def _scale(colors: dict[str, str]) -> alt.Scale:
    return alt.Scale(domain=[tr(name) for name in colors], range=list(colors.values()))


def hierarchy_chart(points: ChartData) -> alt.LayerChart:
    """Log-log points of capacity against bandwidth, one per memory level, joined fastest to largest.

    Args:
        points: rows of {order, level, capacity_bytes, bandwidth_gb_s, kind, capacity, bandwidth, basis}.
    """
    base = alt.Chart(data_of(points)).encode(
        x=alt.X(
            "capacity_bytes:Q",
            title=tr("Capacity, whole chip (bytes, log scale)"),
            scale=alt.Scale(type="log", padding=48),
            axis=alt.Axis(format="~s"),
        ),
        y=alt.Y(
            "bandwidth_gb_s:Q",
            title=tr("Bandwidth (GB/s, log scale)"),
            scale=alt.Scale(type="log", padding=24),
            axis=alt.Axis(format="~s"),
        ),
        tooltip=[
            alt.Tooltip("level:N", title=tr("Level")),
            alt.Tooltip("capacity:N", title=tr("Capacity")),
            alt.Tooltip("bandwidth:N", title=tr("Bandwidth")),
            alt.Tooltip("basis:N", title=tr("Bandwidth from")),
        ],
    )
    path = base.mark_line(color="#999999", strokeDash=[4, 3]).encode(order=alt.Order("order:Q"))
    dots = base.mark_point(filled=True, size=140, opacity=1).encode(
        color=alt.Color(
            "kind:N",
            title=tr("Bandwidth figure"),
            scale=_scale(KIND_COLORS),
            legend=alt.Legend(orient="top"),
        )
    )
    labels = base.mark_text(dy=-14, fontSize=12).encode(text="level:N")
    return alt.layer(path, dots, labels).properties(height=440)


def links_chart(bars: ChartData) -> alt.LayerChart:
    """Horizontal bars of bandwidth per GPU per direction (GB/s, linear: lengths compare directly).

    Args:
        bars: rows of {link, role, gb_s, bidirectional_gb_s, latency_us}.
    """
    base = alt.Chart(data_of(bars)).encode(
        y=alt.Y("link:N", title=None, sort=None, axis=alt.Axis(labelLimit=320)),
        x=alt.X("gb_s:Q", title=tr("Bandwidth per GPU, per direction (GB/s)")),
        tooltip=[
            alt.Tooltip("link:N", title=tr("Link")),
            alt.Tooltip("gb_s:Q", title=tr("GB/s per direction"), format=",.1f"),
            alt.Tooltip("bidirectional_gb_s:Q", title=tr("GB/s both ways (vendor)"), format=",.0f"),
            alt.Tooltip("latency_us:Q", title=tr("Latency (µs, assumption)"), format=",.0f"),
        ],
    )
    rects = base.mark_bar(height={"band": 0.7}).encode(
        color=alt.Color("role:N", scale=_scale(ROLE_COLORS), legend=None)
    )
    values = base.mark_text(align="left", dx=4, fontSize=12).encode(text=alt.Text("gb_s:Q", format=",.4~g"))
    return alt.layer(rects, values).properties(height=170)


def generations_chart(lines: ChartData, seed: ChartData) -> alt.LayerChart:
    """Compute, bandwidth and memory against year on one log axis (slopes compare growth rates).

    Args:
        lines: rows of {gpu, year, metric, unit, value} for one card per generation.
        seed: rows of {gpu, year, metric, value, shown}: the seed article's figures, drawn hollow.
    """
    x = alt.X(
        "year:Q", title=tr("Year"), scale=alt.Scale(zero=False, padding=24), axis=alt.Axis(format="d", tickMinStep=1)
    )
    y = alt.Y("value:Q", title=tr("TFLOPS, TB/s or GB (log scale)"), scale=alt.Scale(type="log", padding=16))
    metrics = alt.Scale(
        domain=[tr(DENSE_TFLOPS), tr(BANDWIDTH_TBS), tr(MEMORY_GB)], range=["#E45756", "#4C78A8", "#54A24B"]
    )
    color = alt.Color("metric:N", title=None, scale=metrics, legend=alt.Legend(orient="top"))
    base = alt.Chart(data_of(lines)).encode(
        x=x,
        y=y,
        color=color,
        tooltip=[
            alt.Tooltip("gpu:N", title="GPU"),
            alt.Tooltip("year:Q", title=tr("Year"), format="d"),
            alt.Tooltip("metric:N", title=tr("Figure")),
            alt.Tooltip("value:Q", title=tr("Value"), format=",.4~g"),
        ],
    )
    path = base.mark_line(point=alt.OverlayMarkDef(filled=True, size=60))
    names = (
        base.mark_text(dy=-12, fontSize=12)
        .encode(text="gpu:N", color=alt.value("#333333"))
        .transform_filter(alt.datum.metric == tr(DENSE_TFLOPS))
    )
    claims = (
        alt.Chart(data_of(seed))
        .mark_point(shape="diamond", size=110, filled=False, strokeWidth=1.5)
        .encode(
            x=x,
            y=y,
            color=color,
            tooltip=[
                alt.Tooltip("gpu:N", title=tr("Seed article")),
                alt.Tooltip("year:Q", title=tr("Year"), format="d"),
                alt.Tooltip("metric:N", title=tr("Figure")),
                alt.Tooltip("shown:N", title=tr("Seed's value")),
            ],
        )
    )
    return alt.layer(path, names, claims).properties(height=420)
