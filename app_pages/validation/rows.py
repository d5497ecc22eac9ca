"""Rows for the Validation page: the engine's predictions beside published measurements.

Formatting only: every figure (errors, ranges, distances, the band) comes from model.validation.validate.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import streamlit as st

from model.validation import OutOfSample, ValidationReport, ValidationRow
from model.validation.report import BandPoint, Nearby
from ui.i18n import tr, translatable

__all__ = [
    "KIND_LABELS",
    "band_rows",
    "generalisation_rows",
    "kind_label",
    "nearest_rows",
    "point_rows",
    "table_columns",
    "table_rows",
    "unmapped_rows",
    "validation_takeaway",
]

KIND_LABELS: dict[str, str] = {
    "all": translatable("All"),
    "training_total": translatable("Training totals"),
    "training_throughput": translatable("Training throughput"),
    "inference": translatable("Inference"),
    "moe_serving": translatable("MoE serving"),
    "local": translatable("On a desk (local runners)"),
    "memory": translatable("Memory"),
}
_KIND_WORDS: dict[str, str] = {
    "training_total": translatable("training totals"),
    "training_throughput": translatable("training throughput"),
    "inference": translatable("inference"),
    "moe_serving": translatable("MoE serving"),
    "local": translatable("local runners"),
    "memory": translatable("memory"),
}
"""The kinds as running text names them (the takeaway)."""
QUOTE_LIMIT = 240
"""Characters of a source's quoted row shown in a tooltip (the table has the whole quote)."""


def kind_label(kind: str) -> str:
    """Return the readable name of a kind of measurement, in the visit's language."""
    return tr(KIND_LABELS[kind]) if kind in KIND_LABELS else kind


def _kind_words(kind: str) -> str:
    """Name a kind of measurement in running text, in the visit's language."""
    return tr(_KIND_WORDS[kind]) if kind in _KIND_WORDS else kind_label(kind).lower()


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
    """The table's rows for one kind ('all' for every one), worst error first.

    The keys are the columns' names in the visit's language (:func:`table_columns` labels them).
    """
    chosen = [row for row in report.rows if kind == "all" or row.reference.kind == kind]
    chosen.sort(key=lambda row: abs(row.error), reverse=True)
    covered = {True: tr("yes"), False: tr("no"), None: tr("no range")}
    return [
        {
            tr("measurement"): row.reference.id,
            tr("kind"): kind_label(row.reference.kind),
            tr("where"): _where(row),
            tr("measured"): row.reference.value,
            tr("predicted"): row.predicted,
            tr("error"): row.error * 100.0,
            tr("typed"): None if row.typed_error is None else row.typed_error * 100.0,
            tr("in range"): covered[row.covered],
            tr("unit"): row.reference.unit,
            tr("source"): row.reference.source_url,
            tr("quote"): row.reference.quote,
            tr("assumptions"): row.reference.assumptions,
        }
        for row in chosen
    ]


def table_columns() -> dict[str, Any]:
    """Column settings for the measurements table."""
    return {
        tr("measurement"): st.column_config.TextColumn(tr("Measurement"), width="medium"),
        tr("kind"): st.column_config.TextColumn(tr("Kind")),
        tr("where"): st.column_config.TextColumn(tr("Model · cards × GPU"), width="medium"),
        tr("measured"): st.column_config.NumberColumn(tr("Measured"), format="compact"),
        tr("predicted"): st.column_config.NumberColumn(tr("Predicted"), format="compact"),
        tr("error"): st.column_config.NumberColumn(tr("Error"), format="%+.1f %%", help=tr("predicted ÷ measured − 1")),
        tr("typed"): st.column_config.NumberColumn(
            tr("Error as typed"),
            format="%+.1f %%",
            help=tr(
                "The same run given only what a user would type (model, GPU, cards, tokens, sequence, "
                "precision, network): the engine chooses the layout and batch"
            ),
        ),
        tr("in range"): st.column_config.TextColumn(
            tr("In likely range"), help=tr("Whether the measured value lies in the estimate's low–high range")
        ),
        tr("unit"): st.column_config.TextColumn(tr("Unit")),
        tr("source"): st.column_config.LinkColumn(tr("Source"), width="small"),
        tr("quote"): st.column_config.TextColumn(tr("Quoted row"), width="large"),
        tr("assumptions"): st.column_config.TextColumn(tr("How it was mapped"), width="large"),
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
            tr("Measurement"): near.row.reference.id,
            tr("Model · cards × GPU"): _where(near.row),
            tr("Measured"): f"{_figure(near.row.reference.value)} {near.row.reference.unit}",
            tr("Predicted"): _figure(near.row.predicted),
            tr("Error"): f"{near.row.error:+.0%}",
            tr("Distance"): f"{near.distance:.2f}",
        }
        for near in nearby
    ]


def unmapped_rows(report: ValidationReport) -> list[dict[str, str]]:
    """The measurements the engine does not score, each with why."""
    return [{tr("Measurement"): ref.id, tr("Why not"): ref.unmapped} for ref in report.unmapped]


CLASS_LABELS: dict[str, str] = {
    "local": translatable("On a desk (local runners)"),
    "lora_qlora": translatable("LoRA / QLoRA fine-tuning"),
    "queued": translatable("Serving at full load (queued)"),
    "non_nvidia_serving": translatable("Serving on other vendors' chips"),
}
"""The classes of run issue 33 tracks across the kinds, as the generalisation table names them."""


def generalisation_rows(held_out: OutOfSample | None) -> list[dict[str, Any]]:
    """Each kind, class and the overall: median error in sample beside each source left out (percent).

    Empty when the shipped file is absent. 'Held out': every source's runs predicted by the constants
    fitted without that source (``python -m model.validation.calibrate``).
    """
    if held_out is None:
        return []
    named = [
        *((kind_label(score.group), score) for score in held_out.kinds),
        # A class that is also a kind (local) is shown once, as the kind.
        *(
            (tr(CLASS_LABELS.get(score.group, score.group)), score)
            for score in held_out.classes
            if score.group not in {kind.group for kind in held_out.kinds}
        ),
        (tr("All"), held_out.overall),
    ]
    return [
        {
            tr("Measurements"): name,
            tr("Runs"): score.entries,
            tr("Sources"): score.sources,
            tr("In sample"): f"{score.in_sample:.1%}",
            tr("Each source left out"): f"{score.out_of_sample:.1%}",
        }
        for name, score in named
    ]


def validation_takeaway(report: ValidationReport) -> str:
    """Two sentences: how close the engine is, where it is furthest off, and how close as a user would ask."""
    overall = report.overall
    worst = max(report.rows, key=lambda row: row.ratio)
    kinds = tr(", ").join(f"{_kind_words(score.kind)} {score.median_abs_error:.0%}" for score in report.kinds)
    text = tr(
        "Across **{entries} published measurements** the engine's median error is **{error}** ({kinds}); the "
        "likely range holds the measured value in **{covered} of {ranged}** that have one. Furthest off: "
        "{worst} ({worst_error}).",
        entries=f"{overall.entries}",
        error=f"{overall.median_abs_error:.0%}",
        kinds=kinds,
        covered=f"{overall.covered}",
        ranged=f"{overall.ranged}",
        worst=worst.reference.id,
        worst_error=f"{worst.error:+.0%}",
    )
    typed = [score for score in report.typed_kinds if score.entries]
    if typed:
        scores = tr(", ").join(
            tr(
                "{kind} **{error}** over {entries}",
                kind=_kind_words(score.kind),
                error=f"{score.median_abs_error:.0%}",
                entries=f"{score.entries}",
            )
            for score in typed
        )
        text += tr(  # the leading space joins two English sentences; the Chinese needs none
            " Given only what a user would type (the engine choosing the layout, and for training the batch): "
            "{scores}.",
            scores=scores,
        )
    return text
