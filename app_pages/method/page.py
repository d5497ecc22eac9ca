import streamlit as st

from app_pages.method.rows import (
    accuracy_text,
    assumption_rows,
    claim_rows,
    claims_by_topic,
    claims_takeaway,
    formulas_by_group,
    group_markdown,
    range_method_text,
    shared_rules,
    verdict_rule,
)
from model.explain import assumptions
from model.seeds import check_claims
from ui import layout_rows as rows_layout
from ui.catalog import session_catalog
from ui.controls import METHOD_VIEWS
from ui.i18n import tr, translatable
from ui.page import estimate_or_stop
from ui.remount import held_value
from ui.reports import shipped_report
from ui.sidebar import current_scenario
from ui.tables import csv_button

catalog = session_catalog()
scenario = current_scenario()
result = estimate_or_stop(scenario)  # shows a bad scenario plainly, then stops
gpu_name = result.resolved.gpu.short_name

st.title(tr("Method"))
st.markdown(
    tr(
        "How every number on these pages is made: the formulas and their sources, what this scenario assumes, "
        "and the seed articles' claims set beside what the engine computes."
    )
)
_LABELS = {
    "assumptions": (":material/tune:", translatable("Assumptions in force")),
    "rules": (":material/rule:", translatable("Shared rules")),
    "formulas": (":material/function:", translatable("Formulas")),
    "claims": (":material/fact_check:", translatable("Seed claims")),
}
view = st.segmented_control(
    tr("Section"),
    METHOD_VIEWS,
    default=held_value("method_view", METHOD_VIEWS),
    format_func={name: f"{icon} {tr(label)}" for name, (icon, label) in _LABELS.items()}.get,
    key="method_view",
    required=True,
    persist_state="session",
)

if view == "rules":
    st.markdown(shared_rules(result.resolved.gpu))
elif view == "formulas":
    st.caption(tr("Each formula as the engine computes it, with its source and the function that holds it."))
    for index, (group, formulas) in enumerate(formulas_by_group()):
        with st.expander(tr("{group} ({count})", group=tr(group), count=f"{len(formulas)}"), expanded=index == 0):
            st.markdown(group_markdown(formulas))
elif view == "assumptions":
    st.caption(
        tr(
            "What the estimate of {model} on {cards} × {gpu} uses. Change the sidebar and this table follows.",
            model=result.resolved.model_name,
            cards=f"{scenario.cards:,}",
            gpu=gpu_name,
        )
    )
    in_force = assumptions(scenario, catalog)
    st.table(assumption_rows(in_force), hide_index=True)
    st.markdown(
        tr(
            "**Layouts weighed.** {choice} The search walks tensor parallelism inside a node, pipeline stages, data "
            "and expert parallelism, ZeRO stage, recomputation (full recomputation of as few layers as the card "
            "needs), micro-batch and interleaved stages, and keeps what you fix.",
            choice=rows_layout.training_choice(result),
        )
    )
    st.table(rows_layout.training_candidate_rows(result), hide_index=True)
    st.markdown(rows_layout.serving_choice(result))
    st.table(rows_layout.serving_candidate_rows(result), hide_index=True)
    st.markdown(range_method_text(shipped_report()))
    st.table(assumption_rows(in_force, "range"), hide_index=True)
    with st.expander(tr("Efficiency factors (the expected set, the same for every scenario)")):
        st.table(assumption_rows(in_force, "efficiency"), hide_index=True)
    csv_button(
        tr("Assumptions (CSV)"),
        lambda: [
            *assumption_rows(in_force),
            *assumption_rows(in_force, "range"),
            *assumption_rows(in_force, "efficiency"),
        ],
        "assumptions.csv",
        key="assumptions_csv",
    )
else:
    checks = check_claims(catalog)
    st.markdown(claims_takeaway(checks))
    for topic, rows in claims_by_topic(checks):
        st.markdown(f"**{topic}**")
        st.table(rows, hide_index=True)
    st.caption(verdict_rule())
    csv_button(tr("Seed claims (CSV)"), lambda: claim_rows(checks), "seed-claims.csv", key="claims_csv")

st.info(accuracy_text(shipped_report()), icon=":material/science:")
