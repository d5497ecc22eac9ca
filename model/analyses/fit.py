"""What fits on a card, and what each knob does to memory, with the parallel layout the engine chose.

Every function first asks the engine which layout the scenario gets (:func:`model.estimate`), pins
that layout's tensor, pipeline and data parallel degrees, ZeRO stage and recomputation mode in the
scenarios it builds (:func:`pinned_training`, :func:`pinned_serving`), then varies one thing:

- the largest serving context, training micro-batch and sequence length that fit (the largest serving
  batch is the engine's own ``max_batch``);
- training memory at each ZeRO stage, recomputation mode and tensor-parallel degree
  (:class:`KnobSweep`), serving memory against context and batch (:class:`LoadPoint`).

Memory always comes from the engine's own estimate (``memory_per_gpu`` and ``fits``), so every
answer agrees with :func:`model.estimate` for the same scenario. The searches are derived
definitions, not published formulas: memory never falls as a batch, a context or a sequence grows
(KV cache and activations are linear in them, Korthikanti et al. 2022 sec. 4 for training
activations; a sliding window caps the cached context), so the largest value that fits is found
from a first guess (the line through two probes reaching the card's capacity, or the engine's own
largest batch) by :func:`model.analyses.search.largest_passing`.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterable
from typing import NamedTuple

from model.analyses.search import largest_passing
from model.catalog import Catalog, default_catalog
from model.estimate import estimate
from model.inference import InferenceMemory, inference_memory, serving_capacity, serving_fits
from model.layouts.serving import serving_load
from model.memory import TrainingMemory
from model.scenario import MAX_BATCH, RECOMPUTE_MODES, Resolved, Scenario

__all__ = [
    "TP_OPTIONS",
    "ZERO_STAGES",
    "KnobPoint",
    "KnobSweep",
    "LoadPoint",
    "inference_batch_sweep",
    "inference_context_sweep",
    "largest_component",
    "largest_inference_context",
    "largest_training_micro_batch",
    "largest_training_seq_len",
    "pinned_serving",
    "pinned_training",
    "recompute_sweep",
    "tp_sweep",
    "with_context",
    "zero_stage_sweep",
]

ZERO_STAGES: tuple[int, ...] = (0, 1, 2, 3)
"""ZeRO stages (Rajbhandari et al. 2020, sec. 5): 1 shards optimizer states, 2 also gradients,
3 also weights, over the data-parallel group."""
TP_OPTIONS: tuple[int, ...] = (1, 2, 4, 8)
"""Tensor-parallel degrees compared: up to one 8-GPU node (Narayanan et al. 2021, sec. 3.3)."""
TOKEN_LIMIT = 100_000_000
"""The longest context or sequence searched: the scenario's own limit on prompt and sequence length."""
MICRO_BATCH_LIMIT = 1_000_000
"""The largest micro-batch searched: the scenario's own limit."""
SHORTEST_CONTEXT = 128
"""The first context length of the memory-against-context sweep."""


class KnobPoint(NamedTuple):
    """Training memory per card at one setting of one knob, the rest of the layout held."""

    value: int | str
    """The knob's setting: a ZeRO stage, a recomputation mode or a tensor-parallel degree."""
    memory: TrainingMemory
    fits: bool
    chosen: bool
    """Whether this is the setting the scenario's own layout uses."""
    time_s: float
    """Training time at this setting (the engine's expected estimate): what memory savings cost."""


class KnobSweep(NamedTuple):
    """Training memory per card for each setting of one knob."""

    knob: str
    """'zero', 'recompute' or 'tp'."""
    points: tuple[KnobPoint, ...]

    def at(self, value: int | str) -> KnobPoint | None:
        """Return the point for ``value``, or None when it was not swept."""
        return next((point for point in self.points if point.value == value), None)

    def shrink_factor(self, component: str, before: int | str, after: int | str) -> float | None:
        """Return how many times smaller ``component`` is at ``after`` than at ``before``.

        A derived definition: bytes at ``before`` ÷ bytes at ``after``. None when a setting was
        not swept or the component is empty at ``after``.
        """
        first, second = self.at(before), self.at(after)
        if first is None or second is None:
            return None
        denominator = float(getattr(second.memory, component))
        return float(getattr(first.memory, component)) / denominator if denominator > 0 else None


class LoadPoint(NamedTuple):
    """Inference memory per card at one context length or batch, the serving layout held."""

    x: int
    """Tokens of context (prompt + output) or concurrent sequences per replica."""
    memory: InferenceMemory
    fits: bool


def pinned_training(scenario: Scenario, catalog: Catalog | None = None) -> Scenario:
    """Return ``scenario`` with its training layout and recomputation mode fixed as the engine chose them."""
    training = estimate(scenario, catalog).training
    layout = training.parallelism
    return dataclasses.replace(
        scenario,
        tp=layout.tp,
        pp=layout.pp,
        # A dp that leaves cards idle is not one a user may type (it must divide the cards), but
        # with tp and pp pinned the search derives that same dp (cards // (tp x pp)) by itself.
        dp=layout.dp if scenario.cards % layout.dp == 0 else None,
        ep=layout.ep,
        zero=layout.zero,
        recompute=training.recompute,
        recompute_layers=training.recomputed_layers if training.recompute == "full" else None,
        micro_batch=training.micro_batch,
        vp=training.vp,
        global_batch=training.global_batch,
    )


def pinned_serving(scenario: Scenario, catalog: Catalog | None = None) -> Scenario:
    """Return ``scenario`` with its serving replica (tp, pp, attention DP) fixed as the engine chose it.

    The training-only layout knobs are cleared: serving never reads them, and a training dp fixed
    beside the serving replica's tp could ask for more cards than there are.
    """
    inference = estimate(scenario, catalog).inference
    return dataclasses.replace(
        scenario, tp=inference.tp, pp=inference.pp, attention_dp=inference.ep,
        dp=None, ep=None, zero=None, micro_batch=None, vp=None, global_batch=None,
    )  # fmt: skip


def with_context(scenario: Scenario, tokens: int) -> Scenario:
    """Return ``scenario`` with prompt + output = ``tokens``, split in the scenario's own prompt:output mix.

    A derived definition: the prompt keeps its share of the context (at least one token each).
    """
    tokens = max(2, int(tokens))
    share = scenario.prompt_len / (scenario.prompt_len + scenario.output_len)
    prompt = min(tokens - 1, max(1, round(tokens * share)))
    return dataclasses.replace(scenario, prompt_len=prompt, output_len=tokens - prompt)


class _Replica(NamedTuple):
    """The serving replica the engine chose for a scenario, and what its sequences bring: sized without an estimate."""

    resolved: Resolved
    tp: int
    pp: int
    ep: int

    def memory(self, *, batch: int, prompt_len: int, output_len: int) -> tuple[bool, InferenceMemory]:
        """Return whether ``batch`` sequences of that prompt and output fit a card of the replica, and its memory.

        The same sizing and the same rule as ``estimate`` (:func:`model.inference.inference_memory`,
        :func:`model.inference.serving_fits`), without the rest of an estimate.
        """
        load = serving_load(self.resolved)._replace(context=float(prompt_len + output_len), prompt_len=prompt_len)
        memory = inference_memory(self.resolved.arch, load, batch=batch, tp=self.tp, pp=self.pp, ep=self.ep)
        return serving_fits(memory, self.resolved.gpu.capacity_bytes), memory


def _serving_replica(scenario: Scenario, cat: Catalog) -> _Replica:
    """Return the replica ``estimate(scenario)`` serves on (one estimate: every later size asks it directly)."""
    result = estimate(scenario, cat)
    inference = result.inference
    return _Replica(result.resolved, inference.tp, inference.pp, inference.ep)


def _context_split(scenario: Scenario, tokens: int) -> tuple[int, int]:
    """Return (prompt, output) for ``tokens`` of context in the scenario's mix (:func:`with_context`)."""
    mixed = with_context(scenario, tokens)
    return mixed.prompt_len, mixed.output_len


Probe = Callable[[int], tuple[bool, float]]
"""Whether a value fits, and the memory per card it needs (bytes)."""


def _probe(build: Callable[[int], Scenario], workload: str, cat: Catalog) -> Probe:
    """Return a memoised probe of the engine's training or inference memory for ``build(n)``."""
    memo: dict[int, tuple[bool, float]] = {}

    def probe(value: int) -> tuple[bool, float]:
        if value not in memo:
            part = getattr(estimate(build(value), cat), workload)
            memo[value] = (bool(part.fits), float(part.memory_per_gpu.total))
        return memo[value]

    return probe


def _secant_guess(probe: Probe, at: int, capacity: float) -> int | None:
    """Guess where memory reaches ``capacity`` from its slope between ``at`` and ``2 * at`` (None: flat)."""
    first, second = probe(at)[1], probe(2 * at)[1]
    slope = (second - first) / at
    if slope <= 0:
        return None
    return int(at + (capacity - first) / slope)


def largest_inference_context(scenario: Scenario, catalog: Catalog | None = None, batch: int = 1) -> float:
    """Return the most tokens of prompt + output per sequence that fit with ``batch`` sequences.

    The replica is the one the engine chose for the scenario, held, and the context grows in the scenario's
    prompt:output mix (:func:`with_context`). Memory grows linearly with the KV cache (2 x layers x
    KV heads x head width x bytes per token, or MLA's latent): the first guess solves that line
    through the scenario's context and twice it. A sliding window stops the cache at the window
    (Mistral 7B paper, sec. 2): when everything fits at the longest searched context the answer is
    ``math.inf``. 0 when not even two tokens fit.
    """
    cat = catalog or default_catalog()
    replica = _serving_replica(scenario, cat)
    memo: dict[int, tuple[bool, float]] = {}

    def probe(tokens: int) -> tuple[bool, float]:
        if tokens not in memo:
            prompt, output = _context_split(scenario, tokens)
            fits, memory = replica.memory(batch=batch, prompt_len=prompt, output_len=output)
            memo[tokens] = (fits, memory.total)
        return memo[tokens]

    if replica.resolved.arch.sliding_window and probe(TOKEN_LIMIT)[0]:
        return math.inf
    current = scenario.prompt_len + scenario.output_len
    capacity = serving_capacity(replica.resolved.gpu.capacity_bytes)
    guess = _secant_guess(probe, current, capacity) if 2 * current < TOKEN_LIMIT else None
    largest = largest_passing(lambda tokens: probe(tokens)[0], 2, TOKEN_LIMIT, guess)
    return float(largest) if largest >= 2 else 0.0


def largest_training_micro_batch(scenario: Scenario, catalog: Catalog | None = None) -> int:
    """Return the largest micro-batch (sequences per card per step) that fits for the chosen layout (0: none).

    Activations grow linearly with the micro-batch (Korthikanti et al. 2022, sec. 4): the first
    guess solves the line through the scenario's micro-batch and twice it.
    """
    cat = catalog or default_catalog()
    pinned = pinned_training(scenario, cat)
    probe = _probe(lambda micro_batch: dataclasses.replace(pinned, micro_batch=micro_batch), "training", cat)
    capacity = estimate(pinned, cat).resolved.gpu.capacity_bytes
    guess = _secant_guess(probe, pinned.micro_batch or 1, capacity)
    return largest_passing(lambda micro_batch: probe(micro_batch)[0], 1, MICRO_BATCH_LIMIT, guess)


def largest_training_seq_len(scenario: Scenario, catalog: Catalog | None = None) -> int:
    """Return the longest training sequence (tokens) that fits for the chosen layout and micro-batch (0: none).

    With flash attention activations grow linearly with the sequence (Korthikanti et al. 2022,
    sec. 4): the first guess solves the line through the scenario's sequence length and twice it.
    """
    cat = catalog or default_catalog()
    pinned = pinned_training(scenario, cat)
    probe = _probe(lambda seq_len: dataclasses.replace(pinned, seq_len=seq_len), "training", cat)
    base = estimate(pinned, cat)
    guess = _secant_guess(probe, base.resolved.seq_len, base.resolved.gpu.capacity_bytes)
    return largest_passing(lambda seq_len: probe(seq_len)[0], 1, TOKEN_LIMIT, guess)


def _knob_sweep(
    knob: str, settings: Iterable[tuple[int | str, Scenario]], chosen: int | str, cat: Catalog
) -> KnobSweep:
    points = []
    for value, built in settings:
        training = estimate(built, cat).training
        points.append(KnobPoint(value, training.memory_per_gpu, training.fits, value == chosen, training.time_s))
    return KnobSweep(knob, tuple(points))


def zero_stage_sweep(scenario: Scenario, catalog: Catalog | None = None) -> KnobSweep:
    """Return training memory per card at ZeRO stages 0-3, the rest of the chosen layout held."""
    cat = catalog or default_catalog()
    pinned = pinned_training(scenario, cat)
    settings = ((stage, dataclasses.replace(pinned, zero=stage)) for stage in ZERO_STAGES)
    return _knob_sweep("zero", settings, pinned.zero or 0, cat)


def recompute_sweep(scenario: Scenario, catalog: Catalog | None = None) -> KnobSweep:
    """Return training memory per card with no, selective and full recomputation, the layout held.

    When the chosen layout recomputes only k of a stage's layers, "full, k layers" is a fourth point.
    """
    cat = catalog or default_catalog()
    pinned = pinned_training(scenario, cat)
    settings: list[tuple[int | str, Scenario]] = [
        (mode, dataclasses.replace(pinned, recompute=mode, recompute_layers=None)) for mode in RECOMPUTE_MODES
    ]
    chosen: str = pinned.recompute or "none"
    every = -(-estimate(pinned, cat).resolved.arch.layers // (pinned.pp or 1))
    if pinned.recompute_layers is not None and pinned.recompute_layers < every:
        chosen = f"full, {pinned.recompute_layers} layers"
        settings.insert(2, (chosen, pinned))
    return _knob_sweep("recompute", settings, chosen, cat)


def tp_sweep(scenario: Scenario, catalog: Catalog | None = None) -> KnobSweep:
    """Return training memory per card at tensor-parallel degrees 1, 2, 4 and 8 on the scenario's cards.

    Pipeline stages, ZeRO stage and recomputation stay as chosen; the data-parallel degree is what
    the cards leave (cards ÷ (tp x pp)), so only degrees whose replica fits in the cards are swept.
    """
    cat = catalog or default_catalog()
    pinned = pinned_training(scenario, cat)
    chosen, stages = pinned.tp or 1, pinned.pp or 1
    degrees = sorted({*(degree for degree in TP_OPTIONS if degree == 1 or degree * stages <= scenario.cards), chosen})
    settings = ((degree, dataclasses.replace(pinned, tp=degree, dp=None, ep=None)) for degree in degrees)
    return _knob_sweep("tp", settings, chosen, cat)


def _powers_of_two(low: int, high: int) -> list[int]:
    values, value = [], low
    while value <= high:
        values.append(value)
        value *= 2
    return values


def inference_context_sweep(
    scenario: Scenario, catalog: Catalog | None = None, batch: int = 1, largest: float | None = None
) -> tuple[LoadPoint, ...]:
    """Return inference memory per card at contexts from 128 tokens in doublings, the replica held.

    The sweep reaches past the model's own context limit, twice the scenario's context and twice
    ``largest`` (the largest context that fits, when known and finite), so the capacity crossing
    shows; the scenario's context and ``largest`` are points of it. Each point is sized on the
    replica the engine chose, as an estimate at that context would size it.
    """
    cat = catalog or default_catalog()
    replica = _serving_replica(scenario, cat)
    current = scenario.prompt_len + scenario.output_len
    top = max(replica.resolved.arch.max_context, 2 * current)
    extra = {current}
    if largest is not None and math.isfinite(largest) and largest >= 2:
        top = max(top, 2 * int(largest))
        extra.add(int(largest))
    contexts = sorted({*_powers_of_two(SHORTEST_CONTEXT, min(top, TOKEN_LIMIT)), *extra})
    points = []
    for tokens in contexts:
        prompt, output = _context_split(scenario, tokens)
        fits, memory = replica.memory(batch=batch, prompt_len=prompt, output_len=output)
        points.append(LoadPoint(tokens, memory, fits))
    return tuple(points)


def inference_batch_sweep(
    scenario: Scenario, catalog: Catalog | None = None, largest: int | None = None
) -> tuple[LoadPoint, ...]:
    """Return inference memory per card at batches from 1 in doublings, the replica and context held.

    The sweep reaches twice the scenario's batch and twice ``largest`` (the largest batch that
    fits, when known), both of which are points of it. Each point is sized on the replica the
    engine chose for the scenario, as an estimate at that batch on that replica would size it.
    """
    cat = catalog or default_catalog()
    replica = _serving_replica(scenario, cat)
    current = estimate(scenario, cat).inference.batch  # the scenario's batch, its share of a concurrency, or max
    extra = {current}
    top = 2 * current
    if largest:
        top = max(top, 2 * largest)
        extra.add(largest)
    batches = sorted({*_powers_of_two(1, min(top, MAX_BATCH)), *extra})
    points = []
    for batch in batches:
        fits, memory = replica.memory(batch=batch, prompt_len=scenario.prompt_len, output_len=scenario.output_len)
        points.append(LoadPoint(batch, memory, fits))
    return tuple(points)


def largest_component(memory: TrainingMemory | InferenceMemory) -> str:
    """Return the field of ``memory`` that takes the most bytes (the total aside): a derived definition."""
    parts = {name: float(value) for name, value in memory._asdict().items() if name != "total"}
    return max(parts, key=lambda name: parts[name])
