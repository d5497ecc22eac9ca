"""The result of an estimate: ranges, warnings as codes and sentences, and JSON with no number for what cannot run."""

import pytest

from model import UNCERTAIN_SPREAD, Range, Scenario, default_catalog, estimate
from model.results import NOTES, Note

CATALOG = default_catalog()


def test_a_range_spread_is_its_width_over_the_figure_and_zero_for_a_zero_figure():
    assert Range(90.0, 110.0).spread(100.0) == pytest.approx(0.2)
    assert Range(1.0, 2.0).spread(0.0) == 0.0


def test_a_range_narrower_than_the_threshold_is_not_shown():
    result = estimate(Scenario(model="llama-3.1-8b", gpu="h100-sxm", cards=8), CATALOG)
    for name, bounds in result.ranges.items():
        part = result.training if hasattr(result.training, name) else result.inference
        shown = result.uncertain_range(name)
        assert (shown is not None) == (bounds.spread(getattr(part, name)) >= UNCERTAIN_SPREAD), name


def test_a_note_fills_its_template_with_its_values():
    note = Note("training_does_not_fit", {"needed": "598.2 GB", "capacity": "25.2 GB"})
    assert note.template == NOTES["training_does_not_fit"]
    assert note.text == "training does not fit: needs 598.2 GB per card, has 25.2 GB"


def test_every_note_an_estimate_gives_is_in_the_table_and_its_sentence_is_a_warning():
    result = estimate(Scenario(model="llama-3.1-405b", gpu="rtx-4090", cards=1, precision="int8"), CATALOG)
    assert result.notes and all(note.code in NOTES for note in result.notes)
    assert result.warnings == tuple(note.text for note in result.notes)


def test_the_json_of_a_part_that_cannot_run_keeps_its_memory_and_nulls_its_run_figures():
    data = estimate(Scenario(model="llama-3.1-405b", gpu="rtx-4090", cards=1), CATALOG).to_dict()
    for part, run in (("training", "time_s"), ("inference", "tpot_s")):
        assert data[part]["fits"] is False and data[part][run] is None
        assert data[part]["memory_per_gpu"]["total"] > 0
        assert run not in data["ranges"]
    assert "adapters" not in data["training"]["memory_per_gpu"]  # a detail of the weights, not a contract part
