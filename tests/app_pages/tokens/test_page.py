import pytest

from model import Scenario, estimate
from tests.app.conftest import metric_values, open_page, sidebar_moves
from ui.controls import CONTROLS
from ui.format import duration, milliseconds, per_second

# A 405B model on 64 H100s: each replica is tp 8 x pp 2, so the link inside a node and the
# network between nodes both carry serving traffic.
SPREAD = {"model": "llama-3.1-405b", "cards": "64"}


def test_the_page_renders_the_answer_without_an_exception():
    at = open_page("tokens")
    values = metric_values(at)
    assert {
        "Time to first token",
        "Time per output token",
        "Tokens/s per user",
        "Tokens/s in total",
        "Knee batch",
        "Batch within target",
        "Tokens/s within target",
    } <= set(values)
    assert "Llama 3.1 8B" in at.title[0].value
    # Total and per-user speed against batch, and where one decode step's time goes.
    assert len(at.get("vega_lite_chart")) == 3
    assert "50 ms" in at.markdown[0].value
    assert any("seeds' rule" in block.value and "×" in block.value for block in at.markdown)
    assert any("stock server" in caption.value for caption in at.caption)


def test_speculative_decoding_is_off_until_asked_and_then_speeds_each_user_up():
    at = open_page("tokens", model="llama-3.1-70b", cards="8")
    before = metric_values(at)["Tokens/s per user"]
    at.segmented_control(key="draft").set_value("2").run()
    assert not at.exception
    assert any("speculative decoding: 2 tokens drafted" in caption.value for caption in at.caption)
    assert metric_values(at)["Tokens/s per user"] != before
    assert at.query_params["draft"] == "2"  # the link carries it


@pytest.mark.parametrize(
    ("kind", "key", "value"),
    sidebar_moves("llama-3.1-70b"),
)
def test_each_sidebar_control_changes_a_number_on_the_page(kind, key, value):
    at = open_page("tokens", **SPREAD)
    before = metric_values(at)
    getattr(at, kind)(key=key).set_value(value).run()
    assert not at.exception
    assert metric_values(at) != before, f"moving {key} changed nothing"


def test_moving_the_target_changes_the_largest_batch_within_it():
    at = open_page("tokens")
    before = metric_values(at)["Batch within target"]
    at.select_slider(key="target").set_value(20.0).run()
    assert not at.exception
    after = metric_values(at)
    assert after["Batch within target"] != before
    assert int(after["Batch within target"].replace(",", "")) < int(before.replace(",", ""))


@pytest.mark.parametrize(("key", "value"), [("prompt", 8192), ("output", 2048)])
def test_moving_prompt_or_output_changes_ttft_and_tpot(key, value):
    at = open_page("tokens")
    before = metric_values(at)
    at.select_slider(key=key).set_value(value).run()
    assert not at.exception
    after = metric_values(at)
    assert after["Time per output token"] != before["Time per output token"]
    if key == "prompt":
        assert after["Time to first token"] != before["Time to first token"]


def test_moving_the_batch_changes_the_figures_at_that_batch():
    at = open_page("tokens")
    before = metric_values(at)
    at.select_slider(key="batch").set_value(128).run()
    assert not at.exception
    after = metric_values(at)
    assert after["Time per output token"] != before["Time per output token"]
    assert after["Tokens/s in total"] != before["Tokens/s in total"]


def test_a_shared_link_restores_the_page_controls():
    at = open_page("tokens", prompt="4096", output="512", target="37", batch="48")
    assert at.select_slider(key="prompt").value == 4096
    assert at.select_slider(key="output").value == 512
    assert at.select_slider(key="target").value == 37.0  # off the slider's steps, still kept
    assert at.select_slider(key="batch").value == 48
    assert "37 ms" in at.markdown[0].value


def test_a_batch_beyond_what_fits_is_clamped_to_the_largest_with_a_note():
    at = open_page("tokens", model="llama-3.1-70b", batch="4096")
    assert not at.exception
    largest = _engine(model="llama-3.1-70b", batch=4096).max_batch
    assert 1 <= largest < 4096
    slider = at.select_slider(key="batch")
    assert slider.value == largest <= max(_slider_batches(at))
    assert _engine(model="llama-3.1-70b", batch=slider.value).fits
    note = at.info[0].value
    assert "4,096" in note and f"{slider.value:,}" in note  # the link's own value is still on screen
    assert at.query_params["batch"] == str(slider.value)
    at.select_slider(key="batch").set_value(1).run()
    assert not at.info  # the note goes once the visitor moves the batch


def test_a_model_that_does_not_fit_is_shown_plainly_not_as_an_error():
    at = open_page("tokens", model="llama-3.1-405b", gpu="rtx-4090", cards="1")
    assert not at.exception
    assert metric_values(at)["Largest batch"] == "0"
    assert "does not fit" in at.error[0].value  # the serving verdict, the Overview's sentence
    assert len(at.get("vega_lite_chart")) == 0
    assert at.warning


# Issue 29: Llama 3.1 70B in int4 on 2 RTX 4090s used to say "not even one sequence fits" and still print
# 689 ms to first token, 127.8 ms per token and 246 tokens/s for a batch of 32.
NOTHING_FITS = {"model": "llama-3.1-70b", "precision": "int4", "gpu": "rtx-4090", "cards": "2", "goal": "serve"}
ONE_H100 = {"model": "llama-3.1-8b", "gpu": "h100-sxm", "cards": "1"}
TIMES_AND_RATES = ("Time to first token", "Time per output token", "Tokens/s per user", "Tokens/s in total")


def _engine(**fields):
    """The engine's serving estimate for a link's scenario at the page's defaults (prompt, output, batch)."""
    defaults = {name: CONTROLS[key].default for name, key in (("prompt_len", "prompt"), ("output_len", "output"))}
    sidebar = {key: CONTROLS[key].default for key in ("model", "precision", "gpu", "cards", "batch")}
    fields = {**sidebar, **defaults, **fields}
    for name in ("cards", "batch"):
        fields[name] = int(fields[name])
    fields.pop("goal", None)
    return estimate(Scenario(**fields)).inference


def _slider_batches(at):
    return [int(option.replace(",", "")) for option in at.select_slider(key="batch").options]


def test_when_nothing_fits_no_time_or_rate_gets_a_number():
    at = open_page("tokens", **NOTHING_FITS)
    serving = _engine(**NOTHING_FITS)
    assert not serving.fits and serving.max_batch == 0  # the engine's answer, which the page must give
    values = metric_values(at)
    assert values["Largest batch"] == f"{serving.max_batch:,}"
    for label in (*TIMES_AND_RATES, "Knee batch", "Batch within target", "Tokens/s within target"):
        assert values[label] == "—", label
    assert not any(char.isdigit() for label in TIMES_AND_RATES for char in values[label])
    assert "batch" not in [slider.key for slider in at.select_slider]  # no batch to choose
    assert not any("sequences in all" in caption.value for caption in at.caption)
    assert "does not fit" in at.error[0].value


def test_the_batch_survives_a_scenario_where_nothing_fits():
    at = open_page("tokens", **NOTHING_FITS, batch="64")
    at.selectbox(key="model").set_value("llama-3.1-8b").run()
    assert not at.exception
    assert at.select_slider(key="batch").value == 64


def test_a_scenario_that_fits_shows_the_engines_figures_at_the_chosen_batch():
    at = open_page("tokens", **ONE_H100)
    serving = _engine(**ONE_H100)
    assert serving.fits
    values = metric_values(at)
    assert values["Largest batch"] == f"{serving.max_batch:,}"
    assert values["Time to first token"] == duration(serving.ttft_s)
    assert values["Time per output token"] == milliseconds(serving.tpot_s, 2)
    assert values["Tokens/s in total"] == per_second(serving.decode_tokens_per_s, unit="").strip()
    assert values["Tokens/s per user"] == per_second(serving.decode_tokens_per_s_per_user, unit="").strip()
    batches = _slider_batches(at)
    assert max(batches) == serving.max_batch and at.select_slider(key="batch").value == serving.batch


@pytest.mark.parametrize("batch", ["1", "2", "32", "256"])
def test_on_eight_cards_the_largest_batch_and_the_slider_follow_the_engines_replica(batch):
    link = {"model": "llama-3.1-8b", "gpu": "h100-sxm", "cards": "8", "batch": batch}
    at = open_page("tokens", **link)
    serving = _engine(**link)
    assert metric_values(at)["Largest batch"] == f"{serving.max_batch:,}"
    assert max(_slider_batches(at)) == serving.max_batch
    replica = f"tp {serving.tp} × pp {serving.pp}"
    assert any(replica in caption.value for caption in at.caption)


def test_a_desk_server_says_it_runs_its_slots_under_the_largest_batch():
    mac = open_page("tokens", gpu="apple-m3-max", precision="q4_k_m")
    largest = next(metric for metric in mac.metric if metric.label == "Largest batch")
    assert int(largest.value.replace(",", "")) > 4 and largest.delta == "its server runs 4 unless told"
    server = open_page("tokens", **ONE_H100)
    assert next(metric for metric in server.metric if metric.label == "Largest batch").delta in (None, "")
