"""Sharing: a link that reproduces the scenario (page included) and downloads of it."""

from __future__ import annotations

import json
from urllib.parse import urlencode

import streamlit as st
import yaml

from model import Catalog, Scenario, ScenarioError, estimate
from ui.catalog import session_catalog
from ui.i18n import tr
from ui.linked import LONG_LINK_CHARS
from ui.sidebar import current_scenario, wanted_query

__all__ = ["render_share", "scenario_document", "share_link"]


def share_link() -> str:
    """Return the address of this page with the scenario in its query string."""
    base = st.context.url or ""
    query = urlencode(wanted_query())
    return f"{base}?{query}" if query else base


def scenario_document(scenario: Scenario, catalog: Catalog) -> dict[str, object]:
    """Return the scenario with its full results (every input filled in) as plain data."""
    try:
        return estimate(scenario, catalog).to_dict()
    except ScenarioError as error:
        return {"error": str(error)}


def _share_dialog(page_title: str) -> None:
    scenario, catalog = current_scenario(), session_catalog()
    st.caption(tr("This link opens **{page}** with this scenario:", page=page_title))
    link = share_link()
    st.code(link, language=None, wrap_lines=True)
    if len(link) > LONG_LINK_CHARS:
        st.warning(
            tr(
                "This link is {length} characters: some chat apps and mail clients cut links past {limit}. Your "
                "added rows and saved scenarios are in it; remove some, or send the YAML download from the Add page "
                "instead.",
                length=f"{len(link):,}",
                limit=f"{LONG_LINK_CHARS:,}",
            ),
            icon=":material/warning:",
        )
    left, right = st.columns(2)
    left.download_button(
        tr("Scenario and results (JSON)"),
        data=lambda: json.dumps(scenario_document(scenario, catalog), indent=2),
        file_name="scenario.json",
        mime="application/json",
        on_click="ignore",
        icon=":material/download:",
        width="stretch",
    )
    right.download_button(
        tr("Scenario and results (YAML)"),
        data=lambda: yaml.safe_dump(scenario_document(scenario, catalog), sort_keys=False),
        file_name="scenario.yaml",
        mime="application/yaml",
        on_click="ignore",
        icon=":material/download:",
        width="stretch",
    )


def render_share(page_title: str) -> None:
    """Draw the sidebar's share button; the link and downloads open in a dialog (built on demand)."""
    if st.sidebar.button(tr("Share or download"), icon=":material/share:", width="stretch", key="share"):
        # Decorated here, not at import: the dialog's title is in the visit's language.
        st.dialog(tr("Share this scenario"), width="large")(_share_dialog)(page_title)
