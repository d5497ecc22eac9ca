"""The Validation page sets each source left out beside the in-sample error (issue 33 item 5)."""

from app_pages.validation.view import validation_view
from model import Scenario, default_catalog
from model.validation import load_out_of_sample


def test_the_page_shows_each_kind_and_class_in_sample_beside_each_source_left_out():
    view = validation_view(Scenario(), "all", default_catalog())
    held_out = load_out_of_sample()
    assert held_out is not None
    rows = {row["Measurements"]: row for row in view.generalisation}
    assert rows["All"]["Each source left out"] == f"{held_out.overall.out_of_sample:.1%}"
    assert rows["All"]["In sample"] == f"{held_out.overall.in_sample:.1%}"
    assert rows["On a desk (local runners)"]["Runs"] == next(s.entries for s in held_out.kinds if s.group == "local")
    assert {"LoRA / QLoRA fine-tuning", "Serving at full load (queued)"} <= set(rows)
    assert "left out" in view.generalisation_note


def test_a_class_that_is_also_a_kind_is_listed_once():
    names = [row["Measurements"] for row in validation_view(Scenario(), "all", default_catalog()).generalisation]
    assert len(names) == len(set(names))
