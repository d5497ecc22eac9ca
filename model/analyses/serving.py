"""Serving speed against batch: the sweep, the memory/compute knee, the batch a latency target allows.

Every figure comes from the engine's serving model (:mod:`model.inference`) on one replica, held
as the batch moves, so a point of the sweep is the estimate at that batch on that replica. Which
replica is the caller's question (:data:`ReplicaFor`): by default the one the estimate chooses at
full load (``estimate(batch="max")``: the most output tokens per second per card, the planner's
and the calibration's), or the one ``estimate(scenario)`` chooses for the scenario's own batch, so
that the point at that batch, the largest batch and "fits" are the estimate's own figures (a page
that shows them beside the estimate's):

- decode step: the roofline of Williams, Waterman and Patterson (2009, "Roofline: an insightful
  visual performance model", CACM 52(4)): the longer of bytes read over bandwidth and FLOPs over
  compute, plus launch overheads and tensor-parallel all-reduces (:func:`model.inference.decode_step`);
- under continuous batching each user's tokens also wait for the other users' prefills, and the
  replica's output rate is output tokens over prefill plus decode time (Orca, Yu et al. 2022;
  Sarathi-Serve, Agrawal et al. 2024, sec. 2) — the same formulas as ``model.estimate``;
- TTFT is one prompt's prefill plus, with other users in flight, half a decode step of waiting
  for the running step to end (``model.estimate``'s definition).

Batch sweeps call those functions directly (about 20 µs a point) rather than a whole estimate
per batch (100-300 µs, training included), so a sweep of ~15 batches stays well under 5 ms.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Literal, NamedTuple

from model.analyses.search import last_passing
from model.catalog import Catalog
from model.efficiency import EXPECTED, Efficiencies
from model.estimate import estimate
from model.inference import (
    LoadedServing,
    Offload,
    ServingContext,
    ServingRates,
    decode_step,
    ideal_decode_step,
    loaded_serving,
    offload_roofline,
    place_offload,
    serving_context,
    serving_rates,
)
from model.layouts.serving import serving_load
from model.limits import ScenarioError
from model.results import Estimate
from model.scenario import Resolved, Scenario, with_batch
from model.stacks import serving_efficiencies

__all__ = [
    "BatchPoint",
    "Knee",
    "LatencyFit",
    "ReplicaFor",
    "SweepReplica",
    "batch_sweep",
    "knee_batch",
    "largest_batch_within_latency",
    "sweep_replica",
]

ReplicaFor = Literal["max", "scenario"]
"""The batch a sweep's replica is chosen for: "max" (full load) or "scenario" (the scenario's own batch)."""
KNEE_SEARCH_LIMIT = 2**24
"""Largest batch the knee search looks at (16.8M sequences); no knee below it is reported as none."""
_BISECTION_STEPS = 60


class BatchPoint(NamedTuple):
    """Serving at one batch (concurrent sequences per replica); rates count every replica."""

    batch: int
    tokens_per_s_per_user: float
    """Expected: 1 / TPOT."""
    tokens_per_s: float
    """Expected output tokens/s over all replicas under load (prefill of arriving requests included)."""
    roofline_tokens_per_s: float
    """Ideal decode rate over all replicas: replicas x batch / roofline time per token."""
    roofline_tokens_per_s_per_user: float
    """Ideal: 1 / roofline time per token."""
    ttft_s: float
    tpot_s: float
    tpot_roofline_s: float
    bound: Literal["memory", "compute"]
    """Which side of the roofline the expected decode step is on."""
    fits: bool
    """Whether this batch fits in the replica's memory."""
    step_parts: tuple[tuple[str, float], ...] = ()
    """Where one decode step's time goes (seconds by part, adding up to the step; DecodeStep.parts)."""
    step_s: float = 0.0
    """One decode step, all pipeline stages (with drafting, it emits more than one token)."""
    sequences: int = 0
    """Sequences in flight over every replica: the batch on each of them."""


class Knee(NamedTuple):
    """Where the decode step turns from memory-bound to compute-bound (sequences per replica)."""

    expected: float | None
    """Batch at which the expected step's memory time equals its compute time; None: never."""
    ideal: float | None
    """The same crossing at datasheet peaks (the roofline's ridge point); None: never."""
    largest_batch: int
    """The largest batch that fits per replica (0: not even one), to tell a reachable knee."""


class LatencyFit(NamedTuple):
    """The largest batch whose expected time per output token meets a target."""

    target_tpot_s: float
    batch: int | None
    """None when no batch meets the target (or nothing fits)."""
    tokens_per_s: float | None
    """Expected output tokens/s over all replicas at that batch."""
    tokens_per_s_per_user: float | None
    """Expected: 1 / TPOT at that batch."""
    tpot_s: float | None
    limit: Literal["latency", "memory"]
    """What stops the next batch: it misses the target ('latency') or does not fit ('memory')."""
    sequences: int = 0
    """Sequences in flight over every replica at that batch (0 when there is none)."""


class SweepReplica(NamedTuple):
    """The replica a batch sweep serves on: tp x pp cards (or attention DP over ep), and how many."""

    tp: int
    pp: int
    ep: int
    replicas: int


class _Replica(NamedTuple):
    """The replica a scenario is served on, with its serving constants (computed once)."""

    resolved: Resolved
    context: ServingContext
    rates: ServingRates
    replicas: int
    largest_batch: int
    offloaded: bool = False
    """Whether the estimate serves it with part of the model in host memory: then each batch is served
    with the split that batch needs (more sequences, more KV cache, fewer layers on the cards)."""


def _chosen(
    scenario: Scenario, catalog: Catalog | None, replica_for: ReplicaFor, efficiencies: Efficiencies = EXPECTED
) -> Estimate:
    """Return the estimate whose replica a sweep holds: at full load, or at the scenario's own batch."""
    if replica_for == "max":
        return estimate(with_batch(scenario, "max"), catalog, efficiencies=efficiencies)
    if replica_for == "scenario":
        return estimate(scenario, catalog, efficiencies=efficiencies)
    raise ScenarioError("replica_for", replica_for, '"max" or "scenario"')


def _replica(
    scenario: Scenario, catalog: Catalog | None, efficiencies: Efficiencies = EXPECTED, replica_for: ReplicaFor = "max"
) -> _Replica:
    """Resolve the scenario's serving replica exactly as the estimate ``replica_for`` names lays it out."""
    full = _chosen(scenario, catalog, replica_for, efficiencies)
    r, inference = full.resolved, full.inference
    context = serving_context(
        r, tp=inference.tp, pp=inference.pp, compute_key=inference.compute_precision, ep=inference.ep
    )
    return _Replica(
        resolved=r,
        context=context,
        rates=serving_rates(r, context, serving_efficiencies(r.stack, r.platform, efficiencies)),
        replicas=inference.dp,
        largest_batch=inference.max_batch,
        offloaded=inference.offload.mode != "none",
    )


def sweep_replica(
    scenario: Scenario, catalog: Catalog | None = None, *, replica_for: ReplicaFor = "max"
) -> SweepReplica:
    """Return the replica :func:`batch_sweep` serves the scenario on, and how many.

    Args:
        scenario: the scenario.
        catalog: the catalog to resolve ids in (the built-in one by default).
        replica_for: "max": the full-load replica; "scenario": the one chosen for the scenario's batch.
    """
    full = _chosen(scenario, catalog, replica_for).inference  # the sweep's own estimate, cached
    return SweepReplica(full.tp, full.pp, full.ep, full.dp)


def _split(replica: _Replica, batch: int) -> Offload | None:
    """Return the offload split at ``batch`` when the estimate offloads (None: none, or none runs there)."""
    if not replica.offloaded:
        return None
    r, ctx = replica.resolved, replica.context
    placed = place_offload(r, serving_load(r), tp=ctx.tp, pp=ctx.pp, batch=batch, capacity_bytes=r.gpu.capacity_bytes)
    return placed[0] if placed is not None else None


def _serve(replica: _Replica, batch: int) -> LoadedServing:
    """Return the loaded replica at ``batch``, exactly as ``model.estimate`` computes it."""
    r = replica.resolved
    return loaded_serving(r, replica.context, replica.rates, batch, replica.replicas, offload=_split(replica, batch))


def _point(replica: _Replica, batch: int) -> BatchPoint:
    served = _serve(replica, batch)
    split = _split(replica, batch)
    ideal = (
        offload_roofline(replica.resolved, replica.context, split, batch)
        if split is not None
        else ideal_decode_step(replica.resolved, replica.context, batch)
    )
    return BatchPoint(
        batch=batch,
        tokens_per_s_per_user=1.0 / served.tpot_s,
        tokens_per_s=served.tokens_per_s,
        roofline_tokens_per_s=replica.replicas * batch / ideal,
        roofline_tokens_per_s_per_user=1.0 / ideal,
        ttft_s=served.ttft_s,
        tpot_s=served.tpot_s,
        tpot_roofline_s=ideal,
        bound=served.bound,
        fits=batch <= replica.largest_batch,
        step_parts=served.step.parts,
        step_s=served.step.total,
        sequences=batch * replica.replicas,
    )


def _default_batches(largest: int) -> list[int]:
    """Powers of two from 1 up to the largest batch that fits, then that batch (just 1 if none fits)."""
    batches, batch = [], 1
    while batch <= largest:
        batches.append(batch)
        batch *= 2
    if largest > 0 and batches[-1] != largest:
        batches.append(largest)
    return batches or [1]


def batch_sweep(
    scenario: Scenario,
    catalog: Catalog | None = None,
    batches: Iterable[int] | None = None,
    *,
    replica_for: ReplicaFor = "max",
) -> list[BatchPoint]:
    """Return serving speed at each batch on the scenario's replica.

    Args:
        scenario: the scenario; its prompt and output lengths set the workload (its batch only
            chooses the replica, with ``replica_for="scenario"``).
        catalog: the catalog to resolve ids in (the built-in one by default).
        batches: concurrent sequences per replica to evaluate; by default the powers of two from 1
            to the largest batch that fits, plus that batch (batch 1 alone when nothing fits).
        replica_for: "max": the full-load replica; "scenario": the one ``estimate(scenario)``
            chooses, whose largest batch is the estimate's ``max_batch``.

    Returns:
        One point per batch, in the order given: expected and roofline tokens/s, TTFT, TPOT, the
        bound and whether the batch fits.

    Raises:
        ScenarioError: the scenario is invalid, or a batch is not a whole number of at least 1.
    """
    replica = _replica(scenario, catalog, replica_for=replica_for)
    wanted = _default_batches(replica.largest_batch) if batches is None else list(batches)
    for batch in wanted:
        if isinstance(batch, bool) or not isinstance(batch, int) or batch < 1:
            raise ScenarioError("batch", batch, "a whole number of at least 1")
    return [_point(replica, batch) for batch in wanted]


def _first_crossing(excess: Callable[[float], float]) -> float | None:
    """Return the smallest batch in [1, KNEE_SEARCH_LIMIT] where ``excess`` turns non-negative.

    Doubling finds the first power of two past the crossing, bisection (in log space, since the
    batch spans decades) closes in on it; a crossing below batch 1 is reported as 1.
    """
    if excess(1.0) >= 0:
        return 1.0
    low = 1.0
    while excess(low * 2) < 0:
        low *= 2
        if low >= KNEE_SEARCH_LIMIT:
            return None
    high = low * 2
    for _ in range(_BISECTION_STEPS):
        middle = math.sqrt(low * high)
        if excess(middle) >= 0:
            high = middle
        else:
            low = middle
    return high


def knee_batch(scenario: Scenario, catalog: Catalog | None = None, *, replica_for: ReplicaFor = "max") -> Knee:
    """Return the batch at which decode turns compute-bound, expected and at datasheet peaks.

    A derived definition on the roofline (Williams et al. 2009): the knee is the batch at which the
    decode step's compute time, 2 N_active x b / (tp pp) / F, equals its memory time,
    (W(b) / (tp pp) + b / pp x kv) / B — W the weight bytes read (for MoE the experts the batch
    touches, which grows with b), kv one sequence's KV cache at its mean context, B the bandwidth
    and F the FLOP/s. For a dense model this is the closed form
    b* = pp x (W / (tp pp B)) / (2 N_active / (tp pp F) - kv / B): the roofline's ridge point
    (peak FLOP/s / bandwidth FLOPs per byte) moved by the KV reads, which grow with the batch as
    fast as the arithmetic does. When one sequence's KV reads take longer than its arithmetic the
    denominator is negative and decode stays memory-bound at every batch (no knee). Solved by
    bisection on :func:`model.inference.decode_step`'s memory and compute times (exact for MoE too):
    'expected' with achievable bandwidth and compute (the expected efficiencies), 'ideal' with the
    datasheet bandwidth and peak FLOP/s, the split behind :func:`model.inference.ideal_decode_step`.
    ``replica_for`` picks the replica as for :func:`batch_sweep`.

    Raises:
        ScenarioError: the scenario is invalid.
    """
    replica = _replica(scenario, catalog, replica_for=replica_for)
    r, ctx, rates = replica.resolved, replica.context, replica.rates
    bandwidth = r.gpu.memory_bandwidth_bytes_per_s
    peak_rates = rates._replace(
        weight_bandwidth=bandwidth,
        kv_bandwidth=bandwidth,
        activation_bandwidth=bandwidth,
        decode_flops_per_s=ctx.peak_flops,
    )

    def excess(chosen: ServingRates) -> Callable[[float], float]:
        def compute_minus_memory(batch: float) -> float:
            step = decode_step(r, ctx, batch, chosen)
            return step.compute_time - step.memory_time

        return compute_minus_memory

    return Knee(
        expected=_first_crossing(excess(rates)),
        ideal=_first_crossing(excess(peak_rates)),
        largest_batch=replica.largest_batch,
    )


def largest_batch_within_latency(
    scenario: Scenario,
    catalog: Catalog | None,
    target_tpot_s: float,
    *,
    efficiencies: Efficiencies = EXPECTED,
    replica_for: ReplicaFor = "max",
) -> LatencyFit:
    """Return the largest batch that fits whose expected time per output token meets ``target_tpot_s``.

    Expected TPOT rises with the batch (each step reads more KV cache and multiplies more rows, and
    each user waits for more prefills), so bisection over 1 .. the largest batch that fits finds
    the last batch at or under the target (a derived definition; TPOT as in ``model.estimate``).

    Args:
        scenario: the scenario (its batch only chooses the replica, with ``replica_for="scenario"``).
        catalog: the catalog to resolve ids in (None: the built-in one).
        target_tpot_s: the latency target, seconds per output token.
        efficiencies: the expected efficiency set (only a calibration passes another).
        replica_for: the replica, as for :func:`batch_sweep`.

    Raises:
        ScenarioError: the scenario or the target is invalid.
    """
    if isinstance(target_tpot_s, bool) or not isinstance(target_tpot_s, (int, float)):
        raise ScenarioError("target_tpot_s", target_tpot_s, "a positive number of seconds")
    if not math.isfinite(target_tpot_s) or target_tpot_s <= 0:
        raise ScenarioError("target_tpot_s", target_tpot_s, "a positive number of seconds")
    replica = _replica(scenario, catalog, efficiencies, replica_for)
    largest = replica.largest_batch
    if largest < 1:
        return LatencyFit(target_tpot_s, None, None, None, None, "memory")

    def meets(batch: int) -> bool:
        return _serve(replica, batch).tpot_s <= target_tpot_s

    if not meets(1):
        return LatencyFit(target_tpot_s, None, None, None, None, "latency")
    if meets(largest):
        return _within(replica, target_tpot_s, largest, "memory")
    return _within(replica, target_tpot_s, last_passing(meets, 1, largest), "latency")


def _within(replica: _Replica, target_tpot_s: float, batch: int, limit: Literal["latency", "memory"]) -> LatencyFit:
    """Return the latency fit at ``batch``: its rates, and the sequences it serves over every replica."""
    served = _serve(replica, batch)
    tpot = served.tpot_s
    return LatencyFit(target_tpot_s, batch, served.tokens_per_s, 1.0 / tpot, tpot, limit, batch * replica.replicas)
