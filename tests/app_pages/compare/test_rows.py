"""The GPU comparison table rows, its CSV and takeaway, and the saved-scenario side-by-side table."""

import csv
import io
import json

from app_pages.compare.rows import (
    CURRENT_MARK,
    FILTERS,
    compare_takeaway,
    filter_comparisons,
    gpu_table_columns,
    gpu_table_rows,
)
from model import Scenario, default_catalog
from model.analyses.compare import compare_gpus, scenario_figures
from ui.saved import comparison_rows, figure_cells, saved_json, saved_records
from ui.tables import csv_text

CATALOG = default_catalog()
DEFAULT = compare_gpus(Scenario(), CATALOG)
TOO_BIG = compare_gpus(Scenario(model="llama-3.1-70b", cards=1), CATALOG)


def test_rows_are_in_display_units_one_per_gpu():
    rows = {row["id"]: row for row in gpu_table_rows(DEFAULT, "h100-sxm")}
    assert sorted(rows) == sorted(CATALOG.gpus)
    h100 = rows["h100-sxm"]
    # NVIDIA H100 SXM datasheet: 80 GB of HBM3 at 3.35 TB/s; dense bf16 989.4 TFLOPS (Hopper whitepaper).
    assert h100["memory_gb"] == 80
    assert h100["bandwidth_gb_s"] == 3350
    assert abs(h100["bf16_tflops"] - 989.4) < 0.01
    comparison = next(row for row in DEFAULT if row.gpu_id == "h100-sxm")
    assert h100["training_days"] * 86400 == comparison.training_time_s


def test_only_the_current_gpu_is_marked_and_it_comes_first_then_the_catalog_order():
    rows = gpu_table_rows(DEFAULT, "mi300x")
    marked = [row["id"] for row in rows if row["gpu"].startswith(CURRENT_MARK)]
    assert marked == ["mi300x"]
    assert [row["id"] for row in rows] == ["mi300x", *(gpu for gpu in CATALOG.gpus if gpu != "mi300x")]


def test_missing_figures_stay_blank_never_zero():
    rows = {row["id"]: row for row in gpu_table_rows(DEFAULT, "h100-sxm")}
    assert rows["v100-sxm-32gb"]["bf16_tflops"] is None  # Volta has no bf16 tensor cores
    text = csv_text(list(rows.values()))
    v100 = next(row for row in csv.DictReader(io.StringIO(text)) if row["id"] == "v100-sxm-32gb")
    assert v100["bf16_tflops"] == ""


def test_the_csv_has_a_header_and_one_line_per_gpu():
    rows = gpu_table_rows(DEFAULT, "h100-sxm")
    lines = csv_text(rows).splitlines()
    assert lines[0].split(",")[:2] == ["gpu", "serving_fits"]
    assert len(lines) == len(rows) + 1
    assert csv_text([]) == ""


def test_every_shown_column_has_a_label_and_the_numbers_say_their_unit():
    columns = gpu_table_columns(8)
    rows = gpu_table_rows(DEFAULT, "h100-sxm")
    assert set(columns) <= set(rows[0])
    units = {
        "memory_gb": "GB",
        "bandwidth_gb_s": "GB/s",
        "bf16_tflops": "TFLOPS",
        "tokens_per_s": "Tokens/s",
        "usd_per_million": "$",
        "training_days": "days",
        "training_usd": "$",
        "usd_per_gpu_hour": "$",
    }
    for key, unit in units.items():
        assert unit in columns[key]["label"], key


def test_the_filters_keep_what_they_say():
    assert len(filter_comparisons(TOO_BIG, "All GPUs")) == len(TOO_BIG)
    serving = filter_comparisons(TOO_BIG, "Serving fits")
    assert serving and all(row.serving_fits for row in serving) and len(serving) < len(TOO_BIG)
    assert all(row.training_fits for row in filter_comparisons(TOO_BIG, "Training fits"))
    assert all(row.price_per_gpu_hour is not None for row in filter_comparisons(TOO_BIG, "With a price"))
    assert set(FILTERS) >= {"All GPUs", "Serving fits"}


def test_the_takeaway_names_the_cheapest_fitting_gpu_and_the_current_one():
    priced = [row for row in DEFAULT if row.serving_fits and row.cost_per_million_output_tokens_usd is not None]
    cheapest = min(priced, key=lambda row: row.cost_per_million_output_tokens_usd)
    text = compare_takeaway(DEFAULT, "h100-sxm", 8)
    assert cheapest.name.split(" (")[0] in text
    assert "yours, NVIDIA H100 SXM5 80GB" in text


def test_the_takeaway_says_plainly_when_the_current_gpu_does_not_fit():
    text = compare_takeaway(TOO_BIG, "rtx-4090", 1)
    rtx = next(row for row in TOO_BIG if row.gpu_id == "rtx-4090")
    assert f"needs {rtx.cards_needed:,} cards" in text


def test_the_takeaway_when_nothing_fits():
    nothing = compare_gpus(Scenario(model="llama-3.1-405b", cards=1), CATALOG)
    fitting = [row for row in nothing if row.serving_fits]
    if not fitting:
        assert compare_takeaway(nothing, "h100-sxm", 1).startswith("No GPU")


def test_saved_scenarios_sit_side_by_side_with_changes_from_the_first():
    first = scenario_figures(Scenario(precision="bf16"), CATALOG)
    second = scenario_figures(Scenario(precision="fp8"), CATALOG)
    rows = comparison_rows([("bf16", first), ("fp8", second), ("broken", "This scenario cannot be estimated")])
    assert list(rows[0]) == ["Figure", "1 · bf16", "2 · fp8", "3 · broken"]
    figures = [row["Figure"] for row in rows]
    assert {"Model", "GPU × cards", "Precision", "Training time", "Tokens/s at full load"} <= set(figures)
    by_figure = {row["Figure"]: row for row in rows}
    assert "(" not in by_figure["Training time"]["1 · bf16"]  # the base has no change
    assert "%" in by_figure["Training time"]["2 · fp8"]  # fp8 trains at a different speed
    assert by_figure["Model"]["3 · broken"].startswith("This scenario cannot")


def test_figure_cells_format_with_units():
    cells = dict(figure_cells(scenario_figures(Scenario(), CATALOG)))
    assert cells["Memory per card, training"].split(",")[0].endswith("GB")
    assert cells["Time per token, one user"].endswith("ms")
    assert cells["$ per million output tokens"].startswith("$")


def test_the_saved_comparison_downloads_as_csv_and_json_in_si_units():
    entries = [
        {"id": 1, "label": "base", "scenario": Scenario().to_dict()},
        {"id": 2, "label": "fp8", "scenario": Scenario(precision="fp8").to_dict()},
        {"id": 3, "label": "gone", "scenario": {**Scenario().to_dict(), "gpu": "no-such-gpu"}},
    ]
    records = json.loads(saved_json(entries, CATALOG))
    assert [record["label"] for record in records] == ["base", "fp8", "gone"]
    assert records[0]["scenario"]["precision"] == "bf16"
    assert records[1]["training_time_s"] > 0 and "error" not in records[1]
    assert "gpu" in records[2]["error"]  # a scenario that no longer resolves says why, plainly
    rows = list(csv.DictReader(io.StringIO(csv_text(saved_records(entries, CATALOG)))))
    assert [row["label"] for row in rows] == ["base", "fp8", "gone"]
    assert float(rows[0]["serving_tokens_per_s"]) == records[0]["serving_tokens_per_s"]
