"""GPU anatomy: the memory hierarchy as capacity against bandwidth, the chip's headline figures, its links.

The seed article (docs/seeds/gpu-overview-why-ai-needs-gpus.zh.txt, 第四站：内存层级) draws the
hierarchy registers → shared memory → L2 → HBM → host RAM over PCIe and says "lower is larger
and slower". This module puts catalog figures on it, says how each figure was obtained (catalog,
derived, measured, assumption) and leaves out what no source gives: nothing here is invented.
The seed's generations table (V100 to B100/B200) is :mod:`model.analyses.generations`.
"""

from __future__ import annotations

import itertools
from typing import Final, NamedTuple

from model.analyses._anatomy_texts import PHRASES, Phrase
from model.catalog import Catalog, Gpu, Link
from model.precision import compute_precision
from model.scenario import Resolved

__all__ = [
    "HOST_MEMORY_PER_GPU_BYTES",
    "PHRASES",
    "REGISTER_BYTES_PER_FP32_FLOP",
    "SHARED_MEMORY_BYTES_PER_CLOCK_PER_SM",
    "ChipSummary",
    "Hierarchy",
    "HierarchyBreak",
    "Level",
    "LinkRow",
    "Links",
    "Phrase",
    "ReadTime",
    "chip_summary",
    "links",
    "memory_hierarchy",
    "read_times",
]


SHARED_MEMORY_BYTES_PER_CLOCK_PER_SM: Final = 32 * 4
"""32 banks x 4 bytes: "shared memory has 32 banks ... each bank has a bandwidth of 32 bits per
clock cycle" (CUDA C++ Programming Guide, Compute Capabilities, shared memory section)."""
REGISTER_BYTES_PER_FP32_FLOP: Final = 3 * 4 / 2
"""Derived: a fused multiply-add (d = a x b + c, 2 FLOPs) reads three 4-byte source registers per
lane, so at the FP32 peak the register file supplies 12 bytes per 2 FLOPs."""
HOST_MEMORY_PER_GPU_BYTES: Final = 2048e9 / 8
"""Assumption for a typical 8-GPU server: a DGX H100, like a DGX A100, carries 2 TB of system memory,
1 TB per CPU as 16 x 64 GB DIMMs (vengineer.hatenablog.com, 2023-01-21), so 2,048 GB / 8 = 256 GB per GPU."""


class Level(NamedTuple):
    """One level of the memory hierarchy, for the whole chip (not per SM); its words are :class:`Phrase`."""

    key: str
    """'registers', 'shared', 'l2', 'device' or 'host'."""
    title: Phrase
    capacity_bytes: float
    capacity_kind: str
    """'catalog' (a vendor figure the catalog carries), 'derived' or 'assumption'."""
    capacity_from: Phrase
    bandwidth_bytes_per_s: float | None
    bandwidth_kind: str
    """'catalog', 'derived', 'measured', or '' when no source gives one."""
    bandwidth_from: Phrase | None
    cited: str = ""
    """The catalog's source of the bandwidth figure, in full ('' when ``explained`` says it)."""
    explained: Phrase | None = None
    """How the engine obtained the bandwidth figure, when no catalog source gives it."""

    @property
    def name(self) -> str:
        """The level's name in English."""
        return self.title.text

    @property
    def capacity_basis(self) -> str:
        """How the capacity was obtained, in English."""
        return self.capacity_from.text

    @property
    def bandwidth_basis(self) -> str:
        """How the bandwidth was obtained, in English ('' when no source gives one)."""
        return self.bandwidth_from.text if self.bandwidth_from else ""

    @property
    def source(self) -> str:
        """Where the bandwidth figure comes from, in full, in English."""
        return self.explained.text if self.explained else self.cited


class HierarchyBreak(NamedTuple):
    """Two neighbouring levels where "lower is larger and slower" does not hold."""

    upper: str
    """The upper level's key."""
    lower: str
    """The lower level's key."""
    quantity: str
    """'capacity' (the lower level is not larger) or 'bandwidth' (it is not slower)."""


class Hierarchy(NamedTuple):
    """A GPU's memory levels from the fastest to the largest, and what was left out and why."""

    gpu_id: str
    levels: tuple[Level, ...]
    remarks: tuple[Phrase, ...]
    """What was left out and why."""
    breaks: tuple[HierarchyBreak, ...]
    device_over_host: float | None
    """How many times the device memory's bandwidth exceeds the host link's (per direction)."""

    @property
    def notes(self) -> tuple[str, ...]:
        """The remarks in English."""
        return tuple(remark.text for remark in self.remarks)


class ReadTime(NamedTuple):
    """Time to stream a number of bytes once from one level (None: it does not fit, or no bandwidth)."""

    key: str
    fits: bool
    seconds: float | None


def _per_sm(gpu: Gpu, per_sm_bytes: float) -> Phrase:
    return Phrase("per_sm", (("sms", f"{gpu.sm_count}"), ("size", f"{per_sm_bytes / 1024:g}")))


def _registers(gpu: Gpu) -> tuple[Level | None, Phrase | None]:
    if not gpu.sm_count or not gpu.register_file_per_sm_bytes:
        return None, Phrase("no_registers")
    capacity = gpu.sm_count * gpu.register_file_per_sm_bytes
    fp32 = gpu.dense_flops_per_s.get("fp32")
    bandwidth = fp32 * REGISTER_BYTES_PER_FP32_FLOP if fp32 else None
    level = Level(
        "registers",
        Phrase("name_registers"),
        capacity,
        "catalog",
        _per_sm(gpu, gpu.register_file_per_sm_bytes),
        bandwidth,
        "derived" if bandwidth else "",
        Phrase("registers_derived", (("tflops", f"{fp32 / 1e12:g}"),)) if fp32 else None,
        explained=Phrase("registers_how") if fp32 else None,
    )
    return level, None if fp32 else Phrase("no_fp32")


def _shared(gpu: Gpu) -> tuple[Level | None, Phrase | None]:
    if not gpu.sm_count or not gpu.shared_memory_per_sm_bytes:
        return None, Phrase("no_shared")
    capacity = gpu.sm_count * gpu.shared_memory_per_sm_bytes
    sizes = (Phrase("name_shared"), capacity, "catalog", _per_sm(gpu, gpu.shared_memory_per_sm_bytes))
    if gpu.vendor != "NVIDIA":
        return Level("shared", *sizes, None, "", None), Phrase("not_nvidia")
    if not gpu.boost_clock_hz:
        return Level("shared", *sizes, None, "", None), Phrase("no_clock")
    bandwidth = gpu.sm_count * SHARED_MEMORY_BYTES_PER_CLOCK_PER_SM * gpu.boost_clock_hz
    how = Phrase("shared_derived", (("sms", f"{gpu.sm_count}"), ("clock", f"{gpu.boost_clock_hz / 1e6:,.0f}")))
    return Level("shared", *sizes, bandwidth, "derived", how, explained=Phrase("shared_how")), None


def _l2(gpu: Gpu) -> tuple[Level | None, Phrase | None]:
    if not gpu.l2_cache_bytes:
        return None, Phrase("no_l2")
    bandwidth = gpu.l2_bandwidth_bytes_per_s
    level = Level(
        "l2",
        Phrase("name_l2"),
        gpu.l2_cache_bytes,
        "catalog",
        Phrase("catalog"),
        bandwidth,
        "measured" if bandwidth else "",
        Phrase("measured") if bandwidth else None,
        gpu.l2_bandwidth_source,
    )
    return level, None if bandwidth else Phrase("no_l2_bandwidth")


def _device(gpu: Gpu) -> Level:
    return Level(
        "device",
        Phrase("name_device_kind", (("kind", gpu.memory_type),)) if gpu.memory_type else Phrase("name_device"),
        gpu.memory_bytes,
        "catalog",
        Phrase("catalog"),
        gpu.memory_bandwidth_bytes_per_s,
        "catalog",
        Phrase("catalog_peak"),
        gpu.source,
    )


def _host(gpu: Gpu, catalog: Catalog) -> tuple[Level | None, Phrase | None]:
    link = catalog.interconnects.get(gpu.host_link) if gpu.host_link else None
    if link is None:
        return None, Phrase("no_host_link")
    level = Level(
        "host",
        Phrase("name_host", (("link", link.name),)),
        HOST_MEMORY_PER_GPU_BYTES,
        "assumption",
        Phrase("host_assumed"),
        link.bandwidth_bytes_per_s,
        "catalog",
        Phrase("catalog_per_direction"),
        link.source,
    )
    return level, None


def _breaks(levels: tuple[Level, ...]) -> tuple[HierarchyBreak, ...]:
    found: list[HierarchyBreak] = []
    for upper, lower in itertools.pairwise(levels):
        if lower.capacity_bytes <= upper.capacity_bytes:
            found.append(HierarchyBreak(upper.key, lower.key, "capacity"))
    timed = [level for level in levels if level.bandwidth_bytes_per_s]
    for upper, lower in itertools.pairwise(timed):
        if (lower.bandwidth_bytes_per_s or 0.0) >= (upper.bandwidth_bytes_per_s or 0.0):
            found.append(HierarchyBreak(upper.key, lower.key, "bandwidth"))
    return tuple(found)


def memory_hierarchy(gpu: Gpu, catalog: Catalog) -> Hierarchy:
    """Return the chip's memory levels, fastest first: registers, shared memory, L2, device, host.

    Capacities are chip totals (per-SM sizes × SM count, CUDA C++ Programming Guide tables as the
    catalog transcribes them). Bandwidths: registers derived from the FP32 peak
    (:data:`REGISTER_BYTES_PER_FP32_FLOP`), shared memory = SMs × 128 bytes per clock × boost clock
    (:data:`SHARED_MEMORY_BYTES_PER_CLOCK_PER_SM`), L2 only where a measurement is catalogued, device
    memory from the datasheet, host RAM at the host link's per-direction rate with an assumed
    capacity (:data:`HOST_MEMORY_PER_GPU_BYTES`). A level the catalog cannot describe is skipped
    with a note; a level without a bandwidth keeps its capacity and says why.
    """
    levels: list[Level] = []
    remarks: list[Phrase] = []
    on_chip: tuple[tuple[Level | None, Phrase | None], ...] = (_registers(gpu), _shared(gpu), _l2(gpu))
    if all(level is None for level, _ in on_chip):
        on_chip = ((None, Phrase("no_on_chip")),)
    for level, remark in (*on_chip, (_device(gpu), None), _host(gpu, catalog)):
        if level is not None:
            levels.append(level)
        if remark is not None:
            remarks.append(remark)
    ordered = tuple(levels)
    host = next((level for level in ordered if level.key == "host"), None)
    ratio = (
        gpu.memory_bandwidth_bytes_per_s / host.bandwidth_bytes_per_s if host and host.bandwidth_bytes_per_s else None
    )
    return Hierarchy(gpu.id, ordered, tuple(remarks), _breaks(ordered), ratio)


def read_times(hierarchy: Hierarchy, nbytes: float) -> tuple[ReadTime, ...]:
    """Return the time to read ``nbytes`` once from each level: bytes ÷ bandwidth.

    The seeds' rule (time per token ≈ bytes of weights read ÷ memory bandwidth) at each level's
    peak. A level that cannot hold the bytes, or has no bandwidth, gets ``None``.
    """
    times = []
    for level in hierarchy.levels:
        fits = nbytes <= level.capacity_bytes
        seconds = nbytes / level.bandwidth_bytes_per_s if fits and level.bandwidth_bytes_per_s else None
        times.append(ReadTime(level.key, fits, seconds))
    return tuple(times)


class ChipSummary(NamedTuple):
    """The headline figures of one chip at one precision."""

    sm_count: int | None
    l2_cache_bytes: float | None
    memory_bytes: float
    memory_bandwidth_bytes_per_s: float
    flops_format: str
    dense_flops_per_s: float
    flops_per_byte: float
    """The roofline ridge point: FLOPs per byte of device memory traffic above which a kernel is
    compute-bound (Williams, Waterman and Patterson, 'Roofline', CACM 2009)."""
    remark: Phrase | None
    """Why the peak is not in the format asked for (the chip has no tensor cores for it)."""

    @property
    def note(self) -> str | None:
        """The remark in English."""
        return self.remark.text if self.remark else None


def chip_summary(gpu: Gpu, precision: str = "bf16") -> ChipSummary:
    """Return SMs, L2, memory, bandwidth, the dense peak in ``precision`` and the ridge point.

    The peak is the format the matrix products run in (:func:`model.precision.compute_precision`:
    V100 has no bf16, so fp16); ridge point = dense peak ÷ memory bandwidth (roofline model).
    """
    key, note = compute_precision(gpu, precision)
    flops = gpu.dense_flops_per_s[key]
    remark = Phrase("no_tensor_cores", (("gpu", gpu.name), ("precision", precision), ("key", key))) if note else None
    return ChipSummary(
        gpu.sm_count,
        gpu.l2_cache_bytes,
        gpu.memory_bytes,
        gpu.memory_bandwidth_bytes_per_s,
        key,
        flops,
        flops / gpu.memory_bandwidth_bytes_per_s,
        remark,
    )


class LinkRow(NamedTuple):
    """One link a GPU talks over, per GPU and per direction."""

    role: str
    """'scale-up', 'network' or 'host'."""
    label: Phrase
    link: Link

    @property
    def role_label(self) -> str:
        """The role in English ('Inside a node', 'Between nodes', 'To the CPU')."""
        return self.label.text


class Links(NamedTuple):
    """The scale-up link, the network and the host link, with the ratios the page quotes."""

    rows: tuple[LinkRow, ...]
    scale_up_over_host: float | None
    scale_up_over_network: float


def links(resolved: Resolved, catalog: Catalog) -> Links:
    """Return a resolved scenario's scale-up link and network (the GPU's own unless overridden) and its host link.

    Bandwidths are per GPU per direction and latencies the catalog's modelling assumptions
    (data/interconnects.yaml, data/networks.yaml name their sources).
    """
    scale_up, network, gpu = resolved.scale_up, resolved.network, resolved.gpu
    rows = [LinkRow("scale-up", Phrase("role_scale_up"), scale_up), LinkRow("network", Phrase("role_network"), network)]
    host = catalog.interconnects.get(gpu.host_link) if gpu.host_link else None
    if host is not None:
        rows.append(LinkRow("host", Phrase("role_host"), host))
    return Links(
        tuple(rows),
        scale_up.bandwidth_bytes_per_s / host.bandwidth_bytes_per_s if host else None,
        scale_up.bandwidth_bytes_per_s / network.bandwidth_bytes_per_s,
    )
