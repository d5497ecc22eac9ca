"""Helpers every page uses: run the estimate and show a bad scenario as a message."""

from __future__ import annotations

import streamlit as st

from model import Estimate, Scenario, ScenarioError, estimate
from model.analyses.verdict import Verdict
from ui.catalog import session_catalog
from ui.i18n import tr
from ui.text import escape_markdown
from ui.verdict import verdict_headline

__all__ = ["estimate_or_stop", "show_verdict"]


def show_verdict(verdict: Verdict, gpu_name: str, precision: str, primary: bool = True) -> None:
    """Show a goal's verdict: coloured when it leads the page, a plain line for the other mode."""
    text = verdict_headline(verdict, gpu_name, precision)
    if not primary:
        st.markdown(text)
    elif verdict.runs:
        st.success(text, icon=":material/check_circle:")
    else:
        st.error(text, icon=":material/block:")


def estimate_or_stop(scenario: Scenario) -> Estimate:
    """Return the estimate, or show what is wrong with the scenario and stop the page."""
    try:
        return estimate(scenario, session_catalog())
    except ScenarioError as error:
        # A title still heads the page: the message says which setting to change, every value kept.
        st.title(tr("This scenario cannot be estimated"))
        message = tr("This scenario cannot be estimated: {error}", error=escape_markdown(str(error)))
        st.error(message, icon=":material/error:")
        st.stop()
