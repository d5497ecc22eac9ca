"""A Hugging Face ``config.json`` turned into a models: row (pasted, uploaded or fetched by :mod:`.hf_hub`).

Field names follow the transformers configuration classes: LlamaConfig (hidden_size,
intermediate_size, num_hidden_layers, num_attention_heads, num_key_value_heads, head_dim,
vocab_size, tie_word_embeddings, max_position_embeddings, rms_norm_eps), MistralConfig
(sliding_window), MixtralConfig (num_local_experts, num_experts_per_tok), Qwen2MoeConfig /
Qwen3MoeConfig (num_experts, moe_intermediate_size, shared_expert_intermediate_size),
DeepseekV3Config (n_routed_experts, n_shared_experts, first_k_dense_replace, q_lora_rank,
kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim), GptOssConfig (num_local_experts,
experts_per_token, layer_types), Gemma2Config and Gemma3TextConfig (head_dim, interleaved sliding
layers; Gemma 3 keeps its language model in text_config and leaves its defaults out) and the GPT-2
style names (n_layer, n_embd, n_head, n_inner, n_positions). The row then goes through the same
checks as any upload.

What the engine's architecture does not model is left out of the row, and the count is then a
little low: gpt-oss's attention sinks (one logit per head and layer) and its expert and output
biases, Gemma's two extra norms per layer, Qwen3's q and k norms (under 0.1 % of each). A sliding
window is kept only when every layer slides (Mistral 7B v0.1); interleaved local and global layers
(Gemma 2 and 3, gpt-oss) are counted as global, which overstates their KV cache rather than
understating it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from model.catalog._rows import CatalogError, quoted

__all__ = ["MAX_CONFIG_BYTES", "UNSUPPORTED_TYPES", "model_row_from_hf_config", "parse_hf_config"]

MAX_CONFIG_BYTES = 64_000
"""A config.json is a few kB; a larger paste is refused before parsing."""
_PLAIN_MLP_TYPES = frozenset({"gpt2", "gpt_neox", "gptj", "opt", "bloom", "falcon", "gpt_bigcode", "phi", "starcoder2"})
"""Model types whose MLP is two matrices with a GELU (the rest use a gated SwiGLU-style MLP)."""
_LAYER_NORM_TYPES = frozenset({"gpt2", "gpt_neox", "gptj", "opt", "bloom", "falcon", "gpt_bigcode", "phi"})
_BIAS_TYPES = frozenset({"qwen2", "qwen2_moe"})
"""Model types with a bias on the q, k and v projections (Qwen2)."""
_INTERLEAVED_TYPES = frozenset({"gemma2", "gemma3", "gemma3_text", "cohere2", "gpt_oss", "llama4", "llama4_text"})
"""Model types whose sliding window covers only some layers (Gemma 2: every other one, Gemma 3: five
in six, gpt-oss: every other one), even where the config lists no layer_types."""
_TYPE_DEFAULTS: Mapping[str, Mapping[str, Any]] = {
    "gemma3_text": {
        "vocab_size": 262_208,
        "max_position_embeddings": 131_072,
        "rms_norm_eps": 1e-6,
        "tie_word_embeddings": True,
    },
}
"""What a configuration class fills in when its config.json leaves the field out
(transformers' Gemma3TextConfig.__init__ defaults: google/gemma-3-27b-it's text_config gives no
vocab_size, max_position_embeddings or rms_norm_eps)."""
UNSUPPORTED_TYPES = frozenset(
    {
        # State-space, recurrent and hybrid linear-attention models: no KV cache per layer to count.
        "mamba", "mamba2", "falcon_mamba", "falcon_h1", "jamba", "zamba", "zamba2", "bamba", "nemotron_h",
        "granitemoehybrid", "rwkv", "rwkv5", "rwkv6", "recurrent_gemma", "xlstm", "qwen3_next", "lfm2",
        # Encoders and encoder-decoders.
        "bert", "roberta", "xlm-roberta", "deberta", "deberta-v2", "distilbert", "electra", "modernbert",
        "t5", "mt5", "umt5", "longt5", "bart", "mbart", "marian", "pegasus", "whisper", "vit", "clip", "siglip",
    }
)  # fmt: skip
"""Model types that are not decoder-only transformers: the engine's architecture cannot count them."""
_ATTENTION_LAYER_TYPES = frozenset({"full_attention", "sliding_attention", "chunked_attention"})
_MAX_SHARED_EXPERTS = 1024
"""The most shared experts a models: row holds (model.catalog.schema.model_from_row)."""


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


def _language_model(config: Mapping[str, Any]) -> Mapping[str, Any]:
    """Return the config of the language model: a multimodal wrapper (Llama 4, Gemma 3) keeps it in text_config."""
    text_config = config.get("text_config")
    if isinstance(text_config, Mapping) and "hidden_size" in text_config and "hidden_size" not in config:
        inherited = {key: config[key] for key in ("tie_word_embeddings",) if key in config}
        config = {**inherited, **text_config}
    kind = str(config.get("model_type", "")).lower()
    defaults = _TYPE_DEFAULTS.get(kind)
    return {**defaults, **config} if defaults else config


def _unsupported(config: Mapping[str, Any], kind: str, file: str) -> None:
    """Refuse a config the engine's decoder-only transformer cannot count, naming what it is.

    Raises:
        CatalogError: the model type is a state-space, recurrent, hybrid, encoder or encoder-decoder
            model, or its layer_types name a layer that is not attention (Qwen3.5's linear_attention).
    """
    layer_types = config.get("layer_types")
    others = (
        sorted({str(t)[:30] for t in layer_types} - _ATTENTION_LAYER_TYPES) if isinstance(layer_types, list) else []
    )
    if kind in UNSUPPORTED_TYPES or config.get("is_encoder_decoder") is True or others:
        what = f"layers of type {others[0]}" if others else f"model_type {kind[:40] or 'not given'}"
        raise CatalogError(
            f"{file}: {what} is not a decoder-only transformer, which is all the engine counts; "
            "give its parameter count instead"
        )


def _slides_everywhere(config: Mapping[str, Any], kind: str) -> bool:
    """Whether every layer attends within the sliding window (not only some of them)."""
    layer_types = config.get("layer_types")
    if isinstance(layer_types, list):
        return bool(layer_types) and all(t == "sliding_attention" for t in layer_types)
    if kind in _INTERLEAVED_TYPES or "sliding_window_pattern" in config:
        return False
    if config.get("use_sliding_window") is False:
        return False
    # Qwen2: the layers from max_window_layers on slide, so all of them only from layer 0.
    return not config.get("use_sliding_window") or not config.get("max_window_layers")


def model_row_from_hf_config(
    config: Mapping[str, Any], name: str, file: str = "config.json", *, source: str | None = None
) -> dict[str, Any]:
    """Return the models: row that ``config`` describes, named ``name``.

    Args:
        config: the parsed config.json.
        name: the row's name (its id is made from it).
        file: how messages name the config.
        source: where the config came from (the default: pasted on the Add page).

    Raises:
        CatalogError: a field every model needs (layers, width, heads, vocabulary) is missing, a
            number the row reads is not a whole number, or the model is not a decoder-only
            transformer; the message starts with ``file`` and names the key.
    """
    config = _language_model(config)
    kind = str(config.get("model_type", "")).lower()
    _unsupported(config, kind, file)
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
    shown_kind = kind[:40] or "not given"
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
        "source": source or f"a Hugging Face config.json (model_type {shown_kind}) pasted on the Add page",
    }
    head_dim = _first(config, file, "head_dim")
    if head_dim and head_dim * heads != hidden:
        row["head_dim"] = head_dim
    if kind in _BIAS_TYPES or config.get("attention_bias"):
        row["qkv_bias"] = True
    window = config.get("sliding_window")
    if isinstance(window, int) and not isinstance(window, bool) and window > 0 and _slides_everywhere(config, kind):
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
        expert_ffn = _first(config, file, "moe_intermediate_size") or row["ffn"]
        shared = _first(config, file, "n_shared_experts", minimum=0)
        shared_ffn = _first(config, file, "shared_expert_intermediate_size", minimum=0)
        if shared is None and shared_ffn:
            # Qwen2-MoE's one shared expert is several routed experts wide (Qwen2-57B-A14B: 20,480 = 8 x 2,560).
            shared = max(1, round(shared_ffn / expert_ffn))
            if shared > _MAX_SHARED_EXPERTS:
                widest = _MAX_SHARED_EXPERTS * expert_ffn
                raise CatalogError(
                    f"{file}: shared_expert_intermediate_size must be at most {widest:,} "
                    f"({_MAX_SHARED_EXPERTS:,} experts of {expert_ffn:,}), got {quoted(shared_ffn)}"
                )
        row["moe"] = {
            "experts": experts,
            "active_experts": _first(config, file, "num_experts_per_tok", "experts_per_token", "moe_topk") or 2,
            "shared_experts": shared or 0,
            "expert_ffn": expert_ffn,
            "dense_layers": min(_dense_layers(config, file, layers), layers),
        }
    return row


def _dense_layers(config: Mapping[str, Any], file: str, layers: int) -> int:
    """Return how many layers keep a dense MLP in a mixture of experts.

    DeepSeek-V3 names its first dense layers (first_k_dense_replace); Qwen-MoE lists them
    (mlp_only_layers) or makes every decoder_sparse_step-th layer sparse.
    """
    first = _first(config, file, "first_k_dense_replace", minimum=0)
    if first is not None:
        return int(first)
    listed = config.get("mlp_only_layers")
    named = {i for i in listed if isinstance(i, int) and 0 <= i < layers} if isinstance(listed, list) else set()
    step = _first(config, file, "decoder_sparse_step") or 1
    # Qwen2MoeDecoderLayer: sparse when not in mlp_only_layers and (index + 1) % decoder_sparse_step == 0.
    stepped_dense = layers - layers // step
    return stepped_dense + sum(1 for i in named if (i + 1) % step == 0)
