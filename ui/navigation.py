"""The app's pages: one table of file, title, icon and address, read by app.py, the tests and the benchmarks."""

from __future__ import annotations

from typing import NamedTuple

import streamlit as st

from ui.i18n import tr, translatable

__all__ = ["DEFAULT_PAGE_NAME", "PAGES", "PageSpec", "build_pages", "page_files"]


class PageSpec(NamedTuple):
    """One page: its script, title, icon and the path its shared links use ('' for the default page)."""

    path: str
    title: str
    icon: str
    url_path: str


PAGES: tuple[PageSpec, ...] = (
    PageSpec("app_pages/overview/page.py", translatable("Overview"), ":material/dashboard:", ""),
    PageSpec("app_pages/costs/page.py", translatable("Training vs serving cost"), ":material/payments:", "costs"),
    PageSpec("app_pages/vram/page.py", translatable("VRAM"), ":material/memory:", "vram"),
    PageSpec("app_pages/tokens/page.py", translatable("Tokens per second"), ":material/speed:", "tokens"),
    PageSpec("app_pages/compare/page.py", translatable("Compare"), ":material/compare_arrows:", "compare"),
    PageSpec("app_pages/plan/page.py", translatable("Plan"), ":material/route:", "plan"),
    PageSpec("app_pages/anatomy/page.py", translatable("GPU anatomy"), ":material/developer_board:", "anatomy"),
    PageSpec("app_pages/method/page.py", translatable("Method"), ":material/menu_book:", "method"),
    PageSpec("app_pages/validation/page.py", translatable("Validation"), ":material/verified:", "validation"),
    PageSpec("app_pages/add/page.py", translatable("Add a GPU or model"), ":material/add_circle:", "add"),
)
"""The first page is the default one (the bare address opens it)."""
DEFAULT_PAGE_NAME = "overview"
"""The default page's short name: page_files() and the tests call it this; its address is ''."""


def page_files() -> dict[str, str]:
    """Return each page's short name (its address, 'overview' for the default) and script path."""
    return {spec.url_path or DEFAULT_PAGE_NAME: spec.path for spec in PAGES}


def build_pages() -> list[st.Page]:
    """Return the app's pages, built once per visit and reused by its reruns.

    st.Page resolves and checks its file, about 0.2 ms a page on every rerun; the objects hold no
    scenario, and st.navigation only flags which one may run, so one visit's reruns can share them.
    """
    pages = []
    for index, spec in enumerate(PAGES):
        title = tr(spec.title)  # in the visit's language: build once per language
        if index == 0:
            # Named as its script was before pages became folders (overview.py, not page.py): the
            # page's id (a hash of this name) stays the one earlier releases used; its address stays ''.
            pages.append(st.Page(spec.path, title=title, icon=spec.icon, default=True, url_path=DEFAULT_PAGE_NAME))
        else:
            pages.append(st.Page(spec.path, title=title, icon=spec.icon, url_path=spec.url_path))
    return pages
