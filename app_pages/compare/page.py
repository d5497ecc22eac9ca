import streamlit as st

from app_pages.compare.rows import FILTERS, gpu_table_columns
from app_pages.compare.view import compare_view
from ui.catalog import session_catalog
from ui.i18n import tr
from ui.page import page_title
from ui.remount import held_value
from ui.saved import render_save_form, render_saved
from ui.sidebar import current_scenario
from ui.tables import csv_button
from ui.view import view_or_stop

scenario = current_scenario()
view = view_or_stop(compare_view, scenario)  # shows a bad scenario plainly, then stops

page_title(view.title, view.tag)
st.markdown(view.takeaway)


@st.fragment
def gpu_table() -> None:
    """The sortable table of every GPU, its filter and its download (reruns alone)."""
    which = st.segmented_control(
        tr("Show"),
        FILTERS,
        format_func={name: tr(name) for name in FILTERS}.get,  # bound now: AppTest calls it after the run
        key="compare_filter",
        default=held_value("compare_filter", FILTERS, FILTERS[0]),
        required=True,
        persist_state="session",
    )
    rows = list(view.table(which))
    columns = gpu_table_columns(scenario.cards)
    st.dataframe(rows, column_config=columns, column_order=list(columns), hide_index=True, height=560, placeholder="")
    st.caption(view.caption)
    csv_button(tr("Download the table (CSV)"), lambda: rows, "gpu_comparison.csv", key="compare_csv")


gpu_table()

st.subheader(tr("Saved scenarios"), divider="gray")
st.caption(tr("Save the sidebar's scenario, change it, save again: up to four show side by side."))
catalog = session_catalog()
render_save_form(scenario, catalog)
render_saved(catalog)
