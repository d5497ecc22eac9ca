"""The "Add a GPU or model" forms: their fields (:mod:`ui.form_fields`), the catalog YAML they write, and adding it.

The document helpers are pure: one ``gpus:`` or ``models:`` row in the format of
data/gpus.yaml and data/models.yaml, checked by :func:`model.parse_user_catalog` (through
:func:`ui.catalog.add_user_rows`). They do not validate: an empty or bad field is passed on so
the validator's message names it. :func:`render_fields` and :func:`add_document` touch Streamlit.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import streamlit as st
import yaml

from model import Catalog, CatalogError, default_catalog, parse_user_catalog
from model.units import GB, TERA
from ui.catalog import add_user_rows
from ui.form_fields import GPU_FIELDS, MODEL_FIELDS, FormField
from ui.format import billions
from ui.i18n import tr

__all__ = [
    "EXAMPLE_YAML",
    "FORM_SOURCE",
    "GPU_FIELDS",
    "MODEL_FIELDS",
    "FormField",
    "add_document",
    "added_rows",
    "builtin_clash",
    "form_values",
    "gpu_document",
    "model_document",
    "name_the_field",
    "render_fields",
]

FORM_SOURCE = "entered by the user in the app's 'Add a GPU or model' form"
"""The ``source`` a form row carries (every catalog row names one)."""
HOST_LINK = "pcie-gen5"
"""A form GPU sits in a host on PCIe 5: it then carries the runtime's memory like every catalog GPU."""

EXAMPLE_YAML = """\
gpus:
  - id: my-accelerator
    name: My accelerator 96GB
    memory_gb: 96
    memory_bandwidth_gb_per_s: 4000
    dense_tflops: {bf16: 900, fp8: 1800}   # dense, not 2:4 sparse
    cloud_usd_per_gpu_hour: 2.5           # optional
    tdp_w: 700                            # optional
    scale_up: nvlink4                     # an interconnect id (python -m model list interconnects)
    gpus_per_node: 8
    network: ib-ndr                       # a network id (python -m model list networks)
    source: vendor datasheet, 2025
models:
  - id: my-model-13b
    name: My model 13B
    layers: 40
    hidden: 5120
    heads: 40
    kv_heads: 8
    ffn: 13824
    vocab: 32000
    tied_embeddings: false
    max_context: 8192                     # optional
    moe: {experts: 8, active_experts: 2, expert_ffn: 13824}   # optional: mixture of experts
    source: config.json of my-model-13b
"""
"""A short document in the upload format: GPUs and models, several rows allowed."""


def name_the_field(message: str, fields: tuple[FormField, ...]) -> str:
    """Add the form's label to a validator message that names a catalog field ("field 'memory_gb'")."""
    for field in fields:
        if f"field {(field.yaml_key or field.name)!r}" in message:
            return tr("{message} (the “{label}” box)", message=message, label=tr(field.label))
    return message


def form_values(fields: tuple[FormField, ...], state: Mapping[str, Any], prefix: str) -> dict[str, Any]:
    """Return the fields' values from the session state (keys are ``prefix + name``)."""
    return {field.name: state.get(prefix + field.name) for field in fields}


def _text(value: str | None) -> str | None:
    text = (value or "").strip()
    return text or None


def _whole(value: float | None) -> float | int | None:
    """Return a whole float as an int (the catalog wants whole numbers for counts and sizes).

    Past 2**53 a float is no exact count: it stays a float, so a refusal quotes 1e+20, not 21 digits.
    """
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    return value


def gpu_document(
    *,
    gpu_id: str | None,
    name: str | None,
    memory_gb: float | None,
    memory_bandwidth_gb_per_s: float | None,
    bf16_tflops: float | None,
    fp8_tflops: float | None = None,
    usd_per_gpu_hour: float | None = None,
    tdp_w: float | None = None,
    scale_up: str | None = None,
    gpus_per_node: float | None = None,
    network: str | None = None,
) -> str:
    """Return a YAML document of one ``gpus:`` row from the GPU form's fields.

    Required fields are written even when empty (the validator then names them); optional ones
    are left out when empty. TFLOPS are dense datasheet peaks.
    """
    flops: dict[str, float | int | None] = {"bf16": _whole(bf16_tflops)}
    if fp8_tflops is not None:
        flops["fp8"] = _whole(fp8_tflops)
    row: dict[str, Any] = {
        "id": _text(gpu_id),
        "name": _text(name),
        "vendor": "custom",
        "memory_gb": _whole(memory_gb),
        "memory_bandwidth_gb_per_s": _whole(memory_bandwidth_gb_per_s),
        "dense_tflops": flops,
    }
    optional = {"cloud_usd_per_gpu_hour": usd_per_gpu_hour, "tdp_w": _whole(tdp_w)}
    row.update({key: value for key, value in optional.items() if value is not None})
    row.update(
        scale_up=_text(scale_up),
        gpus_per_node=_whole(gpus_per_node),
        network=_text(network),
        host_link=HOST_LINK,
        source=FORM_SOURCE,
    )
    return yaml.safe_dump({"gpus": [row]}, sort_keys=False, allow_unicode=True)


def model_document(
    *,
    model_id: str | None,
    name: str | None,
    layers: float | None,
    hidden: float | None,
    heads: float | None,
    kv_heads: float | None = None,
    ffn: float | None,
    vocab: float | None,
    tied_embeddings: bool = False,
    experts: float | None = None,
    active_experts: float | None = None,
    max_context: float | None = None,
) -> str:
    """Return a YAML document of one ``models:`` row from the model form's fields.

    Empty ``kv_heads`` means one per query head; with ``experts`` every layer is a mixture of
    experts whose experts have the ``ffn`` width (``active_experts`` defaults to 2).
    """
    row: dict[str, Any] = {"id": _text(model_id), "name": _text(name)}
    row.update(layers=_whole(layers), hidden=_whole(hidden), heads=_whole(heads))
    if kv_heads is not None:
        row["kv_heads"] = _whole(kv_heads)
    row.update(ffn=_whole(ffn), vocab=_whole(vocab), tied_embeddings=bool(tied_embeddings))
    if max_context is not None:
        row["max_context"] = _whole(max_context)
    if experts is not None or active_experts is not None:
        row["moe"] = {
            "experts": _whole(experts),
            "active_experts": _whole(active_experts) if active_experts is not None else 2,
            "expert_ffn": _whole(ffn),
        }
    row["source"] = FORM_SOURCE
    return yaml.safe_dump({"models": [row]}, sort_keys=False, allow_unicode=True)


def builtin_clash(text: str | bytes, builtin: Catalog | None = None) -> str | None:
    """Return a message if the document reuses a built-in GPU or model id (it would replace it).

    Only a valid document is looked at; anything else is left for the validator to name.
    """
    builtin = builtin or default_catalog()
    try:
        # The validator's own parse: it screens aliases and nesting before building anything.
        extra = parse_user_catalog(text)
    except CatalogError:
        return None
    for ident in (ident for ident in extra.gpus if ident in builtin.gpus):
        return tr("row {row}, field 'id': {row} is a built-in gpu; choose another id to keep it", row=repr(ident))
    for ident in (ident for ident in extra.models if ident in builtin.models):
        return tr("row {row}, field 'id': {row} is a built-in model; choose another id to keep it", row=repr(ident))
    return None


def added_rows(catalog: Catalog) -> list[dict[str, Any]]:
    """Return one display row per GPU and model the user added this visit."""
    rows = []
    for gpu in (gpu for gpu in catalog.gpus.values() if gpu.user_supplied):
        bf16 = gpu.dense_flops_per_s.get("bf16")
        summary = f"{gpu.memory_bytes / GB:g} GB · {gpu.memory_bandwidth_bytes_per_s / GB:,.0f} GB/s"
        rows.append(("GPU", gpu.id, gpu.name, summary + (f" · {bf16 / TERA:,.0f} bf16 TFLOPS" if bf16 else "")))
    for model in (model for model in catalog.models.values() if model.user_supplied):
        arch = model.architecture
        params, layers = billions(arch.stats.total_params), f"{arch.layers}"
        if arch.is_moe:
            summary = tr(
                "{params} parameters · {layers} layers · {experts} experts",
                params=params,
                layers=layers,
                experts=f"{arch.experts}",
            )
        else:
            summary = tr("{params} parameters · {layers} layers", params=params, layers=layers)
        rows.append((tr("Model"), model.id, model.name, summary))
    keys = (tr("kind"), "id", tr("name"), tr("summary"))  # the columns' names in the visit's language
    return [dict(zip(keys, row, strict=True)) for row in rows]


def add_document(text: str | bytes, name: str) -> tuple[bool, str]:
    """Validate ``text`` and keep its rows for the visit; a refused document changes nothing.

    Returns:
        Whether it was added, and a message naming what was added, or the row and field at fault.
    """
    clash = builtin_clash(text)
    if clash is not None:
        return False, tr("{source}, {problem}", source=name, problem=clash)
    return add_user_rows(text, name)


def render_fields(fields: tuple[FormField, ...], prefix: str, catalog: Catalog, columns: int = 3) -> None:
    """Draw the fields in ``columns`` columns, keyed ``prefix + name`` (call inside an ``st.form``)."""
    slots = st.columns(columns)
    for index, field in enumerate(fields):
        key = prefix + field.name
        hint = tr("e.g. {example}", example=field.example) if field.example else None
        label, help = tr(field.label), tr(field.help) if field.help else field.help
        with slots[index % columns]:
            if field.kind == "text":
                st.text_input(label, key=key, help=help, max_chars=200, placeholder=hint)
            elif field.kind == "number":
                st.number_input(label, value=field.default, step=1.0, format="%g", key=key, help=help, placeholder=hint)
            elif field.kind == "whole":
                st.number_input(label, value=field.default, step=1, key=key, help=help, placeholder=hint)
            elif field.kind == "flag":
                st.checkbox(label, key=key, help=help)
            else:
                links = catalog.interconnects if field.kind == "interconnect" else catalog.networks
                options = list(links)
                st.selectbox(
                    label,
                    options,
                    index=options.index(field.default) if field.default in options else 0,
                    format_func=lambda link_id, links=links: links[link_id].name,
                    key=key,
                    help=help or None,
                )
