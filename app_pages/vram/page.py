import streamlit as st

from app_pages.vram import rows as rows_vram
from app_pages.vram.charts import knob_memory_chart, load_memory_chart
from app_pages.vram.step_chart import step_parts_chart
from app_pages.vram.view import vram_view
from model import auto_kv_precision
from ui.catalog import session_catalog
from ui.charts import presenting, show_chart
from ui.controls import AUTO, KV_OPTIONS, feasible_tp_options, int_bounds
from ui.i18n import tr
from ui.layout_rows import option_labels
from ui.memory_chart import memory_breakdown_chart
from ui.page import explained, page_title, settings_box, show_verdict
from ui.remount import held_index, held_value
from ui.sidebar import CARDS, GPU, PRECISION, STACK, current_goal, current_scenario
from ui.view import view_or_stop

head = st.container()  # the title and the sidebar goal's verdict, the same sentence as the Overview's
settings = settings_box(tr("Page settings: ZeRO, recomputation, tensor parallel, micro-batch, serving load"))
left, right = settings.columns([5, 3])
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
        tr("Sequence length (tokens)"),
        *int_bounds("seq"),
        held_value("seq"),
        step=1024,
        key="seq",
        persist_state="session",
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
        tr("Concurrent sequences per replica"),
        *int_bounds("batch"),
        held_value("batch"),
        key="batch",
        persist_state="session",
    )
    c1, c2 = st.columns(2)
    c1.number_input(
        tr("Prompt tokens"),
        *int_bounds("prompt"),
        held_value("prompt"),
        step=256,
        key="prompt",
        persist_state="session",
    )
    c2.number_input(
        tr("Output tokens"),
        *int_bounds("output"),
        held_value("output"),
        step=256,
        key="output",
        persist_state="session",
    )
    # What auto means for these weights under the chosen software (vLLM's auto is 16-bit even for FP8 weights).
    state = st.session_state
    engine_kv = auto_kv_precision(state[PRECISION], state.get(STACK) or "typical", state[GPU], session_catalog())
    st.selectbox(
        tr("KV cache format"),
        KV_OPTIONS,
        index=held_index("kv", KV_OPTIONS),
        format_func={**{kv: kv for kv in KV_OPTIONS}, AUTO: tr("auto ({kv})", kv=engine_kv)}.get,  # bound now
        key="kv",
        help=tr(
            "The format the server keeps each token's keys and values in (vLLM's --kv-cache-dtype, llama.cpp's "
            "-ctk/-ctv). Auto: the engine's default for these weights. Every page uses it."
        ),
    )

scenario = current_scenario(**rows_vram.vram_settings(st.session_state))
view = view_or_stop(vram_view, scenario, current_goal())  # shows a bad scenario plainly, then stops
with head:
    page_title(view.title, view.tag)
    show_verdict(view.verdict, view.gpu_name, view.precision)


def memory_chart() -> None:
    """The page's main chart: memory per card for training and serving, against the card and the budget."""
    st.markdown(tr("**Memory per card**: training at your micro-batch and sequence, serving at your batch and context"))
    show_chart(memory_breakdown_chart, parts=view.memory_parts, capacity=view.capacity, budget=view.budget)
    st.caption(view.limits)


if presenting():  # the main chart on the first screen
    memory_chart()
st.subheader(tr("Training"), divider="gray")
for column, metric in zip(st.columns(3), view.training_metrics, strict=True):
    column.metric(**metric, border=True)
explained(view.training_takeaway, tr("What takes the memory"))
explained(tr("**How the cards split.** {choice}", choice=view.training_choice), tr("How the cards split"))
if view.step_rows:  # a step that cannot run has no time to chart
    show_chart(step_parts_chart, rows=view.step_rows)
# Short headers, the long names in their help: ten columns fit a projector's 1280 px without scrolling.
st.dataframe(
    list(view.training_candidates),
    hide_index=True,
    width="stretch",
    column_config={
        tr("Chunks per stage"): st.column_config.Column(tr("Chunks"), help=tr("Chunks per stage")),
        tr("Batch (sequences)"): st.column_config.Column(tr("Batch"), help=tr("Batch (sequences)")),
    },
)
st.subheader(tr("Serving"), divider="gray")
for column, metric in zip(st.columns(3), view.inference_metrics, strict=True):
    column.metric(**metric, border=True)
explained(view.inference_takeaway, tr("How far serving can go"))
explained(f"**{view.serving_choice}**", tr("How the serving replica is chosen"))
st.dataframe(list(view.serving_candidates), hide_index=True, width="stretch")
if not presenting():
    memory_chart()
if view.notes:  # the engine's warnings, in the visit's language
    with st.expander(tr("Notes from the engine")):
        st.markdown("\n".join(f"- {note}" for note in view.notes))

st.subheader(tr("What each knob does to training memory"), divider="gray")
for column, knob in zip(st.columns(3), view.knob_charts, strict=True):
    with column:
        show_chart(knob_memory_chart, parts=knob.parts, capacity=view.capacity, knob_title=knob.title)
st.caption(
    tr(
        "Each chart changes one knob and holds the rest of your layout, marked '(now)'; colours as above. ZeRO "
        "shards optimizer states, then gradients, then weights over the data-parallel replicas; recomputation trades "
        "compute for activations; tensor parallelism splits weights and activations over a replica's cards."
    )
)

st.subheader(tr("Serving memory against context and batch"), divider="gray")
for column, load in zip(st.columns(2), view.load_charts, strict=True):
    with column:
        show_chart(
            load_memory_chart,
            points=load.points,
            capacity=view.short_budget,  # serving fits within the server's budget
            limit=load.limit,
            x_title=load.x_title,
        )
st.caption(
    tr(
        "Left: {batch} sequences as their context grows; right: your context with more sequences. The KV cache grows "
        "in both; where the line crosses the red rule the server's budget is full (the green rule marks the largest "
        "fit).",
        batch=f"{view.batch:,}",
    )
)
