"""Each page's view model, built once per scenario: the one cache between the sidebar and a page.

A page turns its scenario into one frozen view model (every number, sentence and chart row it
shows) through one function, and only lays that out. :func:`view_or_stop` builds it, remembers it
by the function, its arguments, the visit's language and the rows the visit added to the catalog,
and answers a rerun with the same inputs (a language switch, a page revisited, another session's
same scenario) without asking the engine again. View models are immutable, so sessions share them.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import TypeVar

import streamlit as st

from model import Catalog, ScenarioError
from model.caches import BoundedMemo
from ui.catalog import USER_CATALOG_KEY, session_catalog
from ui.i18n import current_language, tr
from ui.text import escape_markdown

__all__ = ["VIEWS_KEPT", "forget_views", "view_or_stop"]

V = TypeVar("V")
VIEWS_KEPT = 512
"""View models kept across sessions (a few kB to a few hundred kB each; the oldest go first)."""
_VIEWS: BoundedMemo[Hashable, object] = BoundedMemo(VIEWS_KEPT)


def view_or_stop(build: Callable[..., V], *args: Hashable) -> V:
    """Return ``build(*args, catalog)``, remembered; or show why the scenario cannot be estimated and stop.

    Args:
        build: the page's view-model function; its last argument is the visit's catalog.
        *args: what the view depends on besides the language and the catalog (hashable: a Scenario,
            a goal, a page control's value).
    """
    key = (build.__module__, build.__qualname__, current_language(), st.session_state.get(USER_CATALOG_KEY), args)
    found = _VIEWS.get(key)
    if found is not None:
        return found  # type: ignore[return-value]
    catalog: Catalog = session_catalog()
    try:
        view = build(*args, catalog)
    except ScenarioError as error:
        # A title still heads the page: the message says which setting to change, every value kept.
        st.title(tr("This scenario cannot be estimated"))
        message = tr("This scenario cannot be estimated: {error}", error=escape_markdown(str(error)))
        st.error(message, icon=":material/error:")
        st.stop()
    return _VIEWS.put(key, view)  # type: ignore[return-value]


def forget_views() -> None:
    """Drop every remembered view model (tests, and benchmarks that time a cold build)."""
    _VIEWS.clear()
