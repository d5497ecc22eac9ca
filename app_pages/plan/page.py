import streamlit as st

from app_pages.plan import rows
from app_pages.plan.charts import plan_chart
from model import PRECISIONS, Scenario, ScenarioError, pareto_front, plan_serving, plan_training
from model.pricing import Owning
from model.units import format_count
from ui.catalog import USER_CATALOG_KEY, session_catalog
from ui.charts import show_chart
from ui.controls import PLAN_GOALS, TP_OPTIONS, TRAINING_FORMATS, bounds
from ui.i18n import tr
from ui.page import estimate_or_stop
from ui.remount import held_value
from ui.sidebar import current_goal, current_scenario
from ui.text import escape_markdown

LOADED = 5
"""Options offered as 'load into the sidebar' buttons."""

state = st.session_state
catalog = session_catalog()
scenario = current_scenario()
result = estimate_or_stop(scenario)  # shows a bad scenario plainly, then stops
model_name = result.inputs["model_name"]
st.title(
    tr("Plan: the cheapest way to serve {model}", model=model_name)
    if state["plan_goal"] == "serve"
    else tr("Plan: the cheapest way to train {model}", model=model_name)
)
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
    mode = tr("fine-tuning") if current_goal() == "finetune" else tr("pre-training")
    c3.markdown(
        tr(
            "On **{tokens} tokens** ({mode}; the Overview sets the count).",
            tokens=format_count(result.training.tokens),
            mode=mode,
        )
    )


@st.cache_data(max_entries=32, show_spinner=tr("Searching every GPU, card count and layout…"))
def planned(
    goal: str,
    base: dict,
    targets: tuple,
    formats: tuple,
    price: float | None,
    owning: tuple | None,
    rows_yaml: str | None,
) -> object:
    """The plan for these inputs (cached: a full plan runs hundreds of estimates)."""
    del rows_yaml  # part of the cache key: the visit's own rows change the catalog
    start = Scenario(**base)
    owned = Owning(*owning) if owning else None
    if goal == "serve":
        tps, tpot_s, ttft_s = rows.serving_targets(*targets)
        return plan_serving(
            start, tps, tpot_s=tpot_s, ttft_s=ttft_s,
            precisions=formats, price_per_gpu_hour=price, owning=owned, catalog=catalog,
        )  # fmt: skip
    days, budget = targets
    return plan_training(
        start, days=days, budget_usd=budget or None, precisions=formats,
        price_per_gpu_hour=price, owning=owned, catalog=catalog,
    )  # fmt: skip


typed_price = state["price"] if state["pricing"] == "rent" else None
owned = (state["years"], state["kwh"], state["pue"]) if state["pricing"] == "own" else None
targets = (state["plan_tps"], state["plan_tpot"], state["plan_ttft"]) if goal == "serve" else (
    state["plan_days"], state["plan_budget"])  # fmt: skip
try:
    plan = planned(goal, scenario.to_dict(), targets, weighed, typed_price, owned, state.get(USER_CATALOG_KEY))
except ScenarioError as error:
    st.error(tr("These targets cannot be planned: {error}", error=escape_markdown(str(error))), icon=":material/error:")
    st.stop()

st.markdown(rows.plan_takeaway(plan, catalog))
front = pareto_front(plan)
if plan.options:
    x_title = tr("Days to train (log)") if goal == "train" else tr("Time per output token, ms (log)")
    y_title = tr("Cost of the run (log)") if goal == "train" else tr("Cost per hour (log)")
    show_chart(
        plan_chart,
        points=rows.point_rows(plan, front, catalog),
        mine=rows.scenario_point(result, "train" if goal == "train" else "serve"),
        x_title=x_title,
        y_title=y_title,
    )
    st.dataframe(rows.option_rows(plan, catalog), hide_index=True, width="stretch")


def load(option_index: int) -> None:
    """Put a planned option into the sidebar's scenario (GPU, cards, precision, layout, batch)."""
    option = plan.options[option_index]
    state["gpu"], state["cards"], state["precision"] = option.gpu, option.cards, option.precision
    state["link"] = state["net"] = "auto"
    state["tp"] = str(option.layout["tp"]) if str(option.layout["tp"]) in TP_OPTIONS else "auto"
    if option.batch is not None:
        state["batch"] = option.batch
    state["goal"] = "serve" if goal == "serve" else ("finetune" if current_goal() == "finetune" else "pretrain")


if plan.options:
    st.markdown(tr("**Load an option into the sidebar** (every page then shows it):"))
    for column, index in zip(st.columns(min(LOADED, len(plan.options))), range(LOADED), strict=False):
        column.button(
            rows.load_label(plan.options[index], index),
            key=f"plan_load_{index}",
            on_click=load,
            args=(index,),
            help=rows.option_label(plan.options[index], catalog),
            width="stretch",
        )
if plan.excluded:
    with st.expander(tr("Why not these {n} GPUs", n=f"{len(plan.excluded):,}")):
        st.markdown(rows.excluded_lines(plan, catalog))
