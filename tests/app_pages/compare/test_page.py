import pytest

from model import default_catalog
from tests.app.conftest import open_page, sidebar_moves
from ui.saved import MAX_SAVED, SAVED_KEY


def _button(at, label):
    return next(button for button in at.button if button.label == label)


def _table(at):
    return at.dataframe[0].value


def _saved_table(at):
    return at.table[0].value if at.table else None


def test_compare_renders_every_gpu_with_the_current_one_marked():
    at = open_page("compare")
    table = _table(at)
    assert sorted(table["id"]) == sorted(default_catalog().gpus)
    marked = table[table["gpu"].str.startswith("▶")]
    assert list(marked["id"]) == ["h100-sxm"] and table["id"].iloc[0] == "h100-sxm"
    assert "Llama 3.1 8B" in at.title[0].value
    assert "cheapest per million output tokens" in at.markdown[0].value
    assert any(button.label == "Download the table (CSV)" for button in at.get("download_button"))


@pytest.mark.parametrize(
    ("kind", "key", "value"),
    sidebar_moves("llama-3.1-405b"),
)
def test_each_sidebar_control_changes_the_table(kind, key, value):
    # A 70B model on 64 cards spans nodes, so the sidebar's links matter to the current GPU's row.
    at = open_page("compare", model="llama-3.1-70b", cards="64")
    before = _table(at).to_dict("records")
    getattr(at, kind)(key=key).set_value(value).run()
    assert not at.exception
    assert _table(at).to_dict("records") != before, f"moving {key} changed nothing"


def test_the_filter_keeps_only_the_gpus_that_fit():
    at = open_page("compare", model="llama-3.1-70b", cards="1")
    everything = len(_table(at))
    at.segmented_control(key="compare_filter").set_value("Serving fits").run()
    fitting = _table(at)
    assert 0 < len(fitting) < everything
    assert fitting["serving_fits"].all()


def test_a_shared_link_restores_the_scenario_and_workload():
    plain = open_page("compare", model="llama-3.1-70b", cards="64")
    linked = open_page("compare", model="llama-3.1-70b", cards="64", prompt="8192", output="1024")
    assert linked.selectbox(key="model").value == "llama-3.1-70b"
    assert "64 cards" in linked.title[0].value
    assert linked.caption[0].value.startswith("Serving: 8,192-token prompts")
    assert _table(linked)["tokens_per_s"].tolist() != _table(plain)["tokens_per_s"].tolist()


def test_a_model_nothing_holds_on_one_card_is_shown_plainly():
    at = open_page("compare", model="llama-3.1-405b", cards="1", gpu="rtx-4090")
    assert not at.exception
    table = _table(at)
    rtx = table[table["id"] == "rtx-4090"].iloc[0]
    assert not rtx["serving_fits"] and rtx["cards_needed"] > 1
    assert "yours, NVIDIA GeForce RTX 4090" in at.markdown[0].value


def test_saving_two_scenarios_shows_both_side_by_side():
    at = open_page("compare")
    _button(at, "Save this scenario").click().run()
    at.selectbox(key="precision").set_value("fp8").run()
    at.text_input(key="save_label").set_value("fp8 try")
    _button(at, "Save this scenario").click().run()
    assert not at.exception
    table = _saved_table(at)
    assert list(table.columns)[-2:] == ["1 · Llama 3.1 8B · 8 × NVIDIA H100 SXM5 80GB · bf16", "2 · fp8 try"]
    precision = table[table["Figure"] == "Precision"].iloc[0]
    assert list(precision)[1:] == ["bf16", "fp8"]
    assert {"Remove 1", "Remove 2"} <= {button.label for button in at.button}


def test_the_same_scenario_is_not_saved_twice_and_remove_forgets_one():
    at = open_page("compare")
    _button(at, "Save this scenario").click().run()
    _button(at, "Save this scenario").click().run()
    assert len(at.session_state[SAVED_KEY]) == 1
    assert "already saved" in at.info[0].value
    _button(at, "Remove 1").click().run()
    assert at.session_state[SAVED_KEY] == []
    assert _saved_table(at) is None


def test_a_fifth_saved_scenario_drops_the_oldest():
    at = open_page("compare")
    for cards in (8, 16, 32, 64, 128):
        at.select_slider(key="cards").set_value(cards).run()
        _button(at, "Save this scenario").click().run()
    saved = at.session_state[SAVED_KEY]
    assert len(saved) == MAX_SAVED
    assert [entry["scenario"]["cards"] for entry in saved] == [16, 32, 64, 128]
    assert "dropped the oldest" in at.info[0].value


def test_saved_scenarios_survive_a_page_switch():
    at = open_page("compare")
    _button(at, "Save this scenario").click().run()
    at.switch_page("app_pages/overview/page.py").run()
    at.switch_page("app_pages/compare/page.py").run()
    assert not at.exception
    assert len(_saved_table(at).columns) == 2  # the figure names and the one saved scenario
