import streamlit as st

from app_pages.validation.charts import error_chart, validation_chart
from app_pages.validation.rows import (
    band_rows,
    kind_label,
    nearest_rows,
    point_rows,
    table_columns,
    table_rows,
    unmapped_rows,
    validation_takeaway,
)
from model.validation import error_band, nearest
from ui.catalog import session_catalog
from ui.charts import show_chart
from ui.controls import VALIDATION_KINDS
from ui.i18n import tr
from ui.page import estimate_or_stop
from ui.remount import held_value
from ui.reports import shipped_report
from ui.sidebar import current_scenario
from ui.tables import csv_button

scenario = current_scenario()
result = estimate_or_stop(scenario)  # shows a bad scenario plainly, then stops
report = shipped_report()

st.title(tr("Validation: the engine against published runs"))
st.markdown(validation_takeaway(report))
points = point_rows(report)
left, right = st.columns(2)
with left:
    st.markdown(tr("**Predicted against measured**, each point in its own unit"))
    show_chart(validation_chart, points=points, band=band_rows(error_band(report)))
with right:
    st.markdown(tr("**How far off**, by kind of measurement"))
    show_chart(error_chart, points=points)
    st.caption(
        tr(
            "Each point is one published run (training GPU-hours or days, tokens/s, MFU, peak memory) beside the "
            "engine's estimate of the same run: hover for its source and the quoted row. Points beyond +100 % sit "
            "on the right edge. `python -m model validate` prints the same figures."
        )
    )

gpu_name = result.resolved.gpu.short_name
st.subheader(
    tr(
        "Nearest to {model} on {cards} × {gpu}",
        model=result.resolved.model_name,
        cards=f"{scenario.cards:,}",
        gpu=gpu_name,
    ),
    divider="gray",
)
st.caption(
    tr(
        "The published runs most like the sidebar's scenario (model size, GPU, card count, precision), with the "
        "engine's error on each: how far to trust the figures on the other pages here."
    )
)
st.table(nearest_rows(nearest(report, scenario, session_catalog(), count=5)), hide_index=True)

st.subheader(tr("Every measurement"), divider="gray")
kind = st.segmented_control(
    tr("Show"),
    VALIDATION_KINDS,
    default=held_value("val_kind", VALIDATION_KINDS),
    format_func={kind: kind_label(kind) for kind in VALIDATION_KINDS}.get,
    key="val_kind",
    required=True,
    persist_state="session",
)
rows = table_rows(report, kind)
st.dataframe(rows, column_config=table_columns(), hide_index=True, height=420, placeholder="")
csv_button(tr("Measurements (CSV)"), lambda: rows, "validation.csv", key="validation_csv")
if report.unmapped:
    with st.expander(tr("Not scored ({count}), and why", count=f"{len(report.unmapped)}")):
        st.table(unmapped_rows(report), hide_index=True)
