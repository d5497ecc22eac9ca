"""The top bar's pages and sections as app.py hands them to st.navigation, in English and 中文.

The browser test (tests/browser/test_navigation.py) checks what a 1280 px screen shows; this one
checks the table behind it: every page once, in PAGES's order, at its old address, under a section
title in the visit's language, built once per language.
"""

import re

import pytest

from tests.app.conftest import open_page
from ui.i18n import catalogue
from ui.navigation import LINKS, PAGES, PageSpec

CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_top_bar_names_every_page_under_a_section_in_the_visits_language(language):
    at = open_page(lang=language)
    sections = at.session_state[f"_pages_{language}"]
    words = catalogue(language)

    def section_of(spec: PageSpec) -> str:
        return words.get(spec.section, spec.section) if spec.section else LINKS

    assert list(sections) == list(dict.fromkeys(section_of(spec) for spec in PAGES))
    first, *drop_downs = sections
    assert first == LINKS, "the links of their own come first, as st.navigation shows them"
    assert drop_downs and all(drop_downs)
    if language == "zh":
        assert all(CJK.search(title) for title in drop_downs), drop_downs
    pages = [page for group in sections.values() for page in group]
    assert [(page.title, page.url_path) for page in pages] == [
        (words.get(spec.title, spec.title), spec.url_path) for spec in PAGES
    ]
    for title, group in sections.items():
        assert [page.url_path for page in group] == [spec.url_path for spec in PAGES if section_of(spec) == title]
    assert [page._default for page in pages] == [True] + [False] * (len(PAGES) - 1)
    at.run()
    assert at.session_state[f"_pages_{language}"] is sections, "rebuilt on a rerun"
