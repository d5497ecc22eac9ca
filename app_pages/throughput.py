import streamlit as st

from model.analyses.serving import batch_sweep, knee_batch, largest_batch_within_latency, sweep_replica
from ui.catalog import session_catalog
from ui.charts import show_chart
from ui.charts.throughput import step_breakdown_chart, total_throughput_chart, user_speed_chart
from ui.controls import ACCEPTANCE_STEPS, DRAFT_OPTIONS, steps_with
from ui.i18n import tr
from ui.page import estimate_or_stop
from ui.remount import held_value
from ui.rows.decode import breakdown_rows, breakdown_takeaway, draft_labels, speculative_label, speculative_settings
from ui.rows.throughput import (
    OUTPUT_STEPS,
    PROMPT_STEPS,
    TARGET_STEPS_MS,
    batch_options,
    chosen_rows,
    knee_rows,
    line_rows,
    metric_rows,
    point_rows,
    replica_caption,
    seconds_from_ms,
    target_label,
    target_rows,
    throughput_takeaway,
    token_count_label,
)
from ui.sidebar import current_scenario

state = st.session_state
catalog = session_catalog()
scenario = current_scenario(**speculative_settings(state))
result = estimate_or_stop(scenario)  # shows a bad scenario plainly, then stops
points = batch_sweep(scenario, catalog)
chosen = batch_sweep(scenario, catalog, [state["batch"]])[0]
knee = knee_batch(scenario, catalog)
fit = largest_batch_within_latency(scenario, catalog, seconds_from_ms(state["target"]))
gpu = catalog.gpus[scenario.gpu]

st.title(
    tr("{model} on {cards} × {gpu}", model=result.inputs["model_name"], cards=f"{scenario.cards:,}", gpu=gpu.short_name)
)
st.markdown(throughput_takeaway(fit, knee, state["target"], points[0]))

controls = (
    (tr("Prompt tokens"), steps_with(PROMPT_STEPS, state["prompt"]), token_count_label, "prompt", None),
    (tr("Output tokens"), steps_with(OUTPUT_STEPS, state["output"]), token_count_label, "output", None),
    (
        tr("Latency target (ms per token)"),
        steps_with(TARGET_STEPS_MS, state["target"]),
        target_label,
        "target",
        tr("The slowest time per output token a user accepts: the red line on the right chart."),
    ),
    (
        tr("Batch (sequences per replica)"),
        batch_options(points, state["batch"]),
        token_count_label,
        "batch",
        tr("The batch the first row of figures describes: the ringed point on both charts."),
    ),
)
for column, (label, options, label_of, key, help_text) in zip(st.columns(4), controls, strict=True):
    column.select_slider(
        label, options, held_value(key, options), format_func=label_of, key=key, persist_state="session", help=help_text
    )
st.caption(replica_caption(sweep_replica(scenario, catalog), chosen, scenario.cards))

left, right = st.columns([2, 3])
left.segmented_control(
    tr("Speculative decoding (tokens drafted per step)"),
    DRAFT_OPTIONS,
    default=held_value("draft", DRAFT_OPTIONS),
    format_func=draft_labels(DRAFT_OPTIONS).get,
    key="draft",
    required=True,
    persist_state="session",
    help=tr(
        "Off is a stock server. Drafts (DeepSeek-V3's multi-token prediction, or a draft model) are checked "
        "in one pass; each is kept with the acceptance rate on the right."
    ),
)
right.select_slider(
    tr("Draft acceptance"),
    steps_with(ACCEPTANCE_STEPS, state["accept"]),
    held_value("accept", steps_with(ACCEPTANCE_STEPS, state["accept"])),
    format_func=lambda rate: f"{rate:.0%}",
    key="accept",
    persist_state="session",
    disabled=state["draft"] == "off",
)
st.caption(speculative_label(scenario))

for row in metric_rows(chosen, knee, fit, state["target"], scenario.prompt_len):
    for column, metric in zip(st.columns(4), row, strict=True):
        column.metric(**metric, border=True)

if knee.largest_batch < 1:
    st.warning(tr("Nothing to chart: not even one sequence fits in a replica's memory."), icon=":material/block:")
else:
    rows = {"points": point_rows(points), "lines": line_rows(points), "knee": knee_rows(knee)}
    left, right = st.columns(2)
    with left:
        st.markdown(tr("**Total output tokens/s against batch**"))
        show_chart(total_throughput_chart, chosen=chosen_rows(chosen), **rows)
    with right:
        st.markdown(tr("**Speed each user sees against batch**"))
        show_chart(user_speed_chart, chosen=chosen_rows(chosen), target=target_rows(state["target"]), **rows)
    st.caption(
        tr(
            "Dashed: the roofline at datasheet peaks; dots: expected, coloured by what bounds the decode step. The "
            "total climbs while decode is memory-bound (one weight read serves every sequence); each user slows as "
            "it grows."
        )
    )
    st.subheader(tr("Where one decode step's time goes"), divider="gray")
    st.markdown(breakdown_takeaway(points))
    show_chart(step_breakdown_chart, rows=breakdown_rows(points))
    st.caption(
        tr(
            "Each bar is one decode step at that batch. Weight reads and matrix products overlap (the larger is "
            "paid); the KV cache streams after them; the per-layer floor is the kernels' launches and minimum times; "
            "communication is the tensor-parallel all-reduces and pipeline transfers; drafting appears only with "
            "speculative decoding."
        )
    )
