"""Serving replicas: which tensor x pipeline groups hold the model, and which one answers the question asked.

A replica is tp x pp cards; the scenario's cards make dp replicas. Tensor parallelism stays inside
a node (any degree that divides the heads); past a node, pipeline stages of a full node, or tensor
parallelism over two nodes, which pays the network's latency on every layer's all-reduce. For
one user the replica with the lowest time per token answers; under load, the one with the most
output tokens per second per card that meets the latency target.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from model.architecture import Architecture
from model.memory import InferenceMemory, ServingLoad, inference_memory
from model.parallelism import model_parallel_pairs, powers_of_two

__all__ = ["InferencePlan", "ServingScore", "choose_serving_layout", "serving_layouts"]


class InferencePlan(NamedTuple):
    """A serving replica: tp x pp cards; dp replicas."""

    tp: int
    pp: int
    dp: int
    memory: InferenceMemory
    fits: bool


def serving_layouts(
    arch: Architecture,
    load: ServingLoad,
    *,
    cards: int,
    gpus_per_node: int,
    capacity_bytes: float,
    batch: int,
    tp: int | None,
    pp: int | None,
) -> list[InferencePlan]:
    """Return the serving replicas that hold the weights and ``batch`` sequences, smallest first.

    Tensor parallelism within a node (any degree that divides the heads); past a node, pipeline
    stages of a full node, or tensor parallelism over two nodes, which pays the network's latency
    on every layer's all-reduce. When none fits, only the replica that comes closest, not fitting.
    """
    node = min(gpus_per_node, cards)
    if tp or pp:
        pairs = list(model_parallel_pairs(arch.heads, arch.layers, cards, gpus_per_node, tp, pp))
    else:
        pairs = [(t, 1) for t in powers_of_two(node) if arch.heads % t == 0]
        wide = pairs[-1][0] if pairs else 1
        pairs += [(wide, p) for p in powers_of_two(min(arch.layers, cards // wide)) if p > 1]
        if 2 * wide <= cards and arch.heads % (2 * wide) == 0:
            pairs.append((2 * wide, 1))
    fitting: list[InferencePlan] = []
    fallback: InferencePlan | None = None
    for t, p in sorted(pairs, key=lambda pair: (pair[0] * pair[1], pair[1])):
        memory = inference_memory(arch, load, batch=batch, tp=t, pp=p)
        candidate = InferencePlan(t, p, max(1, cards // (t * p)), memory, memory.total <= capacity_bytes)
        if candidate.fits:
            fitting.append(candidate)
        elif fallback is None or memory.total < fallback.memory.total:
            fallback = candidate
    if fitting:
        return fitting
    assert fallback is not None
    return [fallback]


ServingScore = Callable[[InferencePlan], tuple[float, float]]
"""The time per output token a replica gives and its output tokens per second over all replicas."""


def choose_serving_layout(
    plans: list[InferencePlan], score: ServingScore, *, one_user: bool, cards: int, target_tpot_s: float | None
) -> tuple[InferencePlan, list[tuple[InferencePlan, float, float]]]:
    """Pick the replica that answers the question asked, and rank the others.

    One user: the lowest time per token. Under load: the most output tokens per second per card
    among the replicas that meet ``target_tpot_s`` (all of them when there is no target, or
    when none does). Ties go to fewer model-parallel cards.
    """
    scored = [(plan, *score(plan)) for plan in plans]
    if one_user:
        ranked = sorted(scored, key=lambda item: (item[1], item[0].tp * item[0].pp))
    else:
        meets = [item for item in scored if target_tpot_s is None or item[1] <= target_tpot_s] or scored
        rest = [item for item in scored if item not in meets]
        per_card = sorted(meets, key=lambda item: (-item[2] / cards, item[0].tp * item[0].pp))
        ranked = per_card + sorted(rest, key=lambda item: item[1])
    return ranked[0][0], ranked
