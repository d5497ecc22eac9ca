"""Hostile shared links (issue 5): 1,000 random and mutated query strings through AppTest.

Each link is a visitor's first request: the app must render without an exception, warn about
what it dropped, and leave only valid values behind (the address bar it writes back parses
cleanly); one link in four then opens another page. Issue 14 adds 40 links checked end to end
(tests/fuzz_app.py); ``python -m tests.fuzz_full`` runs 300 of those and 10,000 without AppTest.
"""

import pytest
from streamlit.testing.v1 import AppTest

from tests.app.conftest import APP
from tests.fuzzing import page_for, shared_link
from ui.controls import load_from_url

LINKS = 1000
CHUNKS = 20


def _as_lists(query):
    return {key: value if isinstance(value, list) else [value] for key, value in query.items()}


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_random_and_mutated_links_never_raise_and_leave_valid_values(chunk):
    for seed in range(chunk, LINKS, CHUNKS):
        query = shared_link(seed)
        at = AppTest.from_file(str(APP), default_timeout=60)
        at.query_params.update(query)
        at.run()
        assert not at.exception, (seed, query, at.exception)
        assert at.title or at.header, (seed, "the page drew no title")  # presentation mode titles with a header
        _, dropped = load_from_url(_as_lists(query))
        if dropped:
            shown = " ".join(w.value for w in at.warning)
            assert "Link" in shown, (seed, query)
        # What the app writes back to the address bar is clean: it parses without a warning.
        written = {key: [str(value)] for key, value in at.query_params.items() if not isinstance(value, list)}
        assert load_from_url(written)[1] == [], (seed, at.query_params)
        page = page_for(seed)
        if page:
            at.switch_page(page).run()
            assert not at.exception, (seed, page, at.exception)


ALL_THE_WAY = range(90_000, 90_040)
"""Issue 14: links that also carry packed rows and saved scenarios, each on a page, half of them in 中文."""


@pytest.mark.parametrize("chunk", range(4))
def test_links_on_their_page_in_both_languages_keep_every_valid_value(chunk):
    from tests.fuzz_app import check_in_app
    from tests.fuzz_links import linked_link
    from tests.fuzzing import PAGES

    for seed in ALL_THE_WAY[chunk::4]:
        page = PAGES[seed % len(PAGES)] if seed % 3 else None
        problems = check_in_app(linked_link(seed), page, "zh" if seed % 2 else "en")
        assert problems == [], (seed, page, problems)
