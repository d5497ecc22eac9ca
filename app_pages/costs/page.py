import streamlit as st

from app_pages.costs import rows
from app_pages.costs.charts import cost_over_time_chart, scaling_time_chart, step_share_chart
from app_pages.costs.view import costs_scenario_view, costs_view
from ui.charts import show_chart
from ui.controls import bounds, int_bounds, steps_with
from ui.i18n import tr
from ui.page import page_title
from ui.remount import held_index, held_value
from ui.sidebar import current_goal, current_scenario
from ui.view import view_or_stop

state = st.session_state
scenario = current_scenario()
# Two steps (app_pages/costs/view.py): the API picker's labels need the model's size before the controls.
head = view_or_stop(costs_scenario_view, scenario)  # shows a bad scenario plainly, then stops
page_title(head.title, head.tag)

c1, c2, c3 = st.columns([3, 2, 5])
traffic_steps = steps_with(rows.TRAFFIC_STEPS, state["traffic"])
c1.select_slider(
    tr("Tokens served per day (output)"),
    traffic_steps,
    value=held_value("traffic", traffic_steps),
    # Labels bound now: AppTest calls format functions after the run, outside its language.
    format_func={step: rows.traffic_label(step) for step in traffic_steps}.get,
    key="traffic",
    persist_state="session",
    help=tr("Generated tokens per day; each comes with its share of prompt tokens (sidebar workload)."),
)
c2.slider(
    tr("Months"),
    *int_bounds("months"),
    value=held_value("months"),
    key="months",
    persist_state="session",
    help=tr("How far ahead to look."),
)
c3.selectbox(
    tr("API price to compare"),
    head.api_choices,
    index=held_index("api", head.api_choices),
    format_func=dict(head.api_labels).get,  # bound now: AppTest calls it after the run
    key="api",
    persist_state="session",
    help=tr("List prices per million tokens on the date shown. Auto: an API serving this model, else GPT-4o."),
)
api_terms = c3.empty()  # the chosen API's prices: filled once the view has them
with st.expander(tr("Training tokens and serving utilisation")):
    t1, t2 = st.columns(2)
    token_steps = steps_with(rows.TOKEN_STEPS, state["tokens"])
    t1.select_slider(
        tr("Training tokens"),
        token_steps,
        value=held_value("tokens", token_steps),
        format_func={step: rows.tokens_label(step) for step in token_steps}.get,
        key="tokens",
        persist_state="session",
        help=tr("Auto: 20 per parameter (Chinchilla)."),
    )
    t2.slider(
        tr("Utilisation of the serving cards"),
        *bounds("util"),
        value=held_value("util"),
        step=0.01,
        format="percent",
        key="util",
        persist_state="session",
        help=tr("The share of each hour the serving cards do useful work."),
    )

view = view_or_stop(costs_view, scenario, current_goal(), state["traffic"], state["months"], state["api"])
api_terms.caption(view.api_terms)
for note in view.notes:
    st.warning(note, icon=":material/info:")

# Durations ("19.3 个月") need more room than compact dollar figures ("$84k") at a projector's 1280 px.
for column, metric in zip(st.columns([0.9, 1.1, 1.0, 1.1, 0.9]), view.metrics, strict=True):
    column.metric(**metric, delta_color="off", delta_arrow="off", border=True, height="stretch")
st.markdown(view.takeaway)
show_chart(cost_over_time_chart, lines=view.lines, marks=view.marks)

st.subheader(tr("Training as the card count grows"), divider="gray")
st.markdown(head.scaling_takeaway)
if head.scaling_charted:  # no empty axes when no card count trains
    left, right = st.columns(2)
    with left:
        st.markdown(tr("**Training time**, and what slower links cost"))
        show_chart(scaling_time_chart, rows=head.scaling_rows)
    with right:
        st.markdown(tr("**What a step is made of** (scenario's links)"))
        show_chart(step_share_chart, rows=head.step_share_rows)
st.caption(
    tr(
        "Communication the engine overlaps with compute is hidden in the compute share; what shows is the part "
        "left exposed. Once a node is full, data-parallel traffic crosses the network."
    )
)
