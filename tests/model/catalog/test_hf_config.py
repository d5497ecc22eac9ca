"""A pasted Hugging Face config.json becomes a model with the preset's parameter count."""

import json

import pytest
import yaml

from model import CatalogError, default_catalog, parse_user_catalog
from model.catalog.hf_config import MAX_CONFIG_BYTES, model_row_from_hf_config, parse_hf_config

CATALOG = default_catalog()
# Abridged from the published config.json files (the fields the engine reads, values as published).
CONFIGS = {
    "llama-3.1-8b": {
        "model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32,
        "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 128256, "rms_norm_eps": 1e-5,
        "tie_word_embeddings": False, "max_position_embeddings": 131072, "hidden_act": "silu",
    },
    "mixtral-8x7b": {
        "model_type": "mixtral", "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32,
        "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 32000, "rms_norm_eps": 1e-5,
        "tie_word_embeddings": False, "max_position_embeddings": 32768, "num_local_experts": 8,
        "num_experts_per_tok": 2, "sliding_window": None,
    },
    "deepseek-v3": {
        "model_type": "deepseek_v3", "hidden_size": 7168, "intermediate_size": 18432, "moe_intermediate_size": 2048,
        "num_hidden_layers": 61, "num_attention_heads": 128, "num_key_value_heads": 128, "vocab_size": 129280,
        "rms_norm_eps": 1e-6, "tie_word_embeddings": False, "max_position_embeddings": 163840,
        "n_routed_experts": 256, "n_shared_experts": 1, "num_experts_per_tok": 8, "first_k_dense_replace": 3,
        "q_lora_rank": 1536, "kv_lora_rank": 512, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128,
    },
}  # fmt: skip


@pytest.mark.parametrize("preset", list(CONFIGS))
def test_a_published_config_gives_the_presets_parameter_count(preset):
    row = model_row_from_hf_config(CONFIGS[preset], f"my {preset}")
    catalog = parse_user_catalog(yaml.safe_dump({"models": [row]}), "config.json")
    mine = next(iter(catalog.models.values())).architecture.stats
    theirs = CATALOG.models[preset].architecture.stats
    assert mine.total_params == pytest.approx(theirs.total_params, rel=0.01)
    assert mine.active_params == pytest.approx(theirs.active_params, rel=0.01)


def test_a_config_missing_a_needed_field_names_it():
    with pytest.raises(CatalogError, match="num_hidden_layers"):
        model_row_from_hf_config({"hidden_size": 4096, "num_attention_heads": 32, "vocab_size": 32000}, "broken")


@pytest.mark.parametrize("text", ["not json", "[1, 2]", "x" * (MAX_CONFIG_BYTES + 1), "[" * 20_000])
def test_text_that_is_not_a_config_object_is_refused_plainly(text):
    with pytest.raises(CatalogError, match=r"config\.json"):
        parse_hf_config(text)


def test_a_multimodal_wrapper_reads_its_language_model():
    wrapped = {"model_type": "llama4", "text_config": CONFIGS["llama-3.1-8b"]}
    assert model_row_from_hf_config(wrapped, "wrapped")["layers"] == 32
    assert parse_hf_config(json.dumps(wrapped))["model_type"] == "llama4"


@pytest.mark.parametrize(
    ("change", "key"),
    [
        # Issue 14's fuzzing: each of these raised a TypeError (a traceback on the Add page).
        ({"num_local_experts": "lots"}, "num_local_experts"),
        ({"num_local_experts": [8]}, "num_local_experts"),
        ({"num_attention_heads": {"a": 1}}, "num_attention_heads"),
        ({"hidden_size": {"a": 1}}, "hidden_size"),
        ({"head_dim": {"a": 1}}, "head_dim"),
        ({"num_hidden_layers": float("nan")}, "num_hidden_layers"),
        ({"num_hidden_layers": True}, "num_hidden_layers"),
        ({"num_key_value_heads": -8}, "num_key_value_heads"),
        ({"tie_word_embeddings": "false"}, "tie_word_embeddings"),  # was read as true
    ],
)
def test_a_config_number_of_the_wrong_type_is_refused_naming_its_key(change, key):
    with pytest.raises(CatalogError, match=rf"^config\.json: {key} must be "):
        model_row_from_hf_config({**CONFIGS["mixtral-8x7b"], **change}, "My\nmodel")


def test_a_refusal_names_the_file_not_the_typed_model_name():
    with pytest.raises(CatalogError, match=r"^config\.json: the config has no vocab_size$"):
        model_row_from_hf_config({"hidden_size": 64, "num_attention_heads": 4, "num_hidden_layers": 2}, "<b>x</b>\n")


def test_deep_nesting_is_refused_as_not_a_config():
    with pytest.raises(CatalogError, match="nested too deeply"):
        parse_hf_config('{"hidden_size": ' + "[" * 20_000 + "]" * 20_000 + "}")


def test_a_long_model_type_does_not_make_the_source_too_long():
    row = model_row_from_hf_config({**CONFIGS["llama-3.1-8b"], "model_type": "x" * 5000}, "mine")
    assert parse_user_catalog(yaml.safe_dump({"models": [row]}), "config.json").models["mine"]


@pytest.mark.parametrize(
    ("change", "what"),
    [
        ({"model_type": "mamba"}, "model_type mamba"),
        ({"model_type": "t5", "is_encoder_decoder": True}, "model_type t5"),
        ({"model_type": "qwen3_5_text", "layer_types": ["linear_attention", "full_attention"]}, "linear_attention"),
    ],
)
def test_a_model_that_is_not_a_decoder_only_transformer_is_refused_by_name(change, what):
    with pytest.raises(CatalogError, match=rf"^config\.json: .*{what}.* is not a decoder-only transformer"):
        model_row_from_hf_config({**CONFIGS["llama-3.1-8b"], **change}, "mine")


def test_a_qwen2_moe_shared_expert_counts_as_wide_as_it_is():
    # Qwen/Qwen2-57B-A14B's config.json; its model card: 57B in total, 14B activated.
    config = {
        "model_type": "qwen2_moe", "hidden_size": 3584, "intermediate_size": 18944, "moe_intermediate_size": 2560,
        "shared_expert_intermediate_size": 20480, "num_experts": 64, "num_experts_per_tok": 8,
        "num_hidden_layers": 28, "num_attention_heads": 28, "num_key_value_heads": 4, "vocab_size": 151936,
        "rms_norm_eps": 1e-6, "tie_word_embeddings": False, "decoder_sparse_step": 1, "mlp_only_layers": [],
    }  # fmt: skip
    row = model_row_from_hf_config(config, "qwen2-57b")
    assert row["moe"]["shared_experts"] == 8  # 20,480 wide: eight experts of 2,560
    stats = parse_user_catalog(yaml.safe_dump({"models": [row]}), "x").models["qwen2-57b"].architecture.stats
    assert stats.total_params == pytest.approx(57.4e9, rel=0.02)
    assert stats.active_params == pytest.approx(14e9, rel=0.02)


@pytest.mark.parametrize(("change", "dense"), [({"decoder_sparse_step": 2}, 16), ({"mlp_only_layers": [0, 1]}, 2)])
def test_qwen_moe_layers_named_dense_keep_a_dense_mlp(change, dense):
    config = {**CONFIGS["mixtral-8x7b"], "model_type": "qwen2_moe", "moe_intermediate_size": 1408, **change}
    assert model_row_from_hf_config(config, "mine")["moe"]["dense_layers"] == dense


def test_a_pasted_config_says_it_was_pasted_and_a_fetched_one_where_from():
    assert "pasted on the Add page" in model_row_from_hf_config(CONFIGS["llama-3.1-8b"], "mine")["source"]
    fetched = model_row_from_hf_config(CONFIGS["llama-3.1-8b"], "mine", source="https://huggingface.co/x/y")
    assert fetched["source"] == "https://huggingface.co/x/y"


def test_a_shared_expert_too_wide_for_a_row_is_refused_naming_its_key():
    # Found by the Add page's fuzzer: the refusal named the row's shared_experts, not the config's key.
    config = {**CONFIGS["mixtral-8x7b"], "moe_intermediate_size": 1408, "shared_expert_intermediate_size": 10**20}
    with pytest.raises(CatalogError, match=r"^config\.json: shared_expert_intermediate_size must be at most "):
        model_row_from_hf_config(config, "mine")
