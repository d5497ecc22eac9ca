"""Hostile shared links through the app's first run without a browser (issue 14), a CI sample.

Each link goes through ui.sidebar.init_state, the scenario, the engine calls of every page that
reads its own controls, and back through the address the app writes (tests/fuzz_links.py says
what is checked). ``python -m tests.fuzz_full`` runs 10,000; CI runs 160.
"""

import pytest

from tests.fuzz_links import check_link, linked_link, run_links

LINKS, CHUNKS = 160, 8


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_links_never_raise_warn_by_label_and_keep_every_valid_value(chunk):
    start = chunk * LINKS // CHUNKS
    count, failures = run_links(range(start, start + LINKS // CHUNKS))
    assert count == LINKS // CHUNKS
    assert failures == {}, failures


def test_the_checks_catch_a_lost_value_and_a_silent_refusal():
    # The harness is only as good as its checks: a link whose valid card count is lost, or whose
    # refusal says nothing of what is allowed, must fail.
    from unittest import mock

    import ui.sidebar

    original = ui.sidebar.load_from_url

    def losing(query):
        values, warnings = original(query)
        values.pop("cards", None)
        return values, warnings

    with mock.patch.object(ui.sidebar, "load_from_url", losing):
        assert any("cards='64': valid" in line for line in check_link({"cards": "64"}))
    with mock.patch.object(ui.sidebar, "load_from_url", return_value=({}, ["Cards: no"])):
        assert check_link({"cards": "lots"}) != []
    assert check_link({"cards": "64", "lang": "zh", "rows": linked_link(3).get("rows", "x")}) == []
