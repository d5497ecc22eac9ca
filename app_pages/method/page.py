import streamlit as st

from app_pages.method.view import method_view
from ui.controls import METHOD_VIEWS
from ui.i18n import tr, translatable
from ui.remount import held_value
from ui.sidebar import current_scenario
from ui.tables import csv_button
from ui.view import view_or_stop

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
section = st.segmented_control(
    tr("Section"),
    METHOD_VIEWS,
    default=held_value("method_view", METHOD_VIEWS),
    format_func={name: f"{icon} {tr(label)}" for name, (icon, label) in _LABELS.items()}.get,
    key="method_view",
    required=True,
    persist_state="session",
)
view = view_or_stop(method_view, current_scenario(), section)  # shows a bad scenario plainly, then stops

for kind, content in view.blocks:
    if kind == "table":
        st.table(list(content), hide_index=True)
    elif kind == "caption":
        st.caption(content)
    else:
        st.markdown(content)
for title, content, opened in view.folded:
    with st.expander(title, expanded=opened):
        if isinstance(content, str):
            st.markdown(content)
        else:
            st.table(list(content), hide_index=True)
if view.csv is not None:
    label, file_name, key, rows = view.csv
    csv_button(label, lambda: list(rows), file_name, key=key)

st.info(view.accuracy, icon=":material/science:")
