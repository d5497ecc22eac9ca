"""A Hugging Face ``config.json`` turned into a models: row (no network: the text is pasted or uploaded).

Field names follow the transformers configuration classes: LlamaConfig (hidden_size,
intermediate_size, num_hidden_layers, num_attention_heads, num_key_value_heads, head_dim,
vocab_size, tie_word_embeddings, max_position_embeddings, rms_norm_eps), MistralConfig
(sliding_window), MixtralConfig (num_local_experts, num_experts_per_tok), Qwen2MoeConfig /
Qwen3MoeConfig (num_experts, moe_intermediate_size, shared_expert_intermediate_size),
DeepseekV3Config (n_routed_experts, n_shared_experts, first_k_dense_replace, q_lora_rank,
kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim) and the GPT-2 style names (n_layer,
n_embd, n_head, n_inner, n_positions). The row then goes through the same checks as any upload.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from model.catalog._rows import CatalogError

__all__ = ["MAX_CONFIG_BYTES", "model_row_from_hf_config", "parse_hf_config"]

MAX_CONFIG_BYTES = 64_000
"""A config.json is a few kB; a larger paste is refused before parsing."""
_PLAIN_MLP_TYPES = frozenset({"gpt2", "gpt_neox", "gptj", "opt", "bloom", "falcon", "gpt_bigcode", "phi", "starcoder2"})
"""Model types whose MLP is two matrices with a GELU (the rest use a gated SwiGLU-style MLP)."""
_LAYER_NORM_TYPES = frozenset({"gpt2", "gpt_neox", "gptj", "opt", "bloom", "falcon", "gpt_bigcode", "phi"})
_BIAS_TYPES = frozenset({"qwen2", "qwen2_moe"})
"""Model types with a bias on the q, k and v projections (Qwen2)."""


def parse_hf_config(text: str | bytes, name: str = "config.json") -> dict[str, Any]:
    """Read the JSON text of a config.json into a mapping.

    Raises:
        CatalogError: the text is too large, not JSON, or not an object.
    """
    if len(text) > MAX_CONFIG_BYTES:
        raise CatalogError(f"{name}: {len(text):,} bytes is larger than a config.json ({MAX_CONFIG_BYTES:,} at most)")
    try:
        config = json.loads(text)
    except (ValueError, UnicodeDecodeError, RecursionError) as error:  # RecursionError: thousands of nested lists
        raise CatalogError(f"{name}: not JSON ({str(error)[:80]})") from None
    if not isinstance(config, dict):
        raise CatalogError(f"{name}: expected a JSON object with hidden_size, num_hidden_layers, ...")
    return config


def _first(config: Mapping[str, Any], *keys: str) -> Any:
    for key in keys:
        if config.get(key) is not None:
            return config[key]
    return None


def _identifier(text: str) -> str:
    slug = re.sub(r"[^a-z0-9.]+", "-", text.lower()).strip("-.")
    return slug[:60] or "my-model"


def model_row_from_hf_config(config: Mapping[str, Any], name: str) -> dict[str, Any]:
    """Return the models: row that ``config`` describes, named ``name``.

    Raises:
        CatalogError: a field every model needs (layers, width, heads, vocabulary) is missing.
    """
    text_config = config.get("text_config")
    if isinstance(text_config, Mapping) and "hidden_size" in text_config and "hidden_size" not in config:
        config = text_config  # multimodal wrappers (Llama 4, Gemma 3) keep the language model here
    kind = str(config.get("model_type", "")).lower()
    layers = _first(config, "num_hidden_layers", "n_layer", "num_layers")
    hidden = _first(config, "hidden_size", "n_embd", "d_model")
    heads = _first(config, "num_attention_heads", "n_head")
    vocab = config.get("vocab_size")
    needed = (
        ("num_hidden_layers", layers),
        ("hidden_size", hidden),
        ("num_attention_heads", heads),
        ("vocab_size", vocab),
    )
    missing = [key for key, value in needed if value is None]
    if missing:
        raise CatalogError(f"{name}: the config has no {', '.join(missing)}")
    row: dict[str, Any] = {
        "id": _identifier(name),
        "name": name[:80],
        "layers": layers,
        "hidden": hidden,
        "heads": heads,
        "kv_heads": _first(config, "num_key_value_heads", "multi_query_group_num") or heads,
        "ffn": _first(config, "intermediate_size", "n_inner", "ffn_dim") or 4 * hidden,
        "vocab": vocab,
        "tied_embeddings": bool(config.get("tie_word_embeddings", True)),
        "mlp": "plain" if kind in _PLAIN_MLP_TYPES else "gated",
        "norm": "layer" if kind in _LAYER_NORM_TYPES or "rms_norm_eps" not in config else "rms",
        "attention": "standard",
        "max_context": _first(config, "max_position_embeddings", "n_positions", "seq_length") or 4096,
        "source": f"a Hugging Face config.json (model_type {kind or 'not given'}) pasted on the Add page",
    }
    if config.get("head_dim") and config["head_dim"] * heads != hidden:
        row["head_dim"] = config["head_dim"]
    if kind in _BIAS_TYPES or config.get("attention_bias"):
        row["qkv_bias"] = True
    window = config.get("sliding_window")
    if isinstance(window, int) and window > 0 and config.get("use_sliding_window", True):
        row["sliding_window"] = window
    if config.get("kv_lora_rank"):
        row["attention"] = "mla"
        row["mla"] = {
            "q_lora_rank": config.get("q_lora_rank") or 0,
            "kv_lora_rank": config["kv_lora_rank"],
            "qk_nope_head_dim": config.get("qk_nope_head_dim", 128),
            "qk_rope_head_dim": config.get("qk_rope_head_dim", 64),
            "v_head_dim": config.get("v_head_dim", 128),
        }
    experts = _first(config, "n_routed_experts", "num_local_experts", "num_experts")
    if experts and experts > 1:
        shared = config.get("n_shared_experts")
        if shared is None and config.get("shared_expert_intermediate_size"):
            shared = 1
        row["moe"] = {
            "experts": experts,
            "active_experts": _first(config, "num_experts_per_tok", "moe_topk") or 2,
            "shared_experts": shared or 0,
            "expert_ffn": _first(config, "moe_intermediate_size") or row["ffn"],
            "dense_layers": config.get("first_k_dense_replace") or 0,
        }
    return row
