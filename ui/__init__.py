"""Streamlit and Altair building blocks: the scenario controls, chart builders, formatting."""
