import streamlit as st

from app_pages.costs import rows
from app_pages.costs.charts import cost_over_time_chart, scaling_time_chart, step_share_chart
from model.analyses.economics import cost_over_time
from model.analyses.scaling import OWN_LINKS, card_counts, link_variants, scaling_with_cards
from ui.catalog import session_catalog
from ui.charts import show_chart
from ui.controls import AUTO, bounds, int_bounds, steps_with
from ui.format import NOT_RUN
from ui.i18n import tr
from ui.page import estimate_or_stop
from ui.remount import held_index, held_value
from ui.sidebar import current_goal, current_scenario

catalog = session_catalog()
state = st.session_state
scenario = current_scenario()
result = estimate_or_stop(scenario)  # shows a bad scenario plainly, then stops
st.title(tr("Training vs serving cost: {model}", model=result.inputs["model_name"]))
params = result.resolved.arch.stats.total_params
gpu_name = result.resolved.gpu.short_name
goal = current_goal()

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
api_choices = [AUTO, *(price.id for price in catalog.prices)]
c3.selectbox(
    tr("API price to compare"),
    api_choices,
    index=held_index("api", api_choices),
    format_func=rows.api_labeller(catalog, scenario.model, params),
    key="api",
    persist_state="session",
    help=tr("List prices per million tokens on the date shown. Auto: an API serving this model, else GPT-4o."),
)
api = rows.chosen_api_price(catalog, state["api"], scenario.model, params)
c3.caption(rows.api_terms(api))
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

costs = cost_over_time(scenario, catalog, state["traffic"], state["months"], api)
for note in costs.notes:
    st.warning(rows.sentence(tr(note.template, **note.fields)), icon=":material/info:")

# Durations ("19.3 个月") need more room than compact dollar figures ("$84k") at a projector's 1280 px.
m1, m2, m3, m4, m5 = st.columns([0.9, 1.1, 1.0, 1.1, 0.9])
m1.metric(
    tr("Training"),
    rows.money(costs.training_usd),
    border=True,
    height="stretch",
    help=rows.training_help(costs, scenario.cards),
)
m2.metric(
    tr("Training time"),
    rows.short_duration(costs.training_time_s) if costs.training_fits else NOT_RUN,
    border=True,
    height="stretch",
    help=tr("Wall time with interruptions.") if costs.training_fits else rows.training_help(costs, scenario.cards),
)
m3.metric(
    tr("Serving / month"),
    rows.money(costs.serving_usd_per_month),
    rows.serving_delta(costs),
    delta_color="off",
    delta_arrow="off",
    border=True,
    height="stretch",
    help=rows.serving_help(costs, gpu_name),
)
m4.metric(tr("Break-even"), rows.break_even_text(costs), border=True, height="stretch", help=tr(rows.BREAK_EVEN_HELP))
m5.metric(
    tr("API / month"), rows.money(costs.api_usd_per_month), border=True, height="stretch", help=rows.api_help(costs)
)
st.markdown(rows.cost_takeaway(costs, gpu_name, serving_only=goal == "serve"))
show_chart(cost_over_time_chart, lines=rows.cost_rows(costs), marks=rows.cost_marks(costs))

st.subheader(tr("Training as the card count grows"), divider="gray")
scaling = scaling_with_cards(scenario, catalog, card_counts(scenario, catalog), link_variants(scenario, catalog))
st.markdown(rows.scaling_takeaway(scaling, refused=costs.training_refused))
if scaling.rows:  # no empty axes when no card count trains
    left, right = st.columns(2)
    with left:
        st.markdown(tr("**Training time**, and what slower links cost"))
        show_chart(scaling_time_chart, rows=rows.scaling_rows(scaling))
    with right:
        st.markdown(tr("**What a step is made of** (scenario's links)"))
        show_chart(step_share_chart, rows=rows.step_share_rows(scaling, OWN_LINKS))
st.caption(
    tr(
        "Communication the engine overlaps with compute is hidden in the compute share; what shows is the part "
        "left exposed. Once a node is full, data-parallel traffic crosses the network."
    )
)
