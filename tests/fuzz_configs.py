"""Hostile Hugging Face config.json pastes and uploads, and form entries, on the Add page (issue 14).

:func:`config_cases` yields seeded documents: published configs with fields made bad (wrong
types, NaN, huge, negative, nested, missing), JSON that is not a config, and text that is not JSON
(deep nesting, near the size cap, binary). :func:`check_config` puts one through the Add page's
``add_from_hf_config`` steps, with the checks and bounds of :func:`tests.fuzz_uploads.check_upload`.
:func:`form_cases` and :func:`check_form` do the same for the GPU and Model forms (a refusal then
names the form's box).
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from typing import Any

import streamlit as st
import yaml

from model import CatalogError
from model.catalog.hf_config import MAX_CONFIG_BYTES, model_row_from_hf_config, parse_hf_config
from tests.fuzz_links import quiet
from tests.fuzz_uploads import _PRIOR, _bounded, _named, _not_one_line, _rows_changed, _usable
from tests.fuzzing import _HOSTILE, _garbage
from ui.catalog import USER_CATALOG_KEY, session_catalog
from ui.forms import GPU_FIELDS, MODEL_FIELDS, add_document, gpu_document, model_document, name_the_field

__all__ = ["check_config", "check_form", "config_cases", "form_cases"]

_BASES: list[dict[str, Any]] = [
    {
        "model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32,
        "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 128256, "rms_norm_eps": 1e-5,
        "tie_word_embeddings": False, "max_position_embeddings": 131072,
    },
    {
        "model_type": "mixtral", "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32,
        "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 32000, "num_local_experts": 8,
        "num_experts_per_tok": 2, "sliding_window": 4096, "rms_norm_eps": 1e-5,
    },
    {
        "model_type": "deepseek_v3", "hidden_size": 7168, "intermediate_size": 18432, "moe_intermediate_size": 2048,
        "num_hidden_layers": 61, "num_attention_heads": 128, "num_key_value_heads": 128, "vocab_size": 129280,
        "n_routed_experts": 256, "n_shared_experts": 1, "num_experts_per_tok": 8, "first_k_dense_replace": 3,
        "q_lora_rank": 1536, "kv_lora_rank": 512, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128,
    },
    {
        "model_type": "qwen2_moe", "hidden_size": 2048, "intermediate_size": 5632, "num_hidden_layers": 24,
        "num_attention_heads": 16, "num_key_value_heads": 16, "vocab_size": 151936, "num_experts": 60,
        "num_experts_per_tok": 4, "moe_intermediate_size": 1408, "shared_expert_intermediate_size": 5632,
        "head_dim": 128, "use_sliding_window": False,
    },
    {"model_type": "gpt2", "n_layer": 12, "n_embd": 768, "n_head": 12, "vocab_size": 50257, "n_positions": 1024},
]  # fmt: skip
_ROW_FIELDS = {
    "hidden_size": "hidden", "n_embd": "hidden", "num_hidden_layers": "layers", "n_layer": "layers",
    "num_attention_heads": "heads", "n_head": "heads", "num_key_value_heads": "kv_heads", "intermediate_size": "ffn",
    "vocab_size": "vocab", "max_position_embeddings": "max_context", "n_positions": "max_context",
    "num_local_experts": "experts", "num_experts": "experts", "n_routed_experts": "experts",
    "num_experts_per_tok": "active_experts", "moe_intermediate_size": "expert_ffn", "n_shared_experts":
    "shared_experts", "first_k_dense_replace": "dense_layers", "tie_word_embeddings": "tied_embeddings",
}  # fmt: skip
"""The models: row field each config key fills (a refusal may name either)."""
_BAD: list[Any] = [
    None, True, False, -1, 0, 1, 0.5, 4096.0, -1e9, 1e308, 10**30, 10**400, "4096", "", "lots", "7B", [], [4096],
    {}, {"a": 1}, "x" * 3000, "<b>bold</b>", "🦙", float("nan"), float("inf"), float("-inf"), [[[[[[[[[[1]]]]]]]]]],
]  # fmt: skip


def _mutated(rng: random.Random) -> tuple[Any, frozenset[str]]:
    config: dict[str, Any] = json.loads(json.dumps(rng.choice(_BASES)))
    touched = {"name", "id"}  # the Name box makes both
    keys = [*config, "head_dim", "sliding_window", "kv_lora_rank", "n_routed_experts"]
    for key in rng.sample(keys, rng.randint(1, 3)):
        touched |= {key, _ROW_FIELDS.get(key, key)}
        if rng.random() < 0.2:
            config.pop(key, None)
        else:
            config[key] = rng.choice(_BAD)
    if rng.random() < 0.1:
        config[_garbage(rng) or "extra"] = rng.choice(_BAD)
    if rng.random() < 0.1:
        return {"model_type": "llama4", "text_config": config}, frozenset(touched)
    if rng.random() < 0.03:
        return {**config, "text_config": rng.choice(_BAD)}, frozenset()
    return config, frozenset(touched)


def _text(rng: random.Random) -> str | bytes:
    """Return a document that is not a config, or not JSON, or about the size cap."""
    roll = rng.random()
    if roll < 0.3:
        return rng.choice(["", "{", "null", "[]", "42", '"text"', "[1, 2]", '{"a": 1}', "NaN", "{}", '{"": {}}'])
    if roll < 0.45:
        depth = rng.choice([10, 100, 1000, 10_000, 30_000])
        return '{"hidden_size": ' + "[" * depth + "]" * depth + "}"
    if roll < 0.6:
        size = rng.choice([MAX_CONFIG_BYTES - 1, MAX_CONFIG_BYTES, MAX_CONFIG_BYTES + 1, 2**20 - 1])
        document = json.dumps(rng.choice(_BASES))[:-1] + ', "pad": "'
        return document + "x" * max(0, size - len(document) - 2) + '"}'
    if roll < 0.7:
        return '{"hidden_size": 1' + "0" * rng.choice([400, 5000]) + "}"
    if roll < 0.85:
        return json.dumps(rng.choice(_BASES)).encode(rng.choice(["utf-8-sig", "utf-16", "utf-32", "latin-1"]))
    return bytes(rng.randrange(256) for _ in range(rng.randint(1, 400)))


def config_cases(count: int, seed: int = 14) -> Iterator[tuple[str | bytes, str, frozenset[str]]]:
    """Yield ``count`` (config.json text, the Name box, the fields a refusal may name) cases."""
    rng = random.Random(seed)
    for _ in range(count):
        name = rng.choice(["", "My model", " ", rng.choice(_HOSTILE)[:80], _garbage(rng)[:80], "Llama 3 (mine)"])
        if rng.random() < 0.75:
            config, touched = _mutated(rng)
            text = json.dumps(config, allow_nan=True)
            yield (text.encode() if rng.random() < 0.3 else text), name, touched
        else:
            yield _text(rng), name, frozenset()


def _add_config(text: str | bytes, typed_name: str) -> tuple[bool, str]:
    """The Add page's add_from_hf_config (app_pages/add/page.py), on a visit that added a row before."""
    quiet()
    st.session_state.clear()
    st.session_state[USER_CATALOG_KEY] = _PRIOR
    name = (typed_name or "").strip() or "My model"
    try:
        row = model_row_from_hf_config(parse_hf_config(text or "", "config.json"), name)
    except CatalogError as error:
        return False, str(error)
    return add_document(yaml.safe_dump({"models": [row]}, sort_keys=False), "config.json")


def check_config(text: str | bytes, name: str = "", fields: frozenset[str] = frozenset()) -> list[str]:
    """Return the problems adding the config.json ``text`` under ``name`` shows (none: it passed)."""
    added, problems = _bounded(lambda: _add_config(text, name))
    if problems:
        return problems
    accepted, message = added
    if unreadable := _not_one_line(message):
        return unreadable
    if not accepted:
        if not message.startswith("config.json"):
            problems.append(f"the refusal does not name config.json: {message[:200]}")
        if not _named(message, fields):
            problems.append(f"the refusal names another field than {sorted(fields)[:6]}: {message[:200]}")
        return problems + _rows_changed("config")
    _, problems = _bounded(lambda: _usable(session_catalog()))
    return problems


_FORM_NUMBERS: list[Any] = [None, 0.0, -1.0, 0.5, 1.0, 8.0, 96.0, 4096.0, 1e6, 1e7, 1e12, 1e308, -1e308, 2.5, 3.0]
_GOOD_FORM = {
    "GPU": {"gpu_id": "my-gpu", "name": "My GPU 96GB", "memory_gb": 96.0, "memory_bandwidth_gb_per_s": 4000.0,
            "bf16_tflops": 900.0, "gpus_per_node": 8, "scale_up": "nvlink4", "network": "ib-ndr"},
    "Model": {"model_id": "my-model", "name": "My model", "layers": 32, "hidden": 4096, "heads": 32, "ffn": 11008,
              "vocab": 32000},
}  # fmt: skip


def form_cases(count: int, seed: int = 14) -> Iterator[tuple[str, dict[str, Any]]]:
    """Yield ``count`` (form, field values) cases for the Add page's GPU and Model forms.

    Values are what the widgets can send: numbers of any size and sign or empty; text up to the
    box's 200 characters (markup, unicode, blank); a catalog link id, or one that is not.
    """
    rng = random.Random(seed)
    for _ in range(count):
        kind = rng.choice(["GPU", "Model"])
        fields = GPU_FIELDS if kind == "GPU" else MODEL_FIELDS
        values = dict(_GOOD_FORM[kind])
        for field in rng.sample(list(fields), rng.randint(1, 3)):
            if field.kind == "text":
                text = rng.choice(["", " ", "my-gpu", "h100-sxm", _garbage(rng), rng.choice(_HOSTILE)])
                values[field.name] = text[:200]  # the box's max_chars
            elif field.kind == "flag":
                values[field.name] = rng.random() < 0.5
            elif field.kind in ("interconnect", "network"):
                values[field.name] = rng.choice(["nvlink4", "pcie-gen5", "ib-ndr", "warp", ""])
            else:
                values[field.name] = rng.choice(_FORM_NUMBERS)
        yield kind, values


def check_form(kind: str, values: dict[str, Any]) -> list[str]:
    """Return the problems submitting the Add page's ``kind`` form with ``values`` shows (none: it passed)."""
    fields, build = (GPU_FIELDS, gpu_document) if kind == "GPU" else (MODEL_FIELDS, model_document)

    def submit() -> tuple[bool, str]:  # app_pages/add/page.py, add_from_form
        quiet()
        st.session_state.clear()
        st.session_state[USER_CATALOG_KEY] = _PRIOR
        form = "the GPU form" if kind == "GPU" else "the Model form"
        accepted, message = add_document(build(**values), form)
        return accepted, name_the_field(message, fields)

    added, problems = _bounded(submit)
    if problems:
        return problems
    accepted, message = added
    if unreadable := _not_one_line(message, empty_allowed=True):
        return unreadable
    if not accepted:
        form_field = re.search(r"field '([^']*)'", message)
        boxes = {field.yaml_key or field.name for field in fields}
        if form_field and form_field.group(1) in boxes and "” box)" not in message:
            problems.append(f"the refusal does not name the form's box: {message[:200]}")
        return problems + _rows_changed("form")
    _, problems = _bounded(lambda: _usable(session_catalog()))
    return problems
