import pytest

from tests.app.conftest import metric_values, open_page, sidebar_moves


def test_overview_renders_the_answer_without_an_exception():
    at = open_page("overview")
    values = metric_values(at)
    assert {"Memory per card", "Training time", "Training cost", "Tokens/s at full load"} <= set(values)
    assert "Llama 3.1 8B" in at.title[0].value
    assert len(at.get("vega_lite_chart")) == 2


@pytest.mark.parametrize(
    ("kind", "key", "value"),
    sidebar_moves("llama-3.1-8b"),
)
def test_each_sidebar_control_changes_a_number_on_the_overview(kind, key, value):
    # A 70B model on 64 cards spans nodes, so the links matter too.
    at = open_page("overview", model="llama-3.1-70b", cards="64")
    before = metric_values(at)
    getattr(at, kind)(key=key).set_value(value).run()
    assert not at.exception
    assert metric_values(at) != before, f"moving {key} changed nothing"


def test_the_custom_size_slider_appears_and_drives_the_model():
    at = open_page("overview")
    at.selectbox(key="model").set_value("custom").run()
    at.select_slider(key="params").set_value(70.0).run()
    assert "custom 70B" in at.title[0].value


def test_a_shared_link_restores_the_scenario():
    at = open_page("overview", model="llama-3.1-70b", gpu="h200", cards="64", precision="fp8")
    assert at.selectbox(key="model").value == "llama-3.1-70b"
    assert at.select_slider(key="cards").value == 64
    assert "64 × NVIDIA H200" in at.title[0].value


def test_a_model_that_does_not_fit_is_shown_plainly_not_as_an_error():
    at = open_page("overview", model="llama-3.1-405b", gpu="rtx-4090", cards="1")
    assert not at.exception
    assert metric_values(at)["Memory per card"].endswith("GB")
    assert "does not fit" in at.markdown[0].value
