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
from model.efficiency import Efficiencies
from model.inference import LoadedServing, ServingContext, loaded_serving, serving_context, serving_rates
from model.layouts.grid import model_parallel_pairs, powers_of_two
from model.memory import InferenceMemory, ServingLoad, inference_memory, max_batch_that_fits
from model.scenario import Resolved

__all__ = [
    "InferencePlan",
    "ServingChoice",
    "ServingScore",
    "choose_serving_layout",
    "forget_serving_choices",
    "plan_serving",
    "serving_layouts",
]


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


class ServingChoice(NamedTuple):
    """The replica chosen; every one ranked with its time per token and tokens/s; what each holds and serves."""

    plan: InferencePlan
    ranked: list[tuple[InferencePlan, float, float]]
    largest: dict[tuple[int, int], int]
    """The most sequences a replica holds: every replica's when the batch is "max", else the chosen one's."""
    expected: dict[tuple[int, int], tuple[ServingContext, LoadedServing]]


_SERVING_CHOICES: dict[tuple[Resolved, Efficiencies], ServingChoice] = {}
_SERVING_CHOICES_KEPT = 512


def plan_serving(r: Resolved, load: ServingLoad, key: str, eff: Efficiencies) -> ServingChoice:
    """Size and score every serving replica of ``r`` under ``eff`` and pick one (:func:`choose_serving_layout`).

    Cached by the resolved scenario: pages and sweeps ask for the same serving many times.
    """
    found = _SERVING_CHOICES.get((r, eff))
    if found is not None:
        return found
    s, arch, gpu = r.scenario, r.arch, r.gpu
    wanted = 1 if s.batch == "max" else int(s.batch)
    plans = serving_layouts(
        arch, load, cards=s.cards, gpus_per_node=r.gpus_per_node, capacity_bytes=gpu.memory_bytes, batch=wanted,
        tp=s.tp, pp=s.pp,
    )  # fmt: skip
    # The most sequences a replica holds: for every replica when the batch is "as many as fit", else
    # for the chosen one only (below), which is all the estimate reports.
    largest = (
        {(p.tp, p.pp): max_batch_that_fits(arch, gpu.memory_bytes, load, tp=p.tp, pp=p.pp) for p in plans}
        if s.batch == "max"
        else {}
    )
    expected: dict[tuple[int, int], tuple[ServingContext, LoadedServing]] = {}

    def score(plan: InferencePlan) -> tuple[float, float]:
        ctx = serving_context(r, tp=plan.tp, pp=plan.pp, compute_key=key)
        batch = max(1, largest[plan.tp, plan.pp]) if s.batch == "max" else wanted
        served = loaded_serving(r, ctx, serving_rates(r, ctx, eff), batch, plan.dp)
        expected[plan.tp, plan.pp] = ctx, served
        return served.tpot_s, served.tokens_per_s

    plan, ranked = choose_serving_layout(
        plans, score, one_user=s.batch == 1, cards=s.cards, target_tpot_s=s.target_tpot_s
    )
    if len(_SERVING_CHOICES) >= _SERVING_CHOICES_KEPT:
        _SERVING_CHOICES.pop(next(iter(_SERVING_CHOICES)))
    if (plan.tp, plan.pp) not in largest:
        largest[plan.tp, plan.pp] = max_batch_that_fits(arch, gpu.memory_bytes, load, tp=plan.tp, pp=plan.pp)
    choice = ServingChoice(plan, ranked, largest, expected)
    _SERVING_CHOICES[r, eff] = choice
    return choice


def forget_serving_choices() -> None:
    """Empty the serving cache (benchmarks time a choice from scratch)."""
    _SERVING_CHOICES.clear()
