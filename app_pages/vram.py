import streamlit as st

from model.analyses import fit
from model.analyses.verdict import goal_verdict
from ui.catalog import session_catalog
from ui.charts import show_chart
from ui.charts.layout import step_parts_chart
from ui.charts.memory import memory_breakdown_chart
from ui.charts.vram import knob_memory_chart, load_memory_chart
from ui.page import estimate_or_stop, show_verdict
from ui.remount import held_value
from ui.rows import layout as rows_layout
from ui.rows import vram as rows_vram
from ui.rows.memory import capacity_row, memory_rows
from ui.sidebar import current_goal, current_scenario

catalog = session_catalog()
title = st.empty()
verdict_box = st.container()  # the sidebar goal's verdict, the same sentence as the Overview's
left, right = st.columns([5, 3])
with left.container(border=True):
    st.markdown("**Training**")
    c1, c2 = st.columns(2)
    c1.segmented_control(
        "ZeRO stage",
        rows_vram.OPTIONS["zero"],
        default=held_value("zero", rows_vram.OPTIONS["zero"]),
        key="zero",
        required=True,
        persist_state="session",
    )
    c2.number_input(
        "Sequence length (tokens)", 128, 1_000_000, held_value("seq"), step=1024, key="seq", persist_state="session"
    )
    # One control per row: at a projector's 1280 px the longer ones would be cut in half a box.
    for key, label in (
        ("recompute", "Recomputation"),
        ("tp", "Tensor parallel (training and serving)"),
        ("micro", "Micro-batch (sequences per card)"),
    ):
        options = rows_vram.OPTIONS[key]
        st.segmented_control(
            label, options, default=held_value(key, options), key=key, required=True, persist_state="session"
        )
with right.container(border=True):
    st.markdown("**Serving**")
    st.number_input(
        "Concurrent sequences per replica", 1, 100_000, held_value("batch"), key="batch", persist_state="session"
    )
    c1, c2 = st.columns(2)
    c1.number_input(
        "Prompt tokens", 1, 1_000_000, held_value("prompt"), step=256, key="prompt", persist_state="session"
    )
    c2.number_input(
        "Output tokens", 1, 1_000_000, held_value("output"), step=256, key="output", persist_state="session"
    )

scenario = current_scenario(**rows_vram.vram_settings(st.session_state))
result = estimate_or_stop(scenario)  # shows a bad scenario plainly, then stops
gpu = catalog.gpus[scenario.gpu]
title.title(f"VRAM: {result.inputs['model_name']} on {scenario.cards:,} × {gpu.short_name}")
goal = current_goal()
with verdict_box:
    show_verdict(goal_verdict(scenario, goal, catalog), gpu.short_name, scenario.precision)
micro, seq = fit.largest_training_micro_batch(scenario, catalog), fit.largest_training_seq_len(scenario, catalog)
batch = fit.largest_inference_batch(scenario, catalog)
context = fit.largest_inference_context(scenario, catalog, scenario.batch)
sweeps = [sweep(scenario, catalog) for sweep in (fit.zero_stage_sweep, fit.recompute_sweep, fit.tp_sweep)]

st.subheader("Training", divider="gray")
for column, metric in zip(st.columns(3), rows_vram.training_metrics(result, micro, seq), strict=True):
    column.metric(**metric, border=True)
st.markdown(rows_vram.training_takeaway(result, *sweeps))
st.markdown(f"**How the cards split.** {rows_layout.training_choice(result)}")
show_chart(step_parts_chart, rows=rows_layout.step_rows(result))
st.dataframe(rows_layout.training_candidate_rows(result), hide_index=True, width="stretch")
st.subheader("Serving", divider="gray")
for column, metric in zip(st.columns(3), rows_vram.inference_metrics(result, batch, context), strict=True):
    column.metric(**metric, border=True)
st.markdown(rows_vram.inference_takeaway(result, batch, context))
st.markdown(f"**{rows_layout.serving_choice(result)}**")
st.dataframe(rows_layout.serving_candidate_rows(result), hide_index=True, width="stretch")
st.markdown("**Memory per card**: training at your micro-batch and sequence, serving at your batch and context")
show_chart(memory_breakdown_chart, parts=memory_rows(result), capacity=capacity_row(gpu))
if result.warnings:
    with st.expander("Notes from the engine"):
        st.markdown("\n".join(f"- {warning}" for warning in result.warnings))

st.subheader("What each knob does to training memory", divider="gray")
for column, sweep in zip(st.columns(3), sweeps, strict=True):
    with column:
        title_text = rows_vram.KNOB_TITLES[sweep.knob]
        show_chart(
            knob_memory_chart, parts=rows_vram.knob_rows(sweep), capacity=capacity_row(gpu), knob_title=title_text
        )
st.caption(
    "Each chart changes one knob and holds the rest of your layout, marked '(now)'; colours as above. ZeRO "
    "shards optimizer states, then gradients, then weights over the data-parallel replicas; recomputation trades "
    "compute for activations; tensor parallelism splits weights and activations over a replica's cards."
)

st.subheader("Serving memory against context and batch", divider="gray")
loads = [
    (fit.inference_context_sweep(scenario, catalog, scenario.batch, context), context, "tokens"),
    (fit.inference_batch_sweep(scenario, catalog, batch), batch, "sequences"),
]
for column, (points, largest, unit) in zip(st.columns(2), loads, strict=True):
    with column:
        show_chart(
            load_memory_chart,
            points=rows_vram.load_rows(points),
            capacity=capacity_row(gpu),
            limit=rows_vram.limit_row(largest, unit),
            x_title=rows_vram.LOAD_AXES[unit],
        )
st.caption(
    f"Left: {scenario.batch:,} sequences as their context grows; right: your context with more sequences. The KV "
    "cache grows in both; where the line crosses the red rule the card is full (the green rule marks the largest fit)."
)
