import streamlit as st

from app_pages.overview.charts import token_time_chart
from app_pages.overview.rows import (
    also_heading,
    bound_text,
    full_load_help,
    full_load_shortfall,
    replica_label,
    seeds_rule,
    token_time_heading,
    token_time_notes,
    token_time_rows,
    tokens_caption,
)
from model.analyses.compare import cpu_versus_gpu, serving_pair
from model.analyses.verdict import goal_verdict
from model.layouts.serving import replica_name
from model.units import format_usd
from ui.catalog import session_catalog
from ui.charts import show_chart
from ui.controls import CONTROLS, format_tokens
from ui.format import NOT_RUN, bytes_gb, duration, milliseconds, percent, short_milliseconds
from ui.i18n import tr
from ui.layout_rows import training_layout_text
from ui.memory_chart import memory_breakdown_chart
from ui.memory_rows import capacity_row, memory_rows, regime_text, serving_budget_row
from ui.notes import FIT_NOTES, note_lines
from ui.page import estimate_or_stop
from ui.page import show_verdict as show_goal_verdict
from ui.sidebar import current_goal, current_scenario
from ui.text import escape_markdown, likely_text, range_text
from ui.verdict import GOAL_NOUNS, verdict_reason

catalog = session_catalog()
goal = current_goal()
scenario = current_scenario()
estimate_or_stop(scenario)  # shows a bad scenario plainly, then stops
one, full = serving_pair(scenario, catalog)
gpu = catalog.gpus[scenario.gpu]
training, single, loaded = one.training, one.inference, full.inference
training_goal = "pretrain" if goal == "serve" else goal
serving_verdict = goal_verdict(scenario, "serve", catalog)
training_verdict = goal_verdict(scenario, training_goal, catalog)
QUIET = {"delta_color": "off", "delta_arrow": "off"}
RANGE_NOTE = tr(" The likely range moves every efficiency together (Method page, Validation page).")
PRICE_SOURCE = tr("(sidebar: Price of a GPU-hour)")

st.title(
    tr("{model} on {cards} × {gpu}", model=one.inputs["model_name"], cards=f"{scenario.cards:,}", gpu=gpu.short_name)
)


def show_verdict(verdict, primary: bool) -> None:
    """Show a mode's verdict: coloured when it is the goal, a plain line when it follows."""
    show_goal_verdict(verdict, gpu.short_name, scenario.precision, primary)


def figure(column, label: str, runs: bool, reason: str, value: str, delta: str, help_text: str, border: bool) -> None:
    """One metric of a mode: its value, likely range and help when it runs; a dash and the reason when not."""
    column.metric(
        label,
        value if runs else NOT_RUN,
        (delta or None) if runs else None,
        **QUIET,
        border=border,
        help=help_text if runs else tr("Cannot run: {reason}.", reason=reason),
    )


def serving_section(primary: bool) -> None:
    """Serving's verdict and figures; a dash with the reason for each figure when it cannot run."""
    runs = serving_verdict.runs
    reason = verdict_reason(serving_verdict, gpu.short_name, scenario.precision)
    noun = tr(GOAL_NOUNS["serve"])
    st.subheader(noun if primary else also_heading(noun), divider="gray")
    show_verdict(serving_verdict, primary)
    c1, c2, c3, c4 = st.columns(4)
    figure(
        c1, tr("Per token, 1 user"), runs, reason, milliseconds(single.tpot_s),
        likely_text(one, "tpot_s", short_milliseconds),
        tr(
            "Time per output token (TPOT) with the efficiencies; the roofline at datasheet peaks (the seeds' rule) "
            "is {roofline}. Replica: {replica}.",
            roofline=short_milliseconds(single.tpot_roofline_s), replica=replica_name(single.tp, single.pp, single.ep),
        ) + RANGE_NOTE,
        primary,
    )  # fmt: skip
    figure(
        c2, tr("Tokens/s, 1 user"), runs, reason, f"{single.decode_tokens_per_s_per_user:,.0f}",
        likely_text(one, "decode_tokens_per_s_per_user", lambda v: f"{v:,.0f}"),
        tr(
            "Batch 1, {prompt}-token prompt; first token after {ttft} (range {range}). {bound}.",
            prompt=f"{scenario.prompt_len:,}", ttft=milliseconds(single.ttft_s, 0),
            range=range_text(one, "ttft_s", milliseconds), bound=bound_text(single.bound),
        ) + RANGE_NOTE,
        primary,
    )  # fmt: skip
    shortfall = full_load_shortfall(single, loaded)
    figure(
        c3, tr("Tokens/s, full load"), runs, reason, f"{loaded.decode_tokens_per_s:,.0f}",
        likely_text(full, "decode_tokens_per_s", lambda v: f"{v:,.0f}"),
        " ".join(filter(None, (full_load_help(loaded), shortfall))) + RANGE_NOTE,
        primary,
    )  # fmt: skip
    figure(
        c4, tr("$ per M output tokens"), runs, reason, format_usd(loaded.cost_per_million_output_tokens_usd),
        likely_text(full, "cost_per_million_output_tokens_usd", format_usd),
        tr(
            "Full load at {utilization} utilisation, {price} per GPU-hour {source}.",
            utilization=percent(scenario.utilization), price=f"${one.resolved.price_per_gpu_hour or 0:,.2f}",
            source=PRICE_SOURCE,
        ) + RANGE_NOTE,
        primary,
    )  # fmt: skip
    if runs and shortfall:
        st.caption(shortfall)


def set_tokens(key: str) -> None:
    """Read the typed token count ('2T', '15e12', 'auto'); a bad one leaves the count as it was, with a message."""
    text = str(st.session_state[key]).strip()
    try:
        st.session_state["tokens"] = 0.0 if text.lower() in ("", "auto", tr("auto")) else CONTROLS["tokens"].parse(text)
    except ValueError as error:
        st.session_state["_tokens_error"] = tr(
            "Training tokens: {text} is not allowed ({error}, or auto)", text=repr(text[:40]), error=error
        )


def training_section(primary: bool) -> None:
    """Pre-training's or fine-tuning's verdict and figures, with the token count they are for."""
    runs = training_verdict.runs
    reason = verdict_reason(training_verdict, gpu.short_name, scenario.precision)
    noun = tr(GOAL_NOUNS[training_goal])
    if training_goal == "finetune":
        noun = tr("{mode} ({regime})", mode=noun, regime=regime_text(training.regime))
    st.subheader(noun if primary else also_heading(noun), divider="gray")
    show_verdict(training_verdict, primary)
    c1, c2, c3, c4 = st.columns(4)
    c1.metric(
        tr("Memory per card"),
        bytes_gb(training.memory_per_gpu.total) if not training_verdict.refusal else NOT_RUN,
        tr("fits") if runs else (tr("refused") if training_verdict.refusal else tr("does not fit")),
        delta_color="normal" if runs else "inverse",
        delta_arrow="off",
        border=primary,
        help=tr(
            "Of {capacity} per card. Layout: {layout}.",
            capacity=bytes_gb(gpu.capacity_bytes),
            layout=training_layout_text(one),
        )
        if runs
        else tr("Cannot run: {reason}.", reason=reason),
    )
    figure(
        c2, tr("Training time"), runs, reason, duration(training.time_s), likely_text(one, "time_s", duration),
        tr("{tokens} tokens, wall time with interruptions.", tokens=f"{training.tokens:,.3g}") + RANGE_NOTE, primary,
    )  # fmt: skip
    figure(
        c3, tr("Training cost"), runs, reason, format_usd(training.cost_usd), likely_text(one, "cost_usd", format_usd),
        tr(
            "{gpu_hours} GPU-hours at {price} per GPU-hour {source}.",
            gpu_hours=f"{training.gpu_hours:,.0f}", price=f"${one.inputs['price_per_gpu_hour'] or 0:,.2f}",
            source=PRICE_SOURCE,
        ) + RANGE_NOTE,
        primary,
    )  # fmt: skip
    figure(
        c4, tr("Model FLOPs utilisation"), runs, reason, percent(training.mfu), likely_text(one, "mfu", percent),
        tr("{rate} tokens/s per card in steady-state steps.", rate=f"{training.tokens_per_s_per_gpu:,.0f}")
        + RANGE_NOTE,
        primary,
    )  # fmt: skip
    if runs:
        left, right = st.columns([3, 1], vertical_alignment="bottom")
        left.markdown(tokens_caption(one))
        key = f"_tokens_text_{st.session_state['tokens']}"  # a new box whenever the count changes elsewhere
        right.text_input(
            tr("Training tokens"),
            value=format_tokens(st.session_state["tokens"]) if st.session_state["tokens"] else tr("auto"),
            key=key,
            on_change=set_tokens,
            args=(key,),
            help=tr("Type 2T, 161B or 15e12; auto: 20 per parameter (pre-training) or 100M (fine-tuning)."),
        )
        error = st.session_state.pop("_tokens_error", None)
        if error:
            right.error(escape_markdown(error))


if goal == "serve":
    serving_section(primary=True)
else:
    training_section(primary=True)

notes = note_lines(one, leave_out=FIT_NOTES)  # the verdicts above say what does not fit
if notes:
    with st.expander(tr("Notes on this estimate ({n})", n=f"{len(notes):,}")):
        for note in notes:
            st.markdown(f"- {escape_markdown(note)}")

left, right = st.columns([3, 2])
with left:
    if goal == "serve" and not serving_verdict.runs:
        st.markdown(tr("**Memory per card**, serving one user"))
        parts = memory_rows(one, workloads=("inference",), inference_label=tr("1 user"))
    elif goal == "serve":
        sequences = tr("{n} sequences", n=f"{loaded.batch:,}")
        st.markdown(tr("**Memory per card**, serving one user and at full load ({sequences})", sequences=sequences))
        parts = memory_rows(one, workloads=("inference",), inference_label=tr("1 user")) + memory_rows(
            full, workloads=("inference",), inference_label=sequences
        )
    else:
        st.markdown(tr("**Memory per card**, training"))
        parts = memory_rows(one, workloads=("training",))
    # Serving fits within the server's budget (the one serving rule): draw it beside the card.
    budget = serving_budget_row(gpu) if goal == "serve" else None
    show_chart(memory_breakdown_chart, parts=parts, capacity=capacity_row(gpu), budget=budget)
with right:
    comparison = cpu_versus_gpu(scenario, catalog)
    cpu = catalog.gpus["cpu-server"]
    cards_here = replica_label(comparison.replica_cards, gpu.short_name)
    st.markdown(token_time_heading(comparison, cards_here))
    if comparison.gpu_fits:
        show_chart(token_time_chart, rows=token_time_rows(comparison, cards_here, tr("Server CPU")))
    token_notes = token_time_notes(comparison, gpu.short_name, cards_here, one.inputs["model_name"], cpu.memory_bytes)
    st.caption("\n\n".join([seeds_rule(cpu), *token_notes]))

if goal == "serve":
    training_section(primary=False)
else:
    serving_section(primary=False)
