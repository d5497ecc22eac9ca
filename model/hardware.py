"""What a GPU delivers for a given precision: peak and achievable rates.

Peaks come from the catalog (dense, not sparse). Where a precision has no tensor-core path on a
chip (FP8 before Hopper/Ada, BF16 on Volta and Turing, FP4 before Blackwell) the matrix products
run in the nearest wider format the chip has, and the estimate says so in a warning.
"""

from __future__ import annotations

import functools

from model.catalog import Gpu
from model.efficiency import Efficiencies, measured_share
from model.precision import QUANTIZED_WEIGHT_PRECISIONS

__all__ = [
    "achievable_bandwidth",
    "compute_precision",
    "matmul_ceiling_share",
]

_SIXTEEN_BIT = ("bf16", "fp16", "fp32")


def _first_available(gpu: Gpu, options: tuple[str, ...]) -> str:
    for key in options:
        if key in gpu.dense_flops_per_s:
            return key
    return next(iter(gpu.dense_flops_per_s))


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


def matmul_ceiling_share(gpu: Gpu, key: str) -> float | None:
    """Return the measured largest-product rate over peak for ``key``, if the catalog has it."""
    measured = gpu.matmul_ceiling_flops_per_s.get(key)
    peak = gpu.dense_flops_per_s.get(key)
    if measured is None or not peak:
        return None
    return measured / peak


@functools.lru_cache(maxsize=1024)
def achievable_bandwidth(gpu: Gpu, eff: Efficiencies, weight_precision: str | None = None) -> float:
    """Return the memory bandwidth a streaming kernel sustains, in bytes/s.

    A measured figure in the catalog replaces the default share of peak (scaled by this
    efficiency set's optimism); weight-only quantised weights stream slower (dequantisation).
    """
    measured = gpu.measured_bandwidth_bytes_per_s
    peak = gpu.memory_bandwidth_bytes_per_s
    share = measured_share(measured / peak if measured else None, eff.memory_bandwidth, eff.memory_scale)
    bandwidth = peak * share
    if weight_precision in QUANTIZED_WEIGHT_PRECISIONS:
        bandwidth *= eff.dequant_bandwidth
    return bandwidth
