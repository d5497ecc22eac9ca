"""Shape the anatomy engine's results into chart rows, table rows and one-line takeaways.

Pure functions: :mod:`model.analyses.anatomy` results in, lists of dicts and sentences out. The only
arithmetic is unit conversion (bytes to GB, bytes/s to GB/s or TB/s, FLOP/s to TFLOPS).
"""

from __future__ import annotations

from typing import Any

from model.analyses.anatomy import ChipSummary, Hierarchy, Links, Phrase, ReadTime
from model.analyses.generations import Generation, GenerationGrowth
from ui.format import milliseconds
from ui.i18n import tr, translatable

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
    "source_lines",
    "worded",
]

DENSE_TFLOPS, BANDWIDTH_TBS, MEMORY_GB = (
    translatable("Dense 16-bit TFLOPS"),
    translatable("Bandwidth (TB/s)"),
    translatable("Memory (GB)"),
)
"""The generations chart's three figures, named in English (rows and legend carry ``tr(name)``)."""
_METRICS = ((DENSE_TFLOPS, "TFLOPS"), (BANDWIDTH_TBS, "TB/s"), (MEMORY_GB, "GB"))


def size_text(nbytes: float | None) -> str:
    """Format a capacity in decimal units ('34.6 MB', '80 GB', '256 GB')."""
    if nbytes is None:
        return tr("n/a")
    for scale, unit in ((1e12, "TB"), (1e9, "GB"), (1e6, "MB"), (1e3, "kB")):
        if nbytes >= scale:
            return f"{nbytes / scale:,.3g} {unit}"
    return f"{nbytes:,.0f} B"


def rate_text(bytes_per_s: float | None) -> str:
    """Format a bandwidth as TB/s from 1 TB/s up, else GB/s ('402 TB/s', '63 GB/s')."""
    if bytes_per_s is None:
        return tr("no source")
    if bytes_per_s >= 1e12:
        return f"{bytes_per_s / 1e12:,.3g} TB/s"
    return f"{bytes_per_s / 1e9:,.3g} GB/s"


def worded(phrase: Phrase) -> str:
    """Say one of the engine's anatomy phrases in the visit's language."""
    return tr(phrase.template, **phrase.fields)


def _ratio(value: float) -> str:
    return f"{value:,.1f}×" if value < 10 else f"{value:,.0f}×"


def chip_metrics(chip: ChipSummary) -> list[tuple[str, str, str]]:
    """Return (label, value, help) for the chip's headline metrics."""
    return [
        (tr("SMs"), f"{chip.sm_count:,}" if chip.sm_count else tr("n/a"), tr("Streaming multiprocessors (catalog).")),
        (tr("L2 cache"), size_text(chip.l2_cache_bytes), tr("Shared by all SMs (catalog).")),
        (tr("Memory"), size_text(chip.memory_bytes), tr("Device memory, decimal GB (catalog).")),
        (tr("Memory bandwidth"), rate_text(chip.memory_bandwidth_bytes_per_s), tr("Datasheet peak (catalog).")),
        (
            tr("Dense TFLOPS ({format})", format=chip.flops_format),
            f"{chip.dense_flops_per_s / 1e12:,.0f}",
            tr("{peak} {note}.", peak=tr("Dense peak, not 2:4 sparse (catalog)."), note=worded(chip.remark))
            if chip.remark
            else tr("Dense peak, not 2:4 sparse (catalog)."),
        ),
        (
            tr("FLOPs per byte"),
            f"{chip.flops_per_byte:,.0f}",
            tr(
                "The roofline ridge point: dense peak ÷ memory bandwidth. A kernel doing fewer FLOPs per byte of "
                "memory traffic is memory-bound (decoding one token at batch 1 does about 1 per byte of weights)."
            ),
        ),
    ]


def hierarchy_points(hierarchy: Hierarchy) -> list[dict[str, Any]]:
    """Return one chart point per level that has both a capacity and a bandwidth."""
    return [
        {
            "order": index,
            "level": tr("Host RAM (assumed)") if level.key == "host" else worded(level.title),
            "capacity_bytes": level.capacity_bytes,
            "bandwidth_gb_s": level.bandwidth_bytes_per_s / 1e9,
            "kind": tr(level.bandwidth_kind),  # 'catalog', 'derived' or 'measured': charts.KIND_COLORS
            "capacity": size_text(level.capacity_bytes),
            "bandwidth": rate_text(level.bandwidth_bytes_per_s),
            "basis": worded(level.bandwidth_from) if level.bandwidth_from else "",
        }
        for index, level in enumerate(hierarchy.levels)
        if level.bandwidth_bytes_per_s
    ]


def _read_text(time: ReadTime | None) -> str:
    if time is None or not time.fits:
        return tr("does not fit")
    if time.seconds is None:
        return tr("no bandwidth")
    if time.seconds >= 1:
        return f"{time.seconds:,.1f} s"
    return milliseconds(time.seconds, 2 if time.seconds < 1e-3 else 1)


def hierarchy_table(hierarchy: Hierarchy, times: tuple[ReadTime, ...]) -> list[dict[str, str]]:
    """Return one table row per level: capacity, bandwidth, how each was obtained, weight read time."""
    by_key = {time.key: time for time in times}
    return [
        {
            tr("Level"): worded(level.title),
            tr("Capacity"): size_text(level.capacity_bytes),
            tr("Bandwidth"): rate_text(level.bandwidth_bytes_per_s),
            tr("Read the weights once"): _read_text(by_key.get(level.key)),
            tr("Capacity from"): worded(level.capacity_from),
            tr("Bandwidth from"): worded(level.bandwidth_from)
            if level.bandwidth_from
            else tr("no published or measured figure"),
        }
        for level in hierarchy.levels
    ]


def source_lines(hierarchy: Hierarchy) -> list[str]:
    """Return a markdown line per level that names where its bandwidth comes from (catalog sources as written)."""
    return [
        tr(
            "- **{name}**: {text}",
            name=worded(level.title),
            text=worded(level.explained) if level.explained else level.cited,
        )
        for level in hierarchy.levels
        if level.explained or level.cited
    ]


_PHRASES = {
    "registers": translatable("the register file"),
    "shared": translatable("shared memory"),
    "l2": translatable("the L2 cache"),
    "device": translatable("device memory"),
    "host": translatable("host RAM"),
}


def _phrase(key: str) -> str:
    return tr(_PHRASES[key])


def hierarchy_takeaway(hierarchy: Hierarchy, chip_name: str) -> str:
    """Say what the hierarchy shows: the fastest and largest ends, and where the seed's rule breaks."""
    levels = hierarchy.levels
    timed = [level for level in levels if level.bandwidth_bytes_per_s]
    if len(timed) < 2:
        return tr(
            "The catalog gives only the device memory of the {chip}: {size}.",
            chip=chip_name,
            size=size_text(levels[0].capacity_bytes),
        )
    first, last = timed[0], timed[-1]
    text = tr(
        "Lower is larger and slower: on the {chip}, {fast} moves {fast_rate} but holds {fast_size}; "
        "{slow} holds {slow_size} at {slow_rate}",
        chip=chip_name,
        fast=_phrase(first.key),
        fast_rate=rate_text(first.bandwidth_bytes_per_s),
        fast_size=size_text(first.capacity_bytes),
        slow=_phrase(last.key),
        slow_size=size_text(last.capacity_bytes),
        slow_rate=rate_text(last.bandwidth_bytes_per_s),
    )
    if last.key == "host" and hierarchy.device_over_host:
        text += tr(", {ratio} slower than device memory", ratio=_ratio(hierarchy.device_over_host))
    by_key = {level.key: level for level in levels}
    exceptions = [
        tr(
            "{upper} ({upper_size}) is not smaller than {lower} ({lower_size})",
            upper=_phrase(brk.upper),
            upper_size=size_text(by_key[brk.upper].capacity_bytes),
            lower=_phrase(brk.lower),
            lower_size=size_text(by_key[brk.lower].capacity_bytes),
        )
        if brk.quantity == "capacity"
        else tr("{lower} is not slower than {upper}", lower=_phrase(brk.lower), upper=_phrase(brk.upper))
        for brk in hierarchy.breaks
    ]
    if exceptions:
        text += tr(". Except: {exceptions}", exceptions=tr("; ").join(exceptions))
    return tr("{sentence}.", sentence=text)


def link_bars(connections: Links) -> list[dict[str, Any]]:
    """Return one bar per link: GB/s per GPU per direction, with latency and the vendor's total."""
    return [
        {
            "link": tr("{role}: {link}", role=worded(row.label), link=row.link.name),
            "role": worded(row.label),  # one of app_pages.anatomy.charts.ROLE_COLORS
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
            tr("Link"): tr("{role}: {link}", role=worded(row.label), link=row.link.name),
            tr("GB/s per direction"): f"{row.link.bandwidth_bytes_per_s / 1e9:,.4g}",
            tr("Latency"): f"{row.link.latency_s * 1e6:g} µs",
            tr("Bandwidth source"): row.link.source,
            tr("Latency source"): row.link.latency_source or tr("catalog"),
        }
        for row in connections.rows
    ]


def links_takeaway(connections: Links) -> str:
    """Compare the scale-up link with the host link (the seed: NVLink ~10× PCIe) and the network."""
    scale_up = connections.rows[0].link
    network = connections.rows[1].link
    host = next((row.link for row in connections.rows if row.role == "host"), None)
    shared = {
        "link": scale_up.name,
        "rate": rate_text(scale_up.bandwidth_bytes_per_s),
        "network_ratio": _ratio(connections.scale_up_over_network),
        "network": network.name,
    }
    if host is not None and connections.scale_up_over_host is not None:
        return tr(
            "{link} gives each GPU {rate} per direction: {host_ratio} its {host} host link "
            "(the seed says NVLink ≈ 10× PCIe), and {network_ratio} the {network} network between nodes.",
            host_ratio=_ratio(connections.scale_up_over_host),
            host=host.name,
            **shared,
        )
    return tr(
        "{link} gives each GPU {rate} per direction, and {network_ratio} the {network} network between nodes.",
        **shared,
    )


def generation_lines(rows: tuple[Generation, ...]) -> list[dict[str, Any]]:
    """Return the main line (one card per generation) as long rows: one per card per metric."""
    values = []
    for row in rows:
        if not row.main_line:
            continue
        figures = (row.dense_flops_per_s / 1e12, row.memory_bandwidth_bytes_per_s / 1e12, row.memory_bytes / 1e9)
        for (metric, unit), value in zip(_METRICS, figures, strict=True):
            values.append({"gpu": row.label, "year": row.year, "metric": tr(metric), "unit": unit, "value": value})
    return values


def generation_seed_points(rows: tuple[Generation, ...]) -> list[dict[str, Any]]:
    """Return the seed's TFLOPS and memory figures as points (its table has no bandwidth column)."""
    points: dict[tuple[str, str], dict[str, Any]] = {}
    for row in rows:
        seed = row.seed
        for metric, value in ((DENSE_TFLOPS, seed.tflops), (MEMORY_GB, max(seed.memory_gb))):
            shown = f"{value:,.0f}+" if metric == DENSE_TFLOPS and seed.tflops_is_floor else f"{value:,.0f}"
            points[(seed.label, metric)] = {
                "gpu": tr("{gpu} (seed)", gpu=seed.label),
                "year": seed.year,
                "metric": tr(metric),
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
                tr("Year"): str(row.year),
                tr("Seed year"): f"{seed.year} {_check(row.year_matches)}",
                tr(MEMORY_GB): f"{row.memory_bytes / 1e9:g}",
                tr("Seed memory"): f"{memory} {_check(row.memory_matches)}",
                tr("Dense TFLOPS"): f"{row.dense_flops_per_s / 1e12:,.0f} ({row.flops_format})",
                tr("Seed TFLOPS"): f"{tflops} {_check(row.flops_matches)}",
                "TB/s": f"{row.memory_bandwidth_bytes_per_s / 1e12:.2f}",
                tr("FLOPs per byte"): f"{row.flops_per_byte:,.0f}",
            }
        )
    return table


def seed_notes(rows: tuple[Generation, ...]) -> str:
    """Return a markdown list with one line per seed row: what the reference notes found about it."""
    notes = {row.seed.label: tr("- **{name}**: {text}", name=row.seed.label, text=tr(row.seed.note)) for row in rows}
    return "\n".join(notes.values())


def generations_takeaway(growth: GenerationGrowth | None) -> str:
    """Say how compute, bandwidth and memory grew along the main line, step by step."""
    if growth is None:
        return tr("The catalog holds too few of V100 to B200 to draw the line.")
    steps = tr(", ").join(f"{a} → {b} {_ratio(ratio)}" for a, b, ratio in growth.steps)
    return tr(
        "From {first} to {last}, dense 16-bit compute grew {flops}, memory bandwidth {bandwidth} and memory "
        "{memory}: compute outran memory, as the seed says, so more work is memory-bound. Compute per step: "
        "{steps} (the seed: 2-3× per generation).",
        first=growth.first,
        last=growth.last,
        flops=_ratio(growth.flops_ratio),
        bandwidth=_ratio(growth.bandwidth_ratio),
        memory=_ratio(growth.memory_ratio),
        steps=steps,
    )
