"""The Validation page's view model: the shipped report's charts and tables, and the runs nearest the scenario.

One estimate of the scenario (a bad one stops the page with its message); the report is computed
once per process (:func:`ui.reports.shipped_report`). The kind picker stays in the page script.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app_pages.validation.rows import (
    band_rows,
    generalisation_rows,
    nearest_rows,
    point_rows,
    table_rows,
    unmapped_rows,
    validation_takeaway,
)
from model import Catalog, Scenario, estimate
from model.validation import OutOfSample, ValidationReport, error_band, load_out_of_sample, nearest
from ui.i18n import tr
from ui.reports import shipped_report

__all__ = ["ValidationView", "validation_view"]

Rows = tuple[dict[str, Any], ...]


@dataclass(frozen=True)
class ValidationView:
    """Every sentence, chart row and table the Validation page shows for one scenario and kind."""

    takeaway: str
    points: Rows
    band: Rows
    nearest_heading: str
    nearest: Rows
    table: Rows
    unmapped: Rows
    generalisation: Rows
    """Each kind and class: median error in sample beside each source left out (empty: no shipped file)."""
    generalisation_note: str


def validation_view(scenario: Scenario, kind: str, catalog: Catalog) -> ValidationView:
    """Return the Validation page for ``scenario`` with the table showing ``kind`` of measurement.

    Raises:
        ScenarioError: the scenario is invalid.
    """
    result = estimate(scenario, catalog)
    report = shipped_report()
    held_out = load_out_of_sample()
    heading = tr(
        "Nearest to {model} on {cards} × {gpu}",
        model=result.resolved.model_name,
        cards=f"{scenario.cards:,}",
        gpu=result.resolved.gpu.short_name,
    )
    return ValidationView(
        takeaway=validation_takeaway(report),
        points=tuple(point_rows(report)),
        band=tuple(band_rows(error_band(report))),
        nearest_heading=heading,
        nearest=tuple(nearest_rows(nearest(report, scenario, catalog, count=5))),
        table=tuple(table_rows(report, kind)),
        unmapped=tuple(unmapped_rows(report)) if report.unmapped else (),
        generalisation=tuple(generalisation_rows(held_out)),
        generalisation_note=_held_out_note(held_out, report),
    )


def _held_out_note(held_out: OutOfSample | None, report: ValidationReport) -> str:
    """Say what 'each source left out' means, and when the shipped table no longer covers the report."""
    if held_out is None:
        return ""
    note = tr(
        "In sample: the efficiency factors fitted on every run at once. Each source left out: each paper's or "
        "benchmark's runs predicted by the factors fitted without them, the error a user's new case can expect."
    )
    if not held_out.covers(row.reference.id for row in report.rows):
        note += tr(" (The table predates some measurements; `python -m model.validation.calibrate --write` renews it.)")
    return note
