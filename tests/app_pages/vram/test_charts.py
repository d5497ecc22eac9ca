"""The VRAM page's chart builders and row shaping: units in titles, tooltips, data on layers."""

import math

from app_pages.vram.charts import knob_memory_chart, load_memory_chart
from app_pages.vram.rows import OPTIONS, knob_rows, limit_row, load_rows, vram_settings
from model import Scenario
from model.analyses.fit import LoadPoint, recompute_sweep, zero_stage_sweep
from model.inference import InferenceMemory
from ui.charts import COMPONENT_COLORS, _fill, _template
from ui.controls import CONTROLS
from ui.sidebar import training_settings

PARTS = [
    {"option": "0", "component": "optimizer", "gb": 96.0, "order": 2, "status": "157.3 GB: does not fit"},
    {"option": "1 (now)", "component": "optimizer", "gb": 12.0, "order": 2, "status": "68.7 GB: fits"},
    {"option": "1 (now)", "component": "weights", "gb": 16.0, "order": 0, "status": "68.7 GB: fits"},
]
CAPACITY = [{"gb": 80.0, "label": "H100: 80 GB"}]
POINTS = [
    {"x": 1024, "gb": 30.0, "status": "fits"},
    {"x": 65536, "gb": 300.0, "status": "does not fit"},
]
LIMIT = [{"x": 14730, "label": "largest: 14,730 tokens"}]


def _tooltip_fields(layer):
    return {t["field"] for t in layer["encoding"]["tooltip"]}


def test_knob_chart_stacks_components_per_setting_against_capacity():
    spec = knob_memory_chart(parts=PARTS, capacity=CAPACITY, knob_title="ZeRO stage").to_dict()
    bars, rule, label = spec["layer"]
    assert bars["mark"]["type"] == "bar"
    assert bars["encoding"]["x"]["title"] == "ZeRO stage"
    assert "GB" in bars["encoding"]["y"]["title"]
    assert bars["encoding"]["color"]["scale"]["domain"] == list(COMPONENT_COLORS)
    assert _tooltip_fields(bars) == {"option", "component", "gb", "status"}
    assert rule["mark"]["type"] == "rule" and rule["encoding"]["y"]["field"] == "gb"
    assert _tooltip_fields(rule) == {"label", "gb"}
    assert label["mark"]["type"] == "text"
    assert bars["data"]["values"] == PARTS
    assert rule["data"]["values"] == CAPACITY


def test_load_chart_puts_memory_against_a_log_axis_with_capacity_and_limit():
    spec = load_memory_chart(points=POINTS, capacity=CAPACITY, limit=LIMIT).to_dict()
    line, dots, limit_rule, limit_label, capacity_rule, _capacity_label = spec["layer"]
    assert line["mark"]["type"] == "line" and dots["mark"]["type"] == "point"
    assert line["encoding"]["x"]["scale"]["type"] == "log"
    assert "tokens" in line["encoding"]["x"]["title"]
    assert "GB" in line["encoding"]["y"]["title"]
    assert _tooltip_fields(line) == _tooltip_fields(dots) == {"x", "gb", "status"}
    assert "tooltip" in limit_rule["encoding"] and "tooltip" in capacity_rule["encoding"]
    assert limit_label["encoding"]["text"]["field"] == "label"
    assert line["data"]["values"] == POINTS
    assert limit_rule["data"]["values"] == LIMIT


def test_load_chart_takes_its_axis_title_as_a_static_option():
    spec = load_memory_chart(points=POINTS, capacity=CAPACITY, limit=[], x_title="Sequences (log scale)").to_dict()
    assert spec["layer"][0]["encoding"]["x"]["title"] == "Sequences (log scale)"


def test_the_renderer_swaps_rows_into_the_vram_charts():
    for builder, rows in (
        (knob_memory_chart, {"parts": PARTS, "capacity": CAPACITY}),
        (load_memory_chart, {"points": POINTS, "capacity": CAPACITY, "limit": LIMIT}),
    ):
        template = _template(builder, tuple(sorted(rows)), ())
        assert "data" not in template and "datasets" not in template
        filled = _fill(template, rows)
        assert all("values" in layer["data"] for layer in filled["layer"])


def test_training_settings_turn_auto_into_none_and_choices_into_numbers():
    state = {key: control.default for key, control in CONTROLS.items()}
    settings = training_settings(state)
    assert settings["zero"] is None and settings["tp"] is None and settings["recompute"] is None
    assert settings["seq_len"] is None  # the default length leaves the engine's own
    assert settings["kv_precision"] is None  # auto: the engine's default for the weights
    state.update(zero="3", tp="8", recompute="full", micro=4, seq=8192, batch=16, kv="fp8")
    assert training_settings(state) == {
        "zero": 3,
        "tp": 8,
        "recompute": "full",
        "micro_batch": 4,
        "kv_precision": "fp8",
        "seq_len": 8192,
    }
    assert vram_settings(state) == {"batch": 16}
    Scenario(**training_settings(state), **vram_settings(state))  # every field is one the engine accepts


def test_the_page_options_are_the_values_the_url_accepts():
    for key, options in OPTIONS.items():
        for option in options:
            assert CONTROLS[key].parse(option) == option


def test_knob_rows_give_every_component_of_every_setting_in_gb_and_mark_the_current_one():
    sweep = zero_stage_sweep(Scenario(cards=8))
    rows = knob_rows(sweep)
    assert len(rows) == 4 * 5  # four stages, five training components
    assert {row["component"] for row in rows} <= set(COMPONENT_COLORS)
    chosen = next(point for point in sweep.points if point.chosen)
    assert sum(row["option"].endswith("(now)") for row in rows) == 5
    weights = next(row for row in rows if row["option"] == f"{chosen.value} (now)" and row["component"] == "weights")
    assert math.isclose(weights["gb"], chosen.memory.weights / 1e9)


def test_lora_knob_rows_split_the_frozen_base_from_the_adapters_and_add_up():
    sweep = zero_stage_sweep(Scenario(model="llama-3.1-8b", cards=1, finetune="lora"))
    rows = knob_rows(sweep)
    point = sweep.points[0]
    mine = [row for row in rows if row["option"].startswith(str(point.value))]
    assert {row["component"] for row in mine} >= {"weights", "adapters"}
    assert math.isclose(sum(row["gb"] for row in mine), point.memory.total / 1e9)
    assert 0 < point.memory.adapters < 0.05 * point.memory.weights


def test_knob_rows_say_whether_each_setting_fits():
    rows = knob_rows(recompute_sweep(Scenario(model="llama-3.1-70b", cards=1)))
    assert all(row["status"].endswith("does not fit") for row in rows)


def test_load_rows_and_the_limit_marker_are_in_plain_units():
    memory = InferenceMemory(16e9, 4e9, 1e9, 1e9, 22e9)
    assert load_rows([LoadPoint(2048, memory, True)]) == [{"x": 2048, "gb": 22.0, "status": "fits"}]
    assert limit_row(14730.0, "tokens") == [{"x": 14730.0, "label": "largest: 14,730 tokens"}]
    assert limit_row(math.inf, "tokens") == []
    assert limit_row(0, "sequences") == []
