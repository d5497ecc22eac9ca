import streamlit as st

from app_pages.anatomy.charts import generations_chart, hierarchy_chart, links_chart
from app_pages.anatomy.view import anatomy_view
from ui.charts import show_chart
from ui.controls import ANATOMY_VIEWS
from ui.i18n import tr, translatable
from ui.remount import held_value
from ui.sidebar import current_scenario
from ui.view import view_or_stop

title, takeaway, figures = st.empty(), st.empty(), st.container()
_LABELS = {
    "hierarchy": translatable("Memory hierarchy"),
    "links": translatable("Links"),
    "generations": translatable("Generations: V100 → B200"),
}
section = st.segmented_control(
    tr("Section"),
    ANATOMY_VIEWS,
    default=held_value("anatomy_view", ANATOMY_VIEWS),
    format_func={key: tr(label) for key, label in _LABELS.items()}.get,  # bound now: AppTest calls it after the run
    key="anatomy_view",
    required=True,
    persist_state="session",
)
view = view_or_stop(anatomy_view, current_scenario(), section)  # shows a bad scenario plainly, then stops
title.title(view.title)
takeaway.markdown(view.takeaway)
with figures:
    for column, (label, value, help_text) in zip([*st.columns(3), *st.columns(3)], view.metrics, strict=True):
        column.metric(label, value, border=True, help=help_text)

if section == "hierarchy":
    st.markdown(
        tr("**Capacity against bandwidth**, fastest level first: the seed's picture is a line falling to the right.")
    )
    show_chart(hierarchy_chart, points=view.chart_rows)
    st.caption(view.caption)
    st.dataframe(list(view.table), hide_index=True)
    for remark in view.remarks:
        st.caption(remark)
    with st.expander(tr("Where the bandwidth figures come from")):
        for line in view.sources:
            st.markdown(line)
elif section == "links":
    st.markdown(view.section_takeaway)
    show_chart(links_chart, bars=view.chart_rows)
    st.caption(view.caption)
    st.dataframe(list(view.table), hide_index=True)
else:
    st.markdown(view.section_takeaway)
    show_chart(generations_chart, lines=view.chart_rows, seed=view.seed_rows)
    st.caption(view.caption)
    st.dataframe(list(view.table), hide_index=True)
    for remark in view.remarks:
        st.markdown(remark)
