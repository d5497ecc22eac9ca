"""Seed claims checked against catalog rows alone: generations, prices, servers, links, H20, API prices.

Each check reads the figures it needs from the catalog (data/gpus.yaml, data/interconnects.yaml,
data/prices.yaml) and judges the claim by :func:`model.seeds.rule.verdict`. :data:`CATALOG_CHECKS`
maps each claim id to its check; :func:`model.seeds.check_claims` runs them.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable

from model.catalog import Catalog, Gpu
from model.seeds.claims import SEED_CLAIMS, ClaimCheck, SeedClaim, Verdict
from model.seeds.rule import (
    APPROXIMATE_TOLERANCE,
    SPEC_TOLERANCE,
    point,
    price_row,
    verdict,
    worst_verdict,
)
from model.units import GB, TERA, format_usd

__all__ = ["CATALOG_CHECKS"]


def _fp16(gpu: Gpu) -> float:
    flops = gpu.dense_flops_per_s
    return flops.get("fp16") or flops.get("bf16") or 0.0


def _check_generation(claim: SeedClaim, catalog: Catalog) -> ClaimCheck:
    memory, tflops = claim.figure("memory_gb"), claim.figure("fp16_tflops")
    parts: list[str] = []
    notes: list[str] = []
    values: list[float] = []
    verdicts: list[Verdict] = []
    for gpu_id in claim.subjects:
        gpu = catalog.gpus[gpu_id]
        gb, tf = gpu.memory_bytes / GB, _fp16(gpu) / TERA
        values.append(tf)
        checks = (verdict(memory, point(gb), SPEC_TOLERANCE), verdict(tflops, point(tf), SPEC_TOLERANCE))
        verdicts.extend(checks)
        parts.append(f"{gpu.short_name}: {gb:g} GB, {tf:,.1f} TFLOPS")
        if checks[0] != "consistent":
            notes.append(f"{gpu.short_name} has {gb:g} GB")
        if checks[1] != "consistent":
            notes.append(f"{gpu.short_name} has {tf:,.0f} dense FP16 TFLOPS")
        sparse = gpu.sparse_flops_per_s.get("fp16")
        if sparse:
            notes.append(f"{gpu.short_name}'s datasheet prints {sparse / TERA:,.0f} with 2:4 sparsity")
    text = "Catalog dense FP16 tensor peaks (data/gpus.yaml). " + "; ".join(notes) + ("." if notes else "")
    return ClaimCheck(claim, "; ".join(parts), min(values), worst_verdict(*verdicts), f"{text} {claim.context}".strip())


def _check_rack(claim: SeedClaim, catalog: Catalog) -> ClaimCheck:
    gpu = catalog.gpus[claim.subjects[0]]
    total = gpu.gpus_per_node * _fp16(gpu) / TERA
    tf32 = gpu.gpus_per_node * gpu.dense_flops_per_s.get("tf32", math.nan) / TERA
    return ClaimCheck(
        claim,
        f"{total:,.0f} TFLOPS",
        total,
        verdict(claim.figure("rack_tflops"), point(total), 0.0),
        f"{gpu.gpus_per_node} GPUs × {_fp16(gpu) / TERA:,.0f} dense FP16 TFLOPS ({gpu.short_name}, data/gpus.yaml) = "
        f"{total / 1000:,.0f} PFLOPS, so 'tens of thousands' understates the rack; it fits TF32 ({tf32:,.0f} TFLOPS).",
    )


def _check_generation_step(claim: SeedClaim, catalog: Catalog) -> ClaimCheck:
    gpus = [catalog.gpus[gpu_id] for gpu_id in claim.subjects]
    pairs = list(itertools.pairwise(gpus))
    ratios = [_fp16(new) / _fp16(old) for old, new in pairs]
    steps = ", ".join(f"{old.short_name} → {new.short_name} {_fp16(new) / _fp16(old):.2f}×" for old, new in pairs)
    return ClaimCheck(
        claim,
        f"{min(ratios):.2f}-{max(ratios):.2f}×",
        sum(ratios) / len(ratios),
        worst_verdict(*(verdict(claim.figure("ratio"), point(ratio), APPROXIMATE_TOLERANCE) for ratio in ratios)),
        f"Dense FP16 tensor peaks, one architecture to the next: {steps}. H200 keeps H100's compute (a memory "
        "upgrade), so it is not a step.",
    )


def _check_price(claim: SeedClaim, catalog: Catalog) -> ClaimCheck:
    gpu = catalog.gpus[claim.subjects[0]]
    price = gpu.purchase_usd
    if price is None:
        return ClaimCheck(claim, "no price in the catalog", math.nan, "partly", "The catalog has no purchase price.")
    verdicts = [verdict(claim.figure("usd"), point(price), APPROXIMATE_TOLERANCE)]
    memory = f"{gpu.memory_bytes / GB:g} GB, "
    if any(name == "memory_gb" for name, _, _ in claim.figures):
        verdicts.append(verdict(claim.figure("memory_gb"), point(gpu.memory_bytes / GB), SPEC_TOLERANCE))
    return ClaimCheck(
        claim,
        f"{memory}${price:,.0f}",
        price,
        worst_verdict(*verdicts),
        f"Catalog purchase price: {gpu.purchase_source}. {claim.context}".strip(),
    )


def _check_server(claim: SeedClaim, catalog: Catalog) -> ClaimCheck:
    gpu = catalog.gpus[claim.subjects[0]]
    gpus = gpu.gpus_per_node * (gpu.purchase_usd or math.nan)
    return ClaimCheck(
        claim,
        f"{format_usd(gpus)} for the {gpu.gpus_per_node} GPUs",
        gpus,
        verdict(claim.figure("usd"), point(gpus), APPROXIMATE_TOLERANCE),
        f"{gpu.gpus_per_node} × the catalog's {format_usd(gpu.purchase_usd)} per {gpu.short_name}; the CPUs, memory, "
        f"NICs, NVSwitch and chassis make up the remaining {format_usd(claim.figure('usd')[0] - gpus)} of the claim.",
    )


def _check_tensor_cores(claim: SeedClaim, catalog: Catalog) -> ClaimCheck:
    gpu = catalog.gpus[claim.subjects[0]]
    flops = gpu.dense_flops_per_s
    fp32 = flops["fp32"]
    like = flops.get("tf32", math.nan) / fp32
    mixed = flops.get("bf16", math.nan) / fp32
    checks = [verdict(claim.figure("ratio"), point(value), APPROXIMATE_TOLERANCE) for value in (like, mixed)]
    result: Verdict = "consistent" if all(v == "consistent" for v in checks) else (
        "partly" if "consistent" in checks else "contradicts")  # fmt: skip
    fp8 = f"; FP8 tensor: {flops['fp8'] / fp32:.0f}×" if "fp8" in flops else ""
    return ClaimCheck(
        claim,
        f"{like:.1f}× (TF32 vs FP32), {mixed:.1f}× (BF16 vs FP32)",
        like,
        result,
        f"{gpu.short_name} dense: TF32 tensor {flops.get('tf32', math.nan) / TERA:,.1f} vs FP32 CUDA-core "
        f"{fp32 / TERA:,.1f} TFLOPS is the like-for-like {like:.1f}×; mixed-precision training compares BF16 tensor "
        f"{flops.get('bf16', math.nan) / TERA:,.1f} with FP32, {mixed:.1f}×{fp8}.",
    )


def _check_nvlink(claim: SeedClaim, catalog: Catalog) -> ClaimCheck:
    parts, ratios = [], []
    for gpu_id in claim.subjects:
        gpu = catalog.gpus[gpu_id]
        if gpu.host_link is None:
            continue
        up, host = catalog.interconnects[gpu.scale_up], catalog.interconnects[gpu.host_link]
        ratios.append(up.bandwidth_bytes_per_s / host.bandwidth_bytes_per_s)
        parts.append(f"{gpu.short_name}: {up.short_name} / {host.name} = {ratios[-1]:.1f}×")
    return ClaimCheck(
        claim,
        f"{min(ratios):.0f}-{max(ratios):.0f}×",
        sum(ratios) / len(ratios),
        verdict(claim.figure("ratio"), (min(ratios), max(ratios)), APPROXIMATE_TOLERANCE),
        "Per-direction bandwidth of each generation's scale-up link over its host PCIe link "
        f"(data/interconnects.yaml): {'; '.join(parts)}.",
    )


def _check_api(claim: SeedClaim, catalog: Catalog) -> ClaimCheck:
    row = price_row(catalog, claim.subjects[0])
    if row is None:
        return ClaimCheck(claim, "not in data/prices.yaml", math.nan, "partly", "No catalog row to compare.")
    found = worst_verdict(
        verdict(claim.figure("output_usd_per_million"), point(row.output_usd_per_million), SPEC_TOLERANCE),
        verdict(claim.figure("input_usd_per_million"), point(row.input_usd_per_million), SPEC_TOLERANCE),
    )
    later = [p for p in (price_row(catalog, i) for i in claim.subjects[1:]) if p is not None and p.date > row.date]
    changed = [p for p in later if (p.input_usd_per_million, p.output_usd_per_million)
               != (row.input_usd_per_million, row.output_usd_per_million)]  # fmt: skip
    if found == "consistent" and changed:
        found = "partly"
    since = "; ".join(
        f"{p.model} ${p.input_usd_per_million:g} / ${p.output_usd_per_million:g} from {p.date}" for p in later
    )
    return ClaimCheck(
        claim,
        f"${row.input_usd_per_million:g} / ${row.output_usd_per_million:g} from {row.date}",
        row.output_usd_per_million,
        found,
        f"data/prices.yaml row {row.id}." + (f" Later: {since}." if since else ""),
    )


def _check_h20(claim: SeedClaim, catalog: Catalog) -> ClaimCheck:
    gpu = catalog.gpus[claim.subjects[0]]
    memory, bandwidth = gpu.memory_bytes / GB, gpu.memory_bandwidth_bytes_per_s / GB
    fp8 = gpu.dense_flops_per_s.get("fp8", math.nan) / TERA
    return ClaimCheck(
        claim,
        f"{memory:g} GB {gpu.memory_type}, {bandwidth:,.0f} GB/s, {fp8:g} TFLOPS",
        memory,
        worst_verdict(
            verdict(claim.figure("memory_gb"), point(memory), SPEC_TOLERANCE),
            verdict(claim.figure("bandwidth_gb_per_s"), point(bandwidth), SPEC_TOLERANCE),
            verdict(claim.figure("fp8_tflops"), point(fp8), SPEC_TOLERANCE),
        ),
        f"Catalog row {gpu.id} (dense FP8). {claim.context}",
    )


CATALOG_CHECKS: dict[str, Callable[[SeedClaim, Catalog], ClaimCheck]] = {
    **{
        c.id: _check_generation
        for c in SEED_CLAIMS
        if c.id.startswith("gen-") and c.id not in ("gen-nvl72", "gen-step")
    },
    "gen-nvl72": _check_rack,
    "gen-step": _check_generation_step,
    **{c.id: _check_price for c in SEED_CLAIMS if c.id.startswith("price-")},
    "server-8x-h100": _check_server,
    "tensor-cores-8x": _check_tensor_cores,
    "nvlink-10x-pcie": _check_nvlink,
    "api-gpt-4o": _check_api,
    "api-claude-3-5": _check_api,
    "h20-specs": _check_h20,
}
"""The check of each claim that needs only catalog rows, by claim id."""
