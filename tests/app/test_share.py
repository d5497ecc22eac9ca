import json

import yaml

from model import Scenario, default_catalog
from tests.app.conftest import open_page
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
