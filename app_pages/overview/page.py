import streamlit as st

from app_pages.overview.charts import token_time_chart
from app_pages.overview.view import Section, overview_view
from ui.charts import presenting, show_chart
from ui.controls import CONTROLS, format_tokens
from ui.i18n import tr
from ui.memory_chart import memory_breakdown_chart
from ui.page import page_title, show_verdict
from ui.sidebar import current_goal, current_scenario
from ui.text import escape_markdown
from ui.view import view_or_stop

view = view_or_stop(overview_view, current_scenario(), current_goal())  # shows a bad scenario plainly, then stops
page_title(view.title, view.tag)
if not presenting():  # the person at the front says it; the first screen keeps its chart
    st.caption(
        tr(
            "Whether a model fits your GPUs, how fast it runs and what it costs, for serving, fine-tuning or "
            "pre-training. Pick the goal, the model, the GPU and the cards on the left; every page follows."
        )
    )


def set_tokens(key: str) -> None:
    """Read the typed token count ('2T', '15e12', 'auto'); a bad one leaves the count as it was, with a message."""
    text = str(st.session_state[key]).strip()
    try:
        st.session_state["tokens"] = 0.0 if text.lower() in ("", "auto", tr("auto")) else CONTROLS["tokens"].parse(text)
    except ValueError as error:
        st.session_state["_tokens_error"] = tr(
            "Training tokens: {text} is not allowed ({error}, or auto)", text=repr(text[:40]), error=error
        )


def tokens_box(caption: str) -> None:
    """The tokens the training figures are for, and a box to type another count."""
    left, right = st.columns([3, 1], vertical_alignment="bottom")
    left.markdown(caption)
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


def section(shown: Section) -> None:
    """One mode's verdict and figures: coloured and boxed when it is the goal, plain when it follows."""
    st.subheader(shown.heading, divider="gray")
    show_verdict(shown.verdict, view.gpu_name, view.precision, shown.primary)
    for column, figure in zip(st.columns(4), shown.figures, strict=True):
        column.metric(
            figure.label, figure.value, figure.delta, delta_color=figure.delta_color, delta_arrow="off",
            border=shown.primary, help=figure.help,
        )  # fmt: skip
    if shown.caption and shown.mode == "train":
        tokens_box(shown.caption)
    elif shown.caption:
        st.caption(shown.caption)


goal_section, other_section = view.sections
section(goal_section)
if view.notes:
    with st.expander(tr("Notes on this estimate ({n})", n=f"{len(view.notes):,}")):
        for note in view.notes:
            st.markdown(f"- {escape_markdown(note)}")

left, right = st.columns([3, 2])
with left:
    st.markdown(view.memory_heading)
    show_chart(memory_breakdown_chart, parts=view.memory_parts, capacity=view.capacity, budget=view.budget)
    st.caption(view.limits)
with right:
    st.markdown(view.token_time_heading)
    if view.token_time_rows is not None:
        show_chart(token_time_chart, rows=view.token_time_rows)
    st.caption(view.token_time_caption)

section(other_section)
