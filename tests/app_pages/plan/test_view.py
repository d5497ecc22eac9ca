"""The Plan page's view models: frozen, the search built once per scenario and targets, refused targets said."""

import dataclasses

import pytest

from app_pages.plan.view import plan_scenario_view, plan_view
from model import Scenario, default_catalog
from tests.app_pages.estimates import estimates
from ui.view import forget_views, view_or_stop

SERVE = ("serve", (20_000.0, 40.0, 0.0), ("bf16",), None, None, False)
"""Serve 20,000 tokens/s at 40 ms per token, in bf16, at each GPU's own price."""


def test_a_rerun_with_the_same_inputs_returns_the_same_frozen_views_without_an_estimate(monkeypatch):
    forget_views()
    calls = estimates(monkeypatch)
    scenario = Scenario(cards=16)
    head = view_or_stop(plan_scenario_view, scenario, "serve", False)
    view = view_or_stop(plan_view, scenario, *SERVE)
    assert len(calls) > 100 and view.table and view.loads and not view.error  # the search: every GPU and count
    calls.clear()
    assert view_or_stop(plan_scenario_view, scenario, "serve", False) is head
    assert view_or_stop(plan_view, scenario, *SERVE) is view
    assert not calls
    with pytest.raises(dataclasses.FrozenInstanceError):
        view.takeaway = ""  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        head.mine = ()  # type: ignore[misc]


def test_targets_the_planner_refuses_are_said_in_the_view_not_raised():
    view = plan_view(Scenario(), "serve", (-1.0, 40.0, 0.0), ("bf16",), None, None, False, default_catalog())
    assert view.error.startswith("These targets cannot be planned:") and not view.table and not view.loads


def test_a_loaded_option_carries_the_sidebar_goal_it_was_planned_for():
    catalog = default_catalog()
    trained = plan_view(Scenario(), "train", (20.0, 0.0), ("bf16",), None, None, True, catalog)
    assert trained.loads and dict(trained.loads[0].settings)["goal"] == "finetune"
    served = plan_view(Scenario(), *SERVE, catalog)
    settings = dict(served.loads[0].settings)
    assert settings["goal"] == "serve" and settings["batch"] >= 1
    assert settings["link"] == settings["net"] == "auto"  # the GPU's own links, as the planner priced them


def test_the_serving_table_sets_dollars_per_million_tokens_and_replicas_beside_each_option():
    # Issue 31: the planner's serving table had no $ per million tokens and no replica count; its load
    # buttons named GPUs by their ids ('#1 mi300x × 1').
    catalog = default_catalog()
    view = plan_view(Scenario(), *SERVE, catalog)
    assert view.table and all({"$ per M tokens", "replicas"} <= set(row) for row in view.table)
    assert all(row["$ per M tokens"].startswith("$") and row["replicas"] >= 1 for row in view.table)
    labels = [load.label for load in view.loads]
    assert labels and all(label.startswith("#") and " × " in label for label in labels)
    assert not any(label.split(" × ", 1)[1] in catalog.gpus for label in labels)  # names, not ids
