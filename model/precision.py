"""Numeric precisions: storage size per element and the compute rate each one runs at.

Sources: element sizes are the formats' definitions. The block-scaled 4-bit formats carry one
scale per block: llama.cpp Q4_0 stores 32 weights in 18 bytes (4.5 bits), NVFP4 one FP8 scale per
16 values (4.5 bits); int8 weight-only quantisation keeps one 16-bit scale per output channel,
which is negligible per weight.
"""

from __future__ import annotations

from typing import Final, Literal

__all__ = [
    "PRECISIONS",
    "QUANTIZED_WEIGHT_PRECISIONS",
    "Precision",
    "bytes_per_element",
    "default_kv_precision",
]

Precision = Literal["fp32", "bf16", "fp16", "fp8", "int8", "int4", "fp4"]
PRECISIONS: Final[tuple[Precision, ...]] = ("fp32", "bf16", "fp16", "fp8", "int8", "int4", "fp4")

_BITS: Final[dict[str, float]] = {
    "fp32": 32.0,
    "tf32": 32.0,
    "bf16": 16.0,
    "fp16": 16.0,
    "fp8": 8.0,
    "int8": 8.0,
    "int4": 4.5,
    "fp4": 4.5,
}

QUANTIZED_WEIGHT_PRECISIONS: Final[frozenset[str]] = frozenset({"int8", "int4", "fp4"})
"""Weight-only formats: serving engines dequantise them to 16-bit before the matrix product,
and keep the embedding and LM head in 16-bit (bitsandbytes, GPTQ and AWQ skip lm_head)."""


def bytes_per_element(precision: str) -> float:
    """Return the storage size of one element in ``precision``, block scales included."""
    return _BITS[precision] / 8.0


def default_kv_precision(precision: str) -> Precision:
    """Return the KV-cache precision a serving engine uses by default with these weights.

    FP8 and FP4 checkpoints are served with an FP8 KV cache (TensorRT-LLM and vLLM FP8 recipes);
    weight-only int8/int4 keep a 16-bit cache; fp32 and fp16 keep their own type.
    """
    if precision in ("fp8", "fp4"):
        return "fp8"
    if precision in ("fp32", "fp16"):
        return precision  # type: ignore[return-value]
    return "bf16"
