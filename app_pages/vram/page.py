import streamlit as st

from app_pages.vram import rows as rows_vram
from app_pages.vram.charts import knob_memory_chart, load_memory_chart
from app_pages.vram.step_chart import step_parts_chart
from app_pages.vram.takeaways import inference_takeaway, training_takeaway
from model.analyses import fit
from model.analyses.verdict import goal_verdict
from ui import layout_rows as rows_layout
from ui.catalog import session_catalog
from ui.charts import show_chart
from ui.controls import feasible_tp_options
from ui.i18n import tr
from ui.layout_rows import option_labels
from ui.memory_chart import memory_breakdown_chart
from ui.memory_rows import capacity_row, memory_rows, serving_budget_row
from ui.notes import note_lines
from ui.page import estimate_or_stop, show_verdict
from ui.remount import held_value
from ui.sidebar import CARDS, current_goal, current_scenario

catalog = session_catalog()
title = st.empty()
verdict_box = st.container()  # the sidebar goal's verdict, the same sentence as the Overview's
left, right = st.columns([5, 3])
with left.container(border=True):
    st.markdown(f"**{tr('Training')}**")
    c1, c2 = st.columns(2)
    c1.segmented_control(
        tr("ZeRO stage"),
        rows_vram.OPTIONS["zero"],
        default=held_value("zero", rows_vram.OPTIONS["zero"]),
        format_func=option_labels(rows_vram.OPTIONS["zero"]).get,
        key="zero",
        required=True,
        persist_state="session",
    )
    c2.number_input(
        tr("Sequence length (tokens)"), 128, 1_000_000, held_value("seq"), step=1024, key="seq", persist_state="session"
    )
    # One control per row: at a projector's 1280 px the longer ones would be cut in half a box.
    for key, label in (
        ("recompute", tr("Recomputation")),
        ("tp", tr("Tensor parallel (training and serving)")),
        ("micro", tr("Micro-batch (sequences per card)")),
    ):
        options = feasible_tp_options(st.session_state[CARDS]) if key == "tp" else rows_vram.OPTIONS[key]
        if key == "tp" and st.session_state["tp"] not in options:
            wide = {"tp": st.session_state["tp"], "cards": f"{st.session_state[CARDS]:,}"}
            st.caption(tr("Tensor parallel {tp} needs {tp} cards; on {cards} the engine chooses.", **wide))
        st.segmented_control(
            label,
            options,
            default=held_value(key, options),
            format_func=option_labels(options).get,
            key=key,
            required=True,
            persist_state="session",
        )
with right.container(border=True):
    st.markdown(f"**{tr('Serving')}**")
    st.number_input(
        tr("Concurrent sequences per replica"), 1, 100_000, held_value("batch"), key="batch", persist_state="session"
    )
    c1, c2 = st.columns(2)
    c1.number_input(
        tr("Prompt tokens"), 1, 1_000_000, held_value("prompt"), step=256, key="prompt", persist_state="session"
    )
    c2.number_input(
        tr("Output tokens"), 1, 1_000_000, held_value("output"), step=256, key="output", persist_state="session"
    )

scenario = current_scenario(**rows_vram.vram_settings(st.session_state))
result = estimate_or_stop(scenario)  # shows a bad scenario plainly, then stops
gpu = catalog.gpus[scenario.gpu]
title.title(
    tr(
        "VRAM: {model} on {cards} × {gpu}",
        model=result.inputs["model_name"],
        cards=f"{scenario.cards:,}",
        gpu=gpu.short_name,
    )
)
goal = current_goal()
with verdict_box:
    show_verdict(goal_verdict(scenario, goal, catalog), gpu.short_name, scenario.precision)
micro, seq = fit.largest_training_micro_batch(scenario, catalog), fit.largest_training_seq_len(scenario, catalog)
batch = result.inference.max_batch  # the engine's one rule for the largest batch
context = fit.largest_inference_context(scenario, catalog, scenario.batch)
sweeps = [sweep(scenario, catalog) for sweep in (fit.zero_stage_sweep, fit.recompute_sweep, fit.tp_sweep)]

st.subheader(tr("Training"), divider="gray")
for column, metric in zip(st.columns(3), rows_vram.training_metrics(result, micro, seq), strict=True):
    column.metric(**metric, border=True)
st.markdown(training_takeaway(result, *sweeps))
st.markdown(tr("**How the cards split.** {choice}", choice=rows_layout.training_choice(result)))
step = rows_layout.step_rows(result)
if step:  # a step that cannot run has no time to chart
    show_chart(step_parts_chart, rows=step)
# Short headers, the long names in their help: ten columns fit a projector's 1280 px without scrolling.
st.dataframe(
    rows_layout.training_candidate_rows(result),
    hide_index=True,
    width="stretch",
    column_config={
        tr("Chunks per stage"): st.column_config.Column(tr("Chunks"), help=tr("Chunks per stage")),
        tr("Batch (sequences)"): st.column_config.Column(tr("Batch"), help=tr("Batch (sequences)")),
    },
)
st.subheader(tr("Serving"), divider="gray")
for column, metric in zip(st.columns(3), rows_vram.inference_metrics(result, context), strict=True):
    column.metric(**metric, border=True)
st.markdown(inference_takeaway(result, context))
st.markdown(f"**{rows_layout.serving_choice(result)}**")
st.dataframe(rows_layout.serving_candidate_rows(result), hide_index=True, width="stretch")
st.markdown(tr("**Memory per card**: training at your micro-batch and sequence, serving at your batch and context"))
show_chart(
    memory_breakdown_chart, parts=memory_rows(result), capacity=capacity_row(gpu), budget=serving_budget_row(gpu)
)
notes = note_lines(result)  # the engine's warnings, in the visit's language
if notes:
    with st.expander(tr("Notes from the engine")):
        st.markdown("\n".join(f"- {note}" for note in notes))

st.subheader(tr("What each knob does to training memory"), divider="gray")
for column, sweep in zip(st.columns(3), sweeps, strict=True):
    with column:
        title_text = tr(rows_vram.KNOB_TITLES[sweep.knob])
        show_chart(
            knob_memory_chart, parts=rows_vram.knob_rows(sweep), capacity=capacity_row(gpu), knob_title=title_text
        )
st.caption(
    tr(
        "Each chart changes one knob and holds the rest of your layout, marked '(now)'; colours as above. ZeRO "
        "shards optimizer states, then gradients, then weights over the data-parallel replicas; recomputation trades "
        "compute for activations; tensor parallelism splits weights and activations over a replica's cards."
    )
)

st.subheader(tr("Serving memory against context and batch"), divider="gray")
loads = [
    (fit.inference_context_sweep(scenario, catalog, scenario.batch, context), context, "tokens"),
    (fit.inference_batch_sweep(scenario, catalog, batch), batch, "sequences"),
]
for column, (points, largest, unit) in zip(st.columns(2), loads, strict=True):
    with column:
        show_chart(
            load_memory_chart,
            points=rows_vram.load_rows(points),
            capacity=serving_budget_row(gpu, short=True),  # serving fits within the server's budget
            limit=rows_vram.limit_row(largest, unit),
            x_title=tr(rows_vram.LOAD_AXES[unit]),
        )
st.caption(
    tr(
        "Left: {batch} sequences as their context grows; right: your context with more sequences. The KV cache grows "
        "in both; where the line crosses the red rule the server's budget is full (the green rule marks the largest "
        "fit).",
        batch=f"{scenario.batch:,}",
    )
)
