"""The Plan page's view models: the scenario and the page's targets turned, once, into everything it shows.

Two steps, each built and remembered by :func:`ui.view.view_or_stop`. The training-token line
among the page's controls is an engine answer, so :func:`plan_scenario_view` comes before them:
the scenario's estimate (a bad scenario stops the page there, its title first), the title, that
line and the scenario's own point on the chart. :func:`plan_view` comes after them: the search
over every GPU, card count and layout for the targets they set (hundreds of estimates, the page's
only cache of it) and the answer's sentences, chart points, table rows and load buttons. Targets
the planner refuses are part of that view (``error``), not a stop: the controls stay to fix them.
``python -m benchmarks.engine_calls`` prints how many estimates a rerun takes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app_pages.plan import rows
from model import Catalog, PlanOption, Scenario, ScenarioError, estimate, pareto_front, plan_serving, plan_training
from model.pricing import Owning
from model.units import format_count
from ui.controls import TP_OPTIONS
from ui.i18n import tr
from ui.text import escape_markdown

__all__ = ["LOADED", "LoadOption", "PlanScenarioView", "PlanView", "plan_scenario_view", "plan_view"]

LOADED = 5
"""Options offered as 'load into the sidebar' buttons."""

Rows = tuple[dict[str, Any], ...]


@dataclass(frozen=True)
class PlanScenarioView:
    """What the Plan page shows for the scenario alone: its title, its training tokens, its own chart point."""

    title: str
    tag: str
    """The title on one line while presenting: 'Plan to serve · Llama 3.1 8B'."""
    tokens_line: str
    """The training tokens the plan assumes ('' when planning serving)."""
    mine: Rows
    """The sidebar's scenario as a chart point (none when it does not fit or has no price)."""


@dataclass(frozen=True)
class LoadOption:
    """One 'load into the sidebar' button: its label, its help, and the session values it sets."""

    label: str
    help: str
    settings: tuple[tuple[str, Any], ...]
    """(session key, value) pairs: GPU, cards, precision, automatic links, tensor parallel, batch, goal."""


@dataclass(frozen=True)
class PlanView:
    """What the Plan page shows for the scenario and the page's targets."""

    error: str
    """Why the targets cannot be planned ('' when they can; then nothing else is shown)."""
    takeaway: str = ""
    points: Rows = ()
    """Every option and faster variant as a chart point (none: no chart, no table)."""
    x_title: str = ""
    y_title: str = ""
    table: Rows = ()
    loads: tuple[LoadOption, ...] = ()
    excluded_title: str = ""
    """The expander over the GPUs that cannot meet the targets ('' when every GPU can)."""
    excluded: str = ""


def plan_scenario_view(scenario: Scenario, plan_goal: str, finetune: bool, catalog: Catalog) -> PlanScenarioView:
    """Return the part of the Plan page that depends on the scenario and the goal planned for.

    Args:
        scenario: the sidebar's scenario.
        plan_goal: 'serve' or 'train'.
        finetune: whether the sidebar's goal is fine-tuning (the training tokens are a fine-tune's).
        catalog: the visit's catalog.

    Raises:
        ScenarioError: the scenario is invalid.
    """
    result = estimate(scenario, catalog)
    model_name = result.inputs["model_name"]
    serve = plan_goal == "serve"
    mode = tr("fine-tuning") if finetune else tr("pre-training")
    return PlanScenarioView(
        title=tr("Plan: the cheapest way to serve {model}", model=model_name)
        if serve
        else tr("Plan: the cheapest way to train {model}", model=model_name),
        tag=tr("Plan to serve · {model}", model=model_name)
        if serve
        else tr("Plan to train · {model}", model=model_name),
        tokens_line=""
        if serve
        else tr(
            "On **{tokens} tokens** ({mode}; the Overview sets the count).",
            tokens=format_count(result.training.tokens),
            mode=mode,
        ),
        mine=tuple(rows.scenario_point(result, "serve" if serve else "train")),
    )


def _load(option: PlanOption, plan_goal: str, finetune: bool) -> tuple[tuple[str, Any], ...]:
    """The session values that put a planned option into the sidebar's scenario."""
    tp = str(option.layout["tp"])
    settings: list[tuple[str, Any]] = [
        ("gpu", option.gpu),
        ("cards", option.cards),
        ("precision", option.precision),
        ("link", "auto"),
        ("net", "auto"),
        ("tp", tp if tp in TP_OPTIONS else "auto"),
    ]
    if option.batch is not None:
        settings.append(("batch", option.batch))
    settings.append(("goal", "serve" if plan_goal == "serve" else ("finetune" if finetune else "pretrain")))
    return tuple(settings)


def plan_view(
    scenario: Scenario,
    plan_goal: str,
    targets: tuple[float, ...],
    formats: tuple[str, ...],
    price: float | None,
    owned: tuple[float, float, float] | None,
    finetune: bool,
    catalog: Catalog,
) -> PlanView:
    """Return the plan for ``scenario`` and the page's targets, as the page shows it.

    Args:
        scenario: the sidebar's scenario (the plan's starting point).
        plan_goal: 'serve' or 'train'.
        targets: serving: (output tokens/s, ms per output token, ms to first token, 0: none);
            training: (days, budget in USD, 0: none).
        formats: the precisions to weigh.
        price: a typed price per GPU-hour for every GPU (None: each GPU's own).
        owned: (years, $ per kWh, PUE) when the sidebar prices owning, else None.
        finetune: whether the sidebar's goal is fine-tuning (a loaded option keeps it).
        catalog: the visit's catalog.
    """
    owning = Owning(*owned) if owned else None
    try:
        if plan_goal == "serve":
            tps, tpot_s, ttft_s = rows.serving_targets(*targets)
            plan = plan_serving(
                scenario, tps, tpot_s=tpot_s, ttft_s=ttft_s,
                precisions=formats, price_per_gpu_hour=price, owning=owning, catalog=catalog,
            )  # fmt: skip
        else:
            days, budget = targets
            plan = plan_training(
                scenario, days=days, budget_usd=budget or None, precisions=formats,
                price_per_gpu_hour=price, owning=owning, catalog=catalog,
            )  # fmt: skip
    except ScenarioError as error:
        return PlanView(error=tr("These targets cannot be planned: {error}", error=escape_markdown(str(error))))
    train = plan_goal == "train"
    return PlanView(
        error="",
        takeaway=rows.plan_takeaway(plan, catalog),
        points=tuple(rows.point_rows(plan, pareto_front(plan), catalog)) if plan.options else (),
        x_title=tr("Days to train (log)") if train else tr("Time per output token, ms (log)"),
        y_title=tr("Cost of the run (log)") if train else tr("Cost per hour (log)"),
        table=tuple(rows.option_rows(plan, catalog)) if plan.options else (),
        loads=tuple(
            LoadOption(
                label=rows.load_label(option, index, catalog),
                help=rows.option_label(option, catalog),
                settings=_load(option, plan_goal, finetune),
            )
            for index, option in enumerate(plan.options[:LOADED])
        ),
        excluded_title=tr("Why not these {n} GPUs", n=f"{len(plan.excluded):,}") if plan.excluded else "",
        excluded=rows.excluded_lines(plan, catalog),
    )
