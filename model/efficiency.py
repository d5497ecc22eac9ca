"""Efficiencies: how much of the datasheet peaks real software reaches, from measurements.

Nothing here is keyed by a model name or a reference entry: each factor describes a physical
mechanism (matrix-product shape and precision, memory streaming, kernel launches, collectives,
overlap, pipeline bubbles, failures) and is set once from the measurements cited beside it.
The expected set is the estimate; the optimistic and pessimistic sets bound the range shown
next to every headline figure.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import NamedTuple

from model.catalog import Gpu
from model.precision import QUANTIZED_WEIGHT_PRECISIONS

__all__ = [
    "EXPECTED",
    "OPTIMISTIC",
    "OPTIMISTIC_MOVES",
    "PESSIMISTIC",
    "PESSIMISTIC_MOVES",
    "SHARE_CAP",
    "Efficiencies",
    "RangeMoves",
    "achievable_bandwidth",
    "efficiency_variants",
    "matmul_ceiling_share",
    "matmul_efficiency",
    "measured_share",
    "moved",
]

SHARE_CAP = 0.97
"""The most of a datasheet peak any set assumes: the best measured shares are 0.79 (bf16 products)
to 0.89 (HBM copy) on the H200, and even a perfectly tuned kernel loses a few percent to clock
throttling under sustained load and to refresh or link-protocol overhead. One cap for every
share (products, memory, links), so the optimistic set can raise a measured share but never past it."""


@dataclass(frozen=True, slots=True, eq=False)
class Efficiencies:
    """One set of efficiency factors (fractions of a peak unless the name says otherwise)."""

    matmul_ceiling: Mapping[str, float]
    """Share of dense peak a large matrix product reaches, by precision, on a GPU whose catalog
    row has no measured ceiling. H200 microbench 8192^3: bf16 784.2/989.4 = 0.79, fp8
    1423.4/1978.9 = 0.72, fp32 50.8/67 = 0.76, tf32 399.2/494.7 = 0.81, int8 908.2/1978.9 = 0.46.
    fp4 (block-scaled NVFP4 on B200, dense peak 9,000): Triton's block-scaled matmul at 8192^3
    4,230 TFLOPS (a production B200, CUDA 13.0, October 2025; MXFP4 4,520), vLLM's CUTLASS NVFP4
    GEMM 3,904 at M 16,384 x N 6,144 x K 4,096 without the activations' quantisation (vllm PR
    #20646, 2025-07); divided by the size factor below (0.93, 0.91) both give 0.48-0.50 of the peak:
    0.50. The scale factors' loads and the 1,000 W limit keep FP4 products near 1.2-1.5x FP8's
    (B200 MAMF fp8 3,432), not the datasheet's 2x."""
    matmul_half_work_flops: Mapping[str, float]
    """FLOPs of one product at which it reaches half its ceiling's share: efficiency =
    ceiling x W / (W + W0). Fitted to the H200 4096^3 rows: bf16 0.736 of peak (W0 ~ 1.2e10),
    fp8 0.515 (W0 ~ 5.5e10); small products lose efficiency to tile and wave quantisation."""
    training_matmul_vs_ceiling: float
    """Training products relative to the best-shape ceiling: forward, two backward products per
    weight (one transposed), mixed shapes and stream gaps. Calibrated once on the published
    training-throughput set (issue 4's validate command prints the fit)."""
    attention_vs_matmul: float
    """Flash-attention kernels relative to the GEMM ceiling (FlashAttention-2 paper: 50-73 % of
    A100 peak forward and backward, against cuBLAS's ~80 %)."""
    memory_bandwidth: float
    """Share of peak HBM/GDDR bandwidth a streaming kernel sustains when the GPU row has no
    measured figure. H200 microbench: device copy 4254/4800 = 0.886, bf16 weight streaming at
    batch 1-64: 4036-4241/4800 = 0.84-0.88; gpt-fast on A100: 'about 1700 GB/s' of 2039 = 0.83."""
    host_memory_bandwidth: float
    """Share of a host's peak DRAM bandwidth a CPU reaches streaming weights through llama.cpp's
    quantised dot products (decoding the layers offloaded to it). llama.cpp issue 4716: Mixtral 8x7B
    Q8_0 decodes 3.37 tokens/s on a Ryzen 9 7950X with DDR5 at 3,600 MT/s (two channels, 57.6 GB/s):
    12.9B active parameters x 8.5 bits = 13.7 GB a token, 46 GB/s, 0.80 of the peak; 3.58 tokens/s on
    a 5900X with DDR4-3600 (the same peak), 0.85."""
    kv_read_bandwidth: float
    """Share of the streaming bandwidth decode attention reaches reading a paged KV cache: many
    sequences' small blocks gathered per step instead of one contiguous weight stream. Fitted
    on the serving measurements (python -m model.validation.calibrate: 0.9 and 1.0 tie on all
    but MoE serving, which 0.9 fits better since the 184-run rerun)."""
    dequant_bandwidth: float
    """Bandwidth share of weight-only int8/int4/fp4 kernels relative to 16-bit ones (dequantising
    costs instructions: gpt-fast int8 reaches 155.6 vs 104.9 tok/s for a 2x smaller read). A stack's
    own mat-vec kernels set their own (data/stacks.yaml's quantized_read_share: llama.cpp's mmvq,
    ExLlamaV2's and MLC's kernels read their bytes at a higher share)."""
    expert_read_half_bytes: float
    """Bytes of one expert's matrices on one card at which a grouped expert kernel streams them at
    half the weight bandwidth: it works expert by expert, so a small slice (DeepSeek-V3's 2,048-wide
    experts split 8 ways: 5.5 MB) leaves most of the chip idle, a large one (Mixtral's: 44 MB)
    streams near full speed, as matrix products do with size. Fitted once on every serving
    measurement: 16 MB over 460 runs, 12 MB (the grid's 12/16/24) over 527 (issue 33, fifth pass)."""
    kernel_floor_s: float
    """The least time one serving kernel takes, its launch included (servers replay decode as
    CUDA graphs, which removes host launch cost but not each kernel's start, ramp and drain).
    A forward pass pays it once per kernel (model.inference.context.kernels_per_pass): this,
    not the weight stream, sets batch-1 speed of models with many layers and many kernels
    per layer (MoE routing, MLA). Fitted once on every serving measurement."""
    eager_kernel_s: float
    """Serving: host time to launch one kernel when a step runs eagerly, not replayed as a CUDA graph.
    SGLang PR #1401 (2024, bench_latency at batch 1): Llama 3 8B decodes in 7.06-7.35 ms with graphs
    and 8.23-9.28 ms without (288 kernels here: 29-32 us each, the host slower than the GPU);
    DeepSeek-Coder-V2-Lite in 6.22 ms with graphs and four times that without (560 kernels: 44 us)."""
    moe_layer_host_s: float
    """Training: time one MoE layer's pass (forward, backward or recomputation) of one micro-batch
    loses to the host. Dropless MoE needs each step's tokens-per-expert counts on the host (the
    all-to-all splits, the grouped products' sizes): that synchronisation drains the GPU's queue,
    and the layer's dispatch, grouped products and combine then run at the pace the host launches
    them, outside CUDA graphs (Megatron-Core MoE report, arXiv 2603.07685, sec. 4.3.6-4.3.7: host
    overhead, and the sync-free kernels needed before MoE can be graph-captured). Fitted once on
    every MoE training measurement."""
    own_all_reduce_bytes: float
    """Serving: the largest message a server all-reduces with its own kernel (one-shot or two-shot over
    peer memory, a few microseconds: the link row's ``latency_us``); a larger one goes through NCCL or RCCL
    and pays the library's measured fixed cost (``library_latency_us``). vLLM's CustomAllreduce
    max_size = 8192 * 1024 bytes (vllm/distributed/device_communicators/custom_all_reduce.py), which
    SGLang reuses."""
    collective_bandwidth: float
    """Share of a link's per-direction bandwidth a large collective reaches when the link row
    has no measured figure (nccl-tests: NVLink 0.78-0.83, interconnects.yaml)."""
    network_bandwidth: float
    """Share of a NIC's line rate large inter-node collectives reach (AWS EFA: 340 of 400 Gb/s)."""
    tp_overlap: float
    """Share of tensor-parallel collective time hidden behind compute in training; a server pays its
    all-reduces in line (model.inference.prefill). Megatron-Core can hide the sequence-parallel
    all-gathers and reduce-scatters behind the neighbouring products (Transformer Engine's
    userbuffers overlap, which Megatron Bridge's performance recipes turn on); plain Megatron-LM
    runs them in line. Calibrated once on every
    measurement (python -m model.validation.calibrate: 0.3, 0.5 and 0.7 tried)."""
    dp_overlap: float
    """Share of the overlappable window in which data-parallel gradient traffic is hidden."""
    ep_overlap: float
    """Share of expert-parallel all-to-all time hidden behind compute in training."""
    overlap_interference: float
    """Slowdown of compute per second of communication hidden behind it: NCCL kernels occupy
    SMs and HBM bandwidth the products they overlap would use (overlapped GEMMs run 10-30 %
    slower in published overlap characterisations of all-reduce with GEMM)."""
    elementwise_traffic_factor: float
    """Memory traffic of the non-matrix work (norms, activations, residuals, rotary) in training,
    as a multiple of the activation bytes a layer stores per token: unfused element-wise kernels
    read and write each tensor in the forward pass and about twice as much in the backward."""
    failure_rate_per_gpu_hour: float
    """Unexpected job interruptions per GPU-hour. Llama 3 paper sec. 3.3.4: 419 unexpected
    interruptions in 54 days on 16,384 H100s = 1.97e-5."""
    hours_lost_per_failure: float
    """Wall time lost per interruption (restart plus recomputation since the last checkpoint).
    Set so that 16,384 GPUs keep the 'higher than 90 % effective training time' Llama 3
    reports: 0.9 = 1 / (1 + 0.32/h x t) gives t = 0.34 h."""
    run_overhead: float
    """Wall time of a whole training run not spent in training steps, beyond failures: checkpoint
    writes, evaluation, data stalls and restarts' warm-up, as a fraction of step time. Published
    run totals (model cards' GPU-hours) include it; benchmark throughputs do not."""
    optimizer_bytes_per_param: float
    """HBM traffic of one AdamW update per parameter: read fp32 weight, m, v and the gradient,
    write weight, m, v and the 16-bit copy (4+4+4+2+4+4+4+2 = 28 bytes)."""
    split_sync_s: float = 0.0
    """Serving with a row split that has no collective library (llama.cpp's ``--split-mode row``): the
    synchronising copy that gathers one split product's partial results on the main card. 0 for every
    stack that all-reduces instead; a stack's constant (data/stacks.yaml, :mod:`model.stacks`)."""
    sequence_host_s: float = 0.0
    """Serving: the host's work each decode step for each running sequence that the GPU waits for
    (checking stop criteria, updating responses, preparing the next step's batch and its cache
    tables: TensorRT-LLM's docs, "Overlap Scheduler"; SGLang's v0.4 "zero-overhead batch scheduler";
    vLLM's V1 engine). It grows with the batch and is paid in full unless a server overlaps it with
    the GPU. 0 for typical; a stack's constant (data/stacks.yaml, :mod:`model.stacks`)."""
    compute_scale: float = 1.0
    """How this set moves a measured matrix-product ceiling (1 for the expected set)."""
    memory_scale: float = 1.0
    """How this set moves a measured memory bandwidth."""
    link_scale: float = 1.0
    """How this set moves a link's measured collective efficiency."""


EXPECTED = Efficiencies(
    matmul_ceiling=MappingProxyType(
        {"fp32": 0.76, "tf32": 0.81, "bf16": 0.79, "fp16": 0.76, "fp8": 0.72, "int8": 0.46, "fp4": 0.50}
    ),
    matmul_half_work_flops=MappingProxyType(
        {"fp32": 4e9, "tf32": 1e10, "bf16": 1.2e10, "fp16": 1.2e10, "fp8": 5.5e10, "int8": 2e10, "fp4": 8e10}
    ),
    training_matmul_vs_ceiling=0.70,
    attention_vs_matmul=0.75,
    memory_bandwidth=0.85,
    host_memory_bandwidth=0.80,
    kv_read_bandwidth=0.9,
    dequant_bandwidth=0.70,
    expert_read_half_bytes=12e6,
    kernel_floor_s=6e-6,
    eager_kernel_s=35e-6,
    moe_layer_host_s=2.0e-3,
    own_all_reduce_bytes=8192 * 1024,
    collective_bandwidth=0.80,
    network_bandwidth=0.85,
    tp_overlap=0.50,
    dp_overlap=0.90,
    ep_overlap=0.50,
    overlap_interference=0.15,
    elementwise_traffic_factor=6.0,
    failure_rate_per_gpu_hour=1.97e-5,
    hours_lost_per_failure=0.34,
    run_overhead=0.10,
    optimizer_bytes_per_param=28.0,
)


def measured_share(measured: float | None, default: float, scale: float) -> float:
    """Return the share of a peak a set assumes: a measured share moved by the set's ``scale``, else its default.

    Either way at most :data:`SHARE_CAP`.
    """
    return _capped(default if measured is None else measured * scale)


def _capped(share: float) -> float:
    return share if share < SHARE_CAP else SHARE_CAP


class RangeMoves(NamedTuple):
    """How one end of the range moves each family of efficiencies from the expected set."""

    compute: float
    """Multiplies matrix-product ceilings (and measured ones)."""
    memory: float
    """Multiplies memory bandwidth shares."""
    links: float
    """Multiplies collective and network bandwidth shares."""
    overhead: float
    """Multiplies fixed overheads: per-layer launch time, hours lost per failure, run overhead."""
    overlap: float
    """Multiplies the shares of communication hidden behind compute (and divides its interference)."""


# The range: software stacks differ by about this much on the same hardware (the spread of
# the published measurements around the expected estimate; see the Method page).
OPTIMISTIC_MOVES = RangeMoves(compute=1.15, memory=1.08, links=1.15, overhead=0.5, overlap=1.3)
PESSIMISTIC_MOVES = RangeMoves(compute=0.80, memory=0.85, links=0.75, overhead=2.0, overlap=0.6)


def moved(base: Efficiencies, moves: RangeMoves) -> Efficiencies:
    """Return ``base`` with every family of factors moved by ``moves`` (shares capped)."""
    compute, memory, links, overhead, overlap = moves
    return replace(
        base,
        matmul_ceiling=MappingProxyType({k: _capped(v * compute) for k, v in base.matmul_ceiling.items()}),
        memory_bandwidth=_capped(base.memory_bandwidth * memory),
        host_memory_bandwidth=_capped(base.host_memory_bandwidth * memory),
        collective_bandwidth=_capped(base.collective_bandwidth * links),
        network_bandwidth=_capped(base.network_bandwidth * links),
        kernel_floor_s=base.kernel_floor_s * overhead,
        eager_kernel_s=base.eager_kernel_s * overhead,
        split_sync_s=base.split_sync_s * overhead,
        sequence_host_s=base.sequence_host_s * overhead,
        moe_layer_host_s=base.moe_layer_host_s * overhead,
        tp_overlap=min(0.95, base.tp_overlap * overlap),
        dp_overlap=min(0.98, base.dp_overlap * overlap),
        ep_overlap=min(0.95, base.ep_overlap * overlap),
        overlap_interference=base.overlap_interference / overlap,
        hours_lost_per_failure=base.hours_lost_per_failure * overhead,
        run_overhead=base.run_overhead * overhead,
        compute_scale=base.compute_scale * compute,
        memory_scale=base.memory_scale * memory,
        link_scale=base.link_scale * links,
    )


@functools.lru_cache(maxsize=64)
def efficiency_variants(expected: Efficiencies) -> tuple[Efficiencies, Efficiencies, Efficiencies]:
    """Return the expected set and the optimistic and pessimistic sets moved from it (the range's ends)."""
    return expected, moved(expected, OPTIMISTIC_MOVES), moved(expected, PESSIMISTIC_MOVES)


_, OPTIMISTIC, PESSIMISTIC = efficiency_variants(EXPECTED)


@functools.lru_cache(maxsize=1024)
def _ceiling(eff: Efficiencies, precision: str, ceiling_share: float | None) -> float:
    return measured_share(ceiling_share, eff.matmul_ceiling.get(precision, 0.7), eff.compute_scale)


def matmul_efficiency(eff: Efficiencies, precision: str, work_flops: float, ceiling_share: float | None) -> float:
    """Return the share of dense peak one matrix product of ``work_flops`` FLOPs reaches.

    efficiency = ceiling x W / (W + W0): the ceiling is the GPU's measured largest-product rate
    over its peak when the catalog has one (scaled by this set's compute multiplier), else the
    H200-measured share for the precision; W0 from the H200 4096^3 products.
    """
    ceiling = _ceiling(eff, precision, ceiling_share)
    if math.isinf(work_flops):
        return ceiling
    half = eff.matmul_half_work_flops.get(precision, 2e10)
    return ceiling * work_flops / (work_flops + half)


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
        # A stack's own quantised kernels may stream better than its 16-bit ones (data/stacks.yaml),
        # but never past the cap on any share of a peak.
        bandwidth = min(bandwidth * eff.dequant_bandwidth, peak * SHARE_CAP)
    return bandwidth
