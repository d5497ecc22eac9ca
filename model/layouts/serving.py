"""Serving replicas: which tensor x pipeline groups hold the model, and which one answers the question asked.

A replica is tp x pp cards; the scenario's cards make dp replicas. Tensor parallelism stays inside
a node (any degree that divides the heads); past a node, pipeline stages of a full node, or tensor
parallelism over two nodes, which pays the network's latency on every layer's all-reduce. For
one user the replica with the lowest time per token answers; under load, the one with the most
output tokens per second per card that meets the latency target. A concurrency that no replica
holds is served as vLLM and TGI serve it: each replica runs the largest batch that fits and the
rest wait (:func:`serving_layouts`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import NamedTuple

from model.architecture import Architecture
from model.caches import BoundedMemo
from model.efficiency import Efficiencies, efficiency_variants
from model.inference import (
    InferenceMemory,
    LoadedServing,
    Offload,
    ServingContext,
    ServingLoad,
    admitted,
    ideal_decode_step,
    inference_memory,
    largest_offloaded_batch,
    loaded_serving,
    max_batch_that_fits,
    offload_roofline,
    place_offload,
    serving_context,
    serving_fits,
    serving_rates,
)
from model.layouts.grid import model_parallel_pairs, powers_of_two
from model.layouts.training import CANDIDATES_SHOWN
from model.memory import runtime_bytes
from model.results import ServingCandidate
from model.scenario import Resolved, Scenario, engine_sets_batch, offered_concurrency
from model.stacks import SEARCH, ServingPolicy, serving_policy

__all__ = [
    "InferencePlan",
    "ServingChoice",
    "ServingScore",
    "choose_serving_layout",
    "forget_serving_choices",
    "plan_serving",
    "replica_name",
    "replicas_needed",
    "serving_layouts",
    "serving_load",
]


class InferencePlan(NamedTuple):
    """A serving replica: tp x pp cards, or ep cards of attention data parallelism; dp replicas."""

    tp: int
    pp: int
    dp: int
    memory: InferenceMemory
    fits: bool
    ep: int = 1
    """Cards of attention data parallelism with the routed experts split over them (1: none)."""
    batch: int = 1
    """Sequences each replica serves: the scenario's batch, or its share of the concurrency."""
    concurrency: int | None = None
    """Sequences in flight over all replicas, when the scenario gives them so (None: batch per replica)."""
    waiting: int = 0
    """Of the concurrency, the sequences no replica has room for: they wait for a slot (0: all run)."""

    @property
    def key(self) -> tuple[int, int, int]:
        """(tp, pp, ep): what tells two replicas apart."""
        return self.tp, self.pp, self.ep

    @property
    def busy(self) -> float:
        """Replicas' worth of sequences in flight: dp, or the concurrency over each one's share.

        Fewer than dp when the concurrency does not fill every replica or does not divide evenly;
        dp when sequences wait (every replica then runs full).
        """
        return min(self.concurrency / self.batch, float(self.dp)) if self.concurrency else float(self.dp)


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
    attention_dp: int | None = None,
    concurrency: int | None = None,
    policy: ServingPolicy = SEARCH,
) -> list[InferencePlan]:
    """Return the serving replicas that hold the weights and their sequences, smallest first.

    Each replica holds ``batch`` sequences, or with ``concurrency`` its share of them (rounded up):
    replicas are then weighed at the same load over the cards, not at the same load each.

    Tensor parallelism within a node (any degree that divides the heads); past a node, pipeline
    stages of a full node, or tensor parallelism over two nodes, which pays the network's latency
    on every layer's all-reduce. A mixture of experts whose KV cache tensor parallelism cannot split
    over a node (MLA's latent, or fewer KV heads than cards) may also run attention data-parallel
        over a node or two with its experts split over the same cards (expert parallelism: DeepSeek-V3's
    own deployment, sec. 3.4; SGLang's and TensorRT-LLM's attention DP). A replica fits when a card
    holds it within what a server budgets (:func:`model.inference.serving_fits`: the one serving
    rule).

    A concurrency that no replica holds is queued, not refused: vLLM admits the sequences whose KV
    cache fits (``gpu_memory_utilization``), keeps the rest in its waiting queue and preempts when
    the cache runs out (vLLM docs, "Optimization and Tuning: Preemption"; Kwon et al. 2023,
    "Efficient Memory Management for LLM Serving with PagedAttention", sec. 4.5); TGI's router
    batches within its token budget (``--max-batch-total-tokens``) and queues the rest. Each
    replica that holds its weights and one sequence then runs the largest batch that fits
    (:func:`model.inference.max_batch_that_fits`), and the concurrency above dp times that batch
    waits, counted over all replicas (a router sends a request to a replica with a free slot).
    Only when no replica holds its share does a queue form: a layout that serves everyone at once
    is what a practitioner picks first. A ``batch`` per replica is the running
    batch itself (what ``--max-num-seqs`` fixes), so one above what fits stays "does not fit".
    When nothing fits, only the replica that comes closest, not fitting.

    A desk runner (``policy``, :func:`model.stacks.serving_policy`) runs one instance, not replicas,
    spread as it documents: over every card (llama.cpp's layer split, MLC's tensor shards), over the
    fewest that hold it (ExLlamaV2's autosplit), or on one card when it fits (Ollama); a tp or pp the
    user fixes is kept (llama.cpp's ``--split-mode row`` is a fixed tp).
    """
    node = min(gpus_per_node, cards)
    shapes: list[tuple[int, int, int]]
    if attention_dp and attention_dp > 1 and arch.is_moe:
        shapes = [(1, 1, min(attention_dp, cards))]
    elif policy.one_instance and not (tp or pp):
        return _one_instance(arch, load, policy, cards, capacity_bytes, batch, concurrency)
    elif tp or pp:
        shapes = [(t, p, 1) for t, p in model_parallel_pairs(arch.heads, arch.layers, cards, gpus_per_node, tp, pp)]
    else:
        pairs = [(t, 1) for t in powers_of_two(node) if arch.heads % t == 0]
        wide = pairs[-1][0] if pairs else 1
        pairs += [(wide, p) for p in powers_of_two(min(arch.layers, cards // wide)) if p > 1]
        if 2 * wide <= cards and arch.heads % (2 * wide) == 0:
            pairs.append((2 * wide, 1))
        shapes = [(t, p, 1) for t, p in pairs]
        if arch.is_moe and arch.stats.kv_heads_for_sharding < node and attention_dp is None:
            # Attention DP pays where tensor parallelism cannot split the KV cache (MLA's latent,
            # or fewer KV heads than a node's cards), which is why MoE deployments adopt it.
            shapes += [(1, 1, e) for e in powers_of_two(min(cards, 2 * node, arch.experts)) if e > 1]
    shapes.sort(key=lambda shape: (shape[0] * shape[1] * shape[2], shape[1], shape[2]))
    fitting: list[InferencePlan] = []
    fallback: InferencePlan | None = None
    for t, p, e in shapes:
        replicas = 1 if policy.one_instance else max(1, cards // (t * p * e))
        each = -(-concurrency // replicas) if concurrency else batch
        memory = inference_memory(arch, load, batch=each, tp=t, pp=p, ep=e)
        at_once = serving_fits(memory, capacity_bytes, load.budget) and _within_slots(each, concurrency, load)
        candidate = InferencePlan(t, p, replicas, memory, at_once, e, each, concurrency)
        if candidate.fits:
            fitting.append(candidate)
        elif fallback is None or memory.total < fallback.memory.total:
            fallback = candidate
    if fitting:
        return fitting
    if concurrency:
        queued = _queued_layouts(arch, load, shapes, cards, capacity_bytes, concurrency, policy.one_instance)
        if queued:
            return queued
    assert fallback is not None
    return [fallback]


def _one_instance(
    arch: Architecture,
    load: ServingLoad,
    policy: ServingPolicy,
    cards: int,
    capacity_bytes: float,
    batch: int,
    concurrency: int | None,
) -> list[InferencePlan]:
    """Return the one instance a desk runner lays the model out as, over the cards its policy takes.

    ``all``: every card (at most one layer each), by layers, or by tensors over the largest power of
    two that divides the heads; ``fill``: the fewest cards that hold it, layer by layer; ``fit_one``:
    one card when it holds the model, else every card. A concurrency above what fits is queued.
    """
    deepest = max(1, min(cards, arch.layers))
    if policy.split == "tensor":
        widths = [t for t in powers_of_two(cards) if arch.heads % t == 0] or [1]
        shapes = [(widths[-1], 1, 1)]
    elif policy.multi_card == "fill":
        shapes = [(1, p, 1) for p in range(1, deepest + 1)]
    elif policy.multi_card == "fit_one":
        shapes = [(1, 1, 1), (1, deepest, 1)] if deepest > 1 else [(1, 1, 1)]
    else:
        shapes = [(1, deepest, 1)]
    each = concurrency or batch
    last: InferencePlan | None = None
    for t, p, e in shapes:
        memory = inference_memory(arch, load, batch=each, tp=t, pp=p, ep=e)
        at_once = serving_fits(memory, capacity_bytes, load.budget) and _within_slots(each, concurrency, load)
        last = InferencePlan(t, p, 1, memory, at_once, e, each, concurrency)
        if last.fits:
            return [last]
    if concurrency:
        queued = _queued_layouts(arch, load, shapes, cards, capacity_bytes, concurrency, True)
        if queued:
            return queued[:1]
    assert last is not None
    return [last]


def _within_slots(each: int, concurrency: int | None, load: ServingLoad) -> bool:
    """Whether a replica's share of a concurrency runs at once: within its server's slots (a fixed batch is its own)."""
    return concurrency is None or load.slots is None or each <= load.slots


def _queued_layouts(
    arch: Architecture,
    load: ServingLoad,
    shapes: list[tuple[int, int, int]],
    cards: int,
    capacity_bytes: float,
    concurrency: int,
    one_instance: bool = False,
) -> list[InferencePlan]:
    """Return each of ``shapes`` that holds one sequence at its largest batch, the rest of ``concurrency`` waiting."""
    queued = []
    for t, p, e in shapes:
        most = admitted(max_batch_that_fits(arch, capacity_bytes, load, tp=t, pp=p, ep=e), load)
        if most < 1:
            continue
        replicas = 1 if one_instance else max(1, cards // (t * p * e))
        memory = inference_memory(arch, load, batch=most, tp=t, pp=p, ep=e)
        waiting = max(0, concurrency - replicas * most)
        fits = serving_fits(
            memory, capacity_bytes, load.budget
        )  # true by max_batch_that_fits: the one rule, asked again
        queued.append(InferencePlan(t, p, replicas, memory, fits, e, most, concurrency, waiting))
    return queued


def replicas_needed(traffic_tokens_per_s: float, replica_tokens_per_s: float, utilization: float = 1.0) -> int:
    """Return how many replicas serve ``traffic_tokens_per_s`` output tokens: the one rule for a fleet's size.

    Each replica gives ``replica_tokens_per_s`` at full load (prefill of arriving requests
    included) and is busy ``utilization`` of the time on average, so the fleet is
    ceil(traffic / (rate x utilization)), at least one. The planner asks it at utilisation 1 (its
    target is the load the cards must carry); the cost over time at the scenario's utilisation.
    0 replicas when a replica gives nothing (it does not run).
    """
    effective = replica_tokens_per_s * utilization
    if effective <= 0.0:
        return 0
    # A hair under the quotient: a traffic of exactly k replicas' worth must not round up to k + 1.
    return max(1, math.ceil(traffic_tokens_per_s / effective * (1.0 - 1e-12)))


def replica_name(tp: int, pp: int, ep: int = 1, *, times: str = "×") -> str:
    """Name a serving replica: 'tp 8 × pp 2', or 'attention DP 8 × EP 8' for data-parallel attention."""
    if ep > 1:
        return f"attention DP {ep} {times} EP {ep}"
    return f"tp {tp} {times} pp {pp}"


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
        ranked = sorted(scored, key=lambda item: (item[1], item[0].tp * item[0].pp * item[0].ep))
    else:
        meets = [item for item in scored if target_tpot_s is None or item[1] <= target_tpot_s] or scored
        rest = [item for item in scored if item not in meets]
        per_card = sorted(meets, key=lambda item: (-item[2] / cards, item[0].tp * item[0].pp * item[0].ep))
        ranked = per_card + sorted(rest, key=lambda item: item[1])
    return ranked[0][0], ranked


class ServingChoice(NamedTuple):
    """The replica chosen; every one ranked with its time per token and tokens/s; what each holds and serves."""

    plan: InferencePlan
    ranked: list[tuple[InferencePlan, float, float]]
    largest: dict[tuple[int, int, int], int]
    """The most sequences a replica holds: every replica's when the batch is "max", else the chosen one's."""
    expected: dict[tuple[int, int, int], tuple[ServingContext, LoadedServing]]
    batch: int
    """The sequences the chosen replica serves: the scenario's, or the most it holds for "max"."""
    memory: InferenceMemory
    """What a card of the chosen replica holds at ``batch``."""
    candidates: tuple[ServingCandidate, ...]
    """The chosen replica first, then the runner-ups, each at the batch it would serve."""
    roofline_tpot_s: float
    """The chosen replica's time per token at datasheet peaks (:func:`ideal_decode_step`)."""
    range_served: tuple[LoadedServing, ...]
    """The chosen replica served under the range's optimistic and pessimistic efficiency sets
    (:func:`model.efficiency.efficiency_variants`), served with the choice and cached with it."""
    offload: Offload | None = None
    """With part of the model in host memory, the split (None: the cards hold it, or nothing runs)."""


_SERVING_CHOICES: BoundedMemo[tuple[Resolved, Efficiencies], ServingChoice] = BoundedMemo(512)


def serving_load(r: Resolved) -> ServingLoad:
    """Return what each sequence of the scenario brings to a serving replica.

    An accelerator attached to a host carries a runtime context; a bare CPU server does not.
    """
    s = r.scenario
    return ServingLoad(
        precision=r.precision,
        kv_precision=r.kv_precision,
        context=float(s.prompt_len + s.output_len),
        prompt_len=s.prompt_len,
        runtime_bytes=runtime_bytes(r.gpu.host_link),
        budget=r.serving_budget,
        slots=r.serving_slots,
    )


def plan_serving(r: Resolved, key: str, eff: Efficiencies) -> ServingChoice:
    """Size and score every serving replica of ``r`` under ``eff`` and pick one (:func:`choose_serving_layout`).

    Cached by the resolved scenario: pages and sweeps ask for the same serving many times.
    """
    found = _SERVING_CHOICES.get((r, eff))
    if found is not None:
        return found
    s, arch, gpu = r.scenario, r.arch, r.gpu
    load = serving_load(r)
    offered = offered_concurrency(s)
    wanted = 1 if s.batch == "max" else int(s.batch)
    plans = serving_layouts(
        arch, load, cards=s.cards, gpus_per_node=r.gpus_per_node, capacity_bytes=gpu.capacity_bytes, batch=wanted,
        tp=s.tp, pp=s.pp, attention_dp=s.attention_dp, concurrency=offered, policy=serving_policy(r.stack),
    )  # fmt: skip
    # The most sequences a replica holds: for every replica when the batch is "as many as fit", else
    # for the chosen one only (below), which is all the estimate reports.
    largest = (
        {
            p.key: _runs(max_batch_that_fits(arch, gpu.capacity_bytes, load, tp=p.tp, pp=p.pp, ep=p.ep), load, s)
            for p in plans
        }
        if s.batch == "max"
        else {}
    )
    expected: dict[tuple[int, int, int], tuple[ServingContext, LoadedServing]] = {}

    def batch_of(option: InferencePlan) -> int:
        running = max(1, largest[option.key]) if s.batch == "max" else option.batch
        # A batch job smaller than a replica's batch runs whole, in one wave of its share.
        return running if s.requests is None else min(running, job_share(s.requests, option))

    def score(plan: InferencePlan) -> tuple[float, float]:
        ctx = serving_context(r, tp=plan.tp, pp=plan.pp, compute_key=key, ep=plan.ep)
        batch = batch_of(plan)
        served = loaded_serving(r, ctx, serving_rates(r, ctx, eff), batch, plan.busy, plan.waiting)
        expected[plan.key] = ctx, served
        return served.tpot_s, served.tokens_per_s

    plan, ranked = choose_serving_layout(
        plans, score, one_user=(offered or s.batch) == 1, cards=s.cards, target_tpot_s=s.target_tpot_s
    )
    if plan.key not in largest:
        most = max_batch_that_fits(arch, gpu.capacity_bytes, load, tp=plan.tp, pp=plan.pp, ep=plan.ep)
        largest[plan.key] = _runs(most, load, s)
    if not plan.fits and r.host is not None:
        offloaded = _offloaded_choice(r, key, eff, load, plan)
        if isinstance(offloaded, ServingChoice):
            return _SERVING_CHOICES.put((r, eff), offloaded)
        if plan.ep == 1:  # the same replica: what a split would hold, fewer than the batch asked
            largest[plan.key] = offloaded

    batch = batch_of(plan)
    memory = (
        plan.memory
        if batch == plan.batch
        else inference_memory(arch, load, batch=batch, tp=plan.tp, pp=plan.pp, ep=plan.ep)
    )
    candidates = tuple(
        ServingCandidate(
            option.tp, option.pp, option.dp, batch_of(option), tpot, rate, option.memory.total, option.ep, option.fits
        )
        for option, tpot, rate in ranked[: 1 + CANDIDATES_SHOWN]
    )
    context = expected[plan.key][0]
    roofline = ideal_decode_step(r, context, batch)
    ends = tuple(
        loaded_serving(r, context, serving_rates(r, context, end), batch, plan.busy, plan.waiting)
        for end in efficiency_variants(eff)[1:]
    )
    choice = ServingChoice(plan, ranked, largest, expected, batch, memory, candidates, roofline, ends)
    return _SERVING_CHOICES.put((r, eff), choice)


def _runs(most: int, load: ServingLoad, s: Scenario) -> int:
    """Return the most sequences a replica runs: ``most`` that fit, capped by the server's slots when it chooses."""
    return admitted(most, load) if engine_sets_batch(s) else most


def job_share(requests: int, plan: InferencePlan) -> int:
    """Return the most requests of a batch job one of ``plan``'s replicas serves (an even split, rounded up)."""
    return max(1, -(-requests // plan.dp))


def _offloaded_choice(
    r: Resolved, key: str, eff: Efficiencies, load: ServingLoad, plan: InferencePlan
) -> ServingChoice | int:
    """Serve the replica that did not fit with part of it in host memory, or return the most sequences a split holds.

    The most is 0 when no split runs, and fewer than the scenario's batch when that one does not.

    The replica is the one the cards came closest to holding, a tp x pp one (a runner that offloads
    splits layers, not an attention-DP group of experts). Its batch is the scenario's, or for "max" the
    most sequences a split holds (:func:`model.inference.largest_offloaded_batch`): more sequences
    only add KV cache, so a batch runs iff it is at most that many.
    """
    s, gpu = r.scenario, r.gpu
    if plan.ep > 1:
        if s.attention_dp is not None and s.attention_dp > 1:
            return 0  # attention DP was asked for: a layer split is another replica
        plan = serving_layouts(
            r.arch, load, cards=s.cards, gpus_per_node=r.gpus_per_node, capacity_bytes=gpu.capacity_bytes,
            batch=plan.batch, tp=s.tp, pp=s.pp, attention_dp=1, concurrency=offered_concurrency(s),
        )[0]  # fmt: skip
    most = largest_offloaded_batch(r, load, tp=plan.tp, pp=plan.pp, capacity_bytes=gpu.capacity_bytes)
    runs = _runs(most, load, s)
    batch = max(1, runs) if s.batch == "max" else plan.batch
    waiting = 0
    offered = offered_concurrency(s)
    if offered is not None and batch > runs >= 1:
        # A concurrency queues on a split as on the cards alone: each replica runs the most it admits.
        batch, waiting = runs, max(0, offered - plan.dp * runs)
    if s.requests is not None:
        batch = min(batch, job_share(s.requests, plan))
    if batch > most:
        return most
    placed = place_offload(r, load, tp=plan.tp, pp=plan.pp, batch=batch, capacity_bytes=gpu.capacity_bytes)
    assert placed is not None  # batch <= most, and a split holds fewer sequences whenever it holds more
    split, memory = placed
    chosen = plan._replace(memory=memory, fits=True, batch=batch, waiting=waiting)
    context = serving_context(r, tp=plan.tp, pp=plan.pp, compute_key=key)
    busy, waiting = chosen.busy, chosen.waiting
    served = loaded_serving(r, context, serving_rates(r, context, eff), batch, busy, waiting, offload=split)
    ends = tuple(
        loaded_serving(r, context, serving_rates(r, context, end), batch, busy, waiting, offload=split)
        for end in efficiency_variants(eff)[1:]
    )
    candidate = ServingCandidate(plan.tp, plan.pp, plan.dp, batch, served.tpot_s, served.tokens_per_s, memory.total)
    return ServingChoice(
        plan=chosen,
        ranked=[(chosen, served.tpot_s, served.tokens_per_s)],
        largest={plan.key: runs},
        expected={plan.key: (context, served)},
        batch=batch,
        memory=memory,
        candidates=(candidate,),
        roofline_tpot_s=offload_roofline(r, context, split, batch),
        range_served=ends,
        offload=split,
    )


def forget_serving_choices() -> None:
    """Empty the serving cache (benchmarks time a choice from scratch)."""
    _SERVING_CHOICES.clear()
