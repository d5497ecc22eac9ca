import json

import yaml
from streamlit.testing.v1 import AppTest

from model import Scenario, default_catalog
from tests.app.conftest import APP, open_page
from ui.share import scenario_document


def test_the_share_dialog_offers_a_link_with_the_scenario_and_two_downloads():
    at = open_page("overview", model="llama-3.1-70b")
    at.select_slider(key="cards").set_value(64).run()
    at.button(key="share").click().run()
    assert not at.exception
    link = at.code[0].value
    assert "model=llama-3.1-70b" in link
    assert "cards=64" in link
    labels = [button.proto.label for button in at.get("download_button")]
    assert labels == ["Scenario and results (JSON)", "Scenario and results (YAML)"]


def test_the_downloaded_document_holds_inputs_and_results_in_json_and_yaml():
    document = scenario_document(Scenario(model="llama-3.1-70b", cards=64), default_catalog())
    assert document["inputs"]["cards"] == 64
    assert {"training", "inference", "ranges", "warnings"} <= set(document)
    assert json.loads(json.dumps(document)) == document
    assert yaml.safe_load(yaml.safe_dump(document, sort_keys=False)) == document


def test_added_rows_and_saved_scenarios_travel_in_the_link():
    from ui.linked import pack, unpack

    rows = pack(
        "gpus:\n  - id: my-card\n    name: My Card\n    memory_gb: 48\n    memory_bandwidth_gb_per_s: 1000\n"
        "    dense_tflops: {bf16: 200}\n    source: my own datasheet\n"
    )
    at = open_page("overview", rows=rows, gpu="my-card")
    assert not at.sidebar.warning, [w.value for w in at.sidebar.warning]
    assert at.selectbox(key="gpu").value == "my-card"
    assert "my-card" in unpack(at.query_params["rows"])  # the address bar keeps carrying them


def test_a_damaged_rows_value_warns_and_the_rest_of_the_link_opens():
    at = open_page("overview", rows="AAAA", model="llama-3.1-70b")
    assert any("added rows not loaded" in w.value for w in at.main.warning)  # one notice above the page
    assert at.selectbox(key="model").value == "llama-3.1-70b"


def test_the_new_controls_round_trip_through_the_link():
    linked = {
        "goal": "finetune",
        "finetune": "full",
        "rank": "64",
        "pricing": "own",
        "years": "4",
        "kwh": "0.15",
        "pue": "1.2",
        "tokens": "2T",
    }
    at = open_page("overview", **linked)
    assert not at.sidebar.warning
    assert {key: at.query_params[key] for key in linked} == linked
    rented = open_page("overview", price="2.5")
    assert rented.query_params["price"] == "2.5"
    assert rented.session_state["price"] == 2.5


def test_a_key_the_link_repeats_is_written_back_once():
    # Issue 14's fuzzing: ?val_kind=memory&val_kind=moe_serving kept both in the address bar (the last
    # value was valid, and the address bar was compared by its last values only), so the warning came back.
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.query_params.update(lang="en", val_kind=["memory", "moe_serving"])  # nothing else to write back
    at.run()
    assert any("given 2 times" in w.value for w in at.main.warning)
    assert at.query_params["val_kind"] == "moe_serving"
