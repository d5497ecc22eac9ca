import json

import pytest

from app_pages.overview.rows import full_load_shortfall
from model import Scenario, default_catalog
from model.analyses.compare import serving_pair
from model.analyses.verdict import goal_verdict
from model.units import format_usd
from tests.app.conftest import metric_values, open_page, sidebar_moves
from ui.format import milliseconds
from ui.i18n import tr, use_language
from ui.verdict import fix_with_memory

CATALOG = default_catalog()
LANGUAGES = ["en", "zh"]
DEEPSEEK_ON_H20 = {"model": "deepseek-r1", "gpu": "h20", "cards": "8", "precision": "fp8"}
SEVENTY_INT4_ON_TWO_4090S = {"model": "llama-3.1-70b", "gpu": "rtx-4090", "cards": "2", "precision": "int4"}


def scenario_of(query: dict[str, str]) -> Scenario:
    """The engine's scenario for a link that sets only the model, GPU, cards and precision."""
    return Scenario(model=query["model"], gpu=query["gpu"], cards=int(query["cards"]), precision=query["precision"])


def metric(at, label: str, lang: str):
    """The metric whose label is ``label`` in the page's language."""
    with use_language(lang):
        name = tr(label)
    return next(m for m in at.metric if m.label == name)


def chart_rows(at, index: int) -> list[dict]:
    """Every data row of the page's ``index``-th chart, over all its layers."""
    spec = json.loads(at.get("vega_lite_chart")[index].proto.spec)
    return [row for layer in spec["layer"] for row in layer.get("data", {}).get("values", [])]


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
    # Was "Serving fits" here: 22.7 GB per card fitted the whole 25.2 GB card, not the serving budget (issue 29).
    served = open_page("overview", **SEVENTY_INT4_ON_TWO_4090S)
    assert served.subheader[0].value == "Serving"
    assert "Serving does not fit" in served.error[0].value
    fitting = open_page("overview", **DEEPSEEK_ON_H20)
    assert "Serving fits" in fitting.success[0].value
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


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_why_gpus_chart_shows_the_scenarios_cards_at_the_metrics_figure(lang):
    # Issue 29: the metric said 12.1 ms per token on 8 H20s, the chart beside it 9.2 ms on one H20,
    # a card that cannot hold DeepSeek-R1.
    at = open_page("overview", lang=lang, **DEEPSEEK_ON_H20)
    one, _ = serving_pair(scenario_of(DEEPSEEK_ON_H20), CATALOG)
    per_token = milliseconds(one.inference.tpot_s)
    assert metric(at, "Per token, 1 user", lang).value == per_token  # the engine's figure for the 8 cards
    rows = chart_rows(at, 1)
    gpu_rows = [row for row in rows if row["label"] == "8 × H20 96GB"]  # the chart names the card without its vendor
    assert {round(row["ms"], 6) for row in gpu_rows} == {
        round(one.inference.tpot_s * 1e3, 6),
        round(one.inference.tpot_roofline_s * 1e3, 6),
    }
    assert not any("1 × " in row["label"] for row in rows)
    caption = next(c.value for c in at.caption if "9.2 ms" in c.value)  # the seeds' one-card roofline, said so
    assert per_token in caption
    if lang == "en":
        assert "roofline of one NVIDIA H20 96GB" in caption and "cannot hold DeepSeek-R1" in caption


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_setup_that_cannot_serve_gets_no_number_and_only_the_fixes_the_engine_checked(lang):
    # Llama 3.1 70B int4 on 2 x RTX 4090: over the serving budget, so dashes with the reason (issue 29).
    at = open_page("overview", lang=lang, **SEVENTY_INT4_ON_TWO_4090S)
    for label in ("Per token, 1 user", "Tokens/s, 1 user", "Tokens/s, full load", "$ per M output tokens"):
        shown = metric(at, label, lang)
        assert shown.value == "—" and shown.help and "25.2 GB" in shown.help
    assert len(at.get("vega_lite_chart")) == 1  # the memory chart only: no time per token for cards that cannot serve
    verdict = goal_verdict(scenario_of(SEVENTY_INT4_ON_TWO_4090S), "serve", CATALOG)
    error = at.error[0].value
    assert verdict.fixes
    with use_language(lang):
        assert all(fix_with_memory(fix) in error for fix in verdict.fixes)
    assert error.count("GB") == 3 + len(verdict.fixes)  # needed, budget, card, then one size per fix


@pytest.mark.parametrize("lang", LANGUAGES)
def test_int4_pretraining_shows_no_fix_when_the_engine_has_none(lang):
    at = open_page("overview", goal="pretrain", lang=lang, **SEVENTY_INT4_ON_TWO_4090S)
    verdict = goal_verdict(scenario_of(SEVENTY_INT4_ON_TWO_4090S), "pretrain", CATALOG)
    assert verdict.fixes == ()
    with use_language(lang):
        none = tr(" No single change of cards, format or context makes it fit.").strip()
        offered = tr(" It fits with {fixes}.").split("{fixes}")[0].strip()  # 'It fits with', '改用'
        assert offered
        bf16_fix = tr("BF16 (a training format)")  # issue 29: offered for 598 GB per card on a 25 GB card
    assert none in at.error[0].value
    assert offered not in at.error[0].value and bf16_fix not in at.error[0].value
    values = metric_values(at)
    with use_language(lang):
        assert all(values[tr(label)] == "—" for label in ("Training time", "Training cost", "Model FLOPs utilisation"))


@pytest.mark.parametrize("lang", LANGUAGES)
def test_training_that_does_not_fit_shows_each_checked_fix_with_its_memory_and_no_time(lang):
    at = open_page("overview", goal="pretrain", lang=lang, **DEEPSEEK_ON_H20)
    verdict = goal_verdict(scenario_of(DEEPSEEK_ON_H20), "pretrain", CATALOG)
    assert not verdict.runs and verdict.fixes
    with use_language(lang):
        assert all(fix_with_memory(fix) in at.error[0].value for fix in verdict.fixes)
    for label in ("Training time", "Training cost", "Model FLOPs utilisation"):
        assert metric(at, label, lang).value == "—"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_full_load_below_one_user_is_explained_on_the_page(lang):
    # Llama 3.1 8B on one RTX 4090 with a 20,000-token prompt: the largest batch is 1, so full load
    # (each new request's prefill included, DESIGN.md 6) gives fewer tokens per second than one user.
    at = open_page("overview", lang=lang, model="llama-3.1-8b", gpu="rtx-4090", cards="1", prompt="20000")
    one, full = serving_pair(Scenario(model="llama-3.1-8b", gpu="rtx-4090", cards=1, prompt_len=20_000), CATALOG)
    assert full.inference.max_batch == 1
    assert metric(at, "Tokens/s, 1 user", lang).value == f"{one.inference.decode_tokens_per_s_per_user:,.0f}"
    loaded = metric(at, "Tokens/s, full load", lang)
    assert loaded.value == f"{full.inference.decode_tokens_per_s:,.0f}"
    assert metric(at, "$ per M output tokens", lang).value == format_usd(
        full.inference.cost_per_million_output_tokens_usd
    )
    with use_language(lang):
        why = full_load_shortfall(one.inference, full.inference)
    assert why and why in loaded.help and any(c.value == why for c in at.caption)
