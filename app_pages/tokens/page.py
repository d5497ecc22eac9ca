import streamlit as st

from app_pages.tokens.charts import step_breakdown_chart, total_throughput_chart, user_speed_chart
from app_pages.tokens.decode import draft_labels, speculative_settings
from app_pages.tokens.rows import OUTPUT_STEPS, PROMPT_STEPS, TARGET_STEPS_MS, target_label, token_count_label
from app_pages.tokens.view import tokens_view
from ui.charts import show_chart
from ui.controls import ACCEPTANCE_STEPS, DRAFT_OPTIONS, int_bounds, steps_with
from ui.i18n import tr
from ui.page import explained, page_title, settings_box, show_verdict
from ui.remount import held_value
from ui.sidebar import current_scenario
from ui.view import view_or_stop

CLAMPED = "tokens_batch_clamped"
"""Session key: (the batch a link asked for, the largest that fits) while the page shows the latter."""

state = st.session_state
clamped = state.get(CLAMPED)
if clamped and clamped[1] != state["batch"]:
    del state[CLAMPED]  # the visitor has moved the batch since
    clamped = None
scenario = current_scenario(batch=state["batch"], **speculative_settings(state))
# Built before the controls: the batch slider stops at the engine's largest batch (app_pages/tokens/view.py).
view = view_or_stop(
    tokens_view, scenario, state["target"], clamped[0] if clamped else None, state["users"], state["job"]
)
if view.batch != state["batch"]:
    # With users the engine chose the batch; else a link (or the VRAM page) asked for more than fits: the
    # view shows the largest that does, and says so.
    if not state["users"]:
        state[CLAMPED] = (state["batch"], view.batch)
    state["batch"] = view.batch

page_title(view.title, view.tag)
if not view.verdict.runs:
    show_verdict(view.verdict, view.gpu_name, view.precision)
explained(view.takeaway, tr("What the charts say"))
settings = settings_box(tr("Page settings: prompt, output, latency target, batch, speculative decoding"))

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
        view.batch_options,
        token_count_label,
        "batch",
        tr(
            "The batch the first row of figures describes: the ringed point on both charts. It stops at the largest "
            "batch that fits."
        ),
    ),
)
for column, (label, options, label_of, key, help_text) in zip(settings.columns(4), controls, strict=True):
    if not options:  # nothing fits: no batch to choose (unbound: the session keeps the visitor's)
        column.select_slider(label, [tr("none fits")], disabled=True, help=help_text)
        continue
    column.select_slider(
        label,
        options,
        held_value(key, options),
        format_func=label_of,
        key=key,
        persist_state="session",
        help=help_text,
        disabled=key == "batch" and bool(state["users"]),  # the users set it
    )
users_column, job_column, _ = settings.columns([1, 1, 2])
users_column.number_input(
    tr("Users in flight (0: set the batch instead)"),
    *int_bounds("users"),
    held_value("users"),
    step=8,
    key="users",
    help=tr(
        "Requests in flight over every replica, as a load test's concurrency sets it. The engine runs the batch "
        "that fits on each replica and queues the rest, as vLLM and TGI do; the batch slider then follows it."
    ),
)
job_column.number_input(
    tr("Requests in a batch job (0: a steady load)"),
    *int_bounds("job"),
    held_value("job"),
    step=100,
    key="job",
    help=tr(
        "An offline job over a prompt set, every request offered at once: the server runs what fits and the "
        "rest wait for a slot, so the job runs in waves and its last, partial wave costs nearly a full one."
    ),
)
if view.users_note:
    st.info(view.users_note, icon=":material/group:")
if view.job_note:
    st.info(view.job_note, icon=":material/schedule:")
if view.clamp_note:
    settings.info(view.clamp_note, icon=":material/info:")
if view.replica_caption:
    settings.caption(view.replica_caption)

left, right = settings.columns([2, 3])
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
settings.caption(view.speculative)

for row in view.metrics:
    for column, metric in zip(st.columns(4), row, strict=True):
        column.metric(**metric, border=True)

if not view.charted:
    st.warning(tr("Nothing to chart: not even one sequence fits in a replica's memory."), icon=":material/block:")
else:
    rows = {"points": view.points, "lines": view.lines, "knee": view.knee, "chosen": view.chosen}
    left, right = st.columns(2)
    with left:
        st.markdown(view.throughput_title)
        show_chart(total_throughput_chart, **rows)
    with right:
        st.markdown(tr("**Speed each user sees against batch**"))
        show_chart(user_speed_chart, target=view.target, **rows)
    st.caption(
        tr(
            "Dashed: the roofline at datasheet peaks; dots: expected, coloured by what bounds the decode step. The "
            "total climbs while decode is memory-bound (one weight read serves every sequence); each user slows as "
            "it grows."
        )
    )
    st.subheader(tr("Where one decode step's time goes"), divider="gray")
    st.markdown(view.breakdown_takeaway)
    show_chart(step_breakdown_chart, rows=view.breakdown)
    st.caption(
        tr(
            "Each bar is one decode step at that batch. Weight reads and matrix products overlap (the larger is "
            "paid); the KV cache streams after them; the per-layer floor is the kernels' launches and minimum times; "
            "communication is the tensor-parallel all-reduces and pipeline transfers; drafting appears only with "
            "speculative decoding; scheduling is the server's host work for each running sequence, where its "
            "software does not hide it."
        )
    )
