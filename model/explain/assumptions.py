"""What one scenario's estimate assumes: precision, peaks, efficiencies, layouts, prices, ranges.

:func:`assumptions` says, for one scenario, which precision, peaks, efficiencies, layouts and
prices the estimate actually used; :func:`range_multipliers` says how the optimistic and
pessimistic efficiency sets move each family of factors. Every value is read from the estimate
(what it used), never worked out again here. The formulas themselves, with their sources, are
:data:`model.explain.formulas.FORMULAS`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields as dataclass_fields
from types import MappingProxyType
from typing import NamedTuple

from model.batch import BATCH_AT_70B_TOKENS, TOKENS_PER_GPU_FLOOR
from model.catalog import DRIVER_RESERVED_BYTES, Catalog, default_catalog
from model.efficiency import EXPECTED, OPTIMISTIC, PESSIMISTIC, Efficiencies, achievable_bandwidth, matmul_ceiling_share
from model.estimate import estimate
from model.explain._texts import ASSUMPTION_TEXTS, EFFICIENCY_NOTES, has_words
from model.inference import serving_capacity
from model.layouts.serving import replica_name
from model.precision import compute_precision
from model.results import Estimate
from model.scenario import CHINCHILLA_TOKENS_PER_PARAM, Scenario
from model.units import GB, TERA, format_count

__all__ = ["Assumption", "assumptions", "range_multipliers"]


class Assumption(NamedTuple):
    """One assumption in force for a scenario: a name, the value used, and why or whence.

    ``value`` and ``note`` are English; ``value_template`` and ``note_template`` are the same texts
    with their figures as ``{fields}`` (filled from ``fields``), for an interface that translates them.
    """

    name: str
    value: str
    note: str
    kind: str = "scenario"
    """"scenario" (chosen or looked up for this scenario), "efficiency" (the expected set, the same
    for every scenario) or "range" (how the low-high ranges are made)."""
    value_template: str = ""
    note_template: str = ""
    fields: Mapping[str, str] = MappingProxyType({})
    """The figures and names, already formatted, that fill both templates."""


def _row(name: str, value: str, note: str, /, *, kind: str = "scenario", **fields: str) -> Assumption:
    """Return an assumption whose value and note are templates filled from ``fields``."""
    for template in (value, note):
        assert template in ASSUMPTION_TEXTS or not has_words(template), template  # listed, so translated
    return Assumption(name, value.format(**fields), note.format(**fields), kind, value, note, MappingProxyType(fields))


def range_multipliers(variant: Efficiencies) -> dict[str, float]:
    """Return how ``variant`` moves each family of efficiencies relative to the expected set."""
    return {
        "compute": variant.compute_scale / EXPECTED.compute_scale,
        "memory": variant.memory_scale / EXPECTED.memory_scale,
        "links": variant.link_scale / EXPECTED.link_scale,
        "overheads": variant.kernel_floor_s / EXPECTED.kernel_floor_s,
        "overlap": variant.tp_overlap / EXPECTED.tp_overlap,
    }


def _factor(name: str, value: float | Mapping[str, float]) -> str:
    if isinstance(value, Mapping):
        return ", ".join(f"{key} {number:g}" for key, number in value.items())
    if name.endswith("_s"):
        return f"{value * 1e6:g} µs"
    if name.endswith("_bytes"):  # sizes as their sources give them: 8 MiB (vLLM's limit), 16 MB
        return f"{value / 2**20:g} MiB" if value % 2**20 == 0 else f"{value / 1e6:g} MB"
    return f"{value:g}"


def _efficiency_rows() -> list[Assumption]:
    rows = []
    for field in dataclass_fields(Efficiencies):
        value = _factor(field.name, getattr(EXPECTED, field.name))
        if field.name in EFFICIENCY_NOTES:
            label, note = EFFICIENCY_NOTES[field.name]
            rows.append(_row(label, "{value}", note, kind="efficiency", value=value))
        else:  # listed under its own name, as the code spells it
            where = "model/efficiency.py"
            rows.append(_row(field.name, "{value}", "{where}", kind="efficiency", value=value, where=where))
    return rows


def _range_row(name: str, variant: Efficiencies, note: str) -> Assumption:
    multipliers = {family: f"{value:.3g}" for family, value in range_multipliers(variant).items()}
    template = "compute ×{compute}, memory ×{memory}, links ×{links}, overheads ×{overheads}, overlap ×{overlap}"
    return _row(name, template, note, kind="range", **multipliers)


def _share(share: float, measured: float | None) -> tuple[str, str]:
    """Return the "collectives reach" phrase's template ending and the share it names."""
    return (" (measured)", f"{measured:.0%}") if measured else ("", f"{share:.0%}")


def _hardware_rows(result: Estimate) -> list[Assumption]:
    """Precision, peaks and links: what the GPU and its links give the estimate."""
    r, gpu, key = result.resolved, result.resolved.gpu, result.inference.compute_precision
    names = {"key": key, "precision": r.precision, "gpu": gpu.name}
    fallback = compute_precision(gpu, r.precision)[1]
    if fallback:
        said = "{gpu} has no {precision} tensor cores; products run in {key}"
        note = said if said.format(**names) == fallback else "{fallback}"
    elif key != r.precision:
        note = "Weight-only {precision}: weights are dequantised to {key} before each product"
    else:
        note = "{gpu} runs {key} natively"
    value = "{precision} → products in {key}" if key != r.precision else "{key}"
    share = matmul_ceiling_share(gpu, key)
    up, net = r.scale_up, r.network
    up_end, up_share = _share(EXPECTED.collective_bandwidth, up.measured_efficiency)
    net_end, net_share = _share(EXPECTED.network_bandwidth, net.measured_efficiency)
    return [
        _row("Compute precision", value, note, **names, fallback=fallback or ""),
        _row(
            "Dense peak",
            "{tflops} TFLOPS ({key})",
            "Datasheet dense figure, no 2:4 sparsity; data/gpus.yaml row {gpu_id}",
            tflops=f"{gpu.dense_flops_per_s[key] / TERA:,.1f}",
            key=key,
            gpu_id=gpu.id,
        ),
        _row(
            "Matrix-product ceiling",
            "{share} of peak (measured)" if share else "{share} of peak (default)",
            "Measured largest-product rate in the catalog for {key}"
            if share
            else "No measured ceiling for {gpu} in {key}: the H200-measured share",
            share=f"{share:.0%}" if share else f"{EXPECTED.matmul_ceiling.get(key, 0.7):.0%}",
            **names,
        ),
        _row(
            "Card memory",
            "{capacity} GB usable; serving budgets {serving} GB",
            "The driver reports {mib} MiB, less {reserved} GB it keeps from CUDA; the datasheet prints {printed} GB"
            if gpu.reported_memory_bytes
            else "The datasheet's {printed} GB (no driver reading in the catalog)",
            capacity=f"{gpu.capacity_bytes / GB:,.1f}",
            serving=f"{serving_capacity(gpu.capacity_bytes) / GB:,.1f}",
            mib=f"{(gpu.reported_memory_bytes or 0) / 2**20:,.0f}",
            reserved=f"{DRIVER_RESERVED_BYTES / GB:g}",
            printed=f"{gpu.memory_bytes / GB:g}",
        ),
        _row(
            "Memory bandwidth",
            "{achievable} of {peak} GB/s",
            "Measured in the catalog"
            if gpu.measured_bandwidth_bytes_per_s
            else "No measurement: {share} of the datasheet peak",
            achievable=f"{achievable_bandwidth(gpu, EXPECTED) / GB:,.0f}",
            peak=f"{gpu.memory_bandwidth_bytes_per_s / GB:,.0f}",
            share=f"{EXPECTED.memory_bandwidth:.0%}",
        ),
        _row(
            "Scale-up link",
            "{link}: {bandwidth} GB/s per direction, {latency} µs"
            + (" ({library} µs an all-reduce through NCCL or RCCL)" if up.library_latency_s else ""),
            "{gpus} GPUs per node; collectives reach {share}" + up_end,
            link=up.name,
            bandwidth=f"{up.bandwidth_bytes_per_s / GB:,.0f}",
            latency=f"{up.latency_s * 1e6:g}",
            library=f"{(up.library_latency_s or 0.0) * 1e6:g}",
            gpus=f"{r.gpus_per_node}",
            share=up_share,
        ),
        _row(
            "Network",
            "{link}: {bandwidth} GB/s per GPU, {latency} µs",
            "Collectives reach {share}" + net_end,
            link=net.name,
            bandwidth=f"{net.bandwidth_bytes_per_s / GB:,.1f}",
            latency=f"{net.latency_s * 1e6:g}",
            share=net_share,
        ),
    ]


def _training_rows(result: Estimate) -> list[Assumption]:
    """The training layout, regime, tokens and batch the estimate chose or was given."""
    r, s, training = result.resolved, result.resolved.scenario, result.training
    layout = training.parallelism
    recompute = {"none": "no recomputation", "selective": "selective recomputation"}.get(
        training.recompute, "full recomputation of {layers} layers per stage"
    )
    shape = {
        "tp": f"{layout.tp}",
        "pp": f"{layout.pp}",
        "dp": f"{layout.dp}",
        "ep": f" × ep {layout.ep}" if layout.ep > 1 else "",
        "zero": f"{layout.zero}",
        "layers": f"{training.recomputed_layers}",
        "vp": f"{training.vp}",
    }
    chunks = ", {vp} chunks per stage"
    regime, regime_fields = _regime(training.regime, s.lora_rank)
    if s.tokens is not None:
        tokens_note = "given"
    elif s.finetune != "none":
        tokens_note = "fine-tuning default"
    else:
        tokens_note = "defaulted to {per_param} per parameter (Chinchilla, Hoffmann et al. 2022)"
    return [
        _row(
            "Training layout",
            "tp {tp} × pp {pp} × dp {dp}{ep}, ZeRO {zero}, " + recompute + (chunks if training.vp > 1 else ""),
            ("Fits" if training.fits else "Does not fit")
            + ": {micro_batches} micro-batches of {micro_batch} × {seq_len} tokens per replica per step; the "
            "fastest of {timed} layouts timed that fits (values you fix are kept)",
            **shape,
            micro_batches=f"{training.microbatches}",
            micro_batch=f"{training.micro_batch}",
            seq_len=f"{training.seq_len:,}",
            timed=f"{training.layouts_timed:,}",
        ),
        _row(
            "Training regime",
            regime + ", {optimizer}: {bytes} bytes per trained parameter",
            "Weights + gradients + optimizer state (with the fp32 master copy when there is one)",
            **regime_fields,
            optimizer=s.optimizer,
            bytes=f"{training.state_bytes_per_param:g}",
        ),
        _row(
            "Tokens trained",
            "{tokens}",
            tokens_note,
            tokens=format_count(r.tokens),
            per_param=f"{CHINCHILLA_TOKENS_PER_PARAM:g}",
        ),
        _row(
            "Global batch",
            "{sequences} sequences ({tokens}M tokens)",
            "Given"
            if s.global_batch
            else "Chosen from practice: {batch}M tokens at 70B, growing as the cube root of the size, at least "
            "{floor} tokens per GPU, at most the critical batch (Kaplan et al. 2020)",
            sequences=f"{training.global_batch:,}",
            tokens=f"{training.global_batch * training.seq_len / 1e6:,.1f}",
            batch=f"{BATCH_AT_70B_TOKENS / 2**20:g}",
            floor=f"{TOKENS_PER_GPU_FLOOR:,}",
        ),
    ]


_REGIMES = ("fp32", "mixed precision with fp32 master weights", "pure 16-bit")


def _regime(label: str, rank: int) -> tuple[str, dict[str, str]]:
    """Return the training regime's label as a template and its fields (model.memory.training_regime's labels)."""
    if label in _REGIMES:
        return label, {}
    method, _, rest = label.partition(" ")
    if rest == f"rank {rank}":
        return "{method} rank {rank}", {"method": method, "rank": f"{rank}"}
    return "{regime}", {"regime": label}


def _serving_rows(result: Estimate) -> list[Assumption]:
    """The serving replica, its cache precision and the context decode reads."""
    r, s, serving = result.resolved, result.resolved.scenario, result.inference
    replica = {"tp": f"{serving.tp}", "pp": f"{serving.pp}", "ep": f"{serving.ep}", "replicas": f"{serving.dp:,}"}
    named = replica_name(serving.tp, serving.pp, serving.ep)
    value = "tp {tp} × pp {pp}, {replicas} replicas"
    if serving.ep > 1:
        value = "attention DP {ep} × EP {ep}, {replicas} replicas"
    if value.format(**replica) != f"{named}, {replica['replicas']} replicas":
        value = "{replica}, {replicas} replicas"
    return [
        _row(
            "Serving replica",
            value,
            ("Fits" if serving.fits else "Does not fit")
            + "; full load: {most} sequences of {prompt} + {output} tokens per replica",
            **replica,
            replica=named,
            most=f"{serving.max_batch:,}",
            prompt=f"{s.prompt_len:,}",
            output=f"{s.output_len:,}",
        ),
        _row(
            "KV-cache precision",
            "{kv}",
            "Given"
            if s.kv_precision
            else "Default for {precision} weights: fp8/fp4 checkpoints keep an fp8 cache, int8/int4 a 16-bit one",
            kv=r.kv_precision,
            precision=r.precision,
        ),
        _row(
            "Decode context",
            "{tokens} tokens (mean)",
            "KV traffic at the mean context (prompt + output / 2); memory at the final context",
            tokens=f"{s.prompt_len + s.output_len / 2:,.0f}",
        ),
    ]


def _price_row(result: Estimate) -> Assumption:
    """The price of a GPU-hour: given, the catalog's (dated and sourced) or estimated, with its note."""
    r, gpu = result.resolved, result.resolved.gpu
    price = r.price_per_gpu_hour
    value = "none known" if price is None else "${price} per GPU-hour"
    fields = {"price": f"{price:,.2f}" if price is not None else ""}
    if price is not None and r.price.source == "catalog":
        source = gpu.cloud_price_source
        if gpu.cloud_price_date not in source:
            source += f" ({gpu.cloud_price_date})"
        high = gpu.cloud_usd_per_gpu_hour_high
        note = "{source}; high ${high}" if high else "{source}"
        return _row("GPU price", value, note, **fields, source=source, high=f"{high:,.2f}" if high else "")
    if r.price.source == "given":
        return _row("GPU price", value, "given", **fields)
    # The price's own note, translated with the engine's price notes (model.pricing.QUOTE_TEMPLATES).
    note = r.price.template or "{note}"
    fields.update(r.price.values, note=r.price.note)
    return Assumption("GPU price", value.format(**fields), note.format(**fields), "scenario", value, note, fields)


def assumptions(scenario: Scenario, catalog: Catalog | None = None) -> tuple[Assumption, ...]:
    """Return what the estimate of ``scenario`` assumes: precision, peaks, efficiencies, layouts, prices.

    Raises:
        ScenarioError: the scenario is invalid.
    """
    result = estimate(scenario, catalog or default_catalog())
    gpu = result.resolved.gpu
    return (
        *_hardware_rows(result),
        *_training_rows(result),
        *_serving_rows(result),
        _price_row(result),
        _row(
            "Utilisation",
            "{share}",
            "Share of time a server is busy; divides the $ per token",
            share=f"{scenario.utilization:.0%}",
        ),
        _row(
            "Power",
            "{watts} W per card" if gpu.tdp_w else "unknown",
            "Board TDP from the catalog; energy = GPU-hours × TDP",
            watts=f"{gpu.tdp_w:g}" if gpu.tdp_w else "",
        ),
        *_efficiency_rows(),
        _range_row("Optimistic set", OPTIMISTIC, "Low end of every time, high end of every rate"),
        _range_row("Pessimistic set", PESSIMISTIC, "High end of every time, low end of every rate"),
    )
