"""The app's pages: one table of file, title, icon, address and top-bar section, read by app.py, tests, benchmarks."""

from __future__ import annotations

from typing import NamedTuple

import streamlit as st

from ui.i18n import tr, translatable

__all__ = ["DEFAULT_PAGE_NAME", "LINKS", "PAGES", "PICK", "REFERENCE", "PageSpec", "build_pages", "page_files"]


class PageSpec(NamedTuple):
    """One page: its script, title, icon, address and top-bar section.

    The address is the path its shared links use ('' for the default page); the section is the top
    bar's drop-down that lists it, or LINKS for a link of its own.
    """

    path: str
    title: str
    icon: str
    url_path: str
    section: str = ""  # LINKS


# The top bar's sections. Ten links overflow the bar at a projector's 1280 px, and Streamlit folds the
# last ones into its own "N more" item, in English whatever the visit's language; four links and two
# drop-downs fit with room to spare in both languages (tests/browser/test_navigation.py holds it).
LINKS = ""
"""The section of the pages a visit moves between: each a link of its own, first on the bar."""
PICK = translatable("Pick a GPU")
"""Every GPU side by side, and the cheapest setup that meets a target: one drop-down."""
REFERENCE = translatable("Reference")
"""How a GPU works, the method, its validation, and adding a GPU or model: one drop-down."""

PAGES: tuple[PageSpec, ...] = (
    PageSpec("app_pages/overview/page.py", translatable("Overview"), ":material/dashboard:", ""),
    PageSpec("app_pages/costs/page.py", translatable("Training vs serving cost"), ":material/payments:", "costs"),
    PageSpec("app_pages/vram/page.py", translatable("VRAM"), ":material/memory:", "vram"),
    PageSpec("app_pages/tokens/page.py", translatable("Tokens per second"), ":material/speed:", "tokens"),
    PageSpec("app_pages/compare/page.py", translatable("Compare"), ":material/compare_arrows:", "compare", PICK),
    PageSpec("app_pages/plan/page.py", translatable("Plan"), ":material/route:", "plan", PICK),
    PageSpec(
        "app_pages/anatomy/page.py", translatable("GPU anatomy"), ":material/developer_board:", "anatomy", REFERENCE
    ),
    PageSpec("app_pages/method/page.py", translatable("Method"), ":material/menu_book:", "method", REFERENCE),
    PageSpec(
        "app_pages/validation/page.py", translatable("Validation"), ":material/verified:", "validation", REFERENCE
    ),
    PageSpec("app_pages/add/page.py", translatable("Add a GPU or model"), ":material/add_circle:", "add", REFERENCE),
)
"""The first page is the default one (the bare address opens it)."""
DEFAULT_PAGE_NAME = "overview"
"""The default page's short name: page_files() and the tests call it this; its address is ''."""


def page_files() -> dict[str, str]:
    """Return each page's short name (its address, 'overview' for the default) and script path."""
    return {spec.url_path or DEFAULT_PAGE_NAME: spec.path for spec in PAGES}


def build_pages() -> dict[str, list[st.Page]]:
    """Return the app's pages by top-bar section, built once per visit and reused by its reruns.

    Section and page titles are in the visit's language. st.Page resolves and checks its file, about
    0.2 ms a page on every rerun; the objects hold no scenario, and st.navigation only flags which one
    may run, so one visit's reruns can share them. The sections keep PAGES's order; st.navigation
    shows LINKS's pages first, as links of their own.
    """
    sections: dict[str, list[st.Page]] = {}
    for index, spec in enumerate(PAGES):
        title = tr(spec.title)  # in the visit's language: build once per language
        if index == 0:
            # Named as its script was before pages became folders (overview.py, not page.py): the
            # page's id (a hash of this name) stays the one earlier releases used; its address stays ''.
            page = st.Page(spec.path, title=title, icon=spec.icon, default=True, url_path=DEFAULT_PAGE_NAME)
        else:
            page = st.Page(spec.path, title=title, icon=spec.icon, url_path=spec.url_path)
        sections.setdefault(tr(spec.section) if spec.section else LINKS, []).append(page)
    return sections
