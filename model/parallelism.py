"""Choosing how the cards are split: the smallest layout that fits, tensor parallelism first.

Training: model-parallel sizes tp x pp are tried from the smallest up, tensor parallelism
filling a node before pipeline stages cross nodes (Narayanan et al. 2021, sec. 3.3: "tensor
model parallelism should generally be used up to degree g when using g-GPU servers"); within a
layout the lowest ZeRO stage that fits is taken, starting at stage 1 (it costs no more traffic
than plain data parallelism), and no more replicas are used than the global batch has
micro-batches for (more cards add model parallelism instead). Selective recomputation is tried
across every layout before full recomputation. Inference: the smallest tensor-parallel group
(then pipeline stages) whose weights and one sequence's KV cache fit. A value the user fixes is kept as given.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

from model.architecture import Architecture
from model.memory import (
    InferenceMemory,
    Layout,
    ServingLoad,
    TrainingMemory,
    TrainingRegime,
    inference_memory,
    training_memory,
)
from model.scenario import Recompute

__all__ = [
    "InferencePlan",
    "TrainingPlan",
    "choose_inference_layout",
    "choose_training_layout",
]


class TrainingPlan(NamedTuple):
    """The layout chosen for training and what it implies."""

    layout: Layout
    recompute: Recompute
    global_batch: int
    """Sequences per optimizer step across all replicas."""
    microbatches: int
    """Micro-batches per replica per step (gradient accumulation and pipeline depth)."""
    memory: TrainingMemory
    fits: bool


class InferencePlan(NamedTuple):
    """The layout chosen for serving: one replica is tp x pp cards; dp replicas."""

    tp: int
    pp: int
    dp: int
    memory: InferenceMemory
    fits: bool


def _powers_of_two(limit: int) -> list[int]:
    values, value = [], 1
    while value <= limit:
        values.append(value)
        value *= 2
    return values


@functools.lru_cache(maxsize=1024)
def _model_parallel_candidates(
    heads: int, layers: int, cards: int, gpus_per_node: int, tp: int | None, pp: int | None
) -> tuple[tuple[int, int], ...]:
    """List (tp, pp) pairs in preference order: smallest tp x pp first, larger tp first."""
    tp_options = [tp] if tp else [t for t in _powers_of_two(min(gpus_per_node, cards)) if heads % t == 0]
    pp_options = [pp] if pp else _powers_of_two(min(layers, cards))
    pairs = [(t, p) for t in tp_options for p in pp_options if t * p <= cards]
    pairs.sort(key=lambda pair: (pair[0] * pair[1], -pair[0]))
    return tuple(pairs) or ((tp or 1, pp or 1),)


def _expert_parallel(arch: Architecture, dp: int, ep: int | None) -> int:
    """Spread the routed experts over the data-parallel ranks, at most one expert group per card.

    Expert parallelism is carved out of data parallelism (Megatron-Core MoE; DeepSeek-V3 runs
    EP 64 across 8 nodes, Liu et al. 2024 sec. 3.2): sharding the experts wider costs all-to-all
    traffic over the network but saves their memory and their gradient reduction.
    """
    if ep:
        return ep
    if not arch.is_moe:
        return 1
    best = 1
    for value in _powers_of_two(min(arch.experts, dp)):
        if dp % value == 0:
            best = value
    return best


def _global_batch(global_tokens: float, seq_len: int, dp: int, micro_batch: int) -> tuple[int, int]:
    """Round the global batch up to whole micro-batches on every replica."""
    sequences = max(1, round(global_tokens / seq_len))
    per_step = dp * micro_batch
    microbatches = max(1, -(-sequences // per_step))
    return microbatches * per_step, microbatches


@functools.lru_cache(maxsize=1024)
def _within_batch(
    pairs: tuple[tuple[int, int], ...], cards: int, *, sequences: int, dp: int | None
) -> tuple[tuple[int, int], ...]:
    """Keep the layouts whose data-parallel width the global batch can feed.

    Each replica needs at least one micro-batch per step, so dp <= global batch / micro-batch;
    with more cards than that, practice adds model parallelism rather than growing the batch
    past what the optimiser tolerates (Llama 3 405B: 16M-token batches on 16,384 GPUs with TP 8
    x PP 16, Dubey et al. 2024 Table 4). Only when no layout fits that bound does the batch grow.
    """
    if dp:
        return pairs
    within = tuple((t, p) for t, p in pairs if cards // (t * p) <= sequences)
    return within or pairs


def choose_training_layout(
    arch: Architecture,
    regime: TrainingRegime,
    *,
    cards: int,
    gpus_per_node: int,
    capacity_bytes: float,
    seq_len: int,
    global_tokens: float,
    micro_batch: int,
    recompute: Recompute | None,
    flash_attention: bool,
    tp: int | None = None,
    pp: int | None = None,
    dp: int | None = None,
    ep: int | None = None,
    zero: int | None = None,
    runtime_bytes: float,
) -> TrainingPlan:
    """Return the first layout, in preference order, whose busiest card fits ``capacity_bytes``.

    When none fits, return the layout that needs the least memory per card, so "does not fit"
    reports the best the cards can do.
    """
    recompute_options: list[Recompute] = [recompute] if recompute else ["selective", "full"]
    pairs = _within_batch(
        _model_parallel_candidates(arch.heads, arch.layers, cards, gpus_per_node, tp, pp),
        cards,
        sequences=max(1, round(global_tokens / seq_len)) // micro_batch,
        dp=dp,
    )
    fallback: TrainingPlan | None = None
    for mode in recompute_options:
        for t, p in pairs:
            replicas = dp or max(1, cards // (t * p))
            experts = _expert_parallel(arch, replicas, ep)
            batch, microbatches = _global_batch(global_tokens, seq_len, replicas, micro_batch)
            stages = [zero] if zero is not None else ([1, 2, 3] if replicas > 1 else [0])
            best: TrainingPlan | None = None
            # Memory only falls as the ZeRO stage rises: check the highest first; if it does not
            # fit, no stage does.
            for stage in (stages[-1], *stages[:-1]):
                layout = Layout(t, p, replicas, experts, stage)
                memory = training_memory(
                    arch,
                    regime,
                    layout,
                    seq_len=seq_len,
                    micro_batch=micro_batch,
                    microbatches=microbatches,
                    recompute=mode,
                    flash_attention=flash_attention,
                    runtime_bytes=runtime_bytes,
                )
                candidate = TrainingPlan(layout, mode, batch, microbatches, memory, memory.total <= capacity_bytes)
                if stage == stages[-1]:
                    # Nothing may fit: then report the layout that comes closest.
                    if fallback is None or candidate.memory.total < fallback.memory.total:
                        fallback = candidate
                    if not candidate.fits:
                        break
                    best = candidate
                elif candidate.fits:
                    return candidate
            if best is not None:
                return best
    assert fallback is not None
    return fallback


def choose_inference_layout(
    arch: Architecture,
    load: ServingLoad,
    *,
    cards: int,
    gpus_per_node: int,
    capacity_bytes: float,
    batch: int,
    tp: int | None,
    pp: int | None,
) -> InferencePlan:
    """Return the smallest serving replica that holds the weights and ``batch`` sequences."""
    fallback: InferencePlan | None = None
    for t, p in _model_parallel_candidates(arch.heads, arch.layers, cards, gpus_per_node, tp, pp):
        memory = inference_memory(arch, load, batch=batch, tp=t, pp=p)
        candidate = InferencePlan(t, p, max(1, cards // (t * p)), memory, memory.total <= capacity_bytes)
        if candidate.fits:
            return candidate
        if fallback is None or memory.total < fallback.memory.total:
            fallback = candidate
    assert fallback is not None
    return fallback
