import json

import pytest

from model import Scenario, default_catalog, estimate, serving_capacity
from tests.app.conftest import metric_values, open_page, sidebar_moves
from ui.controls import CONTROLS

METRICS = {
    "Training memory per card",
    "Largest micro-batch",
    "Largest training sequence",
    "Inference memory per card",
    "Largest batch",
    "Largest context at this batch",
}


def _shown(at):
    """Every number the page shows: its metrics and its takeaway sentences."""
    return metric_values(at), [block.value for block in at.markdown]


def test_the_vram_page_renders_its_answer_without_an_exception():
    at = open_page("vram")
    assert set(metric_values(at)) == METRICS
    assert "Llama 3.1 8B" in at.title[0].value
    # The main training/inference bars, the chosen step, three knob charts, memory against context and batch.
    assert len(at.get("vega_lite_chart")) == 7
    assert any("take the most" in block.value for block in at.markdown)
    # Issue 9: the chosen layout, why, and the runner-ups with their times and memory.
    assert any("The fastest of" in block.value and "layouts timed" in block.value for block in at.markdown)
    training, serving = at.dataframe[0].value, at.dataframe[1].value
    assert training.iloc[0][""] == "chosen" and len(training) >= 2
    assert {"Time to train", "GB per card", "vs chosen"} <= set(training.columns)
    assert serving.iloc[0][""] == "chosen" and "ms per output token" in serving.columns


@pytest.mark.parametrize(
    ("kind", "key", "value"),
    sidebar_moves("llama-3.1-8b", gpu="h200"),
)
def test_each_sidebar_control_changes_what_the_page_shows(kind, key, value):
    # A 70B model on 64 cards spans nodes, so the links change the training times the takeaway compares.
    at = open_page("vram", model="llama-3.1-70b", cards="64")
    before = _shown(at)
    getattr(at, kind)(key=key).set_value(value).run()
    assert not at.exception
    assert _shown(at) != before, f"moving {key} changed nothing"


@pytest.mark.parametrize(
    ("kind", "key", "value"),
    [
        ("selectbox", "model", "llama-3.1-70b"),
        ("selectbox", "precision", "fp8"),
        ("selectbox", "gpu", "h200"),
    ],
)
def test_the_model_precision_and_gpu_change_the_memory_metrics(kind, key, value):
    at = open_page("vram")
    before = metric_values(at)
    getattr(at, kind)(key=key).set_value(value).run()
    after = metric_values(at)
    assert after["Largest batch"] != before["Largest batch"]
    assert after["Largest context at this batch"] != before["Largest context at this batch"]


@pytest.mark.parametrize(
    ("kind", "key", "value", "metric"),
    [
        ("segmented_control", "zero", "0", "Training memory per card"),
        ("segmented_control", "zero", "3", "Training memory per card"),
        ("segmented_control", "tp", "8", "Training memory per card"),
        ("segmented_control", "tp", "2", "Inference memory per card"),
        ("segmented_control", "recompute", "full", "Training memory per card"),
        ("segmented_control", "micro", "8", "Training memory per card"),
        ("segmented_control", "micro", "8", "Largest training sequence"),
        ("number_input", "seq", 2048, "Largest micro-batch"),
        ("number_input", "batch", 64, "Inference memory per card"),
        ("number_input", "batch", 64, "Largest context at this batch"),
        ("number_input", "prompt", 4096, "Largest batch"),
        ("number_input", "output", 2048, "Largest batch"),
    ],
)
def test_each_page_control_changes_a_number(kind, key, value, metric):
    at = open_page("vram")
    before = metric_values(at)[metric]
    getattr(at, kind)(key=key).set_value(value).run()
    assert not at.exception
    assert metric_values(at)[metric] != before, f"moving {key} did not change {metric}"


def test_a_shared_link_restores_the_page_controls():
    query = {
        "zero": "3",
        "tp": "2",
        "recompute": "full",
        "micro": "2",
        "seq": "8192",
        "batch": "16",
        "prompt": "2048",
        "output": "512",
    }
    at = open_page("vram", **query)
    assert at.segmented_control(key="zero").value == "3"
    assert at.segmented_control(key="tp").value == "2"
    assert at.segmented_control(key="recompute").value == "full"
    assert at.segmented_control(key="micro").value == "2"
    assert at.number_input(key="seq").value == 8192
    assert at.number_input(key="batch").value == 16
    assert at.number_input(key="prompt").value == 2048
    assert at.number_input(key="output").value == 512
    training_help = next(m for m in at.metric if m.label == "Training memory per card").help
    assert "tp 2" in training_help and "ZeRO 3" in training_help and "full recomputation" in training_help


def test_moving_a_page_control_writes_it_into_the_link():
    at = open_page("vram")
    at.segmented_control(key="zero").set_value("2").run()
    at.number_input(key="seq").set_value(8192).run()
    assert at.query_params["zero"] == "2"
    assert at.query_params["seq"] == "8192"


def test_a_model_that_does_not_fit_is_shown_plainly_not_as_an_error():
    at = open_page("vram", model="llama-3.1-405b", gpu="rtx-4090", cards="1")
    assert not at.exception
    values = metric_values(at)
    assert values["Training memory per card"].endswith("GB")
    assert values["Largest batch"] == "none fits"
    assert values["Largest micro-batch"] == "none fits"
    assert any("Not even one sequence fits" in block.value for block in at.markdown)


def test_a_sliding_window_model_has_no_memory_limit_on_context():
    at = open_page("vram", model="mistral-7b", cards="1")
    assert metric_values(at)["Largest context at this batch"] == "no memory limit"


# Issue 29: the VRAM page said up to 7 sequences fit for Llama 3.1 70B in int4 on 2 RTX 4090s, where the
# engine (and the command line) said not even one does. The page's largest batch is the engine's max_batch.
NOTHING_FITS = {"model": "llama-3.1-70b", "precision": "int4", "gpu": "rtx-4090", "cards": "2", "goal": "serve"}
ONE_H100 = {"model": "llama-3.1-8b", "gpu": "h100-sxm", "cards": "1"}


def _engine(**link):
    """The engine's estimate for a link's scenario at the page's defaults (prompt, output, batch)."""
    fields = {key: CONTROLS[key].default for key in ("model", "precision", "gpu", "cards", "batch")}
    fields |= {"prompt_len": CONTROLS["prompt"].default, "output_len": CONTROLS["output"].default}
    fields |= {key: value for key, value in link.items() if key != "goal"}
    fields["cards"], fields["batch"] = int(fields["cards"]), int(fields["batch"])
    return estimate(Scenario(**fields))


@pytest.mark.parametrize("link", [NOTHING_FITS, ONE_H100, {**ONE_H100, "batch": "4096"}], ids=["none", "fits", "over"])
def test_the_largest_batch_is_the_engines(link):
    at = open_page("vram", **link)
    inference = _engine(**link).inference
    shown = metric_values(at)["Largest batch"]
    takeaway = next(block.value for block in at.markdown if block.value.startswith("Serving holds"))
    if inference.max_batch:
        assert shown == f"{inference.max_batch:,} seqs"
        assert f"Up to {inference.max_batch:,} sequences fit" in takeaway
    else:
        assert shown == "none fits"
        assert "Not even one sequence fits" in takeaway
    fits = next(m for m in at.metric if m.label == "Inference memory per card").delta
    assert fits == ("fits" if inference.fits else "does not fit")


@pytest.mark.parametrize(("lang", "words"), [("en", "keeps the rest in reserve"), ("zh", "其余留作余量")])
def test_the_servers_reserve_is_said_once_in_words(lang, words):
    at = open_page("vram", **ONE_H100, lang=lang)
    assert sum(words in block.value for block in at.markdown) == 1
    assert "90%" in next(block.value for block in at.markdown if words in block.value)


def test_the_serving_charts_draw_the_servers_budget_not_the_whole_card():
    at = open_page("vram", **ONE_H100)
    gpu = default_catalog().gpus["h100-sxm"]
    budget = serving_capacity(gpu.capacity_bytes) / 1e9
    rules = [
        {row["gb"] for row in layer["data"]["values"]}
        for chart in at.get("vega_lite_chart")
        for layer in json.loads(chart.proto.spec).get("layer", [])
        if layer["mark"]["type"] == "rule"
        and layer["encoding"].get("x", layer["encoding"].get("y", {})).get("field") == "gb"
    ]
    # The main chart marks the card and the budget; both load charts mark the budget alone.
    assert sum(rule == {budget} for rule in rules) == 3
    assert {gpu.capacity_bytes / 1e9} in rules


def test_a_serving_layout_that_does_not_fit_has_no_speed():
    at = open_page("vram", **NOTHING_FITS)
    serving = at.dataframe[1].value
    assert list(serving["ms per output token"]) == ["—"]
    assert list(serving["Output tokens/s (all)"]) == ["—"]
    training = at.dataframe[0].value
    assert set(training["Time to train"]) == {"—"}  # training does not fit either
