import streamlit as st

from app_pages.plan.charts import plan_chart
from app_pages.plan.view import plan_scenario_view, plan_view
from model import PRECISIONS
from ui.charts import show_chart
from ui.controls import PLAN_GOALS, TRAINING_FORMATS, bounds
from ui.i18n import tr
from ui.page import page_title
from ui.remount import held_value
from ui.sidebar import current_goal, current_scenario
from ui.view import view_or_stop

state = st.session_state
scenario = current_scenario()
finetune = current_goal() == "finetune"
# Two steps (app_pages/plan/view.py): the title and the training-token line come before the controls.
head = view_or_stop(plan_scenario_view, scenario, state["plan_goal"], finetune)  # a bad scenario stops here
page_title(head.title, head.tag)
st.caption(
    tr(
        "Every GPU in the catalog, each card count and the layout and batch the engine would choose; "
        "prices from the sidebar's rent or own setting (one typed price applies to every GPU)."
    )
)
st.segmented_control(
    tr("Plan for"),
    PLAN_GOALS,
    default=held_value("plan_goal", PLAN_GOALS),
    format_func={"serve": tr("Serving"), "train": tr("Training")}.get,
    key="plan_goal",
    required=True,
    persist_state="session",
)
goal = state["plan_goal"]
offered = list(PRECISIONS) if goal == "serve" else list(TRAINING_FORMATS)
st.multiselect(
    tr("Formats to weigh"),
    offered,
    default=[precision for precision in state["plan_prec"] if precision in offered],
    key="plan_prec",
    placeholder=tr("the sidebar's: {precision}", precision=scenario.precision),
    help=tr("The planner tries each format at every GPU and card count; none chosen: the sidebar's precision."),
)
weighed = tuple(precision for precision in state["plan_prec"] if precision in offered) or (scenario.precision,)
c1, c2, c3 = st.columns(3)
if goal == "serve":
    c1.number_input(
        tr("Output tokens per second, in total"),
        *bounds("plan_tps"),
        held_value("plan_tps"),
        key="plan_tps",
    )
    c2.number_input(tr("Time per output token (ms)"), *bounds("plan_tpot"), held_value("plan_tpot"), key="plan_tpot")
    c3.number_input(
        tr("Time to first token (ms, 0: none)"),
        *bounds("plan_ttft"),
        held_value("plan_ttft"),
        key="plan_ttft",
    )
else:
    c1.number_input(tr("Days to train"), *bounds("plan_days"), held_value("plan_days"), key="plan_days")
    c2.number_input(
        tr("Budget (USD, 0: none)"),
        *bounds("plan_budget"),
        held_value("plan_budget"),
        step=1e5,
        key="plan_budget",
    )
    c3.markdown(head.tokens_line)

typed_price = state["price"] if state["pricing"] == "rent" else None
owned = (state["years"], state["kwh"], state["pue"]) if state["pricing"] == "own" else None
targets = (state["plan_tps"], state["plan_tpot"], state["plan_ttft"]) if goal == "serve" else (
    state["plan_days"], state["plan_budget"])  # fmt: skip
with st.spinner(tr("Searching every GPU, card count and layout…")):  # shown only past half a second
    view = view_or_stop(plan_view, scenario, goal, targets, weighed, typed_price, owned, finetune)
if view.error:
    st.error(view.error, icon=":material/error:")
    st.stop()

st.markdown(view.takeaway)
if view.points:
    show_chart(plan_chart, points=view.points, mine=head.mine, x_title=view.x_title, y_title=view.y_title)
    st.dataframe(list(view.table), hide_index=True, width="stretch")


def load(settings: tuple[tuple[str, object], ...]) -> None:
    """Put a planned option into the sidebar's scenario (GPU, cards, precision, layout, batch, goal)."""
    for key, value in settings:
        state[key] = value


if view.loads:
    st.markdown(tr("**Load an option into the sidebar** (every page then shows it):"))
    for index, (column, option) in enumerate(zip(st.columns(len(view.loads)), view.loads, strict=True)):
        column.button(
            option.label,
            key=f"plan_load_{index}",
            on_click=load,
            args=(option.settings,),
            help=option.help,
            width="stretch",
        )
if view.excluded_title:
    with st.expander(view.excluded_title):
        st.markdown(view.excluded)
