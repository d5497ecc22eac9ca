import streamlit as st

from ui.catalog import USER_CATALOG_KEY, session_catalog
from ui.forms import (
    EXAMPLE_YAML,
    GPU_FIELDS,
    MODEL_FIELDS,
    add_document,
    added_rows,
    form_values,
    gpu_document,
    model_document,
    name_the_field,
    render_fields,
)
from ui.text import escape_markdown

RESULT = "_add_result"
UPLOAD = "add_upload"


def add_from_form(kind: str) -> None:
    """Build one row from the submitted form and keep it (runs before the next script run)."""
    fields, build = (GPU_FIELDS, gpu_document) if kind == "GPU" else (MODEL_FIELDS, model_document)
    values = form_values(fields, st.session_state, f"add_{kind.lower()}_")
    accepted, message = add_document(build(**values), f"the {kind} form")
    st.session_state[RESULT] = accepted, name_the_field(message, fields)


def add_from_upload() -> None:
    """Validate the uploaded YAML and keep its rows; a refused file changes nothing."""
    upload = st.session_state.get(UPLOAD)
    if upload is not None:
        st.session_state[RESULT] = add_document(upload.getvalue(), upload.name)


catalog = session_catalog()
st.title("Add a GPU or model")
st.markdown(
    "Rows you add are kept **for this visit**: they join the sidebar's GPU and Model lists and every page, "
    "and nothing else changes. A row with a bad field is refused with the field named."
)

gpu_tab, model_tab, upload_tab = st.tabs(["GPU", "Model", "Upload YAML"])
for tab, kind, fields, button in (
    (gpu_tab, "GPU", GPU_FIELDS, "Add this GPU"),
    (model_tab, "Model", MODEL_FIELDS, "Add this model"),
):
    with tab, st.form(f"add_{kind.lower()}_form"):
        render_fields(fields, f"add_{kind.lower()}_", catalog)
        st.form_submit_button(button, on_click=add_from_form, args=(kind,), type="primary")
with upload_tab:
    st.file_uploader(
        "A YAML file of gpus: and/or models: rows (the format below)",
        type=["yaml", "yml"],
        key=UPLOAD,
        on_change=add_from_upload,
    )

if RESULT in st.session_state:
    accepted, message = st.session_state.pop(RESULT)
    if accepted:
        st.success(f"Done: {escape_markdown(message)}. Pick it in the sidebar.", icon=":material/check_circle:")
    else:
        st.error(f"Not added: {escape_markdown(message)}", icon=":material/error:")

st.subheader("Added this visit", divider="gray")
rows = added_rows(catalog)
if rows:
    st.dataframe(rows, hide_index=True, column_config={"summary": "What it is"})
    st.download_button(
        "Download your rows (YAML) to upload next time",
        data=st.session_state[USER_CATALOG_KEY],
        file_name="my_catalog.yaml",
        mime="application/yaml",
        on_click="ignore",
        icon=":material/download:",
    )
else:
    st.caption("Nothing yet.")

with st.expander("Example YAML for an upload (several rows allowed)"):
    st.code(EXAMPLE_YAML, language="yaml")
