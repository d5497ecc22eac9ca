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
from model.pricing import Owning, PriceQuote, market_rent_ratio, owning_price, rental_price
from ui.catalog import session_catalog
from ui.controls import (
    AUTO,
    CARD_STEPS,
    CONTROLS,
    CUSTOM,
    FINETUNE_OPTIONS,
    GOAL_OPTIONS,
    PARAM_STEPS_B,
    PRICING_OPTIONS,
    format_params,
    load_from_url,
    save_to_url,
)
from ui.format import billions
from ui.remount import held_index, held_value
from ui.text import escape_markdown

__all__ = [
    "CARDS",
    "GOAL",
    "GOAL_LABELS",
    "GPU",
    "INTERCONNECT",
    "MODEL",
    "NETWORK",
    "PARAMS",
    "PRECISION",
    "current_goal",
    "current_price",
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
GOAL = "goal"
GOAL_LABELS = {"serve": "Serve", "finetune": "Fine-tune", "pretrain": "Pre-train"}
FINETUNE_LABELS = {"lora": "LoRA", "qlora": "QLoRA (4-bit base)", "full": "Full"}
PRICING_LABELS = {"rent": "Rent", "own": "Own"}
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
        st.segmented_control(
            "What do you want to do?",
            GOAL_OPTIONS,
            default=held_value(GOAL, GOAL_OPTIONS),
            format_func=GOAL_LABELS.get,
            key=GOAL,
            required=True,
            help="The Overview leads with this goal's verdict; the other mode follows below it.",
        )
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
        if st.session_state[GOAL] == "finetune":
            _render_finetune()
        _render_prices()


def _render_finetune() -> None:
    c1, c2 = st.columns([3, 2])
    c1.selectbox(
        "Fine-tuning method",
        FINETUNE_OPTIONS,
        index=held_index("finetune", FINETUNE_OPTIONS),
        format_func=FINETUNE_LABELS.get,
        key="finetune",
        help="LoRA trains low-rank adapters on a frozen 16-bit base; QLoRA on a 4-bit base; Full trains every weight.",
    )
    c2.number_input(
        "LoRA rank", 1, 1024, held_value("rank"), key="rank", disabled=st.session_state["finetune"] == "full"
    )


def _render_prices() -> None:
    """Renting at a rate (the catalog's unless typed) or owning: purchase over years plus power."""
    gpu = session_catalog().gpus[st.session_state[GPU]]
    with st.expander("Price of a GPU-hour", expanded=False):
        st.segmented_control(
            "Pricing",
            PRICING_OPTIONS,
            default=held_value("pricing", PRICING_OPTIONS),
            format_func=PRICING_LABELS.get,
            key="pricing",
            required=True,
            label_visibility="collapsed",
        )
        if st.session_state["pricing"] == "rent":
            catalog_price = rental_price(gpu, market_rent_ratio())
            st.number_input(
                "USD per GPU-hour",
                0.0,
                10_000.0,
                held_value("price"),
                step=0.1,
                format="%.2f",
                key="price",
                placeholder=f"{catalog_price.usd_per_gpu_hour:.2f} (catalog)"
                if catalog_price.usd_per_gpu_hour is not None
                else "type a price",
                help="Empty: the catalog's rate for this GPU.",
            )
        else:
            c1, c2, c3 = st.columns(3)
            c1.number_input("Years", 0.5, 15.0, held_value("years"), step=0.5, key="years")
            c2.number_input("$/kWh", 0.0, 2.0, held_value("kwh"), step=0.01, format="%.2f", key="kwh")
            c3.number_input("PUE", 1.0, 3.0, held_value("pue"), step=0.05, format="%.2f", key="pue")
        quote = current_price()
        st.caption(price_caption(gpu.short_name, quote))


def training_settings(state: Any) -> dict[str, Any]:
    """Map the VRAM page's training knobs onto Scenario fields ('auto' becomes None: the engine chooses).

    They are part of every page's scenario, so every page gives the same verdict for it.
    """

    def chosen(key: str) -> str | None:
        return None if state[key] == AUTO else str(state[key])

    zero, tp, micro = chosen("zero"), chosen("tp"), chosen("micro")
    return {
        "zero": None if zero is None else int(zero),
        "tp": None if tp is None else int(tp),
        "recompute": chosen("recompute"),
        "micro_batch": None if micro is None else int(micro),
        # The default length leaves the engine's own (4,096, or the model's context if shorter).
        "seq_len": None if state["seq"] == CONTROLS["seq"].default else int(state["seq"]),
    }


def current_goal() -> str:
    """Return the goal the sidebar names: 'serve', 'finetune' or 'pretrain'."""
    return str(st.session_state[GOAL])


def current_price() -> PriceQuote:
    """Return the price of a GPU-hour the sidebar sets: typed, the catalog's rental rate, or owning."""
    state = st.session_state
    gpu = session_catalog().gpus[state[GPU]]
    if state["pricing"] == "own":
        owned = owning_price(gpu, Owning(years=state["years"], usd_per_kwh=state["kwh"], pue=state["pue"]))
        if owned.usd_per_gpu_hour is not None:
            return owned
    if state["price"] is not None:
        return PriceQuote(float(state["price"]), "given", "typed")
    return rental_price(gpu, market_rent_ratio())


def price_caption(gpu_name: str, quote: PriceQuote) -> str:
    """Say what a GPU-hour costs and where the figure comes from."""
    if quote.usd_per_gpu_hour is None:
        return f"No price known for {gpu_name}: {quote.note}."
    return f"{gpu_name}: **${quote.usd_per_gpu_hour:,.2f} per GPU-hour**, {escape_markdown(quote.note)}."


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
        "finetune": state["finetune"] if state[GOAL] == "finetune" else "none",
        "lora_rank": state["rank"],
        "price_per_gpu_hour": current_price().usd_per_gpu_hour,
        **training_settings(state),
    }
    settings.update(page_settings)
    return Scenario(**settings)
