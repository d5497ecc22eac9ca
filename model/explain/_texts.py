"""The assumptions' English texts: row names and templates, each with its ``{fields}``.

:func:`model.explain.assumptions` fills these; an interface that speaks another language
translates the same templates (:data:`ASSUMPTION_TEXTS` lists every one) and fills in the same
fields. A template made only of fields (a precision, a count) is data and is not listed.
"""

from __future__ import annotations

import re

__all__ = ["ASSUMPTION_TEXTS", "EFFICIENCY_NOTES", "has_words"]

EFFICIENCY_NOTES: dict[str, tuple[str, str]] = {
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
    "own_all_reduce_bytes": (
        "Largest own all-reduce",
        "Past it a server all-reduces through NCCL or RCCL (vLLM's custom all-reduce limit, 8 MiB)",
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
"""The expected efficiencies' row names and notes, by field of :class:`model.efficiency.Efficiencies`
(a field without one is listed under its own name)."""

_NAMES = (
    "Compute precision",
    "Dense peak",
    "Matrix-product ceiling",
    "Card memory",
    "Memory bandwidth",
    "Scale-up link",
    "Network",
    "Training layout",
    "Training regime",
    "Tokens trained",
    "Global batch",
    "Serving replica",
    "KV-cache precision",
    "Decode context",
    "GPU price",
    "Utilisation",
    "Power",
    "Optimistic set",
    "Pessimistic set",
)
_LAYOUT = "tp {tp} × pp {pp} × dp {dp}{ep}, ZeRO {zero}, "
_RECOMPUTE = ("no recomputation", "selective recomputation", "full recomputation of {layers} layers per stage")
_CHUNKS = ", {vp} chunks per stage"
_LAYOUT_NOTE = (
    ": {micro_batches} micro-batches of {micro_batch} × {seq_len} tokens per replica per step; the fastest of "
    "{timed} layouts timed that fits (values you fix are kept)"
)
_REGIME = ", {optimizer}: {bytes} bytes per trained parameter"
_REPLICA_NOTE = "; full load: {most} sequences of {prompt} + {output} tokens per replica"
_TEMPLATES = (
    "{precision} → products in {key}",
    "{gpu} has no {precision} tensor cores; products run in {key}",
    "Weight-only {precision}: weights are dequantised to {key} before each product",
    "{gpu} runs {key} natively",
    "{tflops} TFLOPS ({key})",
    "Datasheet dense figure, no 2:4 sparsity; data/gpus.yaml row {gpu_id}",
    "{share} of peak (measured)",
    "{share} of peak (default)",
    "Measured largest-product rate in the catalog for {key}",
    "No measured ceiling for {gpu} in {key}: the H200-measured share",
    "{capacity} GB usable; serving budgets {serving} GB",
    "The driver reports {mib} MiB, less {reserved} GB it keeps from CUDA; the datasheet prints {printed} GB",
    "The datasheet's {printed} GB (no driver reading in the catalog)",
    "{achievable} of {peak} GB/s",
    "Measured in the catalog",
    "No measurement: {share} of the datasheet peak",
    "{link}: {bandwidth} GB/s per direction, {latency} µs",
    "{link}: {bandwidth} GB/s per direction, {latency} µs ({library} µs an all-reduce through NCCL or RCCL)",
    "{gpus} GPUs per node; collectives reach {share} (measured)",
    "{gpus} GPUs per node; collectives reach {share}",
    "{link}: {bandwidth} GB/s per GPU, {latency} µs",
    "Collectives reach {share} (measured)",
    "Collectives reach {share}",
    *(_LAYOUT + recompute + chunks for recompute in _RECOMPUTE for chunks in ("", _CHUNKS)),
    *(fits + _LAYOUT_NOTE for fits in ("Fits", "Does not fit")),
    *(regime + _REGIME for regime in ("{regime}", "fp32", "mixed precision with fp32 master weights", "pure 16-bit")),
    "{method} rank {rank}" + _REGIME,
    "Weights + gradients + optimizer state (with the fp32 master copy when there is one)",
    "given",
    "fine-tuning default",
    "defaulted to {per_param} per parameter (Chinchilla, Hoffmann et al. 2022)",
    "{sequences} sequences ({tokens}M tokens)",
    "Given",
    "Chosen from practice: {batch}M tokens at 70B, growing as the cube root of the size, at least {floor} tokens "
    "per GPU, at most the critical batch (Kaplan et al. 2020)",
    "tp {tp} × pp {pp}, {replicas} replicas",
    "attention DP {ep} × EP {ep}, {replicas} replicas",
    "{replica}, {replicas} replicas",
    *(fits + _REPLICA_NOTE for fits in ("Fits", "Does not fit")),
    "Default for {precision} weights: fp8/fp4 checkpoints keep an fp8 cache, int8/int4 a 16-bit one",
    "{tokens} tokens (mean)",
    "KV traffic at the mean context (prompt + output / 2); memory at the final context",
    "none known",
    "${price} per GPU-hour",
    "{source}; high ${high}",
    "Share of time a server is busy; divides the $ per token",
    "{watts} W per card",
    "unknown",
    "Board TDP from the catalog; energy = GPU-hours × TDP",
    "compute ×{compute}, memory ×{memory}, links ×{links}, overheads ×{overheads}, overlap ×{overlap}",
    "Low end of every time, high end of every rate",
    "High end of every time, low end of every rate",
)
ASSUMPTION_TEXTS: tuple[str, ...] = (
    *_NAMES,
    *(text for pair in EFFICIENCY_NOTES.values() for text in pair),
    *_TEMPLATES,
)
"""Every assumption name and every template with words in it (the texts an interface translates)."""

_FIELD = re.compile(r"\{[a-z_]*\}")


def has_words(template: str) -> bool:
    """Whether ``template`` says anything besides its fields (one made only of fields is data)."""
    return any(character.isalpha() for character in _FIELD.sub("", template))
