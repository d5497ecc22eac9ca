"""What a serving card holds: weights, KV cache, a prefill chunk's activations, logits, runtime.

Resident weights (all experts), the KV cache at the final context, one prefill chunk's transient
activations, logits, and the runtime's own footprint.

With attention data parallelism (``ep`` > 1) every card of a replica holds the attention and dense
weights whole and 1/ep of the routed experts, and only its own sequences' KV cache (DeepSeek-V3's
deployment, sec. 3.4; SGLang's DP attention), which is why MLA models, whose latent cache tensor
parallelism cannot split, serve far more sequences that way.
"""

from __future__ import annotations

from typing import NamedTuple

from model.architecture import Architecture
from model.catalog import SERVING_MEMORY_FRACTION, ServingBudget
from model.memory import LOGIT_BYTES, PREFILL_CHUNK_TOKENS, RUNTIME_BYTES
from model.precision import bytes_per_element
from model.precision.formats import weight_breakdown
from model.scenario import MAX_BATCH

__all__ = [
    "SERVING_MEMORY_FRACTION",
    "TYPICAL_BUDGET",
    "InferenceMemory",
    "ServingLoad",
    "admitted",
    "held_bytes",
    "inference_memory",
    "inference_weight_bytes",
    "kv_bytes_per_sequence",
    "max_batch_that_fits",
    "serving_capacity",
    "serving_fits",
]

TYPICAL_BUDGET = ServingBudget()
"""A data-centre server's budget: SERVING_MEMORY_FRACTION of each card."""


def serving_capacity(capacity_bytes: float, budget: ServingBudget = TYPICAL_BUDGET, held: float = 0.0) -> float:
    """Return the bytes of a card of ``capacity_bytes`` a serving stack budgets (typical's: SERVING_MEMORY_FRACTION).

    It is the one serving budget: whether a batch fits, the largest batch, the fewest cards and every
    fix ask it, with the scenario's stack's budget (:attr:`model.catalog.Stack.serving_budget`).
    ``held`` is what the card holds before its cache is sized (:func:`held_bytes`): a budget
    of the free memory (TensorRT-LLM's) grows with it.
    """
    return budget.of(capacity_bytes, held)


def held_bytes(memory: InferenceMemory) -> float:
    """Return what a serving card holds before its KV cache is sized: the weights and the runtime.

    Neither changes with the batch, so a budget of the free memory is one figure per layout; the
    cache, the prefill chunk's activations and the logits all come out of it.
    """
    return memory.weights + memory.other


def serving_fits(memory: InferenceMemory, capacity_bytes: float, budget: ServingBudget = TYPICAL_BUDGET) -> bool:
    """Return whether a serving card's ``memory`` fits a card of ``capacity_bytes``: the one serving rule.

    Within the stack's budget (:func:`serving_capacity`), not the whole card: the same test sets
    the largest batch (:func:`max_batch_that_fits` solves it), so "fits" and "the most that fit"
    never disagree.
    """
    return memory.total <= serving_capacity(capacity_bytes, budget, held_bytes(memory))


class ServingLoad(NamedTuple):
    """What every sequence of a serving replica brings: weight and cache formats, context, prompt."""

    precision: str
    kv_precision: str
    context: float
    """Tokens each sequence holds at its end: prompt plus output."""
    prompt_len: int
    runtime_bytes: float = RUNTIME_BYTES
    budget: ServingBudget = TYPICAL_BUDGET
    """What the serving stack lets itself use of each card."""
    slots: int | None = None
    """The most sequences the serving stack runs at once unless told (None: what the memory holds)."""


class InferenceMemory(NamedTuple):
    """Inference memory per card, in bytes."""

    weights: float
    kv_cache: float
    activations: float
    other: float
    total: float


def inference_weight_bytes(arch: Architecture, precision: str) -> float:
    """Return the bytes of all resident weights, each tensor in its format's width (model.precision.formats)."""
    return weight_breakdown(arch, precision).total


def routed_expert_bytes(arch: Architecture, precision: str) -> float:
    """Return the bytes of every routed expert of every MoE layer (what expert parallelism divides)."""
    return weight_breakdown(arch, precision).routed_experts


def card_weight_bytes(arch: Architecture, precision: str, *, tp: int, pp: int, ep: int = 1) -> float:
    """Return the resident weight bytes of one card: a tp x pp share, routed experts also split ep ways."""
    total = inference_weight_bytes(arch, precision)
    if ep <= 1:
        return total / (tp * pp)
    experts = routed_expert_bytes(arch, precision)
    return (total - experts) / (tp * pp) + experts / (tp * pp * ep)


def kv_bytes_per_sequence(arch: Architecture, context: float, kv_precision: str, tp: int, pp: int) -> float:
    """Return one sequence's KV cache per card at ``context`` tokens.

    K and V for every layer and KV head (grouped-query attention shares them across query heads),
    or MLA's compressed latent plus rope key; a sliding window caps the cached context. Heads
    split over tensor parallelism down to one per card (then they are replicated); MLA's latent
    is replicated on every card.
    """
    if arch.sliding_window:
        context = min(context, arch.sliding_window)
    shards = min(tp, arch.stats.kv_heads_for_sharding)
    return context * arch.stats.kv_elements_per_token * bytes_per_element(kv_precision) / (shards * pp)


def inference_memory(
    arch: Architecture, load: ServingLoad, *, batch: int, tp: int, pp: int, ep: int = 1
) -> InferenceMemory:
    """Return inference memory per card for ``batch`` sequences of ``load.context`` tokens per replica.

    With attention data parallelism over ``ep`` cards each card keeps ``batch / ep`` sequences.
    """
    weights = card_weight_bytes(arch, load.precision, tp=tp, pp=pp, ep=ep)
    local = -(-batch // ep)
    kv = local * kv_bytes_per_sequence(arch, load.context, load.kv_precision, tp, pp)
    batch = local
    chunk = min(PREFILL_CHUNK_TOKENS, batch * load.prompt_len)
    transient = chunk * arch.stats.activation_bytes_per_token_layer / tp
    logits = batch * arch.vocab * LOGIT_BYTES / tp
    activations = transient + logits
    total = weights + kv + activations + load.runtime_bytes
    return InferenceMemory(weights, kv, activations, load.runtime_bytes, total)


def admitted(most: int, load: ServingLoad) -> int:
    """Return the sequences a server runs at once when it chooses: what fits, at most its slots.

    A desk server admits no more than its slots (llama-server's four since ggml-org/llama.cpp PR
    #16736, 2025-10: ``-np`` auto); a data-centre server's scheduler admits what the memory holds.
    """
    return most if load.slots is None else min(most, load.slots)


def max_batch_that_fits(
    arch: Architecture, capacity_bytes: float, load: ServingLoad, *, tp: int, pp: int, ep: int = 1
) -> int:
    """Return the most concurrent sequences of ``load.context`` tokens that fit per replica (0: none).

    Fit is :func:`serving_fits` on a card of ``capacity_bytes`` (the server's budget of it).

    Memory is linear in the batch on two pieces: while batch x prompt is under one prefill chunk,
    each sequence adds its prompt's transient activations; past it the chunk is full and each
    sequence adds only its KV cache and logits. Solve each piece, keep the larger, then check.
    With attention data parallelism the solve is per card and the replica holds ``ep`` times it.
    """
    prompt_len = load.prompt_len
    fixed = card_weight_bytes(arch, load.precision, tp=tp, pp=pp, ep=ep) + load.runtime_bytes
    activation = arch.stats.activation_bytes_per_token_layer / tp
    per_sequence = kv_bytes_per_sequence(arch, load.context, load.kv_precision, tp, pp) + arch.vocab * LOGIT_BYTES / tp
    chunk_limit = PREFILL_CHUNK_TOKENS // max(prompt_len, 1)  # largest batch whose prompts fit one chunk
    budget = serving_capacity(capacity_bytes, load.budget, fixed)  # fixed is what held_bytes counts
    small = (budget - fixed) / (per_sequence + prompt_len * activation)
    large = (budget - fixed - PREFILL_CHUNK_TOKENS * activation) / per_sequence
    candidates = [min(small, chunk_limit)]
    if large > chunk_limit:
        candidates.append(large)
    batch = int(min(max(candidates) * ep, MAX_BATCH))  # solved per card; each of ep cards holds its share

    def fits(b: int) -> bool:
        return serving_fits(inference_memory(arch, load, batch=b, tp=tp, pp=pp, ep=ep), capacity_bytes, load.budget)

    # Floating-point rounding at the boundary: settle on the exact largest batch.
    while batch > 0 and not fits(batch):
        batch -= 1
    while batch < MAX_BATCH and fits(batch + 1):
        batch += 1
    return max(batch, 0)
