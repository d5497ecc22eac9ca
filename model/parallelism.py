"""Choosing how the cards split for training: the fastest layout that fits, as practitioners run it.

A search over tensor parallelism (inside a node), pipeline stages, data and expert parallelism,
ZeRO stage, recomputation, micro-batch and interleaved stages takes the shortest time to train
whose busiest card fits (ties: fewer model-parallel cards), not the smallest layout that fits,
which only minimises memory. Memory only falls as the ZeRO stage or recomputation rises and grows
with the micro-batch, and a layout whose compute alone at the best efficiency is slower than the
best so far is not timed. Every value the user fixes is kept. The default batch is
:func:`model.training.default_global_batch`; serving replicas are :mod:`model.replicas`.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterator
from typing import NamedTuple

from model.architecture import Architecture
from model.efficiency import Efficiencies, matmul_efficiency
from model.memory import (
    RUNTIME_BYTES,
    Layout,
    TrainingMemory,
    TrainingRegime,
    TrainingStates,
    combined_memory,
    training_activations,
    training_states,
)
from model.results import TrainingCandidate
from model.scenario import Recompute, Resolved
from model.training import StepTime, default_global_batch, interleaved, step_time, training_work, wall_time

__all__ = [
    "CANDIDATES_SHOWN",
    "TrainingPlan",
    "TrainingSearch",
    "model_parallel_pairs",
    "plan_training",
    "powers_of_two",
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
    micro_batch: int  # sequences per micro-batch on each replica
    vp: int  # model chunks per pipeline stage (1: plain 1F1B)
    global_batch: int  # sequences per optimizer step across all replicas
    microbatches: int  # micro-batches per replica per step (accumulation and pipeline depth)
    memory: TrainingMemory
    fits: bool
    step: StepTime | None
    """The expected step (None: not timed yet)."""
    seconds_per_token: float
    """Step time over the tokens a step trains: what the search minimises."""


class TrainingSearch(NamedTuple):
    """The chosen layout, it and its runner-ups as reported (fastest first), how many were timed."""

    best: TrainingPlan
    ranked: tuple[TrainingCandidate, ...]
    timed: int


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


def powers_of_two(limit: int) -> list[int]:
    """Return 1, 2, 4, ... up to ``limit``."""
    values, value = [], 1
    while value <= limit:
        values.append(value)
        value *= 2
    return values


@functools.lru_cache(maxsize=1024)
def model_parallel_pairs(
    heads: int, layers: int, cards: int, gpus_per_node: int, tp: int | None, pp: int | None
) -> tuple[tuple[int, int], ...]:
    """List (tp, pp) pairs, smallest tp x pp first: tp inside a node and dividing the heads."""
    tp_options = [tp] if tp else [t for t in powers_of_two(min(gpus_per_node, cards)) if heads % t == 0]
    pp_options = [pp] if pp else powers_of_two(min(layers, cards))
    pairs = [(t, p) for t in tp_options for p in pp_options if t * p <= cards]
    pairs.sort(key=lambda pair: (pair[0] * pair[1], -pair[0]))
    return tuple(pairs) or ((tp or 1, pp or 1),)


def _expert_options(arch: Architecture, dp: int, tp: int, gpus_per_node: int, ep: int | None) -> list[int]:
    """Return the expert-parallel degrees to try: none, one node's worth, and as wide as the experts allow.

    Expert parallelism is carved out of data parallelism (Megatron-Core MoE; DeepSeek-V3 runs EP 64
    over 8 nodes, Liu et al. 2024 sec. 3.2): powers of two dividing dp, at most the experts. Wider
    groups need less memory and pay more all-to-all traffic; the three ends of that trade are tried.
    """
    if ep:
        return [ep]
    if not arch.is_moe:
        return [1]
    degrees = [value for value in powers_of_two(min(arch.experts, dp)) if dp % value == 0]
    in_node = [value for value in degrees if value * tp <= gpus_per_node]
    return sorted({degrees[0], in_node[-1] if in_node else degrees[0], degrees[-1]})


Timer = Callable[[Layout, Recompute, int, int, int], StepTime]  # layout, mode, micro-batch, batch, micro-batches
MemoryOf = Callable[[Layout, Recompute, int, int, int], TrainingMemory]  # ..., micro-batches, vp
ComputeFloor = Callable[[Recompute], float]  # one card's seconds per token at the best efficiency


def search_training_layout(
    arch: Architecture,
    knobs: Knobs,
    *,
    cards: int,
    gpus_per_node: int,
    capacity_bytes: float,
    seq_len: int,
    batch_sequences: int,
    selective_saves_memory: bool,
    compute_floor: ComputeFloor,
    memory_of: MemoryOf,
    timer: Timer,
) -> tuple[tuple[TrainingPlan, ...], int]:
    """Return the fastest layouts whose busiest card fits (the best first), and how many were timed.

    ``batch_sequences`` is the global batch to aim for (each replica gets whole micro-batches, so
    the step may round it up). A layout whose compute alone, at ``compute_floor``, is slower than
    the best so far is not timed. Selective recomputation is tried only where it saves memory
    (without flash attention). When nothing fits, the layout that needs the least memory is
    returned with ``fits`` False, so "does not fit" reports the best the cards can do.
    """
    pairs = model_parallel_pairs(arch.heads, arch.layers, cards, gpus_per_node, knobs.tp, knobs.pp)
    if knobs.global_batch is None and knobs.dp is None:
        # More replicas than sequences cannot each get a micro-batch: add model parallelism.
        within = tuple((t, p) for t, p in pairs if cards // (t * p) <= batch_sequences)
        pairs = within or pairs
    modes: tuple[Recompute, ...] = (knobs.recompute,) if knobs.recompute else (
        ("none", "selective", "full") if selective_saves_memory else ("none", "full")
    )  # fmt: skip
    floors: dict[Recompute, float] = {}
    timed: list[TrainingPlan] = []
    lightest: TrainingPlan | None = None
    best = math.inf
    count = 0
    plans = _fitting_plans(
        arch, knobs, pairs, modes, cards, gpus_per_node, seq_len, batch_sequences, capacity_bytes, memory_of
    )
    for plan in plans:
        if not plan.fits:
            if lightest is None or plan.memory.total < lightest.memory.total:
                lightest = plan
            continue
        used = plan.layout.tp * plan.layout.pp * plan.layout.dp
        if plan.recompute not in floors:
            floors[plan.recompute] = compute_floor(plan.recompute)
        if floors[plan.recompute] / used >= best:
            continue  # even its compute at the best efficiency is slower than the best so far
        count += 1
        step = timer(plan.layout, plan.recompute, plan.micro_batch, plan.global_batch, plan.microbatches)
        for vp in _interleavings(arch, knobs, plan):
            chunked = interleaved(step, vp)
            memory = memory_of(plan.layout, plan.recompute, plan.micro_batch, plan.microbatches, vp)
            if vp > 1 and memory.total > capacity_bytes:
                break  # interleaving only adds activations
            per_token = chunked.total / (plan.global_batch * seq_len)
            timed.append(plan._replace(vp=vp, memory=memory, step=chunked, seconds_per_token=per_token))
            best = min(best, per_token)
    if not timed:
        assert lightest is not None  # nothing fits: report the layout that comes closest, timed
        step = timer(*lightest[:2], lightest.micro_batch, lightest.global_batch, lightest.microbatches)
        return (lightest._replace(step=step, seconds_per_token=step.total / (lightest.global_batch * seq_len)),), 1
    ranked = sorted(timed, key=lambda plan: (plan.seconds_per_token, plan.layout.tp * plan.layout.pp))
    return tuple(ranked[: 1 + CANDIDATES_SHOWN]), count


def _interleavings(arch: Architecture, knobs: Knobs, plan: TrainingPlan) -> list[int]:
    """Return the chunks per stage to try: at least a layer each, pp > 2 and m % pp == 0 (Megatron's README)."""
    if knobs.vp is not None:
        return [knobs.vp]
    pp = plan.layout.pp
    if pp <= 2 or plan.microbatches % pp:
        return [1]
    return [v for v in INTERLEAVING if pp * v <= arch.layers]


def _fitting_plans(
    arch: Architecture,
    knobs: Knobs,
    pairs: tuple[tuple[int, int], ...],
    modes: tuple[Recompute, ...],
    cards: int,
    gpus_per_node: int,
    seq_len: int,
    batch_sequences: int,
    capacity_bytes: float,
    memory_of: MemoryOf,
) -> Iterator[TrainingPlan]:
    """Yield, for every layout and recomputation mode, the lowest ZeRO stage that fits.

    The lowest stage moves the fewest bytes (ZeRO 2 reduce-scatters every micro-batch's gradients,
    ZeRO 3 also gathers the weights); memory only falls as the stage rises, so the highest one is
    checked first and a mode that does not fit even there is yielded once, not fitting. Heavier
    recomputation is tried even when a lighter one fits: it leaves room for interleaved stages.
    """
    for t, p in pairs:
        replicas = knobs.dp or max(1, cards // (t * p))
        stages = [knobs.zero] if knobs.zero is not None else ([1, 2, 3] if replicas > 1 else [0])
        for ep in _expert_options(arch, replicas, t, gpus_per_node, knobs.ep):
            for micro_batch in (knobs.micro_batch,) if knobs.micro_batch else MICRO_BATCHES:
                if micro_batch > 1 and (
                    replicas * micro_batch > batch_sequences or micro_batch * seq_len > MICRO_BATCH_TOKENS
                ):
                    break  # bigger micro-batches would only inflate the batch, or add memory and no speed
                microbatches = max(1, -(-batch_sequences // (replicas * micro_batch)))
                shape = (t, p, replicas, ep, micro_batch, microbatches * replicas * micro_batch, microbatches)
                fitted = False
                interleavable = p > 2 and microbatches % p == 0
                for mode in modes:
                    lightest = _plan(shape, stages[-1], mode, capacity_bytes, memory_of)
                    if not lightest.fits:
                        yield lightest
                        continue
                    fitted = True
                    lower = (_plan(shape, stage, mode, capacity_bytes, memory_of) for stage in stages[:-1])
                    chosen = next((plan for plan in lower if plan.fits), lightest)
                    yield chosen
                    if chosen.layout.zero < 3 and not interleavable:
                        break  # more recomputation could only add compute: nothing left to make room for
                if not fitted:
                    break  # larger micro-batches need more memory still


def _plan(
    shape: tuple[int, int, int, int, int, int, int],
    stage: int,
    mode: Recompute,
    capacity_bytes: float,
    memory_of: MemoryOf,
) -> TrainingPlan:
    """Size one candidate: (tp, pp, dp, ep, micro-batch, global batch, micro-batches) at a ZeRO stage and mode."""
    tp, pp, dp, ep, micro_batch, batch, microbatches = shape
    layout = Layout(tp, pp, dp, ep, stage)
    memory = memory_of(layout, mode, micro_batch, microbatches, 1)
    fits = memory.total <= capacity_bytes
    return TrainingPlan(layout, mode, micro_batch, 1, batch, microbatches, memory, fits, None, 0.0)


_SEARCHES: dict[tuple[object, ...], TrainingSearch] = {}
_SEARCHES_KEPT = 512
"""Searches remembered per process: the pages and sweeps ask for the same training many times."""


def plan_training(
    r: Resolved, regime: TrainingRegime, eff: Efficiencies, *, key: str, peak: float, share: float | None, lora: bool
) -> TrainingSearch:
    """Search the training layouts of ``r`` (the user's fixed knobs kept), timed under ``eff``.

    Cached by the inputs the search reads, so a page that changes only the serving settings, or a
    sweep that estimates the same training again, does not search again.
    """
    s, arch = r.scenario, r.arch
    knobs = Knobs(s.tp, s.pp, s.dp, s.ep, s.zero, r.recompute, s.micro_batch, s.vp, s.global_batch)
    runtime = RUNTIME_BYTES if r.gpu.host_link else 0.0
    cache_key = (
        arch, regime, knobs, s.cards, r.gpus_per_node, r.gpu, r.scale_up, r.network, r.seq_len, r.tokens,
        r.precision, s.finetune, s.flash_attention, key, eff, lora, runtime,
    )  # fmt: skip
    found = _SEARCHES.get(cache_key)
    if found is not None:
        return found
    # A layout's states serve all its micro-batches and modes; activations, all ZeRO stages and ep.
    states: dict[Layout, TrainingStates] = {}
    held: dict[tuple[int, int, int, int, Recompute, int], float] = {}

    def memory_of(layout: Layout, mode: Recompute, micro_batch: int, microbatches: int, vp: int) -> TrainingMemory:
        if layout not in states:
            states[layout] = training_states(arch, regime, layout)
        shape = (layout.tp, layout.pp, micro_batch, min(layout.pp, microbatches), mode, vp)
        if shape not in held:
            held[shape] = training_activations(
                arch, regime, tp=layout.tp, pp=layout.pp, seq_len=r.seq_len, micro_batch=micro_batch,
                in_flight=shape[3], recompute=mode, flash_attention=s.flash_attention, vp=vp,
            )  # fmt: skip
        return combined_memory(states[layout], held[shape], runtime)

    def timer(layout: Layout, mode: Recompute, micro_batch: int, batch: int, microbatches: int) -> StepTime:
        work = training_work(
            r, regime, layout, micro_batch=micro_batch, global_batch=batch, microbatches=microbatches, recompute=mode
        )
        return step_time(
            r, work, layout, microbatches=microbatches, compute_key=key, peak=peak, ceiling_share=share, eff=eff,
            lora=lora,
        )  # fmt: skip

    best_rate = peak * matmul_efficiency(eff, key, math.inf, share) * eff.training_matmul_vs_ceiling

    def compute_floor(mode: Recompute) -> float:
        one = Layout(1, 1, 1, 1, 0)
        work = training_work(r, regime, one, micro_batch=1, global_batch=1, microbatches=1, recompute=mode)
        return work.hardware_flops_per_token / best_rate

    plans, timed = search_training_layout(
        arch, knobs, cards=s.cards, gpus_per_node=r.gpus_per_node, capacity_bytes=r.gpu.memory_bytes,
        seq_len=r.seq_len, batch_sequences=s.global_batch or default_global_batch(arch, r.tokens, s.cards, r.seq_len),
        selective_saves_memory=not s.flash_attention, compute_floor=compute_floor, memory_of=memory_of, timer=timer,
    )  # fmt: skip
    search = TrainingSearch(plans[0], tuple(_candidate(r, plan, eff) for plan in plans), timed)
    if len(_SEARCHES) >= _SEARCHES_KEPT:
        _SEARCHES.pop(next(iter(_SEARCHES)))
    _SEARCHES[cache_key] = search
    return search


def _candidate(r: Resolved, plan: TrainingPlan, eff: Efficiencies) -> TrainingCandidate:
    """Report one plan: its layout, the whole run's wall time with it, its busiest card's bytes."""
    assert plan.step is not None  # every plan the search returns is timed
    layout = plan.layout
    time_s = wall_time(
        plan.step.total, r.tokens / (plan.global_batch * r.seq_len), layout.tp * layout.pp * layout.dp, eff
    )
    return TrainingCandidate(
        *layout, plan.recompute, plan.micro_batch, plan.vp, plan.global_batch, time_s, plan.memory.total
    )
