"""Numeric precisions: storage size per element, and the format a chip runs each one's products in.

Sources: element sizes are the formats' definitions. The block-scaled 4-bit formats carry one
scale per block: llama.cpp Q4_0 stores 32 weights in 18 bytes (4.5 bits), NVFP4 one FP8 scale per
16 values (4.5 bits); int8 weight-only quantisation keeps one 16-bit scale per output channel,
which is negligible per weight. Where a precision has no tensor-core path on a chip (FP8 before
Hopper/Ada, BF16 on Volta and Turing, FP4 before Blackwell) the matrix products run in the nearest
wider format the chip has, and the estimate says so in a warning.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Final, Literal, get_args

if TYPE_CHECKING:
    from model.catalog import Gpu

__all__ = [
    "KV_PRECISIONS",
    "PRECISIONS",
    "QUANTIZED_WEIGHT_PRECISIONS",
    "UNTRAINABLE_PRECISIONS",
    "KvPrecision",
    "Precision",
    "bytes_per_element",
    "compute_precision",
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

UNTRAINABLE_PRECISIONS: Final[frozenset[str]] = frozenset({"int8", "int4"})
"""Weight-only serving formats no framework trains every weight in: pre-training and full
fine-tuning in them are refused (QLoRA trains 16-bit adapters on an int4 base instead)."""
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


_SIXTEEN_BIT = ("bf16", "fp16", "fp32")


def _first_available(gpu: Gpu, options: tuple[str, ...]) -> str:
    for key in options:
        if key in gpu.dense_flops_per_s:
            return key
    return next(iter(gpu.dense_flops_per_s))


# Asked twice per estimate; a GPU row hashes by identity, so the lookup is cheap.
@functools.lru_cache(maxsize=1024)
def compute_precision(gpu: Gpu, precision: str) -> tuple[str, str | None]:
    """Return the format the matrix products run in, and a warning if it differs.

    Weight-only int8/int4 are dequantised to 16-bit before the product (GPTQ/AWQ/bitsandbytes);
    fp8 and fp4 run natively where the chip has them.
    """
    if precision == "fp32":
        return _first_available(gpu, ("fp32", "tf32", "bf16")), None
    if precision in ("bf16", "fp16"):
        order = (precision, "fp16" if precision == "bf16" else "bf16", "fp32")
        key = _first_available(gpu, order)
        note = None if key == precision else f"{gpu.name} has no {precision} tensor cores; products run in {key}"
        return key, note
    if precision in ("fp8", "fp4") and precision in gpu.dense_flops_per_s:
        return precision, None
    key = _first_available(gpu, _SIXTEEN_BIT)
    if precision in QUANTIZED_WEIGHT_PRECISIONS and precision != "fp4":
        return key, None  # weight-only formats compute in 16-bit by design
    return key, f"{gpu.name} has no {precision} tensor cores; products run in {key}"
