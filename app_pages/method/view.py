"""The Method page's view model: the chosen section's sentences and tables for one scenario, built once.

One estimate of the scenario (the layouts weighed, and a bad scenario stops the page with its
message), the assumptions in force and the seed claims; the section picker stays in the page script.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app_pages.method.rows import (
    accuracy_text,
    assumption_rows,
    claim_rows,
    claims_by_topic,
    claims_takeaway,
    formulas_by_group,
    group_markdown,
    range_method_text,
    shared_rules,
    verdict_rule,
)
from model import DESK_RUNNER, Catalog, Scenario, estimate
from model.explain import assumptions
from model.seeds import check_claims
from ui import layout_rows as rows_layout
from ui.i18n import tr
from ui.reports import shipped_report

__all__ = ["MethodView", "method_view"]

Rows = tuple[dict[str, Any], ...]


@dataclass(frozen=True)
class MethodView:
    """What the Method page shows for one scenario and section: text blocks and titled tables, in order."""

    blocks: tuple[tuple[str, str | Rows], ...]
    """('markdown' | 'caption', text) or ('table', rows), in the order shown."""
    folded: tuple[tuple[str, str | Rows, bool], ...]
    """Expanders: (title, markdown text or table rows, open at first)."""
    csv: tuple[str, str, str, Rows] | None
    """(button label, file name, widget key, rows) of the section's download, or None."""
    accuracy: str


def _rules(scenario: Scenario, catalog: Catalog) -> MethodView:
    result = estimate(scenario, catalog)
    desk = catalog.stacks[DESK_RUNNER].serving_budget if DESK_RUNNER in catalog.stacks else None
    rules = shared_rules(result.resolved.gpu, desk.reserve_bytes if desk else 0.0)
    return MethodView((("markdown", rules),), (), None, accuracy_text(shipped_report()))


def _formulas(scenario: Scenario, catalog: Catalog) -> MethodView:
    estimate(scenario, catalog)  # a bad scenario stops the page here as on every section
    folded = tuple(
        (tr("{group} ({count})", group=tr(group), count=f"{len(formulas)}"), group_markdown(formulas), index == 0)
        for index, (group, formulas) in enumerate(formulas_by_group())
    )
    caption = tr("Each formula as the engine computes it, with its source and the function that holds it.")
    return MethodView((("caption", caption),), folded, None, accuracy_text(shipped_report()))


def _assumptions(scenario: Scenario, catalog: Catalog) -> MethodView:
    result = estimate(scenario, catalog)
    in_force = assumptions(scenario, catalog)
    expected = tuple(assumption_rows(in_force))
    ranged = tuple(assumption_rows(in_force, "range"))
    efficiency = tuple(assumption_rows(in_force, "efficiency"))
    caption = tr(
        "What the estimate of {model} on {cards} × {gpu} uses. Change the sidebar and this table follows.",
        model=result.resolved.model_name,
        cards=f"{scenario.cards:,}",
        gpu=result.resolved.gpu.short_name,
    )
    layouts = tr(
        "**Layouts weighed.** {choice} The search walks tensor parallelism inside a node, pipeline stages, data "
        "and expert parallelism, ZeRO stage, recomputation (full recomputation of as few layers as the card "
        "needs), micro-batch and interleaved stages, and keeps what you fix.",
        choice=rows_layout.training_choice(result),
    )
    blocks: tuple[tuple[str, str | Rows], ...] = (
        ("caption", caption),
        ("table", expected),
        ("markdown", layouts),
        ("table", tuple(rows_layout.training_candidate_rows(result))),
        ("markdown", rows_layout.serving_choice(result)),
        ("table", tuple(rows_layout.serving_candidate_rows(result))),
        ("markdown", range_method_text(shipped_report())),
        ("table", ranged),
    )
    folded = ((tr("Efficiency factors (the expected set, the same for every scenario)"), efficiency, False),)
    csv = (tr("Assumptions (CSV)"), "assumptions.csv", "assumptions_csv", (*expected, *ranged, *efficiency))
    return MethodView(blocks, folded, csv, accuracy_text(shipped_report()))


def _claims(scenario: Scenario, catalog: Catalog) -> MethodView:
    estimate(scenario, catalog)  # a bad scenario stops the page here as on every section
    checks = check_claims(catalog)
    blocks: list[tuple[str, str | Rows]] = [("markdown", claims_takeaway(checks))]
    for topic, rows in claims_by_topic(checks):
        blocks += [("markdown", f"**{topic}**"), ("table", tuple(rows))]
    blocks.append(("caption", verdict_rule()))
    csv = (tr("Seed claims (CSV)"), "seed-claims.csv", "claims_csv", tuple(claim_rows(checks)))
    return MethodView(tuple(blocks), (), csv, accuracy_text(shipped_report()))


_SECTIONS = {"rules": _rules, "formulas": _formulas, "assumptions": _assumptions, "claims": _claims}


def method_view(scenario: Scenario, section: str, catalog: Catalog) -> MethodView:
    """Return the Method page's ``section`` ('assumptions', 'rules', 'formulas' or 'claims') for ``scenario``.

    Raises:
        ScenarioError: the scenario is invalid.
    """
    return _SECTIONS[section](scenario, catalog)
