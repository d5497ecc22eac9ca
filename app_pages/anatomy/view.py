"""The GPU anatomy page's view model: the chip's figures and the chosen section's rows, built once.

One estimate of the scenario (the weights a card keeps, and a bad scenario stops the page with its
message); the rest reads the catalog. The section picker stays in the page script: the view is
built for the section it names.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app_pages.anatomy import rows
from model import Catalog, Scenario, estimate
from model.analyses.anatomy import chip_summary, links, memory_hierarchy, read_times
from model.analyses.generations import generation_growth, generations
from ui.format import bytes_gb
from ui.i18n import tr

__all__ = ["AnatomyView", "anatomy_view"]

Rows = tuple[dict[str, Any], ...]


@dataclass(frozen=True)
class AnatomyView:
    """Every sentence, metric and row the anatomy page shows for one scenario and section."""

    title: str
    takeaway: str
    metrics: tuple[tuple[str, str, str], ...]
    """(label, value, help) of each of the chip's six figures."""
    section_takeaway: str
    """The chosen section's first line (empty for the hierarchy: its heading is fixed)."""
    chart_rows: Rows
    seed_rows: Rows
    """The generations chart's seed points (empty for the other sections)."""
    caption: str
    table: Rows
    remarks: tuple[str, ...]
    sources: tuple[str, ...]


def anatomy_view(scenario: Scenario, section: str, catalog: Catalog) -> AnatomyView:
    """Return the anatomy page for ``scenario``'s GPU, showing ``section`` ('hierarchy', 'links' or 'generations').

    Raises:
        ScenarioError: the scenario is invalid.
    """
    result = estimate(scenario, catalog)
    gpu = result.resolved.gpu
    hierarchy = memory_hierarchy(gpu, catalog)
    metrics = tuple(tuple(metric) for metric in rows.chip_metrics(chip_summary(gpu, scenario.precision)))
    head = {
        "title": tr("Inside the {chip}", chip=gpu.short_name),
        "takeaway": rows.hierarchy_takeaway(hierarchy, gpu.short_name),
        "metrics": metrics,
    }
    if section == "hierarchy":
        weights = result.inference.memory_per_gpu.weights
        caption = tr(
            "{model} in {precision} keeps {weights} of weights on each card. "
            "Reading them once takes bytes ÷ bandwidth: the seeds' rule for the time of one generated token.",
            model=result.inputs["model_name"],
            precision=scenario.precision,
            weights=bytes_gb(weights),
        )
        return AnatomyView(
            **head,  # type: ignore[arg-type]
            section_takeaway="",
            chart_rows=tuple(rows.hierarchy_points(hierarchy)),
            seed_rows=(),
            caption=caption,
            table=tuple(rows.hierarchy_table(hierarchy, read_times(hierarchy, weights))),
            remarks=tuple(rows.worded(remark) for remark in hierarchy.remarks),
            sources=tuple(rows.source_lines(hierarchy)),
        )
    if section == "links":
        connections = links(result.resolved, catalog)
        return AnatomyView(
            **head,  # type: ignore[arg-type]
            section_takeaway=rows.links_takeaway(connections),
            chart_rows=tuple(rows.link_bars(connections)),
            seed_rows=(),
            caption=tr(
                "Per GPU and per direction, what a ring collective can use; vendors quote both directions added."
            ),
            table=tuple(rows.link_table(connections)),
            remarks=(),
            sources=(),
        )
    lineup = generations(catalog)
    return AnatomyView(
        **head,  # type: ignore[arg-type]
        section_takeaway=rows.generations_takeaway(generation_growth(lineup)),
        chart_rows=tuple(rows.generation_lines(lineup)),
        seed_rows=tuple(rows.generation_seed_points(lineup)),
        caption=tr(
            "Filled points: the catalog, one card per generation. Hollow diamonds: the seed article's table "
            "(it gives no bandwidth). The table adds A100 40GB and B100 and marks where the seed agrees (✓)."
        ),
        table=tuple(rows.generation_table(lineup)),
        remarks=(rows.seed_notes(lineup),),
        sources=(),
    )
