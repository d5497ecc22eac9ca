"""Offload: serving a model its cards cannot hold with the rest in the host's memory, as llama.cpp does.

When a replica's cards cannot hold the weights and the KV cache within a server's budget, a runner of
GGUF files keeps part of the model in the memory of the machine the cards sit in:

- whole layers (llama.cpp's ``-ngl N``): the last N layers on the cards, the first L - N in host
  memory (src/llama-model.cpp, ``load_tensors``: ``i_gpu_start = max(n_layer - n_gpu_layers, 0)``);
  the output layer joins the cards only with every layer (``-ngl`` L + 1), and the token embedding
  always stays on the host ("there is very little benefit to offloading the input layer, so always
  keep it on the CPU"). Each layer's KV cache lives on its layer's device (``offload_kqv``).
- a mixture of experts' routed experts (``--n-cpu-moe N``, ``-ot exps=CPU``): every layer on the cards
  but the routed experts of the first N layers, which stay in host memory.

As few as needed go to the host: the most the cards hold within their budget
(:func:`model.inference.serving_capacity`), the host's memory less what its operating system keeps.

Decoding a token, the host's part is computed by the host CPU from host memory: llama.cpp runs the
offloaded layers on the CPU backend (only their activations cross the link; a CUDA build offloads an
operation to the card only for batches of 32 tokens or more: ggml/src/ggml-cuda/ggml-cuda.cu,
``ggml_backend_cuda_device_offload_op``, ``min_batch_size = 32``; llama.cpp issue 3860: "prompt
processing is GPU accelerated ..., and then when the actual inference happens" the CPU layers run on
the CPU). The two run one after the other, so a token's time = the cards' step on their share + the
host's bytes / its bandwidth (or its FLOPs / its compute, whichever is longer). Prefilling a prompt of
32 tokens or more, llama.cpp instead copies each host weight matrix to the card for every micro-batch
of ``n_ubatch`` (512) tokens and multiplies there (llama.cpp pull 6083, "backend : offload large
batches to GPU"): the card's prefill of the whole model plus those copies over the host link.

The card's share of a step is the full step's time scaled part by part: weight reads by the share of
the bytes a step reads that stay on the cards, products by the share of the FLOPs, per-layer work
(KV cache, element-wise kernels, the per-layer floor, communication) by the share of the layers.
Training never offloads here (ZeRO-Offload and FSDP's CPU offload are not modelled).
"""

from __future__ import annotations

import math
from itertools import accumulate
from typing import Literal, NamedTuple

from model.architecture import Architecture
from model.inference.context import (
    ServingContext,
    ServingRates,
    decode_attention_flops_per_key,
    expected_experts_touched,
)
from model.inference.decode import DecodeStep, decode_step, ideal_decode_step
from model.inference.memory import (
    InferenceMemory,
    ServingLoad,
    inference_memory,
    kv_bytes_per_sequence,
    serving_capacity,
)
from model.precision.formats import LayerWeights, layer_weights
from model.scenario import MAX_BATCH, HostMemory, Resolved

__all__ = [
    "HOST_RESERVED_BYTES",
    "OP_OFFLOAD_MIN_BATCH",
    "SERVING_VERDICTS",
    "UBATCH_TOKENS",
    "Offload",
    "OffloadMode",
    "host_budget",
    "largest_offloaded_batch",
    "offload_needs",
    "offload_roofline",
    "offloaded_prefill",
    "offloaded_step",
    "place_offload",
    "serving_verdict",
]

OffloadMode = Literal["none", "layers", "experts"]
SERVING_VERDICTS = ("fits", "fits_with_offload", "wont_run")
"""What serving's verdict says, as a code: it fits the cards, it runs with part in host memory, or not at all."""

OP_OFFLOAD_MIN_BATCH = 32
"""Tokens a batch needs before llama.cpp's CUDA backend multiplies a host-resident matrix on the card
(ggml-cuda.cu, ``ggml_backend_cuda_device_offload_op``: ``min_batch_size = 32``)."""
UBATCH_TOKENS = 512
"""llama.cpp's physical batch (``n_ubatch``, common/common.h): a prompt is computed 512 tokens at a time,
and host weights are copied to the card once for each."""
HOST_RESERVED_BYTES = 4e9
"""Host memory the operating system and the desktop keep for themselves: Windows 11's minimum of 4 GB of
RAM (Microsoft, Windows 11 specifications). The runner's own buffers are counted apart."""


class Offload(NamedTuple):
    """How a serving replica is split between its cards and the host's memory, and what it needs.

    ``needed_bytes`` and ``has_bytes`` add up the cards of a replica and its host: what the whole
    model and its KV cache take, and what the cards' budgets and the host's offer (for "won't run:
    needs N, has M").
    """

    mode: OffloadMode
    layers: int
    layers_on_card: int
    """Whole layers on the cards (llama.cpp's -ngl, the output layer not counted)."""
    cpu_moe_layers: int = 0
    """Experts mode: the first layers whose routed experts sit in host memory (llama.cpp's --n-cpu-moe)."""
    head_on_card: bool = True
    """Whether the output layer (final norm and LM head) is on the cards."""
    host_weight_bytes: float = 0.0
    """Weights kept in host memory, the token embedding included."""
    host_kv_bytes: float = 0.0
    """The KV cache of the layers on the host, at the final context."""
    host_budget_bytes: float = 0.0
    needed_bytes: float = 0.0
    has_bytes: float = 0.0

    @property
    def host_bytes(self) -> float:
        """All the host memory the split takes: weights and KV cache."""
        return self.host_weight_bytes + self.host_kv_bytes


def serving_verdict(fits: bool, offload: Offload) -> str:
    """Return serving's verdict code (:data:`SERVING_VERDICTS`): the one rule every surface reads."""
    if not fits:
        return "wont_run"
    return "fits" if offload.mode == "none" else "fits_with_offload"


def host_budget(host: HostMemory) -> float:
    """Return the host memory a runner may fill: all of it less what the operating system keeps."""
    return max(host.memory_bytes - HOST_RESERVED_BYTES, 0.0)


class _Sizes(NamedTuple):
    """A replica's memory by layer, per card and on the host, at one batch."""

    weights: LayerWeights
    cards: int
    kv_card: float
    """One layer's KV cache for the whole batch on one card (its shard)."""
    kv_host: float
    """One layer's KV cache for the whole batch, whole (the host holds it unsharded)."""
    fixed: float
    """Per card: activations and the runtime, whatever the split."""
    memory: InferenceMemory
    """Per card with everything on the cards (the plan that did not fit)."""
    dense_sums: tuple[float, ...]
    expert_sums: tuple[float, ...]


def _sizes(arch: Architecture, load: ServingLoad, batch: int, tp: int, pp: int) -> _Sizes:
    weights = layer_weights(arch, load.precision)
    memory = inference_memory(arch, load, batch=batch, tp=tp, pp=pp)
    layers = arch.layers
    kv_card = batch * kv_bytes_per_sequence(arch, load.context, load.kv_precision, tp, pp) / layers
    kv_host = batch * kv_bytes_per_sequence(arch, load.context, load.kv_precision, 1, 1) / layers
    return _Sizes(
        weights,
        tp * pp,
        kv_card,
        kv_host,
        memory.activations + memory.other,
        memory,
        tuple(accumulate(weights.dense, initial=0.0)),
        tuple(accumulate(weights.experts, initial=0.0)),
    )


def _card_memory(z: _Sizes, weights: float, kv_layers: float) -> InferenceMemory:
    """Return a card's memory with ``weights`` (the replica's, split over its cards) and ``kv_layers`` layers' cache."""
    per_card = weights / z.cards
    kv = z.kv_card * kv_layers
    other = z.memory.other
    activations = z.memory.activations
    return InferenceMemory(per_card, kv, activations, other, per_card + kv + activations + other)


def _layers_split(z: _Sizes, layers: int, budget: float) -> tuple[int, bool] | None:
    """Return the most whole layers the cards hold (and whether the output layer too), or None when not even none."""
    w = z.weights
    total_dense, total_experts = z.dense_sums[-1], z.expert_sums[-1]
    for on_card in range(layers, -1, -1):
        first = layers - on_card  # the first layers stay on the host
        held = total_dense - z.dense_sums[first] + total_experts - z.expert_sums[first]
        for head in (True, False) if on_card == layers else (False,):
            weights = held + (w.output if head else 0.0)
            if _card_memory(z, weights, on_card).total <= budget:
                return on_card, head
    return None


def _experts_split(z: _Sizes, layers: int, budget: float) -> int | None:
    """Return the fewest first layers whose routed experts must leave the cards (None: never enough)."""
    w = z.weights
    base = z.dense_sums[-1] + w.output
    total_experts = z.expert_sums[-1]
    for on_host in range(layers + 1):
        if _card_memory(z, base + total_experts - z.expert_sums[on_host], layers).total <= budget:
            return on_host
    return None


def _needs(z: _Sizes, layers: int, budget: float, spare: float) -> tuple[float, float]:
    """Return what a replica and its host need together (weights, KV cache, each card's fixed part) and have."""
    w = z.weights
    needed = z.dense_sums[-1] + z.expert_sums[-1] + w.embedding + w.output + z.kv_host * layers + z.fixed * z.cards
    return needed, budget * z.cards + spare


def offload_needs(r: Resolved, load: ServingLoad, *, tp: int, pp: int, batch: int, capacity_bytes: float) -> Offload:
    """Return the no-offload entry of a replica: nothing in host memory, with what it needs and has.

    For a replica that fits its cards, and for one no split runs (the verdict's "needs N, has M").
    """
    z = _sizes(r.arch, load, batch, tp, pp)
    spare = host_budget(r.host) if r.host is not None else 0.0
    needed, has = _needs(z, r.arch.layers, serving_capacity(capacity_bytes, load.budget), spare)
    return Offload("none", r.arch.layers, r.arch.layers, 0, True, 0.0, 0.0, spare, needed, has)


def place_offload(
    r: Resolved, load: ServingLoad, *, tp: int, pp: int, batch: int, capacity_bytes: float
) -> tuple[Offload, InferenceMemory] | None:
    """Return the split that puts as little as needed in host memory, and a card's memory with it.

    ``r.scenario.offload`` chooses the unit: whole layers, routed experts, or (auto) a mixture of
    experts' experts when its cards hold everything else, else whole layers. None when the cards
    cannot hold even their fixed part, or the host cannot hold the rest.
    """
    host = r.host
    if host is None:
        return None
    arch = r.arch
    z = _sizes(arch, load, batch, tp, pp)
    budget = serving_capacity(capacity_bytes, load.budget)
    spare = host_budget(host)
    layers = arch.layers
    w = z.weights
    needed, has = _needs(z, layers, budget, spare)
    mode = r.scenario.offload
    if arch.is_moe and mode in ("auto", "experts"):
        on_host = _experts_split(z, layers, budget)
        if on_host is not None:
            host_weights = w.embedding + z.expert_sums[on_host]
            if host_weights <= spare:
                held = z.dense_sums[-1] + w.output + z.expert_sums[-1] - z.expert_sums[on_host]
                memory = _card_memory(z, held, layers)
                split = Offload("experts", layers, layers, on_host, True, host_weights, 0.0, spare, needed, has)
                return split, memory
        if mode == "experts":
            return None
    found = _layers_split(z, layers, budget)
    if found is None:
        return None
    on_card, head = found
    first = layers - on_card
    host_weights = w.embedding + z.dense_sums[first] + z.expert_sums[first] + (0.0 if head else w.output)
    host_kv = z.kv_host * first
    if host_weights + host_kv > spare:
        return None
    held = z.dense_sums[-1] - z.dense_sums[first] + z.expert_sums[-1] - z.expert_sums[first]
    memory = _card_memory(z, held + (w.output if head else 0.0), on_card)
    return Offload("layers", layers, on_card, 0, head, host_weights, host_kv, spare, needed, has), memory


def largest_offloaded_batch(r: Resolved, load: ServingLoad, *, tp: int, pp: int, capacity_bytes: float) -> int:
    """Return the most sequences per replica a split holds (0: not even one): more only add KV cache."""

    def runs(batch: int) -> bool:
        return place_offload(r, load, tp=tp, pp=pp, batch=batch, capacity_bytes=capacity_bytes) is not None

    if not runs(1):
        return 0
    low, high = 1, 2
    while high <= MAX_BATCH and runs(high):
        low, high = high, high * 2
    high = min(high, MAX_BATCH + 1)
    while high - low > 1:  # runs(low), not runs(high)
        middle = (low + high) // 2
        if runs(middle):
            low = middle
        else:
            high = middle
    return low


class _Shares(NamedTuple):
    """What of one step stays on the cards, and what the host reads and computes."""

    reads: float
    """Share of the weight bytes a step reads that the cards read."""
    flops: float
    """Share of the step's product FLOPs the cards compute."""
    layers: float
    """Share of the layers on the cards (KV cache, element-wise work, per-layer floor, communication)."""
    host_bytes: float
    """Bytes the host reads in a step: its weights the tokens need and its layers' KV cache."""
    host_flops: float


def _shares(r: Resolved, split: Offload, batch: float, tokens: float) -> _Shares:
    """Return the cards' shares of a step over ``tokens`` tokens of ``batch`` sequences, and the host's work."""
    arch = r.arch
    w = layer_weights(arch, r.precision)
    touched = expected_experts_touched(arch.experts, arch.active_experts, tokens) / arch.experts if arch.is_moe else 0.0
    reads = [dense + experts * touched for dense, experts in zip(w.dense, w.experts, strict=True)]
    flops = [dense + experts for dense, experts in zip(w.dense_params, w.expert_params, strict=True)]
    layers = arch.layers
    if split.mode == "experts":
        first = split.cpu_moe_layers
        host_reads = sum(experts * touched for experts in w.experts[:first])
        host_params = sum(w.expert_params[:first])
        card_layers = float(layers)
    else:
        first = layers - split.layers_on_card
        host_reads = sum(reads[:first]) + (0.0 if split.head_on_card else w.output)
        host_params = sum(flops[:first]) + (0.0 if split.head_on_card else w.head_params)
        card_layers = float(split.layers_on_card)
    all_reads = sum(reads) + w.output
    all_params = sum(flops) + w.head_params
    context = r.scenario.prompt_len + r.scenario.output_len / 2.0
    host_layers = layers - card_layers
    kv = batch * kv_bytes_per_sequence(arch, context, r.kv_precision, 1, 1) * host_layers / layers
    attention = decode_attention_flops_per_key(arch) * context * tokens * host_layers / layers
    return _Shares(
        reads=1.0 - host_reads / all_reads,
        flops=1.0 - host_params / all_params,
        layers=card_layers / layers,
        host_bytes=host_reads + kv,
        host_flops=2.0 * host_params * tokens + attention,
    )


def _host_time(host: HostMemory, rates: ServingRates, work_bytes: float, work_flops: float) -> float:
    """Return the host CPU's seconds for a step: its bytes at the bandwidth it reaches, or its FLOPs if longer."""
    eff = rates.eff
    bandwidth = host.bandwidth_bytes_per_s * eff.host_memory_bandwidth
    compute = host.flops_per_s * eff.matmul_ceiling.get("fp32", 0.76)
    return max(work_bytes / bandwidth, work_flops / compute)


def offloaded_step(r: Resolved, ctx: ServingContext, rates: ServingRates, split: Offload, batch: float) -> DecodeStep:
    """Return one decode step of ``batch`` sequences with ``split``: the cards' share of the step, then the host's.

    The full step on the cards (:func:`model.inference.decode_step`) scaled part by part (the module
    docstring), plus the host CPU's time for its bytes and FLOPs (``host``): the two run in turn.
    """
    host = r.host
    assert host is not None  # a split exists only with host memory
    full = decode_step(r, ctx, batch, rates)
    tokens = batch * (1 + r.scenario.draft_tokens)
    share = _shares(r, split, batch, tokens)
    weights, compute = full.weights * share.reads, full.compute * share.flops
    kv, elementwise = full.kv * share.layers, full.elementwise * share.layers
    layers, communication = full.layers * share.layers, full.communication * share.layers
    drafting = full.drafting * share.layers
    on_host = _host_time(host, rates, share.host_bytes, share.host_flops)
    total = max(weights, compute) + kv + elementwise + layers + communication + drafting + on_host + full.scheduling
    return DecodeStep(
        weights, compute, kv, elementwise, layers, communication, drafting, total, full.tokens_per_step, on_host,
        full.scheduling,
    )  # fmt: skip


def offload_roofline(r: Resolved, ctx: ServingContext, split: Offload, batch: float) -> float:
    """Return the time per output token at datasheet peaks with ``split``: below the expected one, as every roofline.

    The cards' roofline scaled by the smallest of their shares, plus the host's bytes at its peak
    bandwidth (or its FLOPs at its peak), per token gained.
    """
    host = r.host
    assert host is not None
    tokens_gained = 1.0
    if r.scenario.draft_tokens:
        drafts, accept = r.scenario.draft_tokens, r.scenario.draft_acceptance
        tokens_gained = (1.0 - accept ** (drafts + 1)) / (1.0 - accept)
    share = _shares(r, split, batch, batch * (1 + r.scenario.draft_tokens))
    cards = ideal_decode_step(r, ctx, batch) * min(share.reads, share.flops, share.layers)
    on_host = max(share.host_bytes / host.bandwidth_bytes_per_s, share.host_flops / host.flops_per_s)
    return cards + on_host / tokens_gained


def offloaded_prefill(
    r: Resolved, ctx: ServingContext, rates: ServingRates, split: Offload, prompts: float, card_prefill: float
) -> float:
    """Return the seconds to prefill ``prompts`` prompts with ``split``, given the cards' prefill of the whole model.

    Micro-batches of 32 tokens or more run on the card, each copying the host's weight matrices over
    the host link first (the embedding is looked up, not copied); a shorter prompt runs the host's
    layers on the host CPU after the cards' share.
    """
    host = r.host
    assert host is not None
    tokens = prompts * r.scenario.prompt_len
    if host.link is not None and min(tokens, UBATCH_TOKENS) >= OP_OFFLOAD_MIN_BATCH:
        link = host.link
        share = link.measured_efficiency or rates.eff.collective_bandwidth
        copied = split.host_weight_bytes - layer_weights(r.arch, r.precision).embedding
        return card_prefill + math.ceil(tokens / UBATCH_TOKENS) * copied / (link.bandwidth_bytes_per_s * share)
    share_ = _shares(r, split, prompts, tokens)
    return card_prefill * share_.flops + _host_time(host, rates, share_.host_bytes, share_.host_flops)
