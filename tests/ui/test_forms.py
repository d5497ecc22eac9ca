"""The add-a-GPU/model forms write catalog YAML the validator accepts, and bad values name the field."""

import pytest

from model import CatalogError, default_catalog, parse_user_catalog
from ui.catalog import USER_CATALOG_KEY
from ui.forms import (
    EXAMPLE_YAML,
    GPU_FIELDS,
    MODEL_FIELDS,
    add_document,
    added_rows,
    builtin_clash,
    form_values,
    gpu_document,
    model_document,
    name_the_field,
)

GPU = {
    "gpu_id": "my-gpu",
    "name": "My GPU 96GB",
    "memory_gb": 96.0,
    "memory_bandwidth_gb_per_s": 4000.0,
    "bf16_tflops": 900.0,
    "scale_up": "nvlink4",
    "gpus_per_node": 8,
    "network": "ib-ndr",
}
MODEL = {
    "model_id": "my-model",
    "name": "My model",
    "layers": 32,
    "hidden": 4096,
    "heads": 32,
    "ffn": 11008,
    "vocab": 32000,
}


def test_the_gpu_form_writes_a_row_the_validator_accepts_in_its_units():
    gpu = parse_user_catalog(gpu_document(**GPU, fp8_tflops=1800.0, usd_per_gpu_hour=2.5, tdp_w=700.0)).gpus["my-gpu"]
    assert gpu.memory_bytes == 96e9
    assert gpu.memory_bandwidth_bytes_per_s == 4000e9
    assert gpu.dense_flops_per_s == {"bf16": 900e12, "fp8": 1800e12}
    assert gpu.cloud_usd_per_gpu_hour == 2.5 and gpu.tdp_w == 700
    assert gpu.scale_up == "nvlink4" and gpu.network == "ib-ndr" and gpu.gpus_per_node == 8
    assert gpu.source and gpu.user_supplied


def test_optional_gpu_fields_left_empty_stay_unknown():
    gpu = parse_user_catalog(gpu_document(**GPU)).gpus["my-gpu"]
    assert gpu.cloud_usd_per_gpu_hour is None and gpu.tdp_w is None
    assert "fp8" not in gpu.dense_flops_per_s


def test_the_model_form_writes_a_dense_model_the_validator_accepts():
    arch = parse_user_catalog(model_document(**MODEL, max_context=8192)).models["my-model"].architecture
    assert (arch.layers, arch.hidden, arch.heads, arch.kv_heads) == (32, 4096, 32, 32)  # empty kv heads: MHA
    assert arch.max_context == 8192 and not arch.is_moe
    # The Llama 2 7B shape (Touvron et al. 2023, Table 1 / config.json) counts 6.74B parameters.
    assert 6.6e9 < arch.stats.total_params < 6.8e9
    grouped = parse_user_catalog(model_document(**MODEL, kv_heads=8.0)).models["my-model"].architecture
    assert grouped.kv_heads == 8 and grouped.stats.total_params < arch.stats.total_params


def test_the_model_form_writes_a_mixture_of_experts():
    model = parse_user_catalog(model_document(**MODEL, experts=8.0, active_experts=2.0)).models["my-model"]
    assert model.architecture.experts == 8 and model.architecture.active_experts == 2
    assert model.architecture.stats.active_params < model.architecture.stats.total_params


def test_whole_numbers_typed_as_floats_are_written_as_counts():
    text = model_document(**{**MODEL, "layers": 32.0, "hidden": 4096.0})
    assert "layers: 32\n" in text
    parse_user_catalog(text)


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"memory_gb": -5.0}, "memory_gb"),
        ({"memory_gb": None}, "memory_gb"),
        ({"gpu_id": "  "}, "id"),
        ({"gpu_id": "bad id!"}, "id"),
        ({"bf16_tflops": 0.0}, "dense_tflops.bf16"),
        ({"gpus_per_node": 0}, "gpus_per_node"),
    ],
)
def test_a_bad_gpu_value_is_refused_naming_the_field(change, field):
    with pytest.raises(CatalogError, match=f"field '{field}'"):
        parse_user_catalog(gpu_document(**{**GPU, **change}), "the GPU form")


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"layers": 2.5}, "layers"),
        ({"heads": None}, "heads"),
        ({"kv_heads": 5}, "kv_heads"),
        ({"experts": 4, "active_experts": 6}, "active_experts"),
    ],
)
def test_a_bad_model_value_is_refused_naming_the_field(change, field):
    with pytest.raises(CatalogError, match=f"field '{field}'"):
        parse_user_catalog(model_document(**{**MODEL, **change}), "the model form")


def test_a_validator_message_gets_the_forms_label():
    message = "the GPU form, row 'x', field 'dense_tflops.bf16': must be greater than 0"
    assert name_the_field(message, GPU_FIELDS).endswith("(the “Dense bf16 (TFLOPS)” box)")
    assert "“Id”" in name_the_field("row 1, field 'id': is required", MODEL_FIELDS)
    assert name_the_field("not valid YAML at line 2", GPU_FIELDS) == "not valid YAML at line 2"


def test_every_form_field_is_an_argument_of_its_document_builder():
    gpu_document(**form_values(GPU_FIELDS, {}, "x_"))  # all fields empty: builds, the validator complains
    model_document(**form_values(MODEL_FIELDS, {}, "x_"))
    assert form_values(GPU_FIELDS, {"x_memory_gb": 80.0}, "x_")["memory_gb"] == 80.0


def test_the_example_yaml_is_accepted_with_several_rows():
    extra = parse_user_catalog(EXAMPLE_YAML, "example.yaml")
    assert len(extra.gpus) == 1 and len(extra.models) == 1
    assert not builtin_clash(EXAMPLE_YAML)


def test_a_built_in_id_is_flagged_so_it_is_not_replaced():
    message = builtin_clash(gpu_document(**{**GPU, "gpu_id": "h100-sxm"}))
    assert message is not None and "field 'id'" in message and "h100-sxm" in message
    assert builtin_clash(model_document(**{**MODEL, "model_id": "llama-3.1-8b"})) is not None
    assert builtin_clash("gpus: [{id: a") is None  # broken YAML is left to the validator


def test_added_rows_list_only_what_the_user_added():
    catalog = default_catalog().merged(parse_user_catalog(gpu_document(**GPU)))
    catalog = catalog.merged(parse_user_catalog(model_document(**MODEL)))
    rows = added_rows(catalog)
    assert [(row["kind"], row["id"]) for row in rows] == [("GPU", "my-gpu"), ("Model", "my-model")]
    assert "96 GB" in rows[0]["summary"] and "32 layers" in rows[1]["summary"]
    assert added_rows(default_catalog()) == []


def _gpu_rows(count: int, first: int = 0) -> str:
    row = "  - {{id: g{i}, name: G {i}, memory_gb: 1, memory_bandwidth_gb_per_s: 1, dense_tflops: {{bf16: 1}}, "
    row += "source: s}}\n"
    return "gpus:\n" + "".join(row.format(i=i) for i in range(first, first + count))


def test_many_added_rows_are_named_in_a_short_message():
    # Issue 14's fuzzing: 500 rows were all named, a message of 3,500 characters.
    import streamlit as st

    st.session_state.clear()
    accepted, message = add_document(_gpu_rows(500), "mine.yaml")
    assert accepted and message == "added g0, g1, g2, g3, g4 and 495 more for this visit"


def test_an_upload_too_many_with_the_earlier_rows_is_refused_naming_the_upload():
    # Issue 14's fuzzing: the refusal named "your rows", not the file, and did not say the earlier rows counted.
    import streamlit as st

    st.session_state.clear()
    assert add_document(_gpu_rows(1), "first.yaml")[0]
    before = st.session_state[USER_CATALOG_KEY]
    accepted, message = add_document(_gpu_rows(500, first=1), "second.yaml")
    assert not accepted
    assert message == "second.yaml, with the rows added before, 'gpus': 501 rows is more than the 500 allowed"
    assert st.session_state[USER_CATALOG_KEY] == before


def test_a_huge_whole_number_in_a_form_is_quoted_briefly():
    # Issue 14's fuzzing: 1e20 typed in a box became a 21-digit integer, quoted at length in the refusal.
    with pytest.raises(CatalogError, match=r"field 'layers': must be a whole number from 1 to 2048, got 1e\+20$"):
        parse_user_catalog(model_document(**{**MODEL, "layers": 1e20}), "the model form")
    assert "layers: 32\n" in model_document(**{**MODEL, "layers": 32.0})
