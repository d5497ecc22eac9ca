"""Numeric precisions: the ids a scenario names, storage size per element, and the format a chip runs products in.

Each weight precision is a format of :mod:`model.precision.formats` (its bulk bits, the tensors it keeps at
another width, whether it trains, its default KV cache, with their sources); this module names
them, groups them and answers per element. Sizes are the formats' definitions, block scales
included: llama.cpp Q4_0 stores 32 weights in 18 bytes (4.5 bits), NVFP4 one FP8 scale per 16
values (4.5 bits); int8 weight-only quantisation keeps one 16-bit scale per output channel, which is
negligible per weight. Where a precision has no tensor-core path on a chip (FP8 before Hopper/Ada,
BF16 on Volta and Turing, FP4 before Blackwell) the matrix products run in the nearest wider format
the chip has, and the estimate says so in a warning.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Final, Literal, cast, get_args

from model.precision.formats import FORMATS

if TYPE_CHECKING:
    from model.catalog import Gpu

__all__ = [
    "ADAPTER_BASE_PRECISIONS",
    "GGUF_PRECISIONS",
    "KV_PRECISIONS",
    "PRECISIONS",
    "QUANTIZED_WEIGHT_PRECISIONS",
    "UNTRAINABLE_PRECISIONS",
    "KvPrecision",
    "Precision",
    "bytes_per_element",
    "compute_precision",
    "default_kv_precision",
]

Precision = Literal[
    "fp32", "bf16", "fp16", "fp8", "int8", "int4", "fp4",
    "nvfp4", "mxfp4", "awq_int4", "gptq_int4", "nf4",
    "q8_0", "q6_k", "q5_k_m", "q5_k_s", "q5_0", "q4_k_m", "q4_k_s", "q4_0", "q3_k_l", "q3_k_m", "q3_k_s", "q2_k",
]  # fmt: skip
"""Weight formats (:data:`model.precision.formats.FORMATS` describes each): the plain ones, the serving
checkpoints' weight-only formats, then llama.cpp's file types as llama-quantize names them."""
PRECISIONS: Final[tuple[Precision, ...]] = get_args(Precision)
KvPrecision = Literal["fp32", "bf16", "fp16", "fp8", "int8", "int4", "q8_0", "q4_0"]
"""Formats a KV cache is stored in (no serving engine caches K and V in fp4). q8_0 and q4_0 are
llama.cpp's quantised caches (``--cache-type-k/-v``, the V cache needing flash attention): each row of
K or V is stored in ggml blocks of 32 values, 34 and 18 bytes (ggml-common.h), so 8.5 and 4.5 bits."""
KV_PRECISIONS: Final[tuple[KvPrecision, ...]] = get_args(KvPrecision)

UNTRAINABLE_PRECISIONS: Final[frozenset[str]] = frozenset(p for p, f in FORMATS.items() if not f.trainable)
"""Serving formats no framework trains every weight in: pre-training and full fine-tuning in them are
refused (QLoRA trains 16-bit adapters on an NF4 base instead; LoRA on a base in an
:data:`ADAPTER_BASE_PRECISIONS` format)."""
ADAPTER_BASE_PRECISIONS: Final[frozenset[str]] = frozenset(p for p, f in FORMATS.items() if f.adapter_base)
"""Weight-only formats LoRA adapters train on as a frozen base (PEFT on bitsandbytes int8/NF4, GPTQ and
AWQ; int4 and fp4 stand for such 4-bit bases). GGUF, MXFP4 and NVFP4 bases are dequantised first."""
QUANTIZED_WEIGHT_PRECISIONS: Final[frozenset[str]] = frozenset(p for p, f in FORMATS.items() if f.family != "plain")
"""Weight-only formats: their weights stream through a dequantising kernel (or a block-scaled fp4 one),
and they keep some tensors at another width than their bulk (16-bit embedding and LM head in
bitsandbytes, GPTQ, AWQ and ModelOpt checkpoints; llama.cpp's per-tensor mixes): see model.precision.formats."""
GGUF_PRECISIONS: Final[frozenset[str]] = frozenset(p for p, f in FORMATS.items() if f.family == "gguf")
"""llama.cpp's file types."""


def bytes_per_element(precision: str) -> float:
    """Return the storage size of one element in ``precision``, block scales included.

    For a weight format it is the bulk's (the tensors it keeps wider or narrower are
    :func:`model.precision.formats.weight_breakdown`'s); a cache format is stored whole at it (every KV
    precision is a format of the same id: int4 and q4_0 are Q4_0's blocks, q8_0 Q8_0's).
    """
    return FORMATS[precision].bits / 8.0


def default_kv_precision(precision: str, kv_auto: str = "format") -> KvPrecision:
    """Return the KV-cache precision a serving engine uses by default with these weights.

    FP8 and FP4 checkpoints are served with an FP8 KV cache (TensorRT-LLM's quantized checkpoints,
    trtllm-bench); weight-only int8/int4 keep a 16-bit cache; fp32 and fp16 keep their own type;
    llama.cpp keeps an F16 cache (common/common.h); AWQ/GPTQ kernels run in fp16
    (:data:`model.precision.formats.FORMATS`). A stack whose "auto" is the model's activations
    (``kv_auto`` "activations": vLLM's and SGLang's --kv-cache-dtype auto) keeps a 16-bit cache
    whatever the weights (data/stacks.yaml).
    """
    kv = FORMATS[precision].kv_default
    if kv_auto == "activations" and kv == "fp8":
        kv = "bf16"
    return cast("KvPrecision", kv)


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

    Weight-only formats without tensor cores of their own (int8/int4, GPTQ/AWQ, bitsandbytes NF4,
    llama.cpp's quants) are dequantised to 16-bit before the product by design; fp8 and the fp4
    formats (fp4, NVFP4, MXFP4) run natively where the chip has them (Blackwell for fp4), else in
    16-bit with a warning.
    """
    if precision == "fp32":
        return _first_available(gpu, ("fp32", "tf32", "bf16")), None
    if precision in ("bf16", "fp16"):
        order = (precision, "fp16" if precision == "bf16" else "bf16", "fp32")
        key = _first_available(gpu, order)
        note = None if key == precision else f"{gpu.name} has no {precision} tensor cores; products run in {key}"
        return key, note
    native = FORMATS[precision].native
    if native is not None and native in gpu.dense_flops_per_s:
        return native, None
    key = _first_available(gpu, _SIXTEEN_BIT)
    if native is None:
        return key, None  # weight-only formats compute in 16-bit by design
    return key, f"{gpu.name} has no {precision} tensor cores; products run in {key}"
