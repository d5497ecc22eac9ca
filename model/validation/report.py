"""The validation report for people: a text table, the y = x band of the chart, the runs nearest a scenario."""

from __future__ import annotations

import math
from typing import NamedTuple

from model.catalog import Catalog, default_catalog
from model.scenario import Scenario, resolve
from model.validation.reference import KINDS
from model.validation.validate import KindScore, ValidationReport, ValidationRow

__all__ = ["BandPoint", "Nearby", "error_band", "format_report", "nearest"]


def _score_line(score: KindScore) -> str:
    """One group's line: count, median and worst |error|, how many ranges hold the value ('-': none), worst run."""
    errors = f"{score.median_abs_error:15.1%} {score.worst_abs_error:14.1%}"
    inside = f"{score.covered}/{score.ranged}" if score.ranged else "-"
    return f"{score.kind[:19]:19} {score.entries:5} {errors} {inside:>9}  {score.worst_id}"


def format_report(report: ValidationReport) -> str:
    """Render the report as a plain-text table and summary.

    "as typed" is the prediction from only what a user would type for a run with a stated card count
    (training: model, GPU, cards, tokens, sequence, precision, network; serving: model, GPU, cards,
    formats, batch, lengths, drafting): the layout is the engine's.
    """
    header = f"{'measurement':46} {'kind':19} {'measured':>12} {'predicted':>12} {'error':>8} {'as typed':>9}  unit"
    lines = [header]
    for row in sorted(report.rows, key=lambda r: (KINDS.index(r.reference.kind), r.reference.id)):
        ref = row.reference
        typed = f"{row.typed_error:+9.1%}" if row.typed_error is not None else f"{'':9}"
        figures = f"{ref.value:12,.4g} {row.predicted:12,.4g} {row.error:+8.1%} {typed}"
        lines.append(f"{ref.id[:46]:46} {ref.kind:19} {figures}  {ref.unit[:28]}")
    lines.append("")
    lines.extend(f"not mapped: {ref.id} ({ref.kind}): {ref.unmapped}" for ref in report.unmapped)
    lines.append("")
    lines.append(f"{'kind':19} {'count':>5} {'median |error|':>15} {'worst |error|':>14} {'in range':>9}  worst")
    lines.extend(_score_line(score) for score in (*report.kinds, report.overall))
    worst_ratio = max((row.ratio for row in report.rows), default=1.0)
    lines.append(f"largest factor off: {worst_ratio:.2f}x")
    lines.append("")
    lines.append("as a user would type it (training: model, GPU, cards, tokens, sequence, precision, network, stack;")
    lines.append("serving: model, GPU, cards, precision, concurrency over the cards, lengths, drafting, stack):")
    lines.extend(_score_line(score) for score in report.typed_kinds)
    ratios = [row.typed / row.reference.value for row in report.rows if row.typed is not None]
    worst_typed = max((max(ratio, 1 / ratio) for ratio in ratios), default=1.0)
    lines.append(f"largest factor off as typed: {worst_typed:.2f}x")
    if report.classes:
        lines.append("")
        lines.append("classes across the kinds (local: one user on a desk; lora_qlora: adapter fine-tunes;")
        lines.append("queued: more requests offered than fit at once; non_nvidia_serving: serving on other vendors):")
        lines.extend(_score_line(score) for score in report.classes)
    if report.stacks:
        lines.append("")
        lines.append("by the software each measurement names (estimated with that stack's profile, data/stacks.yaml):")
        lines.extend(_score_line(score) for score in report.stacks)
    if report.unsaid:
        lines.append("")
        lines.append(
            "software left unsaid, as most users type it (typical; llama.cpp for GGUF or a Mac, JetStream on a TPU):"
        )
        lines.extend(_score_line(score) for score in report.unsaid)
    return "\n".join(lines)


class BandPoint(NamedTuple):
    """A point of the y = x line and of the band around it, in the measurements' own units."""

    measured: float
    low: float
    high: float


def error_band(report: ValidationReport, share: float = 0.25) -> tuple[BandPoint, BandPoint]:
    """Return the ends of the y = x line and of the +-``share`` band across the report's values.

    On log-log axes y = (1 +- share) x are straight lines, so two points (a factor of 2 beyond the
    smallest and largest value, predicted or measured) draw them.
    """
    values = [v for row in report.rows for v in (row.reference.value, row.predicted)] or [1.0]
    first, last = min(values) / 2.0, max(values) * 2.0
    return (
        BandPoint(first, first * (1.0 - share), first * (1.0 + share)),
        BandPoint(last, last * (1.0 - share), last * (1.0 + share)),
    )


class Nearby(NamedTuple):
    """A measurement near a scenario, and how far (0 is the same model, GPU, cards and precision)."""

    row: ValidationRow
    distance: float


def nearest(
    report: ValidationReport, scenario: Scenario, catalog: Catalog | None = None, count: int = 5
) -> list[Nearby]:
    """Return the ``count`` measurements most like ``scenario``, nearest first.

    A derived definition with chosen weights: distance = |log10 of the parameter ratio| (a
    decade of model size counts 1) + 0.5 for a different GPU + 0.25 x |log10 of the card-count
    ratio| + 0.25 for a different precision. It answers "which published figures speak to this
    scenario", not a statistical neighbourhood.

    Raises:
        ScenarioError: the scenario is invalid.
    """
    r = resolve(scenario, catalog or default_catalog())
    params = r.arch.stats.total_params

    def distance(row: ValidationRow) -> float:
        return (
            abs(math.log10(row.params / params))
            + (0.0 if row.gpu == r.gpu.id else 0.5)
            + 0.25 * abs(math.log10(row.cards / r.scenario.cards))
            + (0.0 if row.precision == r.precision else 0.25)
        )

    ranked = sorted((Nearby(row, distance(row)) for row in report.rows), key=lambda near: near.distance)
    return ranked[:count]
