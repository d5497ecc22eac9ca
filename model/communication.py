"""Collective communication over the scale-up link and the scale-out network.

Cost model (the alpha-beta model of Thakur et al. 2005, as NCCL's docs and Calculon use it):
time = latency + bytes moved per GPU / bandwidth. A ring all-reduce moves 2(n-1)/n of the
buffer per GPU, an all-gather or reduce-scatter (n-1)/n, an all-to-all (n-1)/n.

Groups are laid out as Megatron-LM does (order tp, dp, pp: tensor parallelism innermost).
A group that spans nodes with k members in each node runs k rings at once, one per NIC
(rail-optimised clusters put one NIC per GPU), so its bandwidth per GPU is
min(scale-up bandwidth, k x NIC bandwidth) and each inter-node hop adds the network latency.
An all-to-all gains nothing from the rails: each GPU's off-node traffic leaves by its own NIC.

All-reduces at scale run as trees (latency grows with log2 of the nodes); all-gathers and
reduce-scatters run only as rings, so each of their n - 1 steps pays a hop's latency, as NCCL's
own tuning model counts it (src/graph/tuning.cc: (n - nodes) intra-node steps plus nodes - 1
network steps). That is what makes fully sharded data parallelism over thousands of GPUs slow:
its per-layer gathers pay thousands of hops each.
"""

from __future__ import annotations

import functools
import math
from typing import NamedTuple

from model.catalog import Link
from model.efficiency import Efficiencies, measured_share

__all__ = [
    "RING_STEP_LATENCY_S",
    "GroupPath",
    "all_gather_time",
    "all_reduce_time",
    "all_to_all_time",
    "data_parallel_sync_time",
    "group_path",
    "p2p_time",
]


RING_STEP_LATENCY_S = {"scale-up": 3.4e-6, "host": 5.7e-6, "network": 9.6e-6}
"""Latency of one ring step by the link it crosses: NCCL's tuning model for its Simple protocol
(src/graph/tuning.cc hwLat: NVLink 3.4 us, PCI 5.7 us, network 9.6 us)."""


class GroupPath(NamedTuple):
    """The bandwidth and latency one GPU of a collective group sees."""

    bandwidth_bytes_per_s: float
    """Per GPU for ring collectives (all-reduce, all-gather, reduce-scatter)."""
    latency_s: float
    crosses_nodes: bool
    exchange_bandwidth_bytes_per_s: float = 0.0
    """Per GPU for an all-to-all: each GPU sends its off-node share through its own NIC, so
    rails do not add up as they do for rings (DeepSeek-V3 sec. 3.2.2: IB 50 GB/s vs NVLink 160 GB/s
    is why it caps each token's experts at 4 nodes). 0 means the ring bandwidth."""
    ring_latency_s: float = 0.0
    """Latency of one ring all-gather or reduce-scatter over the whole group (0: ``latency_s``)."""
    library_latency_s: float = 0.0
    """Fixed cost of one all-reduce through NCCL or RCCL, measured on the link (0: ``latency_s``)."""


@functools.lru_cache(maxsize=4096)
def group_path(
    size: int, stride: int, gpus_per_node: int, scale_up: Link, network: Link, eff: Efficiencies
) -> GroupPath:
    """Return the path a group of ``size`` GPUs, ``stride`` apart in rank order, talks over."""
    up = scale_up.bandwidth_bytes_per_s * measured_share(
        scale_up.measured_efficiency, eff.collective_bandwidth, eff.link_scale
    )
    intra_step = RING_STEP_LATENCY_S.get(scale_up.kind, RING_STEP_LATENCY_S["scale-up"])
    if size <= 1 or size * stride <= gpus_per_node:
        return GroupPath(
            up,
            scale_up.latency_s,
            False,
            ring_latency_s=scale_up.latency_s + (size - 1) * intra_step,
            library_latency_s=scale_up.library_latency_s or 0.0,
        )
    members_per_node = max(1, gpus_per_node // stride)
    nodes = math.ceil(size / members_per_node)
    nic = network.bandwidth_bytes_per_s * measured_share(
        network.measured_efficiency, eff.network_bandwidth, eff.link_scale
    )
    bandwidth = min(up, members_per_node * nic) if members_per_node > 1 else min(up, nic)
    latency = scale_up.latency_s + network.latency_s * max(1.0, math.log2(nodes))
    off_node = (size - min(members_per_node, size)) / size
    exchange = min(up, nic / off_node) if off_node > 0 else up
    ring = scale_up.latency_s + (size - nodes) * intra_step + (nodes - 1) * RING_STEP_LATENCY_S["network"]
    return GroupPath(bandwidth, latency, True, exchange, ring)


def all_reduce_time(buffer_bytes: float, size: int, path: GroupPath, own_up_to: float = math.inf) -> float:
    """Return the seconds of one ring all-reduce of ``buffer_bytes`` over ``size`` GPUs.

    A caller whose own kernel all-reduces messages up to ``own_up_to`` bytes (a server's custom
    all-reduce) pays the link's latency for those; a larger message goes through the collective
    library and pays its measured fixed cost where the link has one (nccl-tests on 8 GPUs: about
    37 us over NVLink 4, 65 us over MI300X's Infinity Fabric, data/interconnects.yaml).
    """
    if size <= 1 or buffer_bytes <= 0:
        return 0.0
    latency = path.latency_s
    if buffer_bytes > own_up_to and path.library_latency_s > latency:
        latency = path.library_latency_s
    return latency + 2.0 * (size - 1) / size * buffer_bytes / path.bandwidth_bytes_per_s


def all_gather_time(buffer_bytes: float, size: int, path: GroupPath, calls: float = 1.0) -> float:
    """Return the seconds of ``calls`` ring all-gathers (or reduce-scatters) of ``buffer_bytes`` of results in all."""
    if size <= 1 or buffer_bytes <= 0:
        return 0.0
    latency = path.ring_latency_s or path.latency_s
    return calls * latency + (size - 1) / size * buffer_bytes / path.bandwidth_bytes_per_s


def all_to_all_time(buffer_bytes: float, size: int, path: GroupPath) -> float:
    """Return the seconds of one all-to-all in which each GPU holds ``buffer_bytes``."""
    if size <= 1 or buffer_bytes <= 0:
        return 0.0
    bandwidth = path.exchange_bandwidth_bytes_per_s or path.bandwidth_bytes_per_s
    return path.latency_s + (size - 1) / size * buffer_bytes / bandwidth


def p2p_time(message_bytes: float, path: GroupPath) -> float:
    """Return the seconds to send one message to a neighbour (pipeline stages)."""
    if message_bytes <= 0:
        return 0.0
    return path.latency_s + message_bytes / path.bandwidth_bytes_per_s


def data_parallel_sync_time(
    grad_bytes: float, gather_bytes: float, size: int, path: GroupPath, zero: int, microbatches: int, layers: int
) -> float:
    """Return the seconds a data-parallel group of ``size`` spends keeping its copies in step per step."""
    if size <= 1:
        return 0.0
    if zero >= 3:
        # Each layer's weights are gathered for its forward and again for its backward, and its
        # gradients reduce-scattered: three rings per layer per micro-batch (FSDP's unit).
        rings = microbatches * layers
        return 2.0 * all_gather_time(microbatches * gather_bytes, size, path, rings) + all_gather_time(
            microbatches * grad_bytes, size, path, rings
        )
    if zero == 2:
        # A card keeps only its shard of the gradients, so each micro-batch's gradients are
        # reduce-scattered during its backward (ZeRO paper sec. 5.2); the updated weights are
        # gathered once per step.
        return microbatches * all_gather_time(grad_bytes, size, path) + all_gather_time(gather_bytes, size, path)
    # Gradients accumulate in full and are all-reduced (or reduce-scattered, ZeRO-1) once,
    # during the last micro-batch's backward.
    return all_reduce_time(grad_bytes, size, path)
