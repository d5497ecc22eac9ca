"""What one scenario's estimate assumes: precision, peaks, efficiencies, layouts, prices, ranges.

:func:`assumptions` says, for one scenario, which precision, peaks, efficiencies, layouts and
prices the estimate actually used; :func:`range_multipliers` says how the optimistic and
pessimistic efficiency sets move each family of factors. Every value is read from the estimate
(what it used), never worked out again here. The formulas themselves, with their sources, are
:data:`model.explain.formulas.FORMULAS`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields
from typing import NamedTuple

from model.batch import BATCH_AT_70B_TOKENS, TOKENS_PER_GPU_FLOOR
from model.catalog import Catalog, default_catalog
from model.efficiency import EXPECTED, OPTIMISTIC, PESSIMISTIC, Efficiencies, achievable_bandwidth, matmul_ceiling_share
from model.estimate import estimate
from model.layouts.serving import replica_name
from model.precision import compute_precision
from model.scenario import CHINCHILLA_TOKENS_PER_PARAM, Scenario
from model.units import GB, TERA, format_count

__all__ = ["Assumption", "assumptions", "range_multipliers"]


class Assumption(NamedTuple):
    """One assumption in force for a scenario: a name, the value used, and why or whence."""

    name: str
    value: str
    note: str
    kind: str = "scenario"
    """"scenario" (chosen or looked up for this scenario), "efficiency" (the expected set, the same
    for every scenario) or "range" (how the low-high ranges are made)."""


def range_multipliers(variant: Efficiencies) -> dict[str, float]:
    """Return how ``variant`` moves each family of efficiencies relative to the expected set."""
    return {
        "compute": variant.compute_scale / EXPECTED.compute_scale,
        "memory": variant.memory_scale / EXPECTED.memory_scale,
        "links": variant.link_scale / EXPECTED.link_scale,
        "overheads": variant.kernel_floor_s / EXPECTED.kernel_floor_s,
        "overlap": variant.tp_overlap / EXPECTED.tp_overlap,
    }


_EFFICIENCY_NOTES: dict[str, tuple[str, str]] = {
    "matmul_ceiling": (
        "Product ceiling by precision",
        "Share of dense peak a large product reaches where the GPU has no measured ceiling (H200 microbench 8192^3)",
    ),
    "matmul_half_work_flops": ("Product size at half ceiling (FLOPs)", "W0 of the efficiency curve (H200 4096^3 rows)"),
    "training_matmul_vs_ceiling": ("Training products vs ceiling", "Calibrated once on published training throughput"),
    "attention_vs_matmul": ("Flash attention vs products", "FlashAttention-2 paper: 50-73 % of A100 peak"),
    "memory_bandwidth": (
        "Memory bandwidth share",
        "Of peak HBM bandwidth where the GPU has no measured figure (H200 microbench 0.84-0.89)",
    ),
    "dequant_bandwidth": (
        "Weight-only quantised streaming",
        "int8/int4/fp4 weights stream slower than 16-bit (gpt-fast)",
    ),
    "kernel_floor_s": ("Overhead per layer per step", "Kernel launches, norms, rotary, sampling"),
    "collective_bandwidth": (
        "Scale-up collective share",
        "Of a link's per-direction bandwidth without a measured figure (nccl-tests NVLink 0.78-0.83)",
    ),
    "network_bandwidth": ("Network collective share", "Of a NIC's line rate (AWS EFA: 340 of 400 Gb/s)"),
    "tp_overlap": ("Tensor-parallel overlap", "Share of TP all-reduce time hidden behind compute"),
    "dp_overlap": ("Data-parallel overlap", "Share of the backward window that hides gradient traffic"),
    "ep_overlap": ("Expert-parallel overlap", "Share of all-to-all time hidden behind compute"),
    "overlap_interference": ("Overlap interference", "Compute slowdown per second of hidden communication"),
    "elementwise_traffic_factor": (
        "Element-wise traffic factor",
        "Memory traffic of non-matrix work per stored activation byte",
    ),
    "failure_rate_per_gpu_hour": (
        "Interruptions per GPU-hour",
        "Llama 3 paper sec. 3.3.4: 419 in 54 days on 16,384 GPUs",
    ),
    "hours_lost_per_failure": ("Hours lost per interruption", "Keeps Llama 3's >90 % effective training time"),
    "optimizer_bytes_per_param": ("Optimizer bytes per parameter", "HBM traffic of one AdamW update"),
}


def _factor(name: str, value: float | Mapping[str, float]) -> str:
    if isinstance(value, Mapping):
        return ", ".join(f"{key} {number:g}" for key, number in value.items())
    if name.endswith("_s"):
        return f"{value * 1e6:g} µs"
    return f"{value:g}"


def _efficiency_rows() -> list[Assumption]:
    return [
        Assumption(label, _factor(field.name, getattr(EXPECTED, field.name)), note, "efficiency")
        for field in fields(Efficiencies)
        for label, note in (_EFFICIENCY_NOTES.get(field.name, (field.name, "model/efficiency.py")),)
    ]


def _multipliers(variant: Efficiencies) -> str:
    return ", ".join(f"{name} ×{value:.3g}" for name, value in range_multipliers(variant).items())


def assumptions(scenario: Scenario, catalog: Catalog | None = None) -> tuple[Assumption, ...]:
    """Return what the estimate of ``scenario`` assumes: precision, peaks, efficiencies, layouts, prices.

    Raises:
        ScenarioError: the scenario is invalid.
    """
    catalog = catalog or default_catalog()
    result = estimate(scenario, catalog)
    r, s, training, serving = result.resolved, scenario, result.training, result.inference
    gpu = r.gpu
    key = serving.compute_precision
    fallback = compute_precision(gpu, r.precision)[1]
    peak = gpu.dense_flops_per_s[key]
    share = matmul_ceiling_share(gpu, key)
    achievable = achievable_bandwidth(gpu, EXPECTED)
    layout = training.parallelism
    if s.tokens is not None:
        tokens_note = "given"
    elif s.finetune != "none":
        tokens_note = "fine-tuning default"
    else:
        tokens_note = f"defaulted to {CHINCHILLA_TOKENS_PER_PARAM:g} per parameter (Chinchilla, Hoffmann et al. 2022)"
    price = r.price_per_gpu_hour
    if price is None:
        price_value, price_note = "none known", r.price.note
    elif r.price.source == "catalog":
        high = f"; high ${gpu.cloud_usd_per_gpu_hour_high:,.2f}" if gpu.cloud_usd_per_gpu_hour_high else ""
        price_value = f"${price:,.2f} per GPU-hour"
        dated = gpu.cloud_price_source
        if gpu.cloud_price_date not in dated:
            dated += f" ({gpu.cloud_price_date})"
        price_note = f"{dated}{high}"
    else:
        price_value, price_note = f"${price:,.2f} per GPU-hour", r.price.note
    up, net = r.scale_up, r.network
    rows = [
        Assumption(
            "Compute precision",
            f"{r.precision} → products in {key}" if key != r.precision else key,
            fallback
            or (
                f"Weight-only {r.precision}: weights are dequantised to {key} before each product"
                if key != r.precision
                else f"{gpu.name} runs {key} natively"
            ),
        ),
        Assumption(
            "Dense peak",
            f"{peak / TERA:,.1f} TFLOPS ({key})",
            f"Datasheet dense figure, no 2:4 sparsity; data/gpus.yaml row {gpu.id}",
        ),
        Assumption(
            "Matrix-product ceiling",
            f"{share:.0%} of peak (measured)"
            if share
            else f"{EXPECTED.matmul_ceiling.get(key, 0.7):.0%} of peak (default)",
            f"Measured largest-product rate in the catalog for {key}"
            if share
            else f"No measured ceiling for {gpu.name} in {key}: the H200-measured share",
        ),
        Assumption(
            "Memory bandwidth",
            f"{achievable / GB:,.0f} of {gpu.memory_bandwidth_bytes_per_s / GB:,.0f} GB/s",
            "Measured in the catalog"
            if gpu.measured_bandwidth_bytes_per_s
            else f"No measurement: {EXPECTED.memory_bandwidth:.0%} of the datasheet peak",
        ),
        Assumption(
            "Scale-up link",
            f"{up.name}: {up.bandwidth_bytes_per_s / GB:,.0f} GB/s per direction, {up.latency_s * 1e6:g} µs",
            f"{r.gpus_per_node} GPUs per node; collectives reach "
            + (
                f"{up.measured_efficiency:.0%} (measured)"
                if up.measured_efficiency
                else f"{EXPECTED.collective_bandwidth:.0%}"
            ),
        ),
        Assumption(
            "Network",
            f"{net.name}: {net.bandwidth_bytes_per_s / GB:,.1f} GB/s per GPU, {net.latency_s * 1e6:g} µs",
            "Collectives reach "
            + (
                f"{net.measured_efficiency:.0%} (measured)"
                if net.measured_efficiency
                else f"{EXPECTED.network_bandwidth:.0%}"
            ),
        ),
        Assumption(
            "Training layout",
            f"tp {layout.tp} × pp {layout.pp} × dp {layout.dp}"
            + (f" × ep {layout.ep}" if layout.ep > 1 else "")
            + f", ZeRO {layout.zero}, "
            + ("no" if training.recompute == "none" else training.recompute)
            + " recomputation"
            + (f" of {training.recomputed_layers} layers per stage" if training.recompute == "full" else "")
            + (f", {training.vp} chunks per stage" if training.vp > 1 else ""),
            ("Fits" if training.fits else "Does not fit")
            + f": {training.microbatches} micro-batches of {training.micro_batch} × {training.seq_len:,} tokens per "
            f"replica per step; the fastest of {training.layouts_timed:,} layouts timed that fits (values you fix "
            "are kept)",
        ),
        Assumption(
            "Training regime",
            f"{training.regime}, {s.optimizer}: {training.state_bytes_per_param:g} bytes per trained parameter",
            "Weights + gradients + optimizer state (with the fp32 master copy when there is one)",
        ),
        Assumption("Tokens trained", format_count(r.tokens), tokens_note),
        Assumption(
            "Global batch",
            f"{training.global_batch:,} sequences ({training.global_batch * training.seq_len / 1e6:,.1f}M tokens)",
            "Given"
            if s.global_batch
            else f"Chosen from practice: {BATCH_AT_70B_TOKENS / 2**20:g}M tokens at 70B, growing as the cube root "
            f"of the size, at least {TOKENS_PER_GPU_FLOOR:,} tokens per GPU, at most the critical batch "
            "(Kaplan et al. 2020)",
        ),
        Assumption(
            "Serving replica",
            f"{replica_name(serving.tp, serving.pp, serving.ep)}, {serving.dp:,} replicas",
            ("Fits" if serving.fits else "Does not fit")
            + f"; full load: {serving.max_batch:,} sequences of {s.prompt_len:,} + {s.output_len:,} tokens per replica",
        ),
        Assumption(
            "KV-cache precision",
            r.kv_precision,
            "Given"
            if s.kv_precision
            else f"Default for {r.precision} weights: fp8/fp4 checkpoints keep an fp8 cache, int8/int4 a 16-bit one",
        ),
        Assumption(
            "Decode context",
            f"{s.prompt_len + s.output_len / 2:,.0f} tokens (mean)",
            "KV traffic at the mean context (prompt + output / 2); memory at the final context",
        ),
        Assumption("GPU price", price_value, price_note),
        Assumption("Utilisation", f"{s.utilization:.0%}", "Share of time a server is busy; divides the $ per token"),
        Assumption(
            "Power",
            f"{gpu.tdp_w:g} W per card" if gpu.tdp_w else "unknown",
            "Board TDP from the catalog; energy = GPU-hours × TDP",
        ),
        *_efficiency_rows(),
        Assumption(
            "Optimistic set", _multipliers(OPTIMISTIC), "Low end of every time, high end of every rate", "range"
        ),
        Assumption(
            "Pessimistic set", _multipliers(PESSIMISTIC), "High end of every time, low end of every rate", "range"
        ),
    ]
    return tuple(rows)
