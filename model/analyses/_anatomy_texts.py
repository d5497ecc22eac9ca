"""The anatomy's words: level names, where each figure comes from, what the catalog cannot say, link roles.

Each is a code of :data:`PHRASES` with its values already formatted, so the interface can word it in the
visit's language from the same template (:mod:`model.analyses.anatomy` re-exports both names).
"""

from __future__ import annotations

from typing import Final

from model.results import Message

__all__ = ["PHRASES", "Phrase"]

PHRASES: Final[dict[str, str]] = {
    # The levels' names.
    "name_registers": "Registers",
    "name_shared": "Shared memory / L1",
    "name_l2": "L2 cache",
    "name_device": "Device memory",
    "name_device_kind": "Device memory ({kind})",
    "name_host": "Host RAM over {link}",
    # Where a capacity or a bandwidth comes from.
    "catalog": "catalog",
    "catalog_peak": "catalog (datasheet peak)",
    "catalog_per_direction": "catalog, per direction",
    "per_sm": "{sms} SMs × {size} KiB per SM",
    "host_assumed": "assumed: 2 TB per 8-GPU server (DGX H100), 256 GB per GPU",
    "registers_derived": "derived: {tflops} FP32 TFLOPS × 6 B",
    "registers_how": (
        "derived: an FMA (2 FLOPs) reads three 4-byte registers (a, b, c) per lane; FP32 peak from the catalog"
    ),
    "shared_derived": "derived: {sms} SMs × 128 B × {clock} MHz",
    "shared_how": "CUDA C++ Programming Guide, shared memory: 32 banks, each 32 bits per clock cycle",
    "measured": "measured (see sources)",
    # What the catalog cannot say.
    "no_registers": "Registers: the catalog has no SM count or register file size for this chip.",
    "no_fp32": "Registers: no FP32 peak in the catalog, so no operand rate is derived.",
    "no_shared": "Shared memory: the catalog has no SM count or shared memory size for this chip.",
    "not_nvidia": "Shared memory: the 32 banks × 4 bytes per clock rule is NVIDIA's (CUDA guide); not applied here.",
    "no_clock": "Shared memory: no boost clock in the catalog, so no bandwidth is derived.",
    "no_l2": "L2 cache: the catalog has no L2 size for this chip.",
    "no_l2_bandwidth": (
        "L2 cache: no published or measured L2 bandwidth for this chip in the catalog, so the point is left out."
    ),
    "no_on_chip": "Registers, shared memory and L2: the catalog has no SM or cache figures for this chip.",
    "no_host_link": "Host memory: the catalog names no host link for this chip.",
    "no_tensor_cores": "{gpu} has no {precision} tensor cores; products run in {key}",
    # The links' roles.
    "role_scale_up": "Inside a node",
    "role_network": "Between nodes",
    "role_host": "To the CPU",
}
"""Phrase code -> English template; its fields are the phrase's values, already formatted."""


class Phrase(Message):
    """One of the anatomy's texts: a code of :data:`PHRASES`."""

    TABLE = PHRASES
