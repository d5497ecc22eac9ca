"""The VRAM page's view model: the scenario turned, once, into everything the page shows.

One estimate of the scenario; the goal's verdict; the largest micro-batch, sequence and context
that fit and the memory at each ZeRO stage and recomputation mode, sized on that estimate's layout
without estimating again (:mod:`model.analyses.fit`); the other tensor-parallel degrees and the
full-recomputation point, estimated (their layout and time move). ``python -m
benchmarks.engine_calls`` prints how many estimates a rerun takes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app_pages.vram import rows as rows_vram
from app_pages.vram.takeaways import inference_takeaway, training_takeaway
from model import Catalog, Scenario, estimate
from model.analyses import fit
from model.analyses.verdict import Verdict, goal_verdict
from ui import layout_rows as rows_layout
from ui.i18n import tr
from ui.memory_rows import capacity_row, limits_caption, memory_rows, serving_budget_row
from ui.notes import note_lines
from ui.page import scenario_tag

__all__ = ["KnobChart", "LoadChart", "VramView", "vram_view"]

Rows = tuple[dict[str, Any], ...]


@dataclass(frozen=True)
class KnobChart:
    """One knob's memory chart: rows per setting and component, and its axis title."""

    parts: Rows
    title: str


@dataclass(frozen=True)
class LoadChart:
    """Serving memory against context or batch: the points, the largest that fits, the axis title."""

    points: Rows
    limit: Rows
    x_title: str


@dataclass(frozen=True)
class VramView:
    """Every number, sentence and chart row the VRAM page shows for one scenario."""

    title: str
    tag: str
    """The scenario in a few words: the title while presenting."""
    verdict: Verdict
    gpu_name: str
    precision: str
    training_metrics: Rows
    training_takeaway: str
    training_choice: str
    step_rows: Rows
    training_candidates: Rows
    inference_metrics: Rows
    inference_takeaway: str
    serving_choice: str
    serving_candidates: Rows
    memory_parts: Rows
    capacity: Rows
    budget: Rows
    limits: str
    """What the memory chart's red rules are (the card, the server's budget)."""
    short_budget: Rows
    notes: tuple[str, ...]
    knob_charts: tuple[KnobChart, ...]
    load_charts: tuple[LoadChart, ...]
    batch: int


def vram_view(scenario: Scenario, goal: str, catalog: Catalog) -> VramView:
    """Return the VRAM page for ``scenario`` and the sidebar's goal.

    Raises:
        ScenarioError: the scenario is invalid.
    """
    result = estimate(scenario, catalog)
    gpu = result.resolved.gpu
    micro, seq = fit.largest_training_micro_batch(result, catalog), fit.largest_training_seq_len(result, catalog)
    batch = result.inference.max_batch  # the engine's one rule for the largest batch
    context = fit.largest_inference_context(result, catalog, scenario.batch)
    sweeps = [sweep(result, catalog) for sweep in (fit.zero_stage_sweep, fit.recompute_sweep, fit.tp_sweep)]
    loads = (
        (fit.inference_context_sweep(result, catalog, scenario.batch, context), context, "tokens"),
        (fit.inference_batch_sweep(result, catalog, batch), batch, "sequences"),
    )
    title = tr(
        "VRAM: {model} on {cards} × {gpu}",
        model=result.inputs["model_name"],
        cards=f"{scenario.cards:,}",
        gpu=gpu.short_name,
    )
    return VramView(
        title=title,
        tag=tr("VRAM · {scenario}", scenario=scenario_tag(result)),
        verdict=goal_verdict(scenario, goal, catalog),  # type: ignore[arg-type]
        gpu_name=gpu.short_name,
        precision=scenario.precision,
        training_metrics=tuple(rows_vram.training_metrics(result, micro, seq)),
        training_takeaway=training_takeaway(result, *sweeps),
        training_choice=rows_layout.training_choice(result),
        step_rows=tuple(rows_layout.step_rows(result)),
        training_candidates=tuple(rows_layout.training_candidate_rows(result)),
        inference_metrics=tuple(rows_vram.inference_metrics(result, context)),
        inference_takeaway=inference_takeaway(result, context),
        serving_choice=rows_layout.serving_choice(result),
        serving_candidates=tuple(rows_layout.serving_candidate_rows(result)),
        memory_parts=tuple(memory_rows(result)),
        capacity=tuple(capacity_row(gpu)),
        budget=tuple(serving_budget_row(gpu, result.inference.budget_per_gpu)),
        limits=limits_caption(capacity_row(gpu), serving_budget_row(gpu, result.inference.budget_per_gpu)),
        short_budget=tuple(serving_budget_row(gpu, result.inference.budget_per_gpu, short=True)),
        notes=tuple(note_lines(result)),
        knob_charts=tuple(
            KnobChart(tuple(rows_vram.knob_rows(sweep)), tr(rows_vram.KNOB_TITLES[sweep.knob])) for sweep in sweeps
        ),
        load_charts=tuple(
            LoadChart(
                tuple(rows_vram.load_rows(points)),
                tuple(rows_vram.limit_row(largest, unit)),
                tr(rows_vram.LOAD_AXES[unit]),
            )
            for points, largest, unit in loads
        ),
        batch=scenario.batch,
    )
