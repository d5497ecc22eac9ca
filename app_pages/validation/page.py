import streamlit as st

from app_pages.validation.charts import error_chart, validation_chart
from app_pages.validation.rows import kind_label, table_columns
from app_pages.validation.view import validation_view
from ui.charts import show_chart
from ui.controls import VALIDATION_KINDS
from ui.i18n import tr
from ui.page import page_title
from ui.remount import held_value
from ui.sidebar import current_scenario
from ui.tables import csv_button
from ui.view import view_or_stop

kind = held_value("val_kind", VALIDATION_KINDS)  # the picker sits below; its value drives the table
view = view_or_stop(validation_view, current_scenario(), kind)  # shows a bad scenario plainly, then stops

page_title(tr("Validation: the engine against published runs"), tr("Validation"))
st.markdown(view.takeaway)
left, right = st.columns(2)
with left:
    st.markdown(tr("**Predicted against measured**, each point in its own unit"))
    show_chart(validation_chart, points=view.points, band=view.band)
with right:
    st.markdown(tr("**How far off**, by kind of measurement"))
    show_chart(error_chart, points=view.points)
    st.caption(
        tr(
            "Each point is one published run (training GPU-hours or days, tokens/s, MFU, peak memory) beside the "
            "engine's estimate of the same run, coloured by its kind (the rows above): hover for its source and the "
            "quoted row. The grey band is ±25 %; points beyond +100 % sit on the right edge. "
            "`python -m model validate` prints the same figures."
        )
    )

st.subheader(view.nearest_heading, divider="gray")
st.caption(
    tr(
        "The published runs most like the sidebar's scenario (model size, GPU, card count, precision), with the "
        "engine's error on each: how far to trust the figures on the other pages here."
    )
)
st.table(list(view.nearest), hide_index=True)

if view.generalisation:
    st.subheader(tr("How well it generalises"), divider="gray")
    st.table(list(view.generalisation), hide_index=True)
    st.caption(view.generalisation_note)

st.subheader(tr("Every measurement"), divider="gray")
st.segmented_control(
    tr("Show"),
    VALIDATION_KINDS,
    default=held_value("val_kind", VALIDATION_KINDS),
    format_func={kind: kind_label(kind) for kind in VALIDATION_KINDS}.get,
    key="val_kind",
    required=True,
    persist_state="session",
)
st.dataframe(list(view.table), column_config=table_columns(), hide_index=True, height=420, placeholder="")
csv_button(tr("Measurements (CSV)"), lambda: list(view.table), "validation.csv", key="validation_csv")
if view.unmapped:
    with st.expander(tr("Not scored ({count}), and why", count=f"{len(view.unmapped)}")):
        st.table(list(view.unmapped), hide_index=True)
