"""The engine's validation against the shipped measurements, computed once per server process."""

from __future__ import annotations

import streamlit as st

from model import default_catalog
from model.validation import ValidationReport, validate

__all__ = ["shipped_report"]


@st.cache_resource(show_spinner=False)
def shipped_report() -> ValidationReport:
    """The same for every visitor (it uses only the built-in catalog), so cached for all sessions."""
    return validate(default_catalog())
