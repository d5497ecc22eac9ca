"""Rows for the Validation page: the engine's predictions beside published measurements.

Formatting only: every figure (errors, ranges, distances, the band) comes from model.validation.validate.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import streamlit as st

from model.validation import ValidationReport, ValidationRow
from model.validation.report import BandPoint, Nearby

__all__ = [
    "KIND_LABELS",
    "band_rows",
    "kind_label",
    "nearest_rows",
    "point_rows",
    "table_columns",
    "table_rows",
    "unmapped_rows",
    "validation_takeaway",
]

KIND_LABELS: dict[str, str] = {
    "all": "All",
    "training_total": "Training totals",
    "training_throughput": "Training throughput",
    "inference": "Inference",
    "moe_serving": "MoE serving",
    "memory": "Memory",
}
QUOTE_LIMIT = 240
"""Characters of a source's quoted row shown in a tooltip (the table has the whole quote)."""


def kind_label(kind: str) -> str:
    """Return the readable name of a kind of measurement."""
    return KIND_LABELS.get(kind, kind)


def _short(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _where(row: ValidationRow) -> str:
    ref = row.reference
    cards = f"{ref.gpu_count:,} × " if ref.gpu_count else ""
    return f"{ref.model} · {cards}{ref.gpu}"


def point_rows(report: ValidationReport) -> list[dict[str, Any]]:
    """One chart point per scored measurement, with what its tooltip shows."""
    return [
        {
            "id": row.reference.id,
            "kind": kind_label(row.reference.kind),
            "measured": row.reference.value,
            "predicted": row.predicted,
            "error": row.error,
            "unit": row.reference.unit,
            "where": _where(row),
            "source": _short(row.reference.source_title, 90),
            "quote": _short(row.reference.quote, QUOTE_LIMIT),
        }
        for row in report.rows
    ]


def band_rows(band: Sequence[BandPoint]) -> list[dict[str, float]]:
    """The y = x line and the ±25 % band, as the chart's rows."""
    return [point._asdict() for point in band]


def table_rows(report: ValidationReport, kind: str) -> list[dict[str, Any]]:
    """The table's rows for one kind ('all' for every one), worst error first."""
    chosen = [row for row in report.rows if kind == "all" or row.reference.kind == kind]
    chosen.sort(key=lambda row: abs(row.error), reverse=True)
    return [
        {
            "measurement": row.reference.id,
            "kind": kind_label(row.reference.kind),
            "where": _where(row),
            "measured": row.reference.value,
            "predicted": row.predicted,
            "error": row.error * 100.0,
            "typed": None if row.typed_error is None else row.typed_error * 100.0,
            "in range": {True: "yes", False: "no", None: "no range"}[row.covered],
            "unit": row.reference.unit,
            "source": row.reference.source_url,
            "quote": row.reference.quote,
            "assumptions": row.reference.assumptions,
        }
        for row in chosen
    ]


def table_columns() -> dict[str, Any]:
    """Column settings for the measurements table."""
    return {
        "measurement": st.column_config.TextColumn("Measurement", width="medium"),
        "kind": st.column_config.TextColumn("Kind"),
        "where": st.column_config.TextColumn("Model · cards × GPU", width="medium"),
        "measured": st.column_config.NumberColumn("Measured", format="compact"),
        "predicted": st.column_config.NumberColumn("Predicted", format="compact"),
        "error": st.column_config.NumberColumn("Error", format="%+.1f %%", help="predicted ÷ measured − 1"),
        "typed": st.column_config.NumberColumn(
            "Error as typed",
            format="%+.1f %%",
            help="The same run given only what a user would type (model, GPU, cards, tokens, sequence, "
            "precision, network): the engine chooses the layout and batch",
        ),
        "in range": st.column_config.TextColumn(
            "In likely range", help="Whether the measured value lies in the estimate's low–high range"
        ),
        "unit": st.column_config.TextColumn("Unit"),
        "source": st.column_config.LinkColumn("Source", width="small"),
        "quote": st.column_config.TextColumn("Quoted row", width="large"),
        "assumptions": st.column_config.TextColumn("How it was mapped", width="large"),
    }


def _figure(value: float) -> str:
    """Four significant figures, with thousands separators instead of exponents below 1e9."""
    if 1e3 <= abs(value) < 1e9:
        return f"{value:,.0f}" if abs(value) >= 1e4 else f"{value:,.4g}"
    return f"{value:.4g}"


def nearest_rows(nearby: Sequence[Nearby]) -> list[dict[str, Any]]:
    """The measurements nearest the sidebar's scenario, with the error there."""
    return [
        {
            "Measurement": near.row.reference.id,
            "Model · cards × GPU": _where(near.row),
            "Measured": f"{_figure(near.row.reference.value)} {near.row.reference.unit}",
            "Predicted": _figure(near.row.predicted),
            "Error": f"{near.row.error:+.0%}",
            "Distance": f"{near.distance:.2f}",
        }
        for near in nearby
    ]


def unmapped_rows(report: ValidationReport) -> list[dict[str, str]]:
    """The measurements the engine does not score, each with why."""
    return [{"Measurement": ref.id, "Why not": ref.unmapped} for ref in report.unmapped]


def validation_takeaway(report: ValidationReport) -> str:
    """Two sentences: how close the engine is, where it is furthest off, and how close as a user would ask."""
    overall = report.overall
    worst = max(report.rows, key=lambda row: row.ratio)
    kinds = ", ".join(f"{kind_label(score.kind).lower()} {score.median_abs_error:.0%}" for score in report.kinds)
    text = (
        f"Across **{overall.entries} published measurements** the engine's median error is "
        f"**{overall.median_abs_error:.0%}** ({kinds}); the likely range holds the measured value in "
        f"**{overall.covered} of {overall.ranged}** that have one. Furthest off: {worst.reference.id} "
        f"({worst.error:+.0%})."
    )
    typed = [score for score in report.typed_kinds if score.entries]
    if typed:
        text += (
            " Given only what a user would type (the engine choosing layout and batch): "
            + ", ".join(
                f"{kind_label(score.kind).lower()} **{score.median_abs_error:.0%}** over {score.entries}"
                for score in typed
            )
            + "."
        )
    return text
