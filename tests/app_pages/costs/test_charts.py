"""Cost and scaling charts (checked through to_dict) and the rows that feed them."""

import pytest

from app_pages.costs.charts import cost_over_time_chart, scaling_time_chart, step_share_chart
from app_pages.costs.rows import (
    COST_SERIES,
    IDEAL_SETUP,
    TRAFFIC_STEPS,
    break_even_text,
    cost_marks,
    cost_rows,
    cost_takeaway,
    fleet_text,
    month_text,
    scaling_rows,
    scaling_takeaway,
    serving_delta,
    serving_help,
    step_share_rows,
)
from model import Scenario, default_catalog
from model.analyses.economics import cost_over_time
from model.analyses.scaling import SETUP_LABELS, card_counts, link_variants, scaling_with_cards
from ui.charts import _fill, _template
from ui.controls import steps_with
from ui.layout_rows import STEP_PARTS

CATALOG = default_catalog()
LINES = [
    {"month": 0, "series": "Training (one-time)", "usd": 15_000.0, "order": 0},
    {"month": 1, "series": "Self-hosted serving", "usd": 4_800.0, "order": 1},
    {"month": 1, "series": "API", "usd": 27_000.0, "order": 3},
]
MARKS = [{"month": 3.1, "usd": 15_000.0, "label": "break-even: month 3.1", "align": "left", "dx": 8, "dy": 16}]
SCALING = [
    {"cards": 8, "setup": SETUP_LABELS[0], "links": "NVLink · IB", "days": 28.6, "cost_usd": 1e4, "gpu_hours": 5e3},
    {"cards": 8, "setup": IDEAL_SETUP, "days": 28.6},
]
SHARES = [
    {"cards": 8, "part": "compute", "pct": 95.0, "order": 0},
    {"cards": 8, "part": "data-parallel gradients", "pct": 5.0, "order": 2},
]


def _tooltip_fields(layer):
    return {t["field"] for t in layer["encoding"]["tooltip"]}


def test_cost_chart_has_a_log_dollar_axis_month_axis_and_tooltips_on_every_layer():
    spec = cost_over_time_chart(lines=LINES, marks=MARKS).to_dict()
    lines, rule, point, label = spec["layer"]
    assert point["mark"]["type"] == "point"
    assert "US$" in lines["encoding"]["y"]["title"] and lines["encoding"]["y"]["scale"]["type"] == "log"
    assert "month" in lines["encoding"]["x"]["title"].lower()
    assert lines["encoding"]["color"]["scale"]["domain"] == list(COST_SERIES)
    assert lines["data"]["values"] == LINES and rule["data"]["values"] == MARKS
    assert rule["mark"]["type"] == "rule" and label["mark"]["type"] == "text"
    for layer in spec["layer"]:
        assert "tooltip" in layer["encoding"]
    assert {"series", "month", "usd"} <= _tooltip_fields(lines)
    assert "label" in _tooltip_fields(rule)


def test_scaling_chart_puts_cards_and_days_on_log_axes_with_the_ideal_dashed():
    spec = scaling_time_chart(rows=SCALING).to_dict()
    ideal, lines, points = spec["layer"]
    for layer in (ideal, lines, points):
        assert layer["encoding"]["x"]["scale"]["type"] == "log"
        assert layer["encoding"]["y"]["scale"]["type"] == "log"
        assert "tooltip" in layer["encoding"]
    assert "days" in lines["encoding"]["y"]["title"] and "Cards" in lines["encoding"]["x"]["title"]
    assert ideal["mark"]["strokeDash"]
    assert lines["encoding"]["color"]["scale"]["domain"] == [*SETUP_LABELS, IDEAL_SETUP]
    assert {"setup", "links", "cards", "days", "cost_usd"} <= _tooltip_fields(lines)
    assert lines["encoding"]["color"]["legend"]["orient"] in ("top", "right")


def test_step_share_chart_stacks_percent_of_the_step_per_card_count():
    spec = step_share_chart(rows=SHARES).to_dict()
    (bars,) = spec["layer"]
    assert bars["mark"]["type"] == "bar"
    assert "%" in bars["encoding"]["y"]["title"] and "Cards" in bars["encoding"]["x"]["title"]
    assert bars["encoding"]["color"]["scale"]["domain"] == [label for _, label in STEP_PARTS]
    assert {"cards", "part", "pct"} == _tooltip_fields(bars)
    assert bars.get("data", spec.get("data"))["values"] == SHARES  # a single layer's data is hoisted


def test_each_builder_caches_as_a_template_with_data_only_on_layers():
    for builder, data in (
        (cost_over_time_chart, {"lines": LINES, "marks": MARKS}),
        (scaling_time_chart, {"rows": SCALING}),
        (step_share_chart, {"rows": SHARES}),
    ):
        template = _template(builder, tuple(sorted(data)), ())
        assert "data" not in template and "datasets" not in template
        filled = _fill(template, data)
        assert all("values" in layer["data"] for layer in filled["layer"])


def test_cost_rows_leave_out_zeros_for_the_log_axis_and_marks_sit_on_the_lines():
    result = cost_over_time(Scenario(), CATALOG, 1e9, 24, CATALOG.prices[2])
    rows = cost_rows(result)
    assert rows and all(row["usd"] > 0 for row in rows)
    assert {row["series"] for row in rows} == set(COST_SERIES)
    marks = cost_marks(result)
    assert marks[0]["month"] == result.break_even_month and marks[0]["usd"] == result.training_usd
    assert all(mark["align"] in ("left", "right") for mark in marks)
    assert break_even_text(result) == f"{result.break_even_month:,.1f} mo"
    assert "month" in cost_takeaway(result, "NVIDIA H100 SXM5 80GB")


def test_a_shared_value_off_the_slider_grid_is_kept_as_an_option():
    options = steps_with(TRAFFIC_STEPS, 3e9)
    assert 3e9 in options and options == sorted(options)
    assert steps_with(TRAFFIC_STEPS, 1e9) == list(TRAFFIC_STEPS)


def test_scaling_rows_convert_seconds_to_days_and_add_the_ideal_line():
    scenario = Scenario(model="llama-3.1-70b", cards=64)
    scaling = scaling_with_cards(scenario, CATALOG, card_counts(scenario, CATALOG), link_variants(scenario, CATALOG))
    rows = scaling_rows(scaling)
    first = scaling.rows[0]
    assert rows[0]["days"] * 86_400 == pytest.approx(first.time_s, rel=1e-12)  # x / 86,400 * 86,400 rounds
    assert sum(row["setup"] == IDEAL_SETUP for row in rows) == len(scaling.ideal)
    shares = step_share_rows(scaling, SETUP_LABELS[0])
    per_count: dict[int, float] = {}
    for row in shares:
        per_count[row["cards"]] = per_count.get(row["cards"], 0.0) + row["pct"]
    assert all(abs(total - 100.0) < 1e-6 for total in per_count.values())
    assert "faster" in scaling_takeaway(scaling)


def test_a_break_even_within_the_first_month_is_said_in_hours_or_days_not_zero_months():
    # A LoRA fine-tune of 70B costs tens of dollars; serving 1B tokens a day overtakes it within hours.
    tuned = Scenario(model="llama-3.1-70b", gpu="a100-sxm-80gb", cards=8, finetune="lora", tokens=1e8)
    result = cost_over_time(tuned, CATALOG, 1e9, 24, CATALOG.prices[2])
    assert result.break_even_month is not None and result.break_even_month < 1
    assert result.break_even_s == pytest.approx(result.break_even_month * 365.25 / 12 * 86400)
    text = break_even_text(result)
    assert "mo" not in text and text.split()[-1] in ("ms", "s", "min", "h", "days")


GPT_4O = next(price for price in CATALOG.prices if price.id == "gpt-4o-2024-08")


def _crossing(months: int = 24):
    """Llama 3.1 8B on 8 H100s against GPT-4o at 20M tokens a day: the API line is crossed within a year."""
    result = cost_over_time(Scenario(), CATALOG, 2e7, months, GPT_4O)
    assert result.api_crossover_month is not None and result.api_crossover_month > 1
    return result


def test_the_chart_marks_and_the_sentence_name_each_month_with_one_rounding():
    # Issue 29: the chart said "cheaper than the API from month 11.4", the sentence "from month 12".
    result = _crossing()
    marks = {mark["label"] for mark in cost_marks(result)}
    takeaway = cost_takeaway(result, "NVIDIA H100 SXM5 80GB")
    for month in (result.break_even_month, result.api_crossover_month):
        said = month_text(month, result.months)
        assert said == f"month {month:,.1f}"
        assert said in takeaway and any(label.endswith(said) for label in marks)
    assert break_even_text(result) == f"{result.break_even_month:,.1f} mo"


def test_within_the_first_month_the_tile_chart_and_sentence_say_the_same_days_or_hours():
    tuned = Scenario(model="llama-3.1-70b", gpu="a100-sxm-80gb", cards=8, finetune="lora", tokens=1e8)
    result = cost_over_time(tuned, CATALOG, 1e9, 24, CATALOG.prices[2])
    said = month_text(result.break_even_month, result.months)
    number, unit = break_even_text(result).split()
    assert said.split() == [{"days": "day", "h": "hour", "min": "minute"}[unit], number]
    assert said in cost_takeaway(result, "NVIDIA A100 SXM4 80GB")
    assert f"break-even: {said}" in {mark["label"] for mark in cost_marks(result)}


def test_the_serving_bill_says_the_replicas_and_cards_it_pays_for():
    # Issue 29: "2 cards" became about a thousand without a word. Llama 3.1 70B int4 on 4 x RTX 4090 at 1B a day.
    scenario = Scenario(model="llama-3.1-70b", gpu="rtx-4090", cards=4, precision="int4")
    result = cost_over_time(scenario, CATALOG, 1e9, 24, None)
    assert result.replicas > 1 and result.replica_cards == 4
    fleet = fleet_text(result, "RTX 4090")
    cards = result.replicas * result.replica_cards
    assert fleet == f"1B tokens/day takes {result.replicas:,} replicas of 4 cards: {cards:,} × RTX 4090"
    assert fleet in cost_takeaway(result, "RTX 4090") and fleet in cost_takeaway(result, "RTX 4090", serving_only=True)
    assert serving_help(result, "RTX 4090").startswith(fleet)
    assert serving_delta(result) == f"{cards:,} cards"


def test_one_replica_of_one_card_is_said_in_the_singular_with_its_idle_floor():
    result = cost_over_time(Scenario(model="llama-3.1-8b", gpu="h100-sxm", cards=8), CATALOG, 1e5, 24, None)
    assert result.replicas == 1 and result.replica_cards == 1 and result.replica_floor_applies
    assert fleet_text(result, "H100") == "100k tokens/day takes 1 replica of 1 card: 1 × H100"
    assert "partly idle" in cost_takeaway(result, "H100")
    assert serving_delta(result) == "1 card"


def test_serving_that_cannot_run_gets_no_cards_and_no_cost_in_any_text():
    scenario = Scenario(model="llama-3.1-70b", gpu="rtx-4090", cards=2, precision="int4")
    result = cost_over_time(scenario, CATALOG, 1e9, 24, CATALOG.prices[2])
    assert serving_delta(result) is None
    assert "does not fit" in serving_help(result, "RTX 4090")
    takeaway = cost_takeaway(result, "RTX 4090", serving_only=True)
    assert "takes" not in takeaway and "no break-even" in takeaway
    assert break_even_text(result) == "—" and cost_marks(result) == []
    assert not [row for row in cost_rows(result) if row["series"] != "API"]
