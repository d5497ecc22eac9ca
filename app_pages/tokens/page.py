import streamlit as st

from app_pages.tokens.charts import step_breakdown_chart, total_throughput_chart, user_speed_chart
from app_pages.tokens.decode import (
    breakdown_rows,
    breakdown_takeaway,
    draft_labels,
    speculative_label,
    speculative_settings,
)
from app_pages.tokens.rows import (
    OUTPUT_STEPS,
    PROMPT_STEPS,
    TARGET_STEPS_MS,
    batch_options,
    chosen_rows,
    knee_rows,
    line_rows,
    point_rows,
    seconds_from_ms,
    target_label,
    target_rows,
    token_count_label,
)
from app_pages.tokens.sentences import (
    clamp_note,
    metric_rows,
    misfit_reason,
    replica_caption,
    replicas_text,
    throughput_takeaway,
)
from model.analyses.serving import batch_sweep, knee_batch, largest_batch_within_latency, sweep_replica
from model.analyses.verdict import goal_verdict
from ui.catalog import session_catalog
from ui.charts import show_chart
from ui.controls import ACCEPTANCE_STEPS, DRAFT_OPTIONS, steps_with
from ui.i18n import tr
from ui.page import estimate_or_stop, show_verdict
from ui.remount import held_value
from ui.sidebar import current_scenario
from ui.verdict import verdict_reason

SWEEP = {"replica_for": "scenario"}
"""Sweep the replica estimate(scenario) chooses for the chosen batch: the page's figures are the estimate's."""
CLAMPED = "tokens_batch_clamped"
"""Session key: (the batch a link asked for, the largest that fits) while the page shows the latter."""

state = st.session_state
catalog = session_catalog()


def page_scenario():
    """The sidebar's scenario at the page's batch, with its speculative decoding."""
    return current_scenario(batch=state["batch"], **speculative_settings(state))


scenario = page_scenario()
result = estimate_or_stop(scenario)  # shows a bad scenario plainly, then stops
if 1 <= result.inference.max_batch < state["batch"]:
    # A link (or the VRAM page) asked for more than fits: show the largest that does, and say so.
    state[CLAMPED] = (state["batch"], result.inference.max_batch)
    state["batch"] = result.inference.max_batch
    scenario = page_scenario()
    result = estimate_or_stop(scenario)
clamped = state.get(CLAMPED)
if clamped and clamped[1] != state["batch"]:
    del state[CLAMPED]  # the visitor has moved the batch since
    clamped = None
serving = result.inference
points = batch_sweep(scenario, catalog, **SWEEP)
chosen = batch_sweep(scenario, catalog, [state["batch"]], **SWEEP)[0]
knee = knee_batch(scenario, catalog, **SWEEP)
fit = largest_batch_within_latency(scenario, catalog, seconds_from_ms(state["target"]), **SWEEP)
replica = sweep_replica(scenario, catalog, **SWEEP)
gpu = catalog.gpus[scenario.gpu]
verdict = goal_verdict(scenario, "serve", catalog)  # one sequence: can the model be served at all
if serving.fits:
    reason = ""
elif verdict.runs:
    reason = misfit_reason(serving, gpu.capacity_bytes)
else:
    reason = verdict_reason(verdict, gpu.short_name, scenario.precision)  # the Overview's words

st.title(
    tr("{model} on {cards} × {gpu}", model=result.inputs["model_name"], cards=f"{scenario.cards:,}", gpu=gpu.short_name)
)
if not verdict.runs:
    show_verdict(verdict, gpu.short_name, scenario.precision)
st.markdown(throughput_takeaway(fit, knee, state["target"], points[0], replica))

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
        batch_options(points, state["batch"], serving.max_batch),
        token_count_label,
        "batch",
        tr(
            "The batch the first row of figures describes: the ringed point on both charts. It stops at the largest "
            "batch that fits."
        ),
    ),
)
for column, (label, options, label_of, key, help_text) in zip(st.columns(4), controls, strict=True):
    if not options:  # nothing fits: no batch to choose (unbound: the session keeps the visitor's)
        column.select_slider(label, [tr("none fits")], disabled=True, help=help_text)
        continue
    column.select_slider(
        label, options, held_value(key, options), format_func=label_of, key=key, persist_state="session", help=help_text
    )
if clamped:
    st.info(clamp_note(*clamped), icon=":material/info:")
if serving.fits:
    st.caption(replica_caption(replica, chosen, scenario.cards))

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

for row in metric_rows(serving, chosen, knee, fit, state["target"], scenario.prompt_len, reason):
    for column, metric in zip(st.columns(4), row, strict=True):
        column.metric(**metric, border=True)

if serving.max_batch < 1:
    st.warning(tr("Nothing to chart: not even one sequence fits in a replica's memory."), icon=":material/block:")
else:
    rows = {"points": point_rows(points), "lines": line_rows(points), "knee": knee_rows(knee)}
    left, right = st.columns(2)
    with left:
        st.markdown(tr("**Output tokens/s over {replicas} against batch**", replicas=replicas_text(replica.replicas)))
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
