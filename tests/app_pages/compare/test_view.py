"""The Compare page's view model: frozen, built once per scenario, a table ready for each filter."""

import dataclasses

import pytest

from app_pages.compare.rows import FILTERS
from app_pages.compare.view import compare_view
from model import Scenario, default_catalog
from tests.app_pages.estimates import estimates
from ui.view import forget_views, view_or_stop


def test_a_rerun_with_the_same_inputs_returns_the_same_frozen_view_without_an_estimate(monkeypatch):
    forget_views()
    calls = estimates(monkeypatch)
    scenario = Scenario(cards=16)
    view = view_or_stop(compare_view, scenario)
    assert len(calls) == len(default_catalog().gpus)  # one estimate per GPU; the title's model is resolved only
    calls.clear()
    assert view_or_stop(compare_view, scenario) is view
    assert not calls
    with pytest.raises(dataclasses.FrozenInstanceError):
        view.title = ""  # type: ignore[misc]


def test_each_filter_has_its_rows_with_the_current_gpu_first():
    view = compare_view(Scenario(model="llama-3.1-70b", gpu="a100-sxm-80gb"), default_catalog())
    every = view.table(FILTERS[0])
    assert len(every) == len(default_catalog().gpus) and every[0]["id"] == "a100-sxm-80gb"
    serving = view.table("Serving fits")
    assert serving and all(row["serving_fits"] for row in serving) and len(serving) < len(every)
    assert all(row["training_fits"] for row in view.table("Training fits"))
    assert all(row["usd_per_gpu_hour"] is not None for row in view.table("With a price"))
