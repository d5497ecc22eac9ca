"""Throughput chart builders and the rows they are fed (checked through to_dict)."""

import dataclasses

import pytest

from app_pages.tokens.charts import BOUND_COLORS, total_throughput_chart, user_speed_chart
from app_pages.tokens.rows import (
    batch_options,
    chosen_rows,
    knee_rows,
    line_rows,
    point_rows,
    target_rows,
)
from app_pages.tokens.sentences import (
    clamp_note,
    knee_text,
    metric_rows,
    replica_caption,
    scale_text,
    throughput_takeaway,
)
from model import Scenario, estimate
from model.analyses.serving import Knee, batch_sweep, knee_batch, largest_batch_within_latency, sweep_replica
from ui.charts import _fill, _template
from ui.controls import steps_with

SCENARIO = Scenario(model="llama-3.1-8b", gpu="h100-sxm", cards=1, prompt_len=128, output_len=128)
POINTS = batch_sweep(SCENARIO)
KNEE = knee_batch(SCENARIO)
ROWS = {
    "points": point_rows(POINTS),
    "lines": line_rows(POINTS),
    "knee": knee_rows(KNEE),
    "chosen": chosen_rows(POINTS[3]),
}
TARGET = target_rows(50.0)


def _layers(spec):
    return spec["layer"]


def test_total_chart_is_log_log_with_units_in_both_titles():
    spec = total_throughput_chart(**ROWS).to_dict()
    curves = _layers(spec)[0]
    assert curves["encoding"]["x"]["scale"]["type"] == "log"
    assert curves["encoding"]["y"]["scale"]["type"] == "log"
    assert "sequences" in curves["encoding"]["x"]["title"]
    assert "tokens/s" in curves["encoding"]["y"]["title"]


def test_user_chart_has_a_log_batch_axis_and_the_target_as_a_horizontal_rule():
    spec = user_speed_chart(**ROWS, target=TARGET).to_dict()
    layers = _layers(spec)
    assert layers[0]["encoding"]["x"]["scale"]["type"] == "log"
    assert layers[0]["encoding"]["y"]["scale"]["type"] == "log"  # the roofline can be 10x what one user gets
    assert "Tokens/s" in layers[0]["encoding"]["y"]["title"]
    rules = [layer for layer in layers if layer["mark"]["type"] == "rule" and "y" in layer["encoding"]]
    assert len(rules) == 1 and rules[0]["data"]["values"] == TARGET
    assert TARGET[0]["per_user"] == pytest.approx(20.0)  # 1000 ms / 50 ms per token


@pytest.mark.parametrize("builder", [total_throughput_chart, user_speed_chart])
def test_every_mark_has_a_tooltip_and_its_own_data(builder):
    arguments = {**ROWS, "target": TARGET} if builder is user_speed_chart else ROWS
    spec = builder(**arguments).to_dict()
    assert "data" not in spec
    for layer in _layers(spec):
        assert layer["encoding"]["tooltip"], layer["mark"]
        assert "values" in layer["data"]


def test_points_are_coloured_by_bound_and_the_roofline_is_dashed():
    layers = _layers(total_throughput_chart(**ROWS).to_dict())
    dots = next(layer for layer in layers if layer["mark"]["type"] == "circle")
    assert dots["encoding"]["color"]["field"] == "bound"
    assert dots["encoding"]["color"]["scale"]["domain"] == list(BOUND_COLORS)
    curves = layers[0]
    assert curves["encoding"]["strokeDash"]["scale"]["domain"] == ["expected", "roofline (ideal)"]
    assert {row["series"] for row in curves["data"]["values"]} == {"expected", "roofline (ideal)"}


def test_the_knee_is_a_vertical_rule_labelled_on_both_sides():
    layers = _layers(total_throughput_chart(**ROWS).to_dict())
    rule = next(layer for layer in layers if layer["mark"]["type"] == "rule")
    assert rule["encoding"]["x"]["field"] == "batch"
    assert rule["data"]["values"][0]["batch"] == pytest.approx(KNEE.expected)
    labels = {layer["encoding"]["text"]["field"] for layer in layers if layer["mark"]["type"] == "text"}
    assert {"memory", "compute", "label"} <= labels
    assert ROWS["knee"][0]["memory"].endswith("memory-bound") and ROWS["knee"][0]["compute"].startswith("compute")


def test_the_renderer_template_keeps_the_data_on_each_layer():
    names = ("chosen", "knee", "lines", "points", "target")
    template = _template(user_speed_chart, names, ())
    assert "data" not in template and "datasets" not in template
    filled = _fill(template, {**ROWS, "target": TARGET})
    assert filled["layer"][0]["data"] == {"values": ROWS["lines"]}


def test_point_rows_are_in_milliseconds_and_name_the_bound():
    row = point_rows(POINTS[:1])[0]
    assert row["tpot_ms"] == pytest.approx(POINTS[0].tpot_s * 1e3)
    assert row["bound"] == "memory-bound"
    assert len(line_rows(POINTS)) == 2 * len(POINTS)


def test_a_knee_beyond_what_fits_or_missing_is_not_drawn():
    assert knee_rows(Knee(expected=None, ideal=None, largest_batch=100)) == []
    assert knee_rows(Knee(expected=500.0, ideal=600.0, largest_batch=100)) == []
    assert knee_text(Knee(expected=500.0, ideal=600.0, largest_batch=100)) == ("≈ 500", "beyond the 100 that fit")
    assert knee_text(Knee(expected=None, ideal=None, largest_batch=100))[0] == "none"


def test_a_linked_value_off_the_steps_stays_selectable():
    assert steps_with((10.0, 50.0), 37.0) == [10.0, 37.0, 50.0]
    assert steps_with((10.0, 50.0), 50.0) == [10.0, 50.0]
    largest = POINTS[-1].batch
    assert batch_options(POINTS, 3, largest) == sorted({*(p.batch for p in POINTS), 3})


def test_the_batch_options_stop_at_the_largest_batch_that_fits():
    largest = POINTS[-1].batch
    assert max(batch_options(POINTS, 3, largest)) == largest
    assert batch_options(POINTS, 3, 100) == [1, 2, 3, 4, 8, 16, 32, 64]  # a chosen batch beyond it is no option
    assert batch_options(batch_sweep(SCENARIO, None, [1]), 32, 0) == []  # nothing fits: nothing to choose


def test_the_clamp_note_keeps_the_batch_the_link_asked_for():
    note = clamp_note(4096, 346)
    assert "4,096" in note and "346" in note


def test_metrics_and_takeaway_say_what_the_target_allows():
    fit = largest_batch_within_latency(SCENARIO, None, 0.05)
    result = estimate(dataclasses.replace(SCENARIO, batch=POINTS[3].batch))
    serving = result.inference
    rows = metric_rows(serving, POINTS[3], KNEE, fit, 50.0, 128, "", result.resolved.serving_budget)
    values = {metric["label"]: metric["value"] for row in rows for metric in row}
    assert values["Batch within target"] == f"{fit.batch:,}"
    assert values["Time per output token"].endswith("ms")
    assert values["Largest batch"] == f"{serving.max_batch:,}"
    text = throughput_takeaway(fit, KNEE, 50.0, POINTS[0], sweep_replica(SCENARIO))
    assert "50 ms" in text and f"{fit.batch:,}" in text and "compute-bound" in text


def test_nothing_that_does_not_fit_gets_a_time_or_a_rate():
    too_big = Scenario(model="llama-3.1-405b", gpu="rtx-4090", cards=1, batch=32)
    result = estimate(too_big)
    serving = result.inference
    assert not serving.fits and serving.max_batch == 0
    replica = {"replica_for": "scenario"}
    point = batch_sweep(too_big, None, [32], **replica)[0]
    fit = largest_batch_within_latency(too_big, None, 0.05, **replica)
    rows = metric_rows(
        serving,
        point,
        knee_batch(too_big, None, **replica),
        fit,
        50.0,
        1024,
        "it does not fit",
        result.resolved.serving_budget,
    )
    values = {metric["label"]: metric["value"] for row in rows for metric in row}
    assert values.pop("Largest batch") == "0"
    assert set(values.values()) == {"—"}
    assert all("it does not fit" in metric["help"] for row in rows for metric in row if metric["value"] == "—")
    assert point_rows([point]) == [] and chosen_rows(point) == [] and line_rows([point]) == []


def test_the_caption_says_the_batch_is_per_replica_and_how_many_that_is_in_all():
    eight = Scenario(model="llama-3.1-8b", gpu="h100-sxm", cards=8)  # eight one-card replicas at full load
    replica = sweep_replica(eight)
    chosen = batch_sweep(eight, None, [32])[0]
    text = replica_caption(replica, chosen, 8)
    assert replica.replicas == 8 and "tp 1 × pp 1" in text
    assert "the 8 cards hold 8 of them" in text and "batch 32 on each of 8 replicas = 256 sequences" in text
    assert scale_text(32, 8, chosen.sequences) in text


def test_the_tooltips_round_as_the_metrics_do():
    result = estimate(dataclasses.replace(SCENARIO, batch=POINTS[3].batch))
    fit = largest_batch_within_latency(SCENARIO, None, 0.05)
    rows = metric_rows(result.inference, POINTS[3], KNEE, fit, 50.0, 128, "", result.resolved.serving_budget)
    values = {metric["label"]: metric["value"] for row in rows for metric in row}
    ring = chosen_rows(POINTS[3])[0]
    assert ring["tpot_text"] == values["Time per output token"]
    assert ring["ttft_text"] == values["Time to first token"]
    assert ring["total_text"].replace(" tokens/s", "") == values["Tokens/s in total"]
    layers = total_throughput_chart(**ROWS).to_dict()["layer"]
    fields = {tip["field"] for layer in layers for tip in layer["encoding"]["tooltip"]}
    assert {"total_text", "tpot_text", "ttft_text"} <= fields
