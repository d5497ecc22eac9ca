"""The "Add a GPU or model" forms' fields: the document argument each fills, its label and help.

Labels and help are marked :func:`~ui.i18n.translatable`; :func:`ui.forms.render_fields` shows them
in the visit's language.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from ui.i18n import translatable

__all__ = ["GPU_FIELDS", "MODEL_FIELDS", "FormField"]


class FormField(NamedTuple):
    """One form field: the document argument it fills, its label, widget kind and help."""

    name: str
    label: str
    kind: str
    """"text", "number", "whole" (a count), "flag", "interconnect" or "network"."""
    help: str = ""
    default: Any = None
    example: str = ""
    """Shown greyed in an empty field."""
    yaml_key: str = ""
    """The catalog field it writes, when not ``name`` (validator messages name that)."""


_ID_HELP = translatable("1-64 letters, digits, '-', '_' or '.'; not a built-in id.")
_BF16, _FP8, _PRICE = "dense_tflops.bf16", "dense_tflops.fp8", "cloud_usd_per_gpu_hour"
GPU_FIELDS: tuple[FormField, ...] = (
    FormField("gpu_id", translatable("Id"), "text", _ID_HELP, example="my-gpu", yaml_key="id"),
    FormField("name", translatable("Name"), "text", translatable("As it shows in the sidebar."), example="My GPU 96GB"),
    FormField(
        "memory_gb",
        translatable("Memory (GB)"),
        "number",
        translatable("Per card, decimal GB as the datasheet prints it."),
        example="96",
    ),
    FormField(
        "memory_bandwidth_gb_per_s",
        translatable("Memory bandwidth (GB/s)"),
        "number",
        translatable("Datasheet peak."),
        example="4000",
    ),
    FormField(
        "bf16_tflops",
        translatable("Dense bf16 (TFLOPS)"),
        "number",
        translatable("Not 2:4 sparse."),
        example="900",
        yaml_key=_BF16,
    ),
    FormField(
        "fp8_tflops",
        translatable("Dense fp8 (TFLOPS, optional)"),
        "number",
        translatable("Empty: no fp8."),
        yaml_key=_FP8,
    ),
    FormField(
        "usd_per_gpu_hour",
        translatable("$ per GPU-hour (optional)"),
        "number",
        translatable("Empty: no costs."),
        yaml_key=_PRICE,
    ),
    FormField("tdp_w", translatable("Power (W, optional)"), "number", translatable("Board power; used for energy.")),
    FormField(
        "gpus_per_node", translatable("GPUs per node"), "whole", translatable("Cards joined by the scale-up link."), 8
    ),
    FormField("scale_up", translatable("Scale-up link (inside a node)"), "interconnect", "", "pcie-gen5"),
    FormField("network", translatable("Network (between nodes)"), "network", "", "ib-ndr"),
)
"""The GPU form, in the order it is shown (arguments of :func:`gpu_document`)."""

MODEL_FIELDS: tuple[FormField, ...] = (
    FormField("model_id", translatable("Id"), "text", _ID_HELP, example="my-model", yaml_key="id"),
    FormField(
        "name", translatable("Name"), "text", translatable("As it shows in the sidebar."), example="My model 13B"
    ),
    FormField(
        "layers", translatable("Layers"), "whole", translatable("Transformer blocks (num_hidden_layers)."), example="40"
    ),
    FormField(
        "hidden", translatable("Hidden size"), "whole", translatable("Model width (hidden_size)."), example="5120"
    ),
    FormField(
        "heads",
        translatable("Attention heads"),
        "whole",
        translatable("Query heads (num_attention_heads)."),
        example="40",
    ),
    FormField(
        "kv_heads",
        translatable("KV heads (optional)"),
        "whole",
        translatable("Key/value heads; empty: one per query head."),
    ),
    FormField(
        "ffn",
        translatable("FFN size"),
        "whole",
        translatable("MLP width (intermediate_size); per expert for MoE."),
        example="13824",
    ),
    FormField("vocab", translatable("Vocabulary"), "whole", translatable("vocab_size."), example="32000"),
    FormField("max_context", translatable("Context length (optional)"), "whole", translatable("Tokens; empty: 4,096.")),
    FormField(
        "experts",
        translatable("Experts (optional)"),
        "whole",
        translatable("Routed experts per layer; empty: a dense model."),
    ),
    FormField(
        "active_experts",
        translatable("Active experts (optional)"),
        "whole",
        translatable("Experts each token uses; empty: 2."),
    ),
    FormField(
        "tied_embeddings",
        translatable("Tied embeddings"),
        "flag",
        translatable("The LM head shares the input embedding."),
    ),
)
"""The model form, in the order it is shown (arguments of :func:`model_document`)."""
