import pytest

from tests.app.conftest import metric_values, open_page, sidebar_moves

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


def test_a_batch_beyond_what_fits_is_shown_as_not_fitting():
    at = open_page("tokens", model="llama-3.1-70b", batch="4096")
    assert not at.exception
    metrics = {m.label: m for m in at.metric}
    assert "does not fit" in metrics["Time to first token"].delta


def test_a_model_that_does_not_fit_is_shown_plainly_not_as_an_error():
    at = open_page("tokens", model="llama-3.1-405b", gpu="rtx-4090", cards="1")
    assert not at.exception
    assert metric_values(at)["Largest batch"] == "0"
    assert "does not fit" in at.markdown[0].value
    assert len(at.get("vega_lite_chart")) == 0
    assert at.warning
