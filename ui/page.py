"""Helpers every page uses: the verdict, the title, and what presentation mode folds away."""

from __future__ import annotations

from typing import Any

import streamlit as st

from model import Estimate
from model.analyses.verdict import Verdict
from ui.charts import presenting
from ui.format import billions, compact_gpu_name
from ui.verdict import verdict_headline

__all__ = ["explained", "page_title", "scenario_tag", "settings_box", "show_verdict"]


def show_verdict(verdict: Verdict, gpu_name: str, precision: str, primary: bool = True) -> None:
    """Show a goal's verdict: coloured when it leads the page, a plain line for the other mode."""
    text = verdict_headline(verdict, gpu_name, precision)
    if not primary:
        st.markdown(text)
    elif verdict.runs:
        st.success(text, icon=":material/check_circle:")
    else:
        st.error(text, icon=":material/block:")


def scenario_tag(result: Estimate) -> str:
    """Return the scenario in a few words, for a one-line title: '70.6B · int4 · 2 × RTX 4090'."""
    gpu = result.resolved.gpu
    params = billions(result.resolved.arch.stats.total_params)
    return f"{params} · {result.resolved.precision} · {result.resolved.scenario.cards:,} × {compact_gpu_name(gpu)}"


def page_title(full: str, tag: str) -> None:
    """Title the page: its full sentence, or in presentation mode the page's word and the scenario on one line."""
    if presenting():
        st.header(tag, anchor=False)
    else:
        st.title(full, anchor=False)


def settings_box(label: str) -> Any:
    """Return where a page draws its own controls: in place, or folded under ``label`` while presenting."""
    if presenting():
        return st.expander(label, icon=":material/tune:")
    return st.container()


def explained(text: str, label: str) -> None:
    """Show a paragraph of explanation: in place, or folded under ``label`` while presenting."""
    if presenting():
        with st.expander(label):
            st.markdown(text)
    else:
        st.markdown(text)
