import pytest

from tests.app.conftest import metric_values, open_page, sidebar_moves


def test_overview_renders_the_answer_without_an_exception():
    at = open_page("overview")
    values = metric_values(at)
    assert {"Memory per card", "Training time", "Training cost", "Tokens/s, full load"} <= set(values)
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
    assert "Serving does not fit" in at.error[0].value


def test_the_overview_leads_with_the_goal_verdict():
    served = open_page("overview", model="llama-3.1-70b", gpu="rtx-4090", cards="2", precision="int4")
    assert served.subheader[0].value == "Serving"
    assert "Serving fits" in served.success[0].value
    trained = open_page("overview", goal="pretrain", model="llama-3.1-70b", gpu="rtx-4090", cards="2", precision="int4")
    assert trained.subheader[0].value == "Pre-training"
    assert "refused" in trained.error[0].value and "serving format" in trained.error[0].value
    assert metric_values(trained)["Training time"] == "—"


def test_qlora_on_one_4090_leads_with_fits():
    at = open_page("overview", goal="finetune", finetune="qlora", model="llama-3.1-8b", gpu="rtx-4090", cards="1")
    assert at.subheader[0].value.startswith("Fine-tuning (QLoRA")
    assert "Fine-tuning fits" in at.success[0].value
    assert metric_values(at)["Training time"] != "—"


def test_a_setup_that_cannot_serve_shows_dashes_and_what_would_fit():
    at = open_page("overview", model="llama-3.1-405b", gpu="t4", cards="1")
    values = metric_values(at)
    assert values["Tokens/s, 1 user"] == values["Tokens/s, full load"] == values["$ per M output tokens"] == "—"
    assert "It fits with" in at.error[0].value and "cards" in at.error[0].value


def test_every_cost_is_a_number_for_deepseek_on_h20_at_a_typed_price():
    at = open_page("overview", model="deepseek-r1", gpu="h20", cards="8", precision="fp8", price="2")
    values = metric_values(at)
    assert values["$ per M output tokens"].startswith("$")
    assert values["Training cost"] == "—"  # 671B does not train on 8 cards: a dash, with the cards it needs
    assert "$2.00 per GPU-hour" in at.sidebar.caption[-1].value


def test_typed_training_tokens_move_the_time_and_travel_in_the_link():
    at = open_page("overview", goal="pretrain")
    before = metric_values(at)["Training time"]
    box = next(box for box in at.text_input if box.label == "Training tokens")
    box.set_value("2T").run()
    assert at.session_state["tokens"] == 2e12
    assert metric_values(at)["Training time"] != before
    assert at.query_params["tokens"] == "2T"
    assert any("to train on **2T tokens**" in m.value for m in at.markdown)
    box = next(box for box in at.text_input if box.label == "Training tokens")
    box.set_value("lots").run()
    assert at.session_state["tokens"] == 2e12  # a bad entry changes nothing and says what is allowed
    assert any("is not allowed" in e.value for e in at.error)


def test_owning_prices_the_hour_from_the_purchase_and_power_and_a_tpu_falls_back_to_renting():
    owned = open_page("overview", pricing="own", years="5", kwh="0.2", pue="1.5", gpu="h100-sxm")
    caption = owned.sidebar.caption[-1].value
    assert "over 5 years" in caption and "PUE 1.5" in caption
    rented = open_page("overview", pricing="own", gpu="tpu-v6e")
    assert "not sold" in rented.sidebar.caption[-1].value
    assert "$2.70 per GPU-hour" in rented.sidebar.caption[-1].value
