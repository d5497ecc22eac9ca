import streamlit as st

from app_pages.compare.rows import (
    FILTERS,
    cards_text,
    compare_caption,
    compare_takeaway,
    filter_comparisons,
    gpu_table_columns,
    gpu_table_rows,
)
from model.analyses.compare import compare_gpus
from ui.catalog import session_catalog
from ui.i18n import tr
from ui.page import estimate_or_stop
from ui.remount import held_value
from ui.saved import render_save_form, render_saved
from ui.sidebar import current_scenario
from ui.tables import csv_button

catalog = session_catalog()
scenario = current_scenario()
result = estimate_or_stop(scenario)  # shows a bad scenario plainly, then stops
comparisons = compare_gpus(scenario, catalog)

st.title(
    tr(
        "Every GPU for {model} · {precision} · {cards}",
        model=result.resolved.model_name,
        precision=scenario.precision,
        cards=cards_text(scenario.cards),
    )
)
st.markdown(compare_takeaway(comparisons, scenario.gpu, scenario.cards))


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
    rows = gpu_table_rows(filter_comparisons(comparisons, which), scenario.gpu)
    columns = gpu_table_columns(scenario.cards)
    st.dataframe(rows, column_config=columns, column_order=list(columns), hide_index=True, height=560, placeholder="")
    st.caption(compare_caption(scenario, result.training.tokens))
    csv_button(tr("Download the table (CSV)"), lambda: rows, "gpu_comparison.csv", key="compare_csv")


gpu_table()

st.subheader(tr("Saved scenarios"), divider="gray")
st.caption(tr("Save the sidebar's scenario, change it, save again: up to four show side by side."))
render_save_form(scenario, catalog)
render_saved(catalog)
