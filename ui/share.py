"""Sharing: a link that reproduces the scenario (page included) and downloads of it."""

from __future__ import annotations

import json
from urllib.parse import urlencode

import streamlit as st
import yaml

from model import Catalog, Scenario, ScenarioError, estimate
from ui.catalog import session_catalog
from ui.controls import save_to_url
from ui.sidebar import current_scenario

__all__ = ["render_share", "scenario_document", "share_link"]


def share_link() -> str:
    """Return the address of this page with the scenario in its query string."""
    base = st.context.url or ""
    query = urlencode(save_to_url(st.session_state))
    return f"{base}?{query}" if query else base


def scenario_document(scenario: Scenario, catalog: Catalog) -> dict[str, object]:
    """Return the scenario with its full results (every input filled in) as plain data."""
    try:
        return estimate(scenario, catalog).to_dict()
    except ScenarioError as error:
        return {"error": str(error)}


@st.dialog("Share this scenario", width="large")
def _share_dialog(page_title: str) -> None:
    scenario, catalog = current_scenario(), session_catalog()
    st.caption(f"This link opens **{page_title}** with this scenario:")
    st.code(share_link(), language=None, wrap_lines=True)
    left, right = st.columns(2)
    left.download_button(
        "Scenario and results (JSON)",
        data=lambda: json.dumps(scenario_document(scenario, catalog), indent=2),
        file_name="scenario.json",
        mime="application/json",
        on_click="ignore",
        icon=":material/download:",
        width="stretch",
    )
    right.download_button(
        "Scenario and results (YAML)",
        data=lambda: yaml.safe_dump(scenario_document(scenario, catalog), sort_keys=False),
        file_name="scenario.yaml",
        mime="application/yaml",
        on_click="ignore",
        icon=":material/download:",
        width="stretch",
    )


def render_share(page_title: str) -> None:
    """Draw the sidebar's share button; the link and downloads open in a dialog (built on demand)."""
    if st.sidebar.button("Share or download", icon=":material/share:", width="stretch", key="share"):
        _share_dialog(page_title)
