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

from model.catalog._rows import CatalogError, quoted

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
    except RecursionError:  # thousands of nested lists
        raise CatalogError(f"{name}: not a config (nested too deeply to read)") from None
    except (ValueError, UnicodeDecodeError) as error:
        raise CatalogError(f"{name}: not JSON ({str(error)[:80]})") from None
    if not isinstance(config, dict):
        raise CatalogError(f"{name}: expected a JSON object with hidden_size, num_hidden_layers, ...")
    return config


def _first(config: Mapping[str, Any], file: str, *keys: str, minimum: int = 1) -> Any:
    """Return the first of ``keys`` the config gives, checked to be a whole number of at least ``minimum``.

    Raises:
        CatalogError: the value is not a whole number (text, a list, true, NaN, 4096.5), naming the key.
    """
    for key in keys:
        value = config.get(key)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            raise CatalogError(f"{file}: {key} must be a whole number of at least {minimum}, got {quoted(value)}")
        return value
    return None


def _identifier(text: str) -> str:
    slug = re.sub(r"[^a-z0-9.]+", "-", text.lower()).strip("-.")
    return slug[:60] or "my-model"


def model_row_from_hf_config(config: Mapping[str, Any], name: str, file: str = "config.json") -> dict[str, Any]:
    """Return the models: row that ``config`` describes, named ``name``.

    Raises:
        CatalogError: a field every model needs (layers, width, heads, vocabulary) is missing, or a
            number the row reads is not a whole number; the message starts with ``file`` and names the key.
    """
    text_config = config.get("text_config")
    if isinstance(text_config, Mapping) and "hidden_size" in text_config and "hidden_size" not in config:
        config = text_config  # multimodal wrappers (Llama 4, Gemma 3) keep the language model here
    kind = str(config.get("model_type", "")).lower()
    layers = _first(config, file, "num_hidden_layers", "n_layer", "num_layers")
    hidden = _first(config, file, "hidden_size", "n_embd", "d_model")
    heads = _first(config, file, "num_attention_heads", "n_head")
    vocab = _first(config, file, "vocab_size")
    needed = (
        ("num_hidden_layers", layers),
        ("hidden_size", hidden),
        ("num_attention_heads", heads),
        ("vocab_size", vocab),
    )
    missing = [key for key, value in needed if value is None]
    if missing:
        raise CatalogError(f"{file}: the config has no {', '.join(missing)}")
    tied = config.get("tie_word_embeddings")
    if tied is not None and not isinstance(tied, bool):
        raise CatalogError(f"{file}: tie_word_embeddings must be true or false, got {quoted(tied)}")
    row: dict[str, Any] = {
        "id": _identifier(name),
        "name": name[:80],
        "layers": layers,
        "hidden": hidden,
        "heads": heads,
        "kv_heads": _first(config, file, "num_key_value_heads", "multi_query_group_num") or heads,
        "ffn": _first(config, file, "intermediate_size", "n_inner", "ffn_dim") or 4 * hidden,
        "vocab": vocab,
        "tied_embeddings": tied is not False,
        "mlp": "plain" if kind in _PLAIN_MLP_TYPES else "gated",
        "norm": "layer" if kind in _LAYER_NORM_TYPES or "rms_norm_eps" not in config else "rms",
        "attention": "standard",
        "max_context": _first(config, file, "max_position_embeddings", "n_positions", "seq_length") or 4096,
        "source": f"a Hugging Face config.json (model_type {kind[:40] or 'not given'}) pasted on the Add page",
    }
    head_dim = _first(config, file, "head_dim")
    if head_dim and head_dim * heads != hidden:
        row["head_dim"] = head_dim
    if kind in _BIAS_TYPES or config.get("attention_bias"):
        row["qkv_bias"] = True
    window = config.get("sliding_window")
    if isinstance(window, int) and window > 0 and config.get("use_sliding_window", True):
        row["sliding_window"] = window
    if _first(config, file, "kv_lora_rank", minimum=0):
        row["attention"] = "mla"
        row["mla"] = {
            "q_lora_rank": _first(config, file, "q_lora_rank", minimum=0) or 0,
            "kv_lora_rank": config["kv_lora_rank"],
            "qk_nope_head_dim": _first(config, file, "qk_nope_head_dim") or 128,
            "qk_rope_head_dim": _first(config, file, "qk_rope_head_dim") or 64,
            "v_head_dim": _first(config, file, "v_head_dim") or 128,
        }
    experts = _first(config, file, "n_routed_experts", "num_local_experts", "num_experts", minimum=0)
    if experts and experts > 1:
        shared = _first(config, file, "n_shared_experts", minimum=0)
        if shared is None and config.get("shared_expert_intermediate_size"):
            shared = 1
        row["moe"] = {
            "experts": experts,
            "active_experts": _first(config, file, "num_experts_per_tok", "moe_topk") or 2,
            "shared_experts": shared or 0,
            "expert_ffn": _first(config, file, "moe_intermediate_size") or row["ffn"],
            "dense_layers": _first(config, file, "first_k_dense_replace", minimum=0) or 0,
        }
    return row
