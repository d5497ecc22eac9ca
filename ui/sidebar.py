"""The shared sidebar: the scenario every page reads, bound to the URL.

Widget keys are the query-parameter names in :mod:`ui.controls`; pages and tests import the
constants below. :func:`current_scenario` turns the controls into a :class:`model.Scenario`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

from model import (
    DEFAULT_CARDS,
    FORMATS,
    OFFLOAD_MODES,
    PRECISIONS,
    HfError,
    HfModel,
    Scenario,
    default_cards,
    implied_stack,
    stacks_for,
)
from ui.catalog import HF_KEY, fetched_model, session_catalog
from ui.controls import (
    AUTO,
    CARD_STEPS,
    CONTROLS,
    CUSTOM,
    FINETUNE_OPTIONS,
    GOAL_OPTIONS,
    PARAM_STEPS_B,
    PRESENT,
    bounds,
    format_params,
    int_bounds,
    load_from_url,
    save_to_url,
    steps_with,
)
from ui.format import billions
from ui.i18n import LANGUAGE_KEY, LANGUAGES, language_from_locale, tr, translatable
from ui.linked import ROWS_KEY, SAVED_LINK_KEY, linked_values, saved_from_link, take_linked, unpack
from ui.pricing import current_price, render_prices
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
    "STACK",
    "current_goal",
    "current_scenario",
    "init_state",
    "render_link_notice",
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
GOAL_LABELS = {
    "serve": translatable("Serve"),
    "finetune": translatable("Fine-tune"),
    "pretrain": translatable("Pre-train"),
}
FINETUNE_LABELS = {"lora": "LoRA", "qlora": translatable("QLoRA (4-bit base)"), "full": translatable("Full")}
_LOADED = "_url_loaded"
_WARNINGS = "_url_warnings"
_HF_CHOSEN = "_hf_chosen"
"""The Hugging Face id whose model the picker was last moved to (a new id moves it once)."""
_CARDS_FOR = "_cards_for"
"""The GPU whose default card count the card slider was last set against (:func:`_follow_machine`)."""


def init_state() -> None:
    """Fill the session with the URL's values on a visit's first run, defaults for the rest."""
    state = st.session_state
    if _LOADED not in state:
        query = {key: st.query_params.get_all(key) for key in st.query_params}
        # The language first, so the link's warnings are in it; without one, the browser's decides.
        asked = (query.get(LANGUAGE_KEY) or [""])[-1]
        state[LANGUAGE_KEY] = asked if asked in LANGUAGES else language_from_locale(st.context.locale)
        # Rows first, and the Hugging Face model: the link's model or GPU may be one of them.
        warnings = _load_linked(take_linked(query))
        hub, hub_warnings = load_from_url({HF_KEY: query.pop(HF_KEY)} if HF_KEY in query else {})
        state.update(hub)
        warnings += hub_warnings
        values, control_warnings = load_from_url(query)
        for key, value in values.items():
            state[key] = value
        state[_WARNINGS] = warnings + control_warnings
        state[_LOADED] = True
        # A link without a card count means the GPU's default: one machine on a desk, else a node.
        gpu = state.get(GPU, CONTROLS[GPU].default)
        if CARDS not in values:
            state[CARDS] = _default_cards(gpu)
        state[_CARDS_FOR] = gpu
    for key, control in CONTROLS.items():
        if key not in state:
            state[key] = control.default


def _default_cards(gpu_id: str | None) -> int:
    """The engine's default card count for a GPU of the session's catalog (a node's for one it lacks)."""
    gpu = session_catalog().gpus.get(gpu_id) if gpu_id is not None else None
    return default_cards(gpu) if gpu is not None else DEFAULT_CARDS


def _follow_machine() -> None:
    """Move the card count with the GPU while it sits at the last GPU's default (a count the user chose stays)."""
    state = st.session_state
    if state[CARDS] == _default_cards(state.get(_CARDS_FOR)):
        state[CARDS] = _default_cards(state[GPU])
    state[_CARDS_FOR] = state[GPU]


def _load_linked(linked: dict[str, str]) -> list[str]:
    """Apply the rows and saved scenarios a link carries; return what was refused and why."""
    from ui.forms import add_document  # late: the Add page's checks, which need the session catalog
    from ui.saved import MAX_SAVED, restore_saved

    warnings = []
    if ROWS_KEY in linked:
        try:
            accepted, message = add_document(unpack(linked[ROWS_KEY]), tr("the link's rows"))
        except ValueError as error:
            accepted, message = False, tr("the link's rows: {error}", error=str(error))
        if not accepted:
            warnings.append(tr("added rows not loaded: {message}", message=message))
    if SAVED_LINK_KEY in linked:
        try:
            kept, dropped = saved_from_link(unpack(linked[SAVED_LINK_KEY]), session_catalog(), MAX_SAVED)
        except ValueError as error:
            kept, dropped = [], [tr("saved scenarios: {error}", error=str(error))]
        restore_saved(kept)
        warnings += dropped
    return warnings


def wanted_query() -> dict[str, str]:
    """Return the query string that reproduces the visit: controls off their defaults, added rows, saved scenarios."""
    from ui.catalog import USER_CATALOG_KEY
    from ui.saved import saved_scenarios

    state = st.session_state
    # The language always travels: a link opens in the language it was shared in.
    language = {LANGUAGE_KEY: state[LANGUAGE_KEY]} if LANGUAGE_KEY in state else {}
    return {**save_to_url(state), **language, **linked_values(state.get(USER_CATALOG_KEY), saved_scenarios())}


def sync_url() -> None:
    """Write the query that reproduces the visit into the address bar."""
    wanted = wanted_query()
    # Every value of each key: to_dict() keeps only the last, so a key a link repeats would stay repeated.
    if {key: st.query_params.get_all(key) for key in st.query_params} != {k: [v] for k, v in wanted.items()}:
        st.query_params.from_dict(wanted)


def picker_order(models: Any) -> list[str]:
    """Return model ids as the picker lists them: the visit's own rows, then the newest release first.

    Undated rows come last; equal months keep the catalog's order (the sort is stable).
    """

    def rank(model: Any) -> tuple[bool, int]:
        return not model.user_supplied, -int(model.released.replace("-", "") or 0)

    return [model.id for model in sorted(models.values(), key=rank)]


def _model_labeller() -> Callable[[str], str]:
    """Return a label function for the model selectbox, bound to this run's catalog.

    Format functions must not look things up when called: AppTest calls them outside the run.
    """
    models = session_catalog().models
    labels = {ident: f"{m.name} · {billions(m.architecture.stats.total_params)}" for ident, m in models.items()}
    labels[CUSTOM] = tr("Custom size (slider below)")
    return lambda model_id: labels.get(model_id, model_id)


def _gpu_labeller() -> Callable[[str], str]:
    """Return a label function for the GPU selectbox, bound to this run's catalog."""
    # Short names: the parenthesised details are long and say what the catalog's Method page says.
    labels = {ident: f"{g.short_name} · {g.memory_bytes / 1e9:g} GB" for ident, g in session_catalog().gpus.items()}
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
    auto = tr("auto: {own}")  # looked up now: AppTest calls the label outside the run

    def label(link_id: str) -> str:
        return auto.format(own=own) if link_id == AUTO else links[link_id].name

    return label


_FAMILIES = {
    "plain": "",
    "weight_only": translatable("weight-only"),
    "experts": translatable("MoE experts"),
    "gguf": "llama.cpp GGUF",
}
"""What each family of weight formats is called beside a precision's id."""


def _precision_labeller() -> Callable[[str], str]:
    """Label each precision with its family and bits per weight ('q4_k_m · llama.cpp GGUF · 4.5 bits'), bound now."""
    labels = {}
    for precision in PRECISIONS:
        weight_format = FORMATS[precision]
        family = tr(_FAMILIES[weight_format.family]) if _FAMILIES[weight_format.family] else ""
        bits = tr("{bits} bits", bits=f"{weight_format.bits:.3g}")
        labels[precision] = " · ".join(part for part in (precision, family, bits) if part)
    return labels.__getitem__


def render_link_notice() -> None:
    """Say once, above the page, which of the link's settings were not used, and what was kept instead.

    One short box in the main area (not a stack in the sidebar): each dropped setting with its
    nearest valid value where one is close ("did you mean h100-sxm?").
    """
    messages = st.session_state.pop(_WARNINGS, [])
    if not messages:
        return
    head = tr(
        "Link: {message}",
        message=tr("{n} of its settings could not be used; the rest opened as linked.", n=f"{len(messages):,}"),
    )
    lines = "\n".join(f"- {escape_markdown(message)}" for message in messages)
    st.warning(f"{head}\n{lines}", icon=":material/link_off:")


def render_scenario_sidebar() -> None:
    """Draw the scenario controls in the sidebar (call once per run, before the page)."""
    state = st.session_state
    catalog = session_catalog()
    with st.sidebar:
        st.segmented_control(
            tr("Language"),
            tuple(LANGUAGES),
            default=held_value(LANGUAGE_KEY, tuple(LANGUAGES)),
            format_func=LANGUAGES.get,
            key=LANGUAGE_KEY,
            required=True,
            label_visibility="collapsed",
        )
        st.toggle(
            tr("Present"),
            value=held_value(PRESENT),
            key=PRESENT,
            help=tr("Presentation mode: larger chart text, one-line titles, the main chart on the first screen."),
        )
        st.segmented_control(
            tr("What do you want to do?"),
            GOAL_OPTIONS,
            default=held_value(GOAL, GOAL_OPTIONS),
            # Labels bound now: AppTest calls format functions after the run, outside its language.
            format_func={goal: tr(label) for goal, label in GOAL_LABELS.items()}.get,
            key=GOAL,
            required=True,
            help=tr("The Overview leads with this goal's verdict; the other mode follows below it."),
        )
        fetched = fetched_model()
        if isinstance(fetched, HfModel) and state.get(_HF_CHOSEN) != fetched.repo_id:
            state[MODEL] = fetched.model_id  # a new id selects its model, once: the picker stays the visitor's
            state[_HF_CHOSEN] = fetched.repo_id
        models = [*picker_order(catalog.models), CUSTOM]
        st.selectbox(
            tr("Model"),
            models,
            index=held_index(MODEL, models),
            format_func=_model_labeller(),
            key=MODEL,
            filter_mode="contains",  # typed text filters, the list keeps its order: newest first
        )
        st.text_input(
            tr("…or a Hugging Face model"),
            value=held_value(HF_KEY),
            key=HF_KEY,
            placeholder="Qwen/Qwen3-14B",
            help=tr(
                "An org/name id or its huggingface.co link: the app reads its config.json (HF_ENDPOINT and "
                "HF_TOKEN are honoured on the server). Offline or gated: paste the config.json on the Add page."
            ),
        )
        if isinstance(fetched, HfError):
            st.error(tr(fetched.template, **fetched.values), icon=":material/cloud_off:")
        if st.session_state[MODEL] == CUSTOM:
            st.select_slider(
                tr("Parameters"),
                PARAM_STEPS_B,
                value=held_value(PARAMS, PARAM_STEPS_B),
                format_func=format_params,
                key=PARAMS,
                persist_state="session",
                help=tr("A Llama-style dense model of this size (the engine derives its layers and width)."),
            )
        st.selectbox(
            tr("Precision"),
            PRECISIONS,
            index=held_index(PRECISION, PRECISIONS),
            format_func=_precision_labeller(),
            key=PRECISION,
            filter_mode="contains",  # typing "q4" lists llama.cpp's 4-bit files
            help=tr(
                "How the weights are stored: bf16/fp8 for training and serving; int8/int4, AWQ, GPTQ, NF4, "
                "MXFP4 and NVFP4 for serving; llama.cpp's GGUF files (q8_0 … q2_k) on a desk."
            ),
        )
        gpus = list(catalog.gpus)
        st.selectbox(
            "GPU",  # the same word in both languages
            gpus,
            index=held_index(GPU, gpus),
            format_func=_gpu_labeller(),
            key=GPU,
            on_change=_follow_machine,
            filter_mode="contains",  # typed text filters in catalog order: "H20" lists the H20 before the H200
        )
        st.select_slider(
            tr("Cards"),
            card_steps := steps_with(CARD_STEPS, st.session_state[CARDS]),
            value=held_value(CARDS, card_steps),
            format_func=lambda n: f"{n:,}",
            key=CARDS,
        )
        links = [AUTO, *catalog.interconnects]
        networks = [AUTO, *catalog.networks]
        st.selectbox(
            tr("Interconnect (inside a node)"),
            links,
            index=held_index(INTERCONNECT, links),
            format_func=_link_labeller("interconnects", st.session_state[GPU]),
            key=INTERCONNECT,
        )
        st.selectbox(
            tr("Network (between nodes)"),
            networks,
            index=held_index(NETWORK, networks),
            format_func=_link_labeller("networks", st.session_state[GPU]),
            key=NETWORK,
        )
        _render_stack(catalog)
        if st.session_state[GOAL] == "finetune":
            _render_finetune()
        render_prices()
        _render_host()


STACK = "stack"
TYPICAL_LABEL = translatable("Typical (not said)")


def _render_stack(catalog: Any) -> None:
    """The software that runs the model: the stacks that run on this GPU and do this goal.

    A stack held from before (a link, another GPU) stays listed so that nothing typed is lost; the
    engine then says plainly that it does not run there.
    """
    state = st.session_state
    options = list(stacks_for(catalog, state[GPU], state[GOAL]))
    if state[STACK] not in options and state[STACK] in catalog.stacks:
        options.append(state[STACK])
    # Labels made now, in the page's language (a widget's labels are read back after the run).
    names = {ident: catalog.stacks[ident].name if ident in catalog.stacks else ident for ident in options}
    typical = CONTROLS[STACK].default
    gpu = catalog.gpus[state[GPU]]
    implied = implied_stack(catalog, typical, state[PRECISION], gpu)
    names[typical] = (
        tr(TYPICAL_LABEL)
        if implied == typical
        # Short: the sidebar shows about 25 characters ("Typical (not said): JetStream (TP" was cut).
        else tr("Typical: {stack}", stack=catalog.stacks[implied].name)
    )
    st.selectbox(
        tr("Software"),
        options,
        index=held_index(STACK, options),
        format_func=names.get,
        key=STACK,
        help=tr(
            "What runs the model. Typical: the engine as calibrated over every published run, for when you do "
            "not say. A named stack applies what it documents (CUDA graphs or not, its kernels for quantised "
            "formats, how it splits a model over cards: llama.cpp by layers, vLLM by tensors) with constants "
            "fitted over all of its published runs. The list holds what runs on this GPU's platform."
        ),
    )


_OFFLOAD_LABELS = {
    "auto": translatable("auto: only what the cards cannot hold"),
    "none": translatable("none"),
    "layers": translatable("whole layers (llama.cpp -ngl)"),
    "experts": translatable("a MoE's experts (llama.cpp --n-cpu-moe)"),
}


def _render_host() -> None:
    """Host memory serving may offload to, folded: a desk's question, rarer in a data centre."""
    state = st.session_state
    with st.expander(tr("Host memory and offload"), expanded=bool(state["host"])):
        st.number_input(
            tr("Host RAM (GB, 0: none)"),
            *bounds("host"),
            held_value("host"),
            step=16.0,
            key="host",
            help=tr(
                "The machine's RAM for what the cards cannot hold: llama.cpp runs those layers on the CPU. "
                "Apple silicon and other unified-memory chips compute from it directly: nothing to offload."
            ),
        )
        st.number_input(
            tr("Its bandwidth (GB/s, 0: typical)"),
            *bounds("host_bw"),
            held_value("host_bw"),
            step=10.0,
            key="host_bw",
            help=tr("Two channels of DDR5-5600 read 89.6 GB/s; a 12-channel DDR5-4800 server socket 461 GB/s."),
        )
        st.selectbox(
            tr("Offload"),
            OFFLOAD_MODES,
            index=held_index("offload", OFFLOAD_MODES),
            format_func={mode: tr(label) for mode, label in _OFFLOAD_LABELS.items()}.get,
            key="offload",
        )


def _render_finetune() -> None:
    # One control a row: beside the rank, the method's label was cut ("QLoRA (4-bit b…").
    st.selectbox(
        tr("Fine-tuning method"),
        FINETUNE_OPTIONS,
        index=held_index("finetune", FINETUNE_OPTIONS),
        format_func={method: tr(label) for method, label in FINETUNE_LABELS.items()}.get,
        key="finetune",
        help=tr(
            "LoRA trains low-rank adapters on a frozen 16-bit base; QLoRA on a 4-bit base; Full trains every weight."
        ),
    )
    st.number_input(
        tr("LoRA rank"),
        *int_bounds("rank"),
        held_value("rank"),
        key="rank",
        disabled=st.session_state["finetune"] == "full",
    )


def training_settings(state: Any) -> dict[str, Any]:
    """Map the VRAM page's training knobs onto Scenario fields ('auto' becomes None: the engine chooses).

    They are part of every page's scenario, so every page gives the same verdict for it.
    """

    def chosen(key: str) -> str | None:
        return None if state[key] == AUTO else str(state[key])

    zero, tp, micro = chosen("zero"), chosen("tp"), chosen("micro")
    # A degree wider than the cards (chosen before the cards were lowered) is left to the engine;
    # the VRAM page offers only the degrees the cards hold and says when it set one aside.
    wide = tp is not None and int(tp) > state[CARDS]
    return {
        "zero": None if zero is None else int(zero),
        "tp": None if tp is None or wide else int(tp),
        "recompute": chosen("recompute"),
        "micro_batch": None if micro is None else int(micro),
        "kv_precision": chosen("kv"),
        # The default length leaves the engine's own (4,096, or the model's context if shorter).
        "seq_len": None if state["seq"] == CONTROLS["seq"].default else int(state["seq"]),
    }


def current_goal() -> str:
    """Return the goal the sidebar names: 'serve', 'finetune' or 'pretrain'."""
    return str(st.session_state[GOAL])


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
        "host_memory_gb": state["host"] or None,  # 0: no host memory counted
        "host_bandwidth_gb_s": state["host_bw"] or None,  # 0: the engine's typical host
        "offload": state["offload"],
        "stack": state[STACK],
        "price_per_gpu_hour": current_price(state[GPU]).usd_per_gpu_hour,
        **training_settings(state),
    }
    settings.update(page_settings)
    return Scenario(**settings)
