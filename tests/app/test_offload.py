"""A desk's question in the app (issue 32): 70B q4_k_m on one RTX 4090 with 64 GB of RAM, and on an M-series Max."""

from tests.app.conftest import open_page

SEVENTY_Q4 = {"model": "llama-3.1-70b", "precision": "q4_k_m", "cards": "1"}


def test_a_4090_with_host_memory_runs_70b_with_offload_and_says_the_split():
    at = open_page("overview", gpu="rtx-4090", host="64", **SEVENTY_Q4)
    verdict = at.success[0].value
    assert verdict.startswith("**Serving fits with offload**: ")
    assert " of 80 layers on the card, " in verdict and " tokens/s per user." in verdict
    assert at.session_state["offload"] == "auto"


def test_without_host_memory_it_does_not_run_and_with_little_it_says_needs_and_has():
    assert "Serving does not fit" in open_page("overview", gpu="rtx-4090", **SEVENTY_Q4).error[0].value
    little = open_page("overview", gpu="rtx-4090", host="16", **SEVENTY_Q4).error[0].value
    assert "Serving does not fit" in little and "with host memory" in little


def test_an_m_series_max_with_enough_unified_memory_just_fits():
    at = open_page("overview", gpu="apple-m4-max", **SEVENTY_Q4)
    assert at.success[0].value.startswith("**Serving fits**: ")
