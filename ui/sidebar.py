"""The shared sidebar: the scenario every page reads, bound to the URL.

Widget keys are the query-parameter names in :mod:`ui.controls`; pages and tests import the
constants below. :func:`current_scenario` turns the controls into a :class:`model.Scenario`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

from model import Scenario
from model.precision import PRECISIONS
from ui.catalog import session_catalog
from ui.controls import AUTO, CARD_STEPS, CONTROLS, CUSTOM, PARAM_STEPS_B, format_params, load_from_url, save_to_url
from ui.format import billions
from ui.remount import held_index, held_value
from ui.text import escape_markdown

__all__ = [
    "CARDS",
    "GPU",
    "INTERCONNECT",
    "MODEL",
    "NETWORK",
    "PARAMS",
    "PRECISION",
    "current_scenario",
    "init_state",
    "render_scenario_sidebar",
    "sync_url",
]

MODEL, PARAMS, PRECISION, GPU, CARDS, INTERCONNECT, NETWORK = (
    "model",
    "params",
    "precision",
    "gpu",
    "cards",
    "link",
    "net",
)
_LOADED = "_url_loaded"
_WARNINGS = "_url_warnings"


def init_state() -> None:
    """Fill the session with the URL's values on a visit's first run, defaults for the rest."""
    state = st.session_state
    if _LOADED not in state:
        query = {key: st.query_params.get_all(key) for key in st.query_params}
        values, warnings = load_from_url(query)
        for key, value in values.items():
            state[key] = value
        state[_WARNINGS] = warnings
        state[_LOADED] = True
    for key, control in CONTROLS.items():
        if key not in state:
            state[key] = control.default


def sync_url() -> None:
    """Write the controls that differ from their defaults into the address bar."""
    wanted = save_to_url(st.session_state)
    if st.query_params.to_dict() != wanted:
        st.query_params.from_dict(wanted)


def _model_labeller() -> Callable[[str], str]:
    """Return a label function for the model selectbox, bound to this run's catalog.

    Format functions must not look things up when called: AppTest calls them outside the run.
    """
    models = session_catalog().models
    labels = {ident: f"{m.name} · {billions(m.architecture.stats.total_params)}" for ident, m in models.items()}
    labels[CUSTOM] = "Custom size (slider below)"
    return lambda model_id: labels.get(model_id, model_id)


def _gpu_labeller() -> Callable[[str], str]:
    """Return a label function for the GPU selectbox, bound to this run's catalog."""
    labels = {ident: f"{g.name} · {g.memory_bytes / 1e9:g} GB" for ident, g in session_catalog().gpus.items()}
    return lambda gpu_id: labels.get(gpu_id, gpu_id)


def _link_labeller(table: str, gpu_id: str) -> Callable[[str], str]:
    """Return a label function for a link selectbox; 'auto' names the GPU's own link.

    The GPU is bound now, not read at call time: AppTest re-applies format functions outside
    the script run.
    """
    catalog = session_catalog()
    links = catalog.interconnects if table == "interconnects" else catalog.networks
    gpu = catalog.gpus[gpu_id]
    own = links[gpu.scale_up if table == "interconnects" else gpu.network].name

    def label(link_id: str) -> str:
        return f"auto: {own}" if link_id == AUTO else links[link_id].name

    return label


def render_scenario_sidebar() -> None:
    """Draw the scenario controls in the sidebar (call once per run, before the page)."""
    catalog = session_catalog()
    with st.sidebar:
        for message in st.session_state.pop(_WARNINGS, []):
            st.warning(f"Link: {escape_markdown(message)}", icon=":material/link_off:")
        models = [*catalog.models, CUSTOM]
        st.selectbox("Model", models, index=held_index(MODEL, models), format_func=_model_labeller(), key=MODEL)
        if st.session_state[MODEL] == CUSTOM:
            st.select_slider(
                "Parameters",
                PARAM_STEPS_B,
                value=held_value(PARAMS, PARAM_STEPS_B),
                format_func=format_params,
                key=PARAMS,
                persist_state="session",
                help="A Llama-style dense model of this size (the engine derives its layers and width).",
            )
        st.segmented_control(
            "Precision", PRECISIONS, default=held_value(PRECISION, PRECISIONS), key=PRECISION, required=True
        )
        gpus = list(catalog.gpus)
        st.selectbox("GPU", gpus, index=held_index(GPU, gpus), format_func=_gpu_labeller(), key=GPU)
        st.select_slider(
            "Cards", CARD_STEPS, value=held_value(CARDS, CARD_STEPS), format_func=lambda n: f"{n:,}", key=CARDS
        )
        links = [AUTO, *catalog.interconnects]
        networks = [AUTO, *catalog.networks]
        st.selectbox(
            "Interconnect (inside a node)",
            links,
            index=held_index(INTERCONNECT, links),
            format_func=_link_labeller("interconnects", st.session_state[GPU]),
            key=INTERCONNECT,
        )
        st.selectbox(
            "Network (between nodes)",
            networks,
            index=held_index(NETWORK, networks),
            format_func=_link_labeller("networks", st.session_state[GPU]),
            key=NETWORK,
        )


def current_scenario(**page_settings: Any) -> Scenario:
    """Return the scenario the sidebar (and the page's own controls) describe.

    Args:
        **page_settings: Scenario fields a page sets from its own controls (batch, prompt_len, ...).
    """
    state = st.session_state
    custom = state[MODEL] == CUSTOM
    settings: dict[str, Any] = {
        "model": None if custom else state[MODEL],
        "params": state[PARAMS] * 1e9 if custom else None,
        "precision": state[PRECISION],
        "gpu": state[GPU],
        "cards": state[CARDS],
        "interconnect": None if state[INTERCONNECT] == AUTO else state[INTERCONNECT],
        "network": None if state[NETWORK] == AUTO else state[NETWORK],
        "prompt_len": state["prompt"],
        "output_len": state["output"],
        "utilization": state["util"],
        "tokens": state["tokens"] or None,
    }
    settings.update(page_settings)
    return Scenario(**settings)
