"""The Costs page's view models: the scenario and the page's controls turned, once, into everything it shows.

Two steps, each built and remembered by :func:`ui.view.view_or_stop`. The API picker's labels
depend on the model's size (an engine answer), so :func:`costs_scenario_view` comes before the
page's controls: the title, the picker's labels and the card-count sweep, which depend on the
scenario alone (the scenario resolved, then :func:`model.analyses.scaling.card_counts` and
:func:`model.analyses.scaling.scaling_with_cards`). :func:`costs_view` comes after them: the
economics for the traffic, months and API they set (:func:`model.analyses.economics.cost_over_time`,
two estimates), so moving one of those controls re-runs neither the sweep nor the picker.
``python -m benchmarks.engine_calls`` prints how many estimates a rerun takes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app_pages.costs import rows
from model import Catalog, Scenario, resolve, training_refused
from model.analyses.economics import cost_over_time
from model.analyses.scaling import OWN_LINKS, card_counts, link_variants, scaling_with_cards
from ui.controls import AUTO
from ui.format import NOT_RUN
from ui.i18n import tr

__all__ = ["CostsScenarioView", "CostsView", "costs_scenario_view", "costs_view"]

Rows = tuple[dict[str, Any], ...]


@dataclass(frozen=True)
class CostsScenarioView:
    """What the Costs page shows for the scenario alone: its title, the API picker and the card-count sweep."""

    title: str
    tag: str
    """The title on one line while presenting: 'Cost over time · Llama 3.1 8B'."""
    api_choices: tuple[str, ...]
    """'auto', then every API price's id."""
    api_labels: tuple[tuple[str, str], ...]
    """(choice, label) for each of ``api_choices``: 'auto' names the price it picks."""
    scaling_takeaway: str
    scaling_charted: bool
    """Whether the sweep has rows (no empty axes when no card count trains)."""
    scaling_rows: Rows
    step_share_rows: Rows


@dataclass(frozen=True)
class CostsView:
    """What the Costs page shows for the scenario at the page's traffic, months and API."""

    api_terms: str
    """The chosen API's list prices and their date, under the picker."""
    notes: tuple[str, ...]
    """What does not fit or has no price, as sentences."""
    metrics: Rows
    """The five tiles as ``st.metric`` keyword arguments: training, its time, serving, break-even, API."""
    takeaway: str
    lines: Rows
    marks: Rows


def costs_scenario_view(scenario: Scenario, catalog: Catalog) -> CostsScenarioView:
    """Return the part of the Costs page that depends on the scenario alone.

    Raises:
        ScenarioError: the scenario is invalid.
    """
    resolved = resolve(scenario, catalog)  # the title and the picker need the model, not an estimate
    params = resolved.arch.stats.total_params
    choices = (AUTO, *(price.id for price in catalog.prices))
    label = rows.api_labeller(catalog, scenario.model, params)
    scaling = scaling_with_cards(scenario, catalog, card_counts(scenario, catalog), link_variants(scenario, catalog))
    return CostsScenarioView(
        title=tr("Training vs serving cost: {model}", model=resolved.model_name),
        tag=tr("Cost over time · {model}", model=resolved.model_name),
        api_choices=choices,
        api_labels=tuple((choice, label(choice)) for choice in choices),
        scaling_takeaway=rows.scaling_takeaway(scaling, refused=training_refused(resolved)),
        scaling_charted=bool(scaling.rows),
        scaling_rows=tuple(rows.scaling_rows(scaling)),
        step_share_rows=tuple(rows.step_share_rows(scaling, OWN_LINKS)),
    )


def costs_view(
    scenario: Scenario, goal: str, traffic: float, months: int, api_choice: str, catalog: Catalog
) -> CostsView:
    """Return the Costs page's economics for ``scenario``, the sidebar's goal and the page's controls.

    Args:
        scenario: the sidebar's scenario.
        goal: the sidebar's goal ('serve': self-hosting is compared with the API, no training bill).
        traffic: output tokens served per day.
        months: the horizon.
        api_choice: 'auto' or an API price's id.
        catalog: the visit's catalog.

    Raises:
        ScenarioError: the scenario, traffic or horizon is invalid.
    """
    resolved = resolve(scenario, catalog)  # the model's size names the automatic API; no estimate
    api = rows.chosen_api_price(catalog, api_choice, scenario.model, resolved.arch.stats.total_params)
    costs = cost_over_time(scenario, catalog, traffic, months, api)
    gpu_name = resolved.gpu.short_name
    training_help = rows.training_help(costs, scenario.cards)
    metrics = (
        {"label": tr("Training"), "value": rows.money(costs.training_usd), "help": training_help},
        {
            "label": tr("Training time"),
            "value": rows.short_duration(costs.training_time_s) if costs.training_fits else NOT_RUN,
            "help": tr("Wall time with interruptions.") if costs.training_fits else training_help,
        },
        {
            "label": tr("Serving / month"),
            "value": rows.money(costs.serving_usd_per_month),
            "delta": rows.serving_delta(costs),
            "help": rows.serving_help(costs, gpu_name),
        },
        {"label": tr("Break-even"), "value": rows.break_even_text(costs), "help": tr(rows.BREAK_EVEN_HELP)},
        {"label": tr("API / month"), "value": rows.money(costs.api_usd_per_month), "help": rows.api_help(costs)},
    )
    return CostsView(
        api_terms=rows.api_terms(api),
        notes=tuple(rows.sentence(tr(note.template, **note.fields)) for note in costs.notes),
        metrics=metrics,
        takeaway=rows.cost_takeaway(costs, gpu_name, serving_only=goal == "serve"),
        lines=tuple(rows.cost_rows(costs)),
        marks=tuple(rows.cost_marks(costs)),
    )
