import pytest

from tests.app.conftest import metric_values, open_page, sidebar_moves

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
