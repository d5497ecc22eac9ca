"""The Costs page's view models: frozen, built once per scenario and controls, the sweep apart from the controls."""

import dataclasses

import pytest

from app_pages.costs.view import costs_scenario_view, costs_view
from model import Scenario
from tests.app_pages.estimates import estimates
from ui.controls import AUTO
from ui.view import forget_views, view_or_stop


def test_a_rerun_with_the_same_inputs_returns_the_same_frozen_views_without_an_estimate(monkeypatch):
    forget_views()
    calls = estimates(monkeypatch)
    scenario = Scenario(cards=16)
    head = view_or_stop(costs_scenario_view, scenario)
    view = view_or_stop(costs_view, scenario, "serve", 1e9, 24, AUTO)
    assert calls and head.scaling_rows and view.lines
    calls.clear()
    assert view_or_stop(costs_scenario_view, scenario) is head
    assert view_or_stop(costs_view, scenario, "serve", 1e9, 24, AUTO) is view
    assert not calls
    with pytest.raises(dataclasses.FrozenInstanceError):
        view.takeaway = ""  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        head.title = ""  # type: ignore[misc]


def test_moving_the_traffic_reprices_without_sweeping_the_card_counts_again(monkeypatch):
    forget_views()
    scenario = Scenario(cards=16)
    view_or_stop(costs_scenario_view, scenario)
    view_or_stop(costs_view, scenario, "serve", 1e9, 24, AUTO)
    calls = estimates(monkeypatch)
    view_or_stop(costs_scenario_view, scenario)
    moved = view_or_stop(costs_view, scenario, "serve", 2e9, 24, AUTO)
    assert "2B tokens/day" in moved.takeaway
    assert 1 <= len(calls) <= 2  # the economics' estimates; the sweep's two dozen are remembered
    assert {called.cards for called in calls} == {16}
