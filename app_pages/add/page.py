import streamlit as st
import yaml

from model import CatalogError
from model.catalog.hf_config import model_row_from_hf_config, parse_hf_config
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
from ui.i18n import tr
from ui.text import escape_markdown

RESULT = "_add_result"
UPLOAD = "add_upload"
HF_TEXT, HF_FILE, HF_NAME = "add_hf_text", "add_hf_file", "add_hf_name"


def add_from_form(kind: str) -> None:
    """Build one row from the submitted form and keep it (runs before the next script run)."""
    fields, build = (GPU_FIELDS, gpu_document) if kind == "GPU" else (MODEL_FIELDS, model_document)
    values = form_values(fields, st.session_state, f"add_{kind.lower()}_")
    form = tr("the GPU form") if kind == "GPU" else tr("the Model form")
    accepted, message = add_document(build(**values), form)
    st.session_state[RESULT] = accepted, name_the_field(message, fields)


def add_from_upload() -> None:
    """Validate the uploaded YAML and keep its rows; a refused file changes nothing."""
    upload = st.session_state.get(UPLOAD)
    if upload is not None:
        st.session_state[RESULT] = add_document(upload.getvalue(), upload.name)


def add_from_hf_config() -> None:
    """Turn the pasted or uploaded config.json into a model row, checked like any upload."""
    upload = st.session_state.get(HF_FILE)
    text = upload.getvalue() if upload is not None else st.session_state.get(HF_TEXT, "")
    name = (st.session_state.get(HF_NAME) or "").strip() or "My model"
    try:
        row = model_row_from_hf_config(parse_hf_config(text or "", "config.json"), name)
    except CatalogError as error:
        st.session_state[RESULT] = False, str(error)
        return
    st.session_state[RESULT] = add_document(yaml.safe_dump({"models": [row]}, sort_keys=False), "config.json")


catalog = session_catalog()
st.title(tr("Add a GPU or model"))
st.markdown(
    tr(
        "Rows you add are kept **for this visit**: they join the sidebar's GPU and Model lists and every page, "
        "and nothing else changes. A row with a bad field is refused with the field named."
    )
)

gpu_tab, model_tab, hf_tab, upload_tab = st.tabs(["GPU", tr("Model"), "Hugging Face config.json", tr("Upload YAML")])
for tab, kind, fields, button in (
    (gpu_tab, "GPU", GPU_FIELDS, tr("Add this GPU")),
    (model_tab, "Model", MODEL_FIELDS, tr("Add this model")),
):
    with tab, st.form(f"add_{kind.lower()}_form"):
        render_fields(fields, f"add_{kind.lower()}_", catalog)
        st.form_submit_button(button, on_click=add_from_form, args=(kind,), type="primary")
with hf_tab:
    st.text_input(tr("Name"), key=HF_NAME, max_chars=80, placeholder=tr("e.g. My fine-tuned Llama"))
    st.text_area(
        tr("Paste config.json"),
        key=HF_TEXT,
        height=160,
        placeholder='{"model_type": "llama", "hidden_size": 4096, ...}',
    )
    st.file_uploader(tr("or upload it"), type=["json"], key=HF_FILE)
    st.button(tr("Add this model"), key="add_hf_button", on_click=add_from_hf_config, type="primary")
    st.caption(
        tr("Read here, never fetched: layers, width, heads, KV heads, MLP, vocabulary, context, experts and MLA.")
    )
with upload_tab:
    st.file_uploader(
        tr("A YAML file of gpus: and/or models: rows (the format below)"),
        type=["yaml", "yml"],
        key=UPLOAD,
        on_change=add_from_upload,
    )

if RESULT in st.session_state:
    accepted, message = st.session_state.pop(RESULT)
    if accepted:
        st.success(
            tr("Done: {message}. Pick it in the sidebar.", message=escape_markdown(message)),
            icon=":material/check_circle:",
        )
    else:
        st.error(tr("Not added: {message}", message=escape_markdown(message)), icon=":material/error:")

st.subheader(tr("Added this visit"), divider="gray")
rows = added_rows(catalog)
if rows:
    st.dataframe(rows, hide_index=True, column_config={tr("summary"): tr("What it is")})
    st.download_button(
        tr("Download your rows (YAML) to upload next time"),
        data=st.session_state[USER_CATALOG_KEY],
        file_name="my_catalog.yaml",
        mime="application/yaml",
        on_click="ignore",
        icon=":material/download:",
    )
else:
    st.caption(tr("Nothing yet."))

with st.expander(tr("Example YAML for an upload (several rows allowed)")):
    st.code(EXAMPLE_YAML, language="yaml")
