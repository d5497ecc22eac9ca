"""Shape the anatomy engine's results into chart rows, table rows and one-line takeaways.

Pure functions: :mod:`model.analyses.anatomy` results in, lists of dicts and sentences out. The only
arithmetic is unit conversion (bytes to GB, bytes/s to GB/s or TB/s, FLOP/s to TFLOPS).
"""

from __future__ import annotations

from typing import Any

from model.analyses.anatomy import ChipSummary, Hierarchy, Links, ReadTime
from model.analyses.generations import Generation, GenerationGrowth
from ui.format import milliseconds

__all__ = [
    "chip_metrics",
    "generation_lines",
    "generation_seed_points",
    "generation_table",
    "generations_takeaway",
    "hierarchy_points",
    "hierarchy_table",
    "hierarchy_takeaway",
    "link_bars",
    "link_table",
    "links_takeaway",
    "seed_notes",
]

_METRICS = (
    ("Dense 16-bit TFLOPS", "TFLOPS"),
    ("Bandwidth (TB/s)", "TB/s"),
    ("Memory (GB)", "GB"),
)


def size_text(nbytes: float | None) -> str:
    """Format a capacity in decimal units ('34.6 MB', '80 GB', '256 GB')."""
    if nbytes is None:
        return "n/a"
    for scale, unit in ((1e12, "TB"), (1e9, "GB"), (1e6, "MB"), (1e3, "kB")):
        if nbytes >= scale:
            return f"{nbytes / scale:,.3g} {unit}"
    return f"{nbytes:,.0f} B"


def rate_text(bytes_per_s: float | None) -> str:
    """Format a bandwidth as TB/s from 1 TB/s up, else GB/s ('402 TB/s', '63 GB/s')."""
    if bytes_per_s is None:
        return "no source"
    if bytes_per_s >= 1e12:
        return f"{bytes_per_s / 1e12:,.3g} TB/s"
    return f"{bytes_per_s / 1e9:,.3g} GB/s"


def _ratio(value: float) -> str:
    return f"{value:,.1f}×" if value < 10 else f"{value:,.0f}×"


def chip_metrics(chip: ChipSummary) -> list[tuple[str, str, str]]:
    """Return (label, value, help) for the chip's headline metrics."""
    return [
        ("SMs", f"{chip.sm_count:,}" if chip.sm_count else "n/a", "Streaming multiprocessors (catalog)."),
        ("L2 cache", size_text(chip.l2_cache_bytes), "Shared by all SMs (catalog)."),
        ("Memory", size_text(chip.memory_bytes), "Device memory, decimal GB (catalog)."),
        ("Memory bandwidth", rate_text(chip.memory_bandwidth_bytes_per_s), "Datasheet peak (catalog)."),
        (
            f"Dense TFLOPS ({chip.flops_format})",
            f"{chip.dense_flops_per_s / 1e12:,.0f}",
            "Dense peak, not 2:4 sparse (catalog)." + (f" {chip.note}." if chip.note else ""),
        ),
        (
            "FLOPs per byte",
            f"{chip.flops_per_byte:,.0f}",
            "The roofline ridge point: dense peak ÷ memory bandwidth. A kernel doing fewer FLOPs per byte of "
            "memory traffic is memory-bound (decoding one token at batch 1 does about 1 per byte of weights).",
        ),
    ]


def hierarchy_points(hierarchy: Hierarchy) -> list[dict[str, Any]]:
    """Return one chart point per level that has both a capacity and a bandwidth."""
    return [
        {
            "order": index,
            "level": "Host RAM (assumed)" if level.key == "host" else level.name,
            "capacity_bytes": level.capacity_bytes,
            "bandwidth_gb_s": level.bandwidth_bytes_per_s / 1e9,
            "kind": level.bandwidth_kind,
            "capacity": size_text(level.capacity_bytes),
            "bandwidth": rate_text(level.bandwidth_bytes_per_s),
            "basis": level.bandwidth_basis,
        }
        for index, level in enumerate(hierarchy.levels)
        if level.bandwidth_bytes_per_s
    ]


def _read_text(time: ReadTime | None) -> str:
    if time is None or not time.fits:
        return "does not fit"
    if time.seconds is None:
        return "no bandwidth"
    if time.seconds >= 1:
        return f"{time.seconds:,.1f} s"
    return milliseconds(time.seconds, 2 if time.seconds < 1e-3 else 1)


def hierarchy_table(hierarchy: Hierarchy, times: tuple[ReadTime, ...]) -> list[dict[str, str]]:
    """Return one table row per level: capacity, bandwidth, how each was obtained, weight read time."""
    by_key = {time.key: time for time in times}
    return [
        {
            "Level": level.name,
            "Capacity": size_text(level.capacity_bytes),
            "Bandwidth": rate_text(level.bandwidth_bytes_per_s),
            "Read the weights once": _read_text(by_key.get(level.key)),
            "Capacity from": level.capacity_basis,
            "Bandwidth from": level.bandwidth_basis or "no published or measured figure",
        }
        for level in hierarchy.levels
    ]


_PHRASES = {
    "registers": "the register file",
    "shared": "shared memory",
    "l2": "the L2 cache",
    "device": "device memory",
    "host": "host RAM",
}


def hierarchy_takeaway(hierarchy: Hierarchy, chip_name: str) -> str:
    """Say what the hierarchy shows: the fastest and largest ends, and where the seed's rule breaks."""
    levels = hierarchy.levels
    timed = [level for level in levels if level.bandwidth_bytes_per_s]
    if len(timed) < 2:
        return f"The catalog gives only the device memory of the {chip_name}: {size_text(levels[0].capacity_bytes)}."
    first, last = timed[0], timed[-1]
    text = (
        f"Lower is larger and slower: on the {chip_name}, {_PHRASES[first.key]} moves "
        f"{rate_text(first.bandwidth_bytes_per_s)} but holds {size_text(first.capacity_bytes)}; "
        f"{_PHRASES[last.key]} holds {size_text(last.capacity_bytes)} at {rate_text(last.bandwidth_bytes_per_s)}"
    )
    if last.key == "host" and hierarchy.device_over_host:
        text += f", {_ratio(hierarchy.device_over_host)} slower than device memory"
    by_key = {level.key: level for level in levels}
    exceptions = [
        f"{_PHRASES[brk.upper]} ({size_text(by_key[brk.upper].capacity_bytes)}) is not smaller than "
        f"{_PHRASES[brk.lower]} ({size_text(by_key[brk.lower].capacity_bytes)})"
        if brk.quantity == "capacity"
        else f"{_PHRASES[brk.lower]} is not slower than {_PHRASES[brk.upper]}"
        for brk in hierarchy.breaks
    ]
    if exceptions:
        text += ". Except: " + "; ".join(exceptions)
    return text + "."


def link_bars(connections: Links) -> list[dict[str, Any]]:
    """Return one bar per link: GB/s per GPU per direction, with latency and the vendor's total."""
    return [
        {
            "link": f"{row.role_label}: {row.link.name}",
            "role": row.role_label,
            "gb_s": row.link.bandwidth_bytes_per_s / 1e9,
            "bidirectional_gb_s": (row.link.bidirectional_bytes_per_s or 0.0) / 1e9 or None,
            "latency_us": row.link.latency_s * 1e6,
        }
        for row in connections.rows
    ]


def link_table(connections: Links) -> list[dict[str, str]]:
    """Return one table row per link with its sources."""
    return [
        {
            "Link": f"{row.role_label}: {row.link.name}",
            "GB/s per direction": f"{row.link.bandwidth_bytes_per_s / 1e9:,.4g}",
            "Latency": f"{row.link.latency_s * 1e6:g} µs",
            "Bandwidth source": row.link.source,
            "Latency source": row.link.latency_source or "catalog",
        }
        for row in connections.rows
    ]


def links_takeaway(connections: Links) -> str:
    """Compare the scale-up link with the host link (the seed: NVLink ~10× PCIe) and the network."""
    scale_up = connections.rows[0].link
    network = connections.rows[1].link
    text = f"{scale_up.name} gives each GPU {rate_text(scale_up.bandwidth_bytes_per_s)} per direction"
    host = next((row.link for row in connections.rows if row.role == "host"), None)
    if host is not None and connections.scale_up_over_host is not None:
        text += (
            f": {_ratio(connections.scale_up_over_host)} its {host.name} host link (the seed says NVLink ≈ 10× PCIe)"
        )
    return text + f", and {_ratio(connections.scale_up_over_network)} the {network.name} network between nodes."


def generation_lines(rows: tuple[Generation, ...]) -> list[dict[str, Any]]:
    """Return the main line (one card per generation) as long rows: one per card per metric."""
    values = []
    for row in rows:
        if not row.main_line:
            continue
        figures = (row.dense_flops_per_s / 1e12, row.memory_bandwidth_bytes_per_s / 1e12, row.memory_bytes / 1e9)
        for (metric, unit), value in zip(_METRICS, figures, strict=True):
            values.append({"gpu": row.label, "year": row.year, "metric": metric, "unit": unit, "value": value})
    return values


def generation_seed_points(rows: tuple[Generation, ...]) -> list[dict[str, Any]]:
    """Return the seed's TFLOPS and memory figures as points (its table has no bandwidth column)."""
    points: dict[tuple[str, str], dict[str, Any]] = {}
    for row in rows:
        seed = row.seed
        for metric, value in (("Dense 16-bit TFLOPS", seed.tflops), ("Memory (GB)", max(seed.memory_gb))):
            shown = f"{value:,.0f}+" if metric.startswith("Dense") and seed.tflops_is_floor else f"{value:,.0f}"
            points[(seed.label, metric)] = {
                "gpu": f"{seed.label} (seed)",
                "year": seed.year,
                "metric": metric,
                "value": value,
                "shown": shown,
            }
    return list(points.values())


def _check(matches: bool) -> str:
    return "✓" if matches else "✗"


def generation_table(rows: tuple[Generation, ...]) -> list[dict[str, str]]:
    """Return the catalog's figures beside the seed's, marked ✓ where they agree."""
    table = []
    for row in rows:
        seed = row.seed
        memory = "/".join(f"{gb:g}" for gb in seed.memory_gb)
        tflops = f"{seed.tflops:,.0f}{'+' if seed.tflops_is_floor else ''}"
        table.append(
            {
                "GPU": row.label,
                "Year": str(row.year),
                "Seed year": f"{seed.year} {_check(row.year_matches)}",
                "Memory (GB)": f"{row.memory_bytes / 1e9:g}",
                "Seed memory": f"{memory} {_check(row.memory_matches)}",
                "Dense TFLOPS": f"{row.dense_flops_per_s / 1e12:,.0f} ({row.flops_format})",
                "Seed TFLOPS": f"{tflops} {_check(row.flops_matches)}",
                "TB/s": f"{row.memory_bandwidth_bytes_per_s / 1e12:.2f}",
                "FLOPs per byte": f"{row.flops_per_byte:,.0f}",
            }
        )
    return table


def seed_notes(rows: tuple[Generation, ...]) -> str:
    """Return a markdown list with one line per seed row: what the reference notes found about it."""
    notes = {row.seed.label: f"- **{row.seed.label}**: {row.seed.note}" for row in rows}
    return "\n".join(notes.values())


def generations_takeaway(growth: GenerationGrowth | None) -> str:
    """Say how compute, bandwidth and memory grew along the main line, step by step."""
    if growth is None:
        return "The catalog holds too few of V100 to B200 to draw the line."
    steps = ", ".join(f"{a} → {b} {_ratio(ratio)}" for a, b, ratio in growth.steps)
    return (
        f"From {growth.first} to {growth.last}, dense 16-bit compute grew {_ratio(growth.flops_ratio)}, memory "
        f"bandwidth {_ratio(growth.bandwidth_ratio)} and memory {_ratio(growth.memory_ratio)}: compute outran "
        f"memory, as the seed says, so more work is memory-bound. Compute per step: {steps} "
        "(the seed: 2-3× per generation)."
    )
