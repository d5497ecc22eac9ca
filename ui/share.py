"""Sharing: a link that reproduces the scenario (page included) and downloads of it."""

from __future__ import annotations

import json
from urllib.parse import urlencode

import streamlit as st
import yaml

from model import ScenarioError, estimate
from ui.catalog import session_catalog
from ui.controls import save_to_url
from ui.sidebar import current_scenario

__all__ = ["render_share", "scenario_document", "share_link"]


def share_link() -> str:
    """Return the address of this page with the scenario in its query string."""
    base = st.context.url or ""
    query = urlencode(save_to_url(st.session_state))
    return f"{base}?{query}" if query else base


def scenario_document() -> dict[str, object]:
    """Return the scenario with its full results (inputs filled in) as plain data."""
    try:
        return estimate(current_scenario(), session_catalog()).to_dict()
    except ScenarioError as error:
        return {"error": str(error)}


def render_share(page_title: str) -> None:
    """Draw the sidebar's share popover: the link and JSON/YAML downloads of the scenario."""
    with st.sidebar.popover("Share or download", icon=":material/share:", width="stretch"):
        st.caption(f"This link opens **{page_title}** with this scenario:")
        st.code(share_link(), language=None, wrap_lines=True)
        st.download_button(
            "Scenario and results (JSON)",
            data=lambda: json.dumps(scenario_document(), indent=2),
            file_name="scenario.json",
            mime="application/json",
            on_click="ignore",
            icon=":material/download:",
        )
        st.download_button(
            "Scenario and results (YAML)",
            data=lambda: yaml.safe_dump(scenario_document(), sort_keys=False),
            file_name="scenario.yaml",
            mime="application/yaml",
            on_click="ignore",
            icon=":material/download:",
        )
