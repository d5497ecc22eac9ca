"""A model by its Hugging Face id in the app (issue 32): ?hf=org/name opens it, offline says so in one line."""

import pytest

from model.catalog.hf_hub import clear_hf_cache
from tests.app.conftest import open_page
from tests.hf_server import serve_hub


@pytest.fixture(autouse=True)
def _fresh_fetches():
    clear_hf_cache()
    yield
    clear_hf_cache()


def test_a_link_with_a_hub_id_opens_that_model_on_every_page(monkeypatch):
    with serve_hub() as hub:
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        at = open_page("overview", hf="mistralai/Mistral-7B-v0.1", cards="1")
        assert at.session_state["model"] == "hf-mistralai-mistral-7b-v0.1"
        assert at.selectbox(key="model").value == "hf-mistralai-mistral-7b-v0.1"
        assert at.title[0].value.startswith("mistralai/Mistral-7B-v0.1 on 1 × ")
        assert "mistralai/Mistral-7B-v0.1 · 7.24B" in at.selectbox(key="model").options  # Mistral 7B's shape
        assert at.query_params["hf"] == "mistralai/Mistral-7B-v0.1"  # the address reproduces it
        at.switch_page("app_pages/vram/page.py").run()
        assert not at.exception
        assert at.selectbox(key="model").value == "hf-mistralai-mistral-7b-v0.1"


def test_offline_the_sidebar_says_so_in_one_line_and_the_rest_opens():
    at = open_page("overview", hf="mistralai/Mistral-7B-v0.1", gpu="h200")  # HF_ENDPOINT: a closed port
    (error,) = [e.value for e in at.sidebar.error]
    assert error.startswith("mistralai/Mistral-7B-v0.1: cannot reach") and "Add page" in error
    assert "\n" not in error
    assert at.session_state["model"] == "llama-3.1-8b" and at.session_state["gpu"] == "h200"


def test_a_malformed_id_in_a_link_is_refused_with_the_form_it_takes():
    at = open_page("overview", hf="not an id")
    notice = " ".join(w.value for w in at.main.warning)
    assert "org/name" in notice
