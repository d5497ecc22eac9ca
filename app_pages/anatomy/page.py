import streamlit as st

from app_pages.anatomy import rows
from app_pages.anatomy.charts import generations_chart, hierarchy_chart, links_chart
from model.analyses.anatomy import chip_summary, links, memory_hierarchy, read_times
from model.analyses.generations import generation_growth, generations
from ui.catalog import session_catalog
from ui.charts import show_chart
from ui.controls import ANATOMY_VIEWS
from ui.format import bytes_gb
from ui.i18n import tr, translatable
from ui.page import estimate_or_stop
from ui.remount import held_value
from ui.sidebar import current_scenario

catalog = session_catalog()
scenario = current_scenario()
result = estimate_or_stop(scenario)  # shows a bad scenario plainly, then stops
gpu = catalog.gpus[scenario.gpu]
chip_name = gpu.short_name
hierarchy = memory_hierarchy(gpu, catalog)
weights = result.inference.memory_per_gpu.weights
connections = links(result.resolved, catalog)
lineup = generations(catalog)

st.title(tr("Inside the {chip}", chip=chip_name))
st.markdown(rows.hierarchy_takeaway(hierarchy, chip_name))
metrics = rows.chip_metrics(chip_summary(gpu, scenario.precision))
for column, (label, value, help_text) in zip([*st.columns(3), *st.columns(3)], metrics, strict=True):
    column.metric(label, value, border=True, help=help_text)

_LABELS = {
    "hierarchy": translatable("Memory hierarchy"),
    "links": translatable("Links"),
    "generations": translatable("Generations: V100 → B200"),
}
view = st.segmented_control(
    tr("Section"),
    ANATOMY_VIEWS,
    default=held_value("anatomy_view", ANATOMY_VIEWS),
    format_func={key: tr(label) for key, label in _LABELS.items()}.get,  # bound now: AppTest calls it after the run
    key="anatomy_view",
    required=True,
    persist_state="session",
)
if view == "hierarchy":
    st.markdown(
        tr("**Capacity against bandwidth**, fastest level first: the seed's picture is a line falling to the right.")
    )
    show_chart(hierarchy_chart, points=rows.hierarchy_points(hierarchy))
    st.caption(
        tr(
            "{model} in {precision} keeps {weights} of weights on each card. "
            "Reading them once takes bytes ÷ bandwidth: the seeds' rule for the time of one generated token.",
            model=result.inputs["model_name"],
            precision=scenario.precision,
            weights=bytes_gb(weights),
        )
    )
    st.dataframe(rows.hierarchy_table(hierarchy, read_times(hierarchy, weights)), hide_index=True)
    for remark in hierarchy.remarks:
        st.caption(rows.worded(remark))
    with st.expander(tr("Where the bandwidth figures come from")):
        for line in rows.source_lines(hierarchy):
            st.markdown(line)
elif view == "links":
    st.markdown(rows.links_takeaway(connections))
    show_chart(links_chart, bars=rows.link_bars(connections))
    st.caption(tr("Per GPU and per direction, what a ring collective can use; vendors quote both directions added."))
    st.dataframe(rows.link_table(connections), hide_index=True)
else:
    st.markdown(rows.generations_takeaway(generation_growth(lineup)))
    show_chart(generations_chart, lines=rows.generation_lines(lineup), seed=rows.generation_seed_points(lineup))
    st.caption(
        tr(
            "Filled points: the catalog, one card per generation. Hollow diamonds: the seed article's table "
            "(it gives no bandwidth). The table adds A100 40GB and B100 and marks where the seed agrees (✓)."
        )
    )
    st.dataframe(rows.generation_table(lineup), hide_index=True)
    st.markdown(rows.seed_notes(lineup))
