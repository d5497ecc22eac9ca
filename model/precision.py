"""Numeric precisions: storage size per element and the compute rate each one runs at.

Sources: element sizes are the formats' definitions. The block-scaled 4-bit formats carry one
scale per block: llama.cpp Q4_0 stores 32 weights in 18 bytes (4.5 bits), NVFP4 one FP8 scale per
16 values (4.5 bits); int8 weight-only quantisation keeps one 16-bit scale per output channel,
which is negligible per weight.
"""

from __future__ import annotations

from typing import Final, Literal, get_args

__all__ = [
    "KV_PRECISIONS",
    "PRECISIONS",
    "QUANTIZED_WEIGHT_PRECISIONS",
    "KvPrecision",
    "Precision",
    "bytes_per_element",
    "default_kv_precision",
    "weight_bytes",
]

Precision = Literal["fp32", "bf16", "fp16", "fp8", "int8", "int4", "fp4"]
PRECISIONS: Final[tuple[Precision, ...]] = get_args(Precision)
KvPrecision = Literal["fp32", "bf16", "fp16", "fp8", "int8", "int4"]
"""Formats a KV cache is stored in (no serving engine caches K and V in fp4)."""
KV_PRECISIONS: Final[tuple[KvPrecision, ...]] = get_args(KvPrecision)

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


def weight_bytes(params: float, precision: str, sixteen_bit_params: float = 0.0) -> float:
    """Return the bytes of ``params`` weights stored in ``precision``.

    Weight-only formats (int8, int4, fp4) keep ``sixteen_bit_params`` of them in 16-bit: the
    embedding and the LM head, which bitsandbytes, GPTQ and AWQ leave unquantised.
    """
    if precision in QUANTIZED_WEIGHT_PRECISIONS:
        return (params - sixteen_bit_params) * bytes_per_element(precision) + sixteen_bit_params * 2.0
    return params * bytes_per_element(precision)


def default_kv_precision(precision: str) -> KvPrecision:
    """Return the KV-cache precision a serving engine uses by default with these weights.

    FP8 and FP4 checkpoints are served with an FP8 KV cache (TensorRT-LLM and vLLM FP8 recipes);
    weight-only int8/int4 keep a 16-bit cache; fp32 and fp16 keep their own type.
    """
    if precision in ("fp8", "fp4"):
        return "fp8"
    if precision == "fp32":
        return "fp32"
    if precision == "fp16":
        return "fp16"
    return "bf16"
