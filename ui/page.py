"""Helpers every page uses: run the estimate and show a bad scenario as a message."""

from __future__ import annotations

import streamlit as st

from model import Estimate, Scenario, ScenarioError, estimate
from ui.catalog import session_catalog
from ui.text import escape_markdown

__all__ = ["estimate_or_stop"]


def estimate_or_stop(scenario: Scenario) -> Estimate:
    """Return the estimate, or show what is wrong with the scenario and stop the page."""
    try:
        return estimate(scenario, session_catalog())
    except ScenarioError as error:
        st.error(f"This scenario cannot be estimated: {escape_markdown(str(error))}", icon=":material/error:")
        st.stop()
