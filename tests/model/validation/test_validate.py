"""The engine against published measurements (issue 4): bounds, mapping, report, nearest."""

import json
import math
import subprocess
import sys

import pytest
import yaml

from model import Scenario, default_catalog
from model.catalog import DATA_DIR
from model.validation import KINDS, load_references, nearest, validate
from model.validation.report import format_report
from model.validation.validate import predict

CATALOG = default_catalog()
REPORT = validate(CATALOG)


def test_every_published_measurement_is_scored_or_says_why_not():
    # Issue 4: "an entry that cannot be mapped says why instead of being dropped silently".
    with (DATA_DIR / "published_measurements.yaml").open(encoding="utf-8") as handle:
        published = {row["id"] for row in yaml.safe_load(handle)}
    scored = {row.reference.id for row in REPORT.rows}
    unmapped = {ref.id for ref in REPORT.unmapped}
    assert scored | unmapped == published
    assert not scored & unmapped
    assert all(len(ref.unmapped) > 20 for ref in REPORT.unmapped)


def test_each_kind_has_measurements_and_each_row_states_its_assumptions():
    for kind in KINDS:
        assert sum(row.reference.kind == kind for row in REPORT.rows) >= 5, kind
    assert all(row.reference.assumptions for row in REPORT.rows)


def test_median_error_is_at_most_15_percent_overall_and_25_percent_per_kind():
    # Issue 4's accuracy bounds on the shipped reference set.
    assert REPORT.overall.median_abs_error <= 0.15
    for score in REPORT.kinds:
        assert score.median_abs_error <= 0.25, score


def test_no_measurement_is_off_by_2x_or_more():
    worst = max(REPORT.rows, key=lambda row: row.ratio)
    assert worst.ratio < 2.0, (worst.reference.id, worst.predicted, worst.reference.value)


def test_predictions_are_positive_and_finite():
    for row in REPORT.rows:
        assert row.predicted > 0 and math.isfinite(row.predicted), row.reference.id


def test_the_error_is_positive_when_the_engine_overshoots_and_the_ratio_is_symmetric():
    reference = REPORT.rows[0].reference
    over = REPORT.rows[0]._replace(predicted=reference.value * 1.5)
    under = REPORT.rows[0]._replace(predicted=reference.value / 1.5)
    assert over.error == pytest.approx(0.5)
    assert under.error == pytest.approx(-1 / 3)
    assert over.ratio == pytest.approx(under.ratio) == pytest.approx(1.5)


def test_each_row_holds_the_engines_own_prediction():
    for row in REPORT.rows[:5]:
        assert row.predicted == predict(row.reference, CATALOG).value


def test_the_text_report_lists_every_row_the_unmapped_and_each_kind():
    text = format_report(REPORT)
    for row in REPORT.rows:
        assert row.reference.id[:46] in text
    for ref in REPORT.unmapped:
        assert f"not mapped: {ref.id}" in text
    for kind in (*KINDS, "overall"):
        assert kind in text


def test_the_cli_prints_the_same_figures_as_json():
    done = subprocess.run(
        [sys.executable, "-m", "model", "validate", "--json"], capture_output=True, text=True, check=False, timeout=120
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert len(data["rows"]) == len(REPORT.rows)
    assert {row["id"] for row in data["unmapped"]} == {ref.id for ref in REPORT.unmapped}
    assert data["overall"]["median_abs_error"] == pytest.approx(REPORT.overall.median_abs_error)
    assert {score["kind"] for score in data["kinds"]} == set(KINDS)


def test_the_nearest_measurements_to_a_measured_scenario_start_with_it():
    row = next(r for r in REPORT.rows if r.reference.id == "trtllm-llama3.1-8b-fp8-1xh100-1k1k")
    near = nearest(REPORT, row.reference.scenario, CATALOG, count=3)
    assert near[0].row.reference.id == row.reference.id
    assert near[0].distance == pytest.approx(0.0, abs=1e-9)
    assert [n.distance for n in near] == sorted(n.distance for n in near)


def test_a_different_gpu_moves_a_measurement_further_away():
    same = Scenario(model="llama-3.1-8b", gpu="h100-sxm", cards=1, precision="fp8")
    other = Scenario(model="llama-3.1-8b", gpu="a100-sxm-80gb", cards=1, precision="fp8")
    ident = "trtllm-llama3.1-8b-fp8-1xh100-1k1k"

    def distance(scenario):
        return next(n.distance for n in nearest(REPORT, scenario, CATALOG, count=50) if n.row.reference.id == ident)

    assert distance(other) == pytest.approx(distance(same) + 0.5)


def test_references_load_once_and_know_their_sources():
    references = load_references()
    assert references is load_references()
    assert all(ref.source_title and ref.quote for ref in references)
