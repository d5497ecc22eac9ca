"""Choosing how the cards split for training: the fastest layout that fits, as practitioners run it.

A search over tensor parallelism (inside a node), pipeline stages, data and expert parallelism,
ZeRO stage, recomputation, micro-batch and interleaved stages takes the shortest time to train
whose busiest card fits (ties: fewer model-parallel cards), not the smallest layout that fits,
which only minimises memory. Memory only falls as the ZeRO stage or recomputation rises and grows
with the micro-batch, and a layout whose compute alone at the best efficiency is slower than the
best so far is not timed. Every value the user fixes is kept. Full recomputation
covers only as many of a stage's layers as the card needs (Megatron-LM's block method). The default
batch is :func:`model.batch.default_global_batch`; :mod:`model.layouts.plan` binds the search to
a scenario and caches it; serving replicas are :mod:`model.layouts.serving`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from typing import NamedTuple

from model.architecture import Architecture
from model.layouts.grid import expert_degrees, model_parallel_pairs, powers_of_two
from model.limits import ScenarioError
from model.memory import Layout, TrainingMemory, training_fits
from model.results import TrainingCandidate
from model.scenario import Recompute
from model.training import StepTime, TrainingWork, interleaved

__all__ = [
    "CANDIDATES_SHOWN",
    "ComputeFloor",
    "Knobs",
    "MemoryOf",
    "Timer",
    "TrainingPlan",
    "TrainingSearch",
    "search_training_layout",
]

CANDIDATES_SHOWN = 5
"""How many runner-up layouts an estimate reports beside its choice."""
MICRO_BATCHES: tuple[int, ...] = (1, 2, 4, 8)
"""Micro-batch sizes searched (sequences per replica per micro-batch)."""
MICRO_BATCH_TOKENS = 16384
"""Bigger micro-batches are not searched: a product of one this big is at least 2 x 16,384 x 4,096^2
/ 8 = 69 GFLOP even at tp 8, over five times the 12 GFLOP of half efficiency: memory, not speed."""
INTERLEAVING: tuple[int, ...] = (1, 2, 4, 8)
"""Model chunks per pipeline stage searched (Megatron's virtual pipeline, Narayanan et al. 2021)."""


class TrainingPlan(NamedTuple):
    """One training layout, what it holds per card and how long a step takes."""

    layout: Layout
    recompute: Recompute
    recomputed_layers: int  # of each stage's layers, whose forward runs again in backward (full recomputation)
    micro_batch: int  # sequences per micro-batch on each replica
    vp: int  # model chunks per pipeline stage (1: plain 1F1B)
    global_batch: int  # sequences per optimizer step across all replicas
    microbatches: int  # micro-batches per replica per step (accumulation and pipeline depth)
    memory: TrainingMemory
    fits: bool
    step: StepTime | None
    """The expected step (None: not timed yet)."""
    work: TrainingWork | None
    seconds_per_token: float
    """Step time over the tokens a step trains: what the search minimises."""


class TrainingSearch(NamedTuple):
    """The chosen layout, it and its runner-ups as reported (fastest first), how many were timed."""

    best: TrainingPlan
    ranked: tuple[TrainingCandidate, ...]
    timed: int
    range_steps: tuple[StepTime, ...]
    """The best layout's step under the range's optimistic and pessimistic efficiency sets
    (:func:`model.efficiency.efficiency_variants`), timed with the search and cached with it;
    empty when a fixed MFU pins the step."""


class Knobs(NamedTuple):
    """What the user fixed (None: the search chooses)."""

    tp: int | None
    pp: int | None
    dp: int | None
    ep: int | None
    zero: int | None
    recompute: Recompute | None
    micro_batch: int | None
    vp: int | None
    global_batch: int | None
    recompute_layers: int | None = None


Timer = Callable[[Layout, Recompute, int, int, int, int], tuple[TrainingWork, StepTime]]
"""Count and time a step: layout, mode, layers recomputed per stage, micro-batch, batch, micro-batches."""
MemoryOf = Callable[[Layout, Recompute, int, int, int, int], TrainingMemory]
"""Size a card: layout, mode, layers recomputed per stage, micro-batch, micro-batches, chunks per stage."""
ComputeFloor = Callable[[int, int, int, float], float]
"""One card's seconds for all of a token's matrix products (tp, ep, micro-batch, share of layers
recomputed); over the cards a layout uses, a lower bound on its step time per token."""


def search_training_layout(
    arch: Architecture,
    knobs: Knobs,
    *,
    cards: int,
    gpus_per_node: int,
    capacity_bytes: float,
    seq_len: int,
    batch_sequences: int,
    selective_redone: float,
    compute_floor: ComputeFloor,
    memory_of: MemoryOf,
    timer: Timer,
    stretch: Callable[[int], float] = lambda used: 1.0,
) -> tuple[tuple[TrainingPlan, ...], int]:
    """Return the fastest layouts whose busiest card fits (the best first), and how many were timed.

    ``batch_sequences`` is the global batch to aim for (each replica gets whole micro-batches, so
    the step may round it up); ``selective_redone`` is the share of the layers' products selective
    recomputation runs again (per-op checkpointing with flash attention; none without). A layout
    whose compute alone, at ``compute_floor``, is slower than the best so far is not timed. A layout is
    ranked by its wall time per token: its step time per token times ``stretch(cards used)``, what a
    run on that many cards loses to failures and stalls (:func:`model.training.wall_time`). Full
    recomputation, unless the user asks for it, covers only as many of a stage's layers as the card
    needs. When nothing fits, the layout that needs the
    least memory is returned with ``fits`` False, so "does not fit" reports the best the cards can do.
    """
    pairs = model_parallel_pairs(arch.heads, arch.layers, cards, gpus_per_node, knobs.tp, knobs.pp)
    if knobs.vp is not None:  # each of a stage's chunks holds a layer at least
        pairs = tuple((t, p) for t, p in pairs if p * knobs.vp <= arch.layers)
    # More replicas than sequences cannot each get a micro-batch: fewer replicas, or more model parallelism.
    most_replicas = batch_sequences if knobs.global_batch is None else None
    shapes = _replica_shapes(pairs, knobs, cards, most_replicas, arch.is_moe)
    modes: tuple[Recompute, ...] = (knobs.recompute,) if knobs.recompute else ("none", "selective", "full")
    partial = knobs.recompute is None
    timed: list[TrainingPlan] = []
    lightest: TrainingPlan | None = None
    best = math.inf
    count = 0

    def promising(
        tp: int, pp: int, ep: int, used: int, micro_batch: int, microbatches: int, chunks: int, redone: float
    ) -> bool:
        # Its compute at the best efficiency (``redone`` of the layers' products again) plus the least
        # bubble any interleaving leaves bound its time from below: only one under the best is sized.
        if best == math.inf:
            return True
        bubble = (pp - 1) / (chunks * microbatches)
        return compute_floor(tp, ep, micro_batch, redone) * (1.0 + bubble) / used * stretch(used) < best

    fastest: dict[int, float] = {}
    micro_batches = (*MICRO_BATCHES, knobs.micro_batch or 1)
    experts = powers_of_two(arch.experts) if arch.is_moe else [1]

    def may_beat(tp: int, used: int) -> bool:
        # A shape's floor at its most efficient micro-batch and expert split bounds every one of its
        # plans from below: one test instead of one per plan, for the many shapes that leave cards idle.
        if best == math.inf:
            return True
        if tp not in fastest:
            fastest[tp] = min(compute_floor(tp, ep, mb, 0.0) for ep in experts for mb in micro_batches)
        return fastest[tp] / used * stretch(used) < best

    plans = _fitting_plans(
        arch, knobs, shapes, modes, gpus_per_node, seq_len, batch_sequences, capacity_bytes, memory_of,
        partial, promising, selective_redone, may_beat,
    )  # fmt: skip
    for plan in plans:
        if not plan.fits:
            if lightest is None or plan.memory.total < lightest.memory.total:
                lightest = plan
            continue
        (tp, pp, dp, ep, _), chunks = plan.layout, _interleavings(arch, knobs, plan)
        share = _redone_share(arch, plan, selective_redone)
        if not promising(tp, pp, ep, tp * pp * dp, plan.micro_batch, plan.microbatches, max(chunks), share):
            continue  # even its compute alone is slower than the best so far
        steps: dict[int, tuple[TrainingWork, StepTime]] = {}
        placed = False
        for vp in chunks:
            redone, memory = plan.recomputed_layers, memory_of(*_memory_shape(plan), vp)
            if memory.total > capacity_bytes:
                if not (partial and plan.recompute == "full"):
                    break  # interleaving only adds activations
                fewer = _fewest_recomputed(arch, plan, vp, capacity_bytes, memory_of)
                if fewer is None:
                    break
                redone, memory = fewer
            if redone not in steps:
                count += 1
                steps[redone] = timer(
                    plan.layout, plan.recompute, redone, plan.micro_batch, plan.global_batch, plan.microbatches
                )
            work, step = steps[redone]
            chunked = interleaved(step, vp, plan.layout.pp, plan.microbatches)
            per_token = chunked.total / (plan.global_batch * seq_len) * stretch(plan.layout.tp * plan.layout.pp * dp)
            # Built whole: NamedTuple._replace costs more than this loop's own arithmetic.
            placed_plan = TrainingPlan(
                plan.layout, plan.recompute, redone, plan.micro_batch, vp, plan.global_batch,
                plan.microbatches, memory, True, chunked, work, per_token,
            )  # fmt: skip
            timed.append(placed_plan)
            best, placed = min(best, per_token), True
        if not placed and (lightest is None or plan.memory.total < lightest.memory.total):
            lightest = plan._replace(fits=False)
    if not timed:
        assert lightest is not None  # nothing fits: report the layout that comes closest, timed
        work, step = timer(*lightest[:3], lightest.micro_batch, lightest.global_batch, lightest.microbatches)
        step = interleaved(step, lightest.vp, lightest.layout.pp, lightest.microbatches)
        return (
            lightest._replace(step=step, work=work, seconds_per_token=step.total / (lightest.global_batch * seq_len)),
        ), 1
    # Ties go to the layout that uses more of the cards, then to fewer model-parallel cards.
    ranked = sorted(timed, key=lambda plan: (plan.seconds_per_token, -_used(plan), plan.layout.tp * plan.layout.pp))
    return tuple(ranked[: 1 + CANDIDATES_SHOWN]), count


def _used(plan: TrainingPlan) -> int:
    """Return the cards ``plan`` runs on (tp x pp x dp)."""
    return plan.layout.tp * plan.layout.pp * plan.layout.dp


def _replica_shapes(
    pairs: tuple[tuple[int, int], ...], knobs: Knobs, cards: int, most_replicas: int | None, moe: bool
) -> tuple[tuple[int, int, int], ...]:
    """Return the (tp, pp, dp) shapes to search within the cards, the user's fixed values kept.

    With dp fixed, a replica has cards / dp cards (the scenario's check makes dp divide them): the
    pairs that fill it exactly, or, when none can (tp must divide the heads), the largest that fit,
    the rest idle and said so. With dp free, as many replicas as the cards hold, and that number
    halved again and again (never more than ``most_replicas``, one sequence each): a run that pays
    more for communication and bubbles than more replicas save leaves cards idle rather than run
    slower, so twice the cards never trains slower (halving 2n // x gives n // x: the shapes of n
    cards are among those of 2n). A fixed ep divides the tp x dp cards its experts are spread over
    (Megatron-Core: EP x expert-DP = TP x DP with expert tensor parallelism 1), in a mixture of
    experts (``moe``).

    Raises:
        ScenarioError: no shape leaves a whole number of expert groups.
    """
    shapes: list[tuple[int, int, int]] = []
    if knobs.dp is not None:
        room = cards // knobs.dp
        largest = max((t * p for t, p in pairs if t * p <= room), default=0)
        shapes = [(t, p, knobs.dp) for t, p in pairs if t * p == largest]
    else:
        halvings = 0
        while True:  # every pair's full count first: the best found early bounds the idle shapes away
            found = [(t, p, (cards // (t * p)) >> halvings) for t, p in pairs if (cards // (t * p)) >> halvings]
            if not found:
                break
            shapes += found
            halvings += 1
    if moe and knobs.ep is not None:  # a dense model has no experts to spread: its ep is moot
        shapes = [(t, p, dp) for t, p, dp in shapes if (t * dp) % knobs.ep == 0]
        if not shapes:
            raise ScenarioError("ep", knobs.ep, "a divisor of tp × dp: expert parallelism spans those cards")
    if most_replicas is not None:  # a sequence a replica at least, while some shape allows it
        shapes = [shape for shape in shapes if shape[2] <= most_replicas] or shapes
    return tuple(shapes)


def _interleavings(arch: Architecture, knobs: Knobs, plan: TrainingPlan) -> list[int]:
    """Return the chunks per stage to try: at least a layer each, pp > 2 and m % pp == 0 (Megatron's README)."""
    if knobs.vp is not None:
        return [knobs.vp]
    pp = plan.layout.pp
    if pp <= 2 or plan.microbatches % pp:
        return [1]
    return [v for v in INTERLEAVING if pp * v <= arch.layers]


def _memory_shape(plan: TrainingPlan) -> tuple[Layout, Recompute, int, int, int]:
    return plan.layout, plan.recompute, plan.recomputed_layers, plan.micro_batch, plan.microbatches


def _redone_share(arch: Architecture, plan: TrainingPlan, selective: float) -> float:
    """Return the share of a stage's layer products ``plan`` runs again (``selective``: if selective)."""
    if plan.recompute == "full":
        return plan.recomputed_layers / math.ceil(arch.layers / plan.layout.pp)
    return selective if plan.recompute == "selective" else 0.0


def _fewest_recomputed(
    arch: Architecture, plan: TrainingPlan, vp: int, capacity_bytes: float, memory_of: MemoryOf
) -> tuple[int, TrainingMemory] | None:
    """Return the fewest layers per stage (at least ``plan``'s) to recompute so ``plan`` fits with ``vp`` chunks.

    Memory falls linearly with each layer recomputed, so one interpolation lands on (or just under)
    the answer. None when even recomputing every layer does not fit.
    """
    layout, mode, start, micro_batch, microbatches = _memory_shape(plan)
    every = math.ceil(arch.layers / layout.pp)
    low = memory_of(layout, mode, start, micro_batch, microbatches, vp)
    if low.total <= capacity_bytes:
        return start, low
    high = memory_of(layout, mode, every, micro_batch, microbatches, vp)
    if high.total > capacity_bytes:
        return None
    saved_per_layer = (low.total - high.total) / max(every - start, 1)
    redone = min(every, start + max(1, math.ceil((low.total - capacity_bytes) / saved_per_layer)))
    memory = memory_of(layout, mode, redone, micro_batch, microbatches, vp)
    while memory.total > capacity_bytes and redone < every:
        redone += 1
        memory = memory_of(layout, mode, redone, micro_batch, microbatches, vp)
    return redone, memory


def _fitting_plans(
    arch: Architecture,
    knobs: Knobs,
    shapes: tuple[tuple[int, int, int], ...],
    modes: tuple[Recompute, ...],
    gpus_per_node: int,
    seq_len: int,
    batch_sequences: int,
    capacity_bytes: float,
    memory_of: MemoryOf,
    partial: bool,
    promising: Callable[[int, int, int, int, int, int, int, float], bool],
    selective_redone: float,
    may_beat: Callable[[int, int], bool],
) -> Iterator[TrainingPlan]:
    """Yield, for every layout and recomputation mode, the lowest ZeRO stage that fits.

    The lowest stage moves the fewest bytes (ZeRO 2 reduce-scatters every micro-batch's gradients,
    ZeRO 3 also gathers the weights); memory only falls as the stage rises, so the highest one is
    checked first and a mode that does not fit even there is yielded once, not fitting. Heavier
    recomputation is tried even when a lighter one fits: it leaves room for interleaved stages.
    With ``partial``, full recomputation covers the fewest layers that fit, at the lowest stage that
    fits and at the highest. A shape that is not ``promising`` (tp, pp, ep, cards used, micro-batch,
    micro-batches, most chunks per stage, share of the layers' products run again) is not sized,
    nor its selective recomputation (``selective_redone`` of the products again) when that is not,
    nor a (tp, pp, dp) shape that even its fastest plan could not make ``may_beat`` (tp, cards used).
    """
    # (tp, pp) pairs whose replica count already fits nowhere: fewer replicas of the same pair shard
    # the states over fewer cards and give each more micro-batches in flight, so they need more.
    hopeless: set[tuple[int, int]] = set()
    for t, p, replicas in shapes:
        if (t, p) in hopeless or not may_beat(t, t * p * replicas):
            continue
        every_mode_sized, any_fit = True, False
        stages = [knobs.zero] if knobs.zero is not None else ([1, 2, 3] if replicas > 1 else [0])
        for ep in expert_degrees(arch, replicas, t, gpus_per_node, knobs.ep):
            for micro_batch in (knobs.micro_batch,) if knobs.micro_batch else MICRO_BATCHES:
                if (
                    not knobs.micro_batch
                    and micro_batch > 1
                    and (replicas * micro_batch > batch_sequences or micro_batch * seq_len > MICRO_BATCH_TOKENS)
                ):
                    break  # bigger micro-batches would only inflate the batch, or add memory and no speed
                microbatches = max(1, -(-batch_sequences // (replicas * micro_batch)))
                shape = (t, p, replicas, ep, micro_batch, microbatches * replicas * micro_batch, microbatches)
                fitted = False
                interleavable = p > 2 and microbatches % p == 0
                chunks = knobs.vp or (max(v for v in INTERLEAVING if p * v <= arch.layers) if interleavable else 1)
                bound = (t, p, ep, t * p * replicas, micro_batch, microbatches, chunks)
                if not promising(*bound, 0.0):
                    every_mode_sized = False
                    continue
                tried = False
                for mode in modes:
                    if mode == "selective" and not promising(*bound, selective_redone):
                        every_mode_sized = False
                        continue  # something already fits faster than its products alone could run
                    lightest = _plan(arch, shape, stages[-1], mode, capacity_bytes, memory_of, knobs)
                    tried = True
                    if not lightest.fits:
                        yield lightest
                        continue
                    fitted = any_fit = True
                    sized = (_plan(arch, shape, z, mode, capacity_bytes, memory_of, knobs) for z in stages[:-1])
                    fitting = (plan for plan in sized if plan.fits)
                    if partial and mode == "full":
                        yield from _fewest_per_stage(arch, (*fitting, lightest), capacity_bytes, memory_of)
                        break
                    chosen = next(fitting, lightest)
                    yield chosen
                    if mode == "none" and chosen.layout.zero < 3 and not interleavable:
                        break  # more recomputation could only add compute: nothing left to make room for
                    # After selective recomputation fits, full recomputation of only a few layers may still cost less.
                if tried and not fitted:
                    # Larger micro-batches need more memory still. (Not after a bound skipped every mode:
                    # a larger one may interleave, with a smaller bubble, where this one could not.)
                    break
        if every_mode_sized and not any_fit:
            hopeless.add((t, p))


def _fewest_per_stage(
    arch: Architecture, plans: tuple[TrainingPlan, ...], capacity_bytes: float, memory_of: MemoryOf
) -> Iterator[TrainingPlan]:
    """Yield each given ZeRO stage's plan with the fewest layers recomputed, while that number falls."""
    fewest = math.inf
    for plan in plans:
        found = _fewest_recomputed(arch, plan._replace(recomputed_layers=1), plan.vp, capacity_bytes, memory_of)
        if found is not None and found[0] < fewest:
            fewest = found[0]
            yield plan._replace(recomputed_layers=found[0], memory=found[1])


def _plan(
    arch: Architecture,
    shape: tuple[int, int, int, int, int, int, int],
    stage: int,
    mode: Recompute,
    capacity_bytes: float,
    memory_of: MemoryOf,
    knobs: Knobs,
) -> TrainingPlan:
    """Size one candidate: (tp, pp, dp, ep, micro-batch, global batch, micro-batches) at a ZeRO stage and mode.

    Sized with the user's chunks per stage, if fixed (else none); full recomputation covers the
    user's number of each stage's layers, if fixed (else all of them).
    """
    tp, pp, dp, ep, micro_batch, batch, microbatches = shape
    layout = Layout(tp, pp, dp, ep, stage)
    every = math.ceil(arch.layers / pp)
    redone = min(knobs.recompute_layers or every, every) if mode == "full" else 0
    vp = knobs.vp or 1
    memory = memory_of(layout, mode, redone, micro_batch, microbatches, vp)
    fits = training_fits(memory, capacity_bytes)
    return TrainingPlan(layout, mode, redone, micro_batch, vp, batch, microbatches, memory, fits, None, None, 0.0)
