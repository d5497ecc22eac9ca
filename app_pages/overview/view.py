"""The Overview's view model: the scenario turned, once, into every figure, sentence and chart row it shows.

Estimates: the scenario itself (so a bad one stops the page with its message), served to one user
and at full load, the two goals' verdicts and the CPU comparison. The page script only lays the
view out; the training-token box, whose value it reads back, stays in the script.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app_pages.overview.rows import (
    also_heading,
    bound_text,
    full_load_help,
    full_load_shortfall,
    replica_label,
    seeds_rule,
    token_time_heading,
    token_time_notes,
    token_time_rows,
    tokens_caption,
)
from model import Catalog, Estimate, Scenario, estimate, replica_name
from model.analyses.compare import cpu_versus_gpu, serving_pair
from model.analyses.verdict import Verdict, goal_verdict
from model.units import format_usd
from ui.format import (
    NOT_RUN,
    bytes_gb,
    compact_gpu_name,
    duration,
    milliseconds,
    percent,
    sequences_text,
    short_milliseconds,
)
from ui.i18n import tr, translatable
from ui.layout_rows import training_layout_text
from ui.memory_rows import capacity_row, limits_caption, memory_rows, regime_text, serving_budget_row
from ui.notes import FIT_NOTES, note_lines
from ui.page import scenario_tag
from ui.text import likely_text, range_text
from ui.verdict import GOAL_NOUNS, verdict_reason

__all__ = ["Figure", "OverviewView", "Section", "overview_view"]

Rows = tuple[dict[str, Any], ...]


@dataclass(frozen=True)
class Figure:
    """One metric: its label, value, likely range (or fit word) and help; a dash and the reason when it cannot run."""

    label: str
    value: str
    delta: str | None
    help: str
    delta_color: str = "off"


@dataclass(frozen=True)
class Section:
    """One mode (serving, or pre-training/fine-tuning): its heading, verdict, figures and the line under them."""

    mode: str
    """'serve' or 'train'."""
    heading: str
    verdict: Verdict
    primary: bool
    figures: tuple[Figure, ...]
    caption: str | None
    """Serving: why full load gives less per user; training: the tokens the figures are for (None: none)."""


@dataclass(frozen=True)
class OverviewView:
    """Every number, sentence and chart row the Overview shows for one scenario and goal."""

    title: str
    tag: str
    """The scenario in a few words: the title while presenting."""
    gpu_name: str
    precision: str
    sections: tuple[Section, ...]
    """The goal's mode first, the other one after it."""
    notes: tuple[str, ...]
    memory_heading: str
    memory_parts: Rows
    capacity: Rows
    budget: Rows | None
    limits: str
    """What the memory chart's red rules are (the card, and the server's budget when serving)."""
    token_time_heading: str
    token_time_rows: Rows | None
    """None when the scenario's cards cannot hold the model: no bar to draw."""
    token_time_caption: str


_RANGE_NOTE = translatable(" The likely range moves every efficiency together (Method page, Validation page).")
_PRICE_SOURCE = translatable("(sidebar: Price of a GPU-hour)")


def _figure(label: str, runs: bool, reason: str, value: str, delta: str, help_text: str) -> Figure:
    if not runs:
        return Figure(label, NOT_RUN, None, tr("Cannot run: {reason}.", reason=reason))
    return Figure(label, value, delta or None, help_text + tr(_RANGE_NOTE))


def _serving(one: Estimate, full: Estimate, verdict: Verdict, primary: bool) -> Section:
    scenario, gpu = one.resolved.scenario, one.resolved.gpu
    single, loaded = one.inference, full.inference
    runs = verdict.runs
    reason = verdict_reason(verdict, gpu.short_name, scenario.precision)
    noun = tr(GOAL_NOUNS["serve"])
    shortfall = full_load_shortfall(single, loaded)
    figures = (
        _figure(
            tr("Per token, 1 user"), runs, reason, milliseconds(single.tpot_s),
            likely_text(one, "tpot_s", short_milliseconds),
            tr(
                "Time per output token (TPOT) with the efficiencies; the roofline at datasheet peaks (the seeds' rule) "
                "is {roofline}. Replica: {replica}.",
                roofline=short_milliseconds(single.tpot_roofline_s),
                replica=replica_name(single.tp, single.pp, single.ep),
            ),
        ),
        _figure(
            tr("Tokens/s, 1 user"), runs, reason, f"{single.decode_tokens_per_s_per_user:,.0f}",
            likely_text(one, "decode_tokens_per_s_per_user", lambda v: f"{v:,.0f}"),
            tr(
                "Batch 1, {prompt}-token prompt; first token after {ttft} (range {range}). {bound}.",
                prompt=f"{scenario.prompt_len:,}", ttft=milliseconds(single.ttft_s, 0),
                range=range_text(one, "ttft_s", milliseconds), bound=bound_text(single.bound),
            ),
        ),
        _figure(
            tr("Tokens/s, full load"), runs, reason, f"{loaded.decode_tokens_per_s:,.0f}",
            likely_text(full, "decode_tokens_per_s", lambda v: f"{v:,.0f}"),
            " ".join(filter(None, (full_load_help(loaded), shortfall))),
        ),
        _figure(
            tr("$ per M output tokens"), runs, reason, format_usd(loaded.cost_per_million_output_tokens_usd),
            likely_text(full, "cost_per_million_output_tokens_usd", format_usd),
            tr(
                "Full load at {utilization} utilisation, {price} per GPU-hour {source}.",
                utilization=percent(scenario.utilization), price=f"${one.resolved.price_per_gpu_hour or 0:,.2f}",
                source=tr(_PRICE_SOURCE),
            ),
        ),
    )  # fmt: skip
    heading = noun if primary else also_heading(noun)
    return Section("serve", heading, verdict, primary, figures, shortfall if runs and shortfall else None)


def _training(one: Estimate, goal: str, verdict: Verdict, primary: bool) -> Section:
    scenario, gpu, training = one.resolved.scenario, one.resolved.gpu, one.training
    runs = verdict.runs
    reason = verdict_reason(verdict, gpu.short_name, scenario.precision)
    noun = tr(GOAL_NOUNS[goal])
    if goal == "finetune":
        noun = tr("{mode} ({regime})", mode=noun, regime=regime_text(training.regime))
    memory = Figure(
        tr("Memory per card"),
        bytes_gb(training.memory_per_gpu.total) if not verdict.refusal else NOT_RUN,
        tr("fits") if runs else (tr("refused") if verdict.refusal else tr("does not fit")),
        tr("Of {capacity} per card. Layout: {layout}.", capacity=bytes_gb(gpu.capacity_bytes),
           layout=training_layout_text(one))
        if runs
        else tr("Cannot run: {reason}.", reason=reason),
        delta_color="normal" if runs else "inverse",
    )  # fmt: skip
    figures = (
        memory,
        _figure(
            tr("Training time"), runs, reason, duration(training.time_s), likely_text(one, "time_s", duration),
            tr("{tokens} tokens, wall time with interruptions.", tokens=f"{training.tokens:,.3g}"),
        ),
        _figure(
            tr("Training cost"), runs, reason, format_usd(training.cost_usd), likely_text(one, "cost_usd", format_usd),
            tr(
                "{gpu_hours} GPU-hours at {price} per GPU-hour {source}.",
                gpu_hours=f"{training.gpu_hours:,.0f}", price=f"${one.inputs['price_per_gpu_hour'] or 0:,.2f}",
                source=tr(_PRICE_SOURCE),
            ),
        ),
        _figure(
            tr("Model FLOPs utilisation"), runs, reason, percent(training.mfu), likely_text(one, "mfu", percent),
            tr("{rate} tokens/s per card in steady-state steps.", rate=f"{training.tokens_per_s_per_gpu:,.0f}"),
        ),
    )  # fmt: skip
    heading = noun if primary else also_heading(noun)
    return Section("train", heading, verdict, primary, figures, tokens_caption(one) if runs else None)


def overview_view(scenario: Scenario, goal: str, catalog: Catalog) -> OverviewView:
    """Return the Overview for ``scenario`` and the sidebar's goal.

    Raises:
        ScenarioError: the scenario is invalid.
    """
    estimate(scenario, catalog)  # a bad scenario raises here, with the field at fault
    one, full = serving_pair(scenario, catalog)
    gpu = one.resolved.gpu
    training_goal = "pretrain" if goal == "serve" else goal
    serving_verdict = goal_verdict(scenario, "serve", catalog)
    training_verdict = goal_verdict(scenario, training_goal, catalog)  # type: ignore[arg-type]
    serving = _serving(one, full, serving_verdict, primary=goal == "serve")
    training = _training(one, training_goal, training_verdict, primary=goal != "serve")
    if goal == "serve" and not serving_verdict.runs:
        heading = tr("**Memory per card**, serving one user")
        parts = memory_rows(one, workloads=("inference",), inference_label=tr("1 user"))
    elif goal == "serve":
        sequences = sequences_text(full.inference.batch)
        heading = tr("**Memory per card**, serving one user and at full load ({sequences})", sequences=sequences)
        parts = memory_rows(one, workloads=("inference",), inference_label=tr("1 user")) + memory_rows(
            full, workloads=("inference",), inference_label=sequences
        )
    else:
        heading = tr("**Memory per card**, training")
        parts = memory_rows(one, workloads=("training",))
    comparison = cpu_versus_gpu(scenario, catalog)
    cpu = catalog.gpus["cpu-server"]
    cards_here = replica_label(comparison.replica_cards, compact_gpu_name(gpu))
    laptop = tr("M3 Pro laptop")
    bars = tuple(token_time_rows(comparison, cards_here, tr("Server CPU"), laptop)) if comparison.gpu_fits else None
    notes = token_time_notes(comparison, gpu.short_name, cards_here, one.inputs["model_name"], cpu.memory_bytes)
    # The rule is the budget of the heavier bar's replica: a budget of the free memory (TensorRT-LLM's)
    # grows with the weights a card holds, and full load may run another layout than one user.
    drawn = full if goal == "serve" and serving_verdict.runs else one
    budget_rule = tuple(serving_budget_row(gpu, drawn.inference.budget_per_gpu)) if goal == "serve" else None
    return OverviewView(
        title=tr(
            "{model} on {cards} × {gpu}", model=one.inputs["model_name"], cards=f"{scenario.cards:,}",
            gpu=gpu.short_name,
        ),
        tag=scenario_tag(one),
        gpu_name=gpu.short_name,
        precision=scenario.precision,
        sections=(serving, training) if goal == "serve" else (training, serving),
        notes=tuple(note_lines(one, leave_out=FIT_NOTES)),  # the verdicts say what does not fit
        memory_heading=heading,
        memory_parts=tuple(parts),
        capacity=tuple(capacity_row(gpu)),
        # Serving fits within the stack's budget (the one serving rule): draw it beside the card.
        budget=budget_rule,
        limits=limits_caption(capacity_row(gpu), budget_rule),
        token_time_heading=token_time_heading(comparison, cards_here),
        token_time_rows=bars,
        token_time_caption="\n\n".join([seeds_rule(cpu), *notes]),
    )  # fmt: skip
