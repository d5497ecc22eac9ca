import json

import pytest

from app_pages.costs.rows import break_even_text, fleet_text, money, month_text
from model import Scenario, default_catalog
from model.analyses.economics import api_price, cost_over_time
from tests.app.conftest import metric_values, open_page, sidebar_moves
from ui.format import NOT_RUN
from ui.i18n import tr, use_language

CATALOG = default_catalog()
LANGUAGES = ["en", "zh"]
SEVENTY_INT4 = {"model": "llama-3.1-70b", "gpu": "rtx-4090", "precision": "int4"}


def metric(at, label: str, lang: str):
    """The metric whose label is ``label`` in the page's language."""
    with use_language(lang):
        name = tr(label)
    return next(m for m in at.metric if m.label == name)


def chart_rows(at, index: int) -> list[dict]:
    """Every data row of the page's ``index``-th chart, over all its layers."""
    spec = json.loads(at.get("vega_lite_chart")[index].proto.spec)
    return [row for layer in spec["layer"] for row in layer.get("data", {}).get("values", [])]


def page_costs(scenario: Scenario, traffic: float, api_id: str | None = None, months: int = 24):
    """The engine's economics for the page's scenario and controls (automatic API unless one is named)."""
    params = CATALOG.models[scenario.model].architecture.stats.total_params
    return cost_over_time(scenario, CATALOG, traffic, months, api_price(CATALOG, api_id, scenario.model, params))


METRICS = {"Training", "Training time", "Serving / month", "Break-even", "API / month"}


def test_costs_page_renders_metrics_takeaways_and_three_charts():
    at = open_page("costs")
    assert set(metric_values(at)) >= METRICS
    assert "Llama 3.1 8B" in at.title[0].value
    assert len(at.get("vega_lite_chart")) == 3
    assert "self-hosting beats the API from month 1" in at.markdown[0].value  # serving an open model: no training
    assert any("faster" in block.value for block in at.markdown)
    trained = open_page("costs", goal="pretrain")
    assert "overtakes the training bill" in trained.markdown[0].value


def test_moving_the_traffic_changes_the_break_even_month():
    at = open_page("costs")
    before = metric_values(at)["Break-even"]
    at.select_slider(key="traffic").set_value(2e9).run()
    assert not at.exception
    after = metric_values(at)["Break-even"]
    assert after != before
    month = float(after.removesuffix(" mo"))
    assert month == pytest.approx(float(before.removesuffix(" mo")) / 2, abs=0.06)


@pytest.mark.parametrize(
    ("kind", "key", "value", "metric"),
    [
        ("slider", "months", 2, "Break-even"),
        ("selectbox", "api", "gpt-4o-2024-08", "API / month"),
        ("select_slider", "tokens", 1e12, "Training"),
        ("slider", "util", 0.3, "Serving / month"),
    ],
)
def test_each_page_control_changes_a_number(kind, key, value, metric):
    at = open_page("costs")
    before = metric_values(at)[metric]
    getattr(at, kind)(key=key).set_value(value).run()
    assert not at.exception
    assert metric_values(at)[metric] != before, f"moving {key} left {metric} at {before}"


@pytest.mark.parametrize(
    ("kind", "key", "value"),
    sidebar_moves("llama-3.1-8b"),
)
def test_each_sidebar_control_changes_a_number_on_the_costs_page(kind, key, value):
    # A 70B model on 64 cards spans nodes, so the links change the training time too.
    at = open_page("costs", model="llama-3.1-70b", cards="64")
    before = metric_values(at)
    getattr(at, kind)(key=key).set_value(value).run()
    assert not at.exception
    assert metric_values(at) != before, f"moving {key} changed nothing"


def test_a_shared_link_restores_the_page_controls():
    at = open_page("costs", traffic="5e9", months="36", api="gpt-4o-2024-08", tokens="1e12", util="0.5")
    assert at.select_slider(key="traffic").value == 5e9
    assert at.slider(key="months").value == 36
    assert at.selectbox(key="api").value == "gpt-4o-2024-08"
    assert at.select_slider(key="tokens").value == 1e12
    assert at.slider(key="util").value == 0.5


def test_a_shared_traffic_off_the_slider_grid_is_kept():
    at = open_page("costs", traffic="3e9")
    assert at.select_slider(key="traffic").value == 3e9
    assert not at.exception


@pytest.mark.parametrize(
    "query",
    [
        {"model": "llama-3.1-405b", "gpu": "rtx-4090", "cards": "1"},  # nothing fits
    ],
)
def test_misfits_are_shown_plainly(query):
    at = open_page("costs", **query)
    assert not at.exception
    assert at.warning
    assert metric_values(at)["Training"] == "—"
    assert metric_values(at)["API / month"].startswith("$")


def test_a_gpu_with_no_published_rate_is_priced_from_its_purchase_price():
    at = open_page("costs", model="deepseek-r1", gpu="h20", cards="8", precision="fp8")
    values = metric_values(at)
    assert all(value.startswith("$") for label, value in values.items() if "serving" in label.lower())


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_serving_bill_says_how_many_replicas_and_cards_the_traffic_takes(lang):
    # Issue 29: "2 cards" became about a thousand at 1B tokens a day without a word.
    at = open_page("costs", lang=lang, cards="4", traffic="1e9", **SEVENTY_INT4)
    costs = page_costs(Scenario(cards=4, **SEVENTY_INT4), 1e9)
    assert costs.replicas > 1 and costs.serving_cards == costs.replicas * 4
    serving = metric(at, "Serving / month", lang)
    assert serving.value == money(costs.serving_usd_per_month)
    with use_language(lang):
        fleet = fleet_text(costs, "NVIDIA GeForce RTX 4090")
        assert serving.delta == tr("{n} cards", n=f"{costs.serving_cards:,}")
    assert fleet in at.markdown[0].value and serving.help.startswith(fleet)
    if lang == "en":
        cards = f"{costs.serving_cards:,} × NVIDIA GeForce RTX 4090"
        assert fleet == f"1B tokens/day takes {costs.replicas:,} replicas of 4 cards: {cards}"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_chart_and_the_sentence_name_each_month_with_the_same_number(lang):
    # Issue 29: the chart said "cheaper than the API from month 11.4", the sentence "from month 12".
    at = open_page("costs", lang=lang, goal="pretrain", traffic="2e7", api="gpt-4o-2024-08")
    costs = page_costs(Scenario(), 2e7, "gpt-4o-2024-08")
    assert costs.break_even_month is not None and costs.api_crossover_month is not None
    labels = {row["label"] for row in chart_rows(at, 0) if "label" in row}  # rule, point and text share them
    takeaway = at.markdown[0].value
    with use_language(lang):
        for month in (costs.break_even_month, costs.api_crossover_month):
            said = month_text(month, costs.months)
            assert said in takeaway and sum(said in label for label in labels) == 1
        assert metric(at, "Break-even", lang).value == break_even_text(costs)
    assert len(labels) == 2


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_setup_that_cannot_serve_or_train_gets_no_cost_cards_or_month(lang):
    at = open_page("costs", lang=lang, cards="2", traffic="1e9", **SEVENTY_INT4)
    costs = page_costs(Scenario(cards=2, **SEVENTY_INT4), 1e9)
    assert not costs.serving_fits and not costs.training_fits
    for label in ("Training", "Training time", "Serving / month", "Break-even"):
        assert metric(at, label, lang).value == NOT_RUN
    assert not metric(at, "Serving / month", lang).delta
    with use_language(lang):
        assert metric(at, "Serving / month", lang).help == tr(
            "Serving does not fit on these cards (see the note above), so it has no cost."
        )
        api_line = tr("API")
    assert {row["series"] for row in chart_rows(at, 0)} == {api_line}  # no serving or training line, no mark
    assert len(at.warning) == 2
