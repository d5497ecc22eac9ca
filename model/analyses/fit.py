"""What fits on a card, and what each knob does to memory, with the parallel layout the engine chose.

Every function takes a scenario or its estimate (a page passes the estimate it already has, so a
rerun asks the engine once), holds the layout the engine chose for it (its tensor, pipeline and data
parallel degrees, ZeRO stage and recomputation mode: :func:`pinned_training`, :func:`pinned_serving`),
then varies one thing:

- the largest serving context, training micro-batch and sequence length that fit (the largest serving
  batch is the engine's own ``max_batch``);
- training memory at each ZeRO stage, recomputation mode and tensor-parallel degree
  (:class:`KnobSweep`), serving memory against context and batch (:class:`LoadPoint`).

Memory is sized by the engine's own functions and rules, on the chosen layout, without another
estimate where only memory changes (the same sizing the layout search uses:
:func:`model.memory.training_memory` and :func:`model.memory.training_fits`; for serving
:func:`model.inference.inference_memory` and :func:`model.inference.serving_fits`), so every point
is what :func:`model.estimate` says for the pinned scenario with that one change (tests hold this).
A tensor-parallel degree moves the data-parallel one and the time, and the full-recomputation point
says what it costs in time: those are estimated. The searches are derived
definitions, not published formulas: memory never falls as a batch, a context or a sequence grows
(KV cache and activations are linear in them, Korthikanti et al. 2022 sec. 4 for training
activations; a sliding window caps the cached context), so the largest value that fits is found
from a first guess (the line through two probes reaching the card's capacity, or the engine's own
largest batch) by :func:`model.analyses.search.largest_passing`.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from typing import NamedTuple

from model.analyses.search import largest_passing
from model.catalog import Catalog, default_catalog
from model.estimate import estimate, training_refused, training_regime_of
from model.inference import InferenceMemory, inference_memory, serving_capacity, serving_fits
from model.layouts.serving import serving_load
from model.memory import Layout, TrainingMemory, TrainingRegime, runtime_bytes, training_fits, training_memory
from model.results import Estimate
from model.scenario import MAX_BATCH, RECOMPUTE_MODES, Recompute, Resolved, Scenario

__all__ = [
    "TP_OPTIONS",
    "ZERO_STAGES",
    "KnobPoint",
    "KnobSweep",
    "LoadPoint",
    "TrainingShape",
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
    "training_shape",
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
    time_s: float | None
    """Training time at this setting (the engine's expected estimate): what memory savings cost.
    Timed for the chosen setting, every tensor-parallel degree and full recomputation; None where
    only memory was sized."""


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


Given = Scenario | Estimate
"""A scenario, or its estimate when the caller has it already (then nothing is estimated again)."""


def _base(given: Given, catalog: Catalog | None) -> Estimate:
    """Return the estimate of ``given``: itself when it is one."""
    return given if isinstance(given, Estimate) else estimate(given, catalog or default_catalog())


def pinned_training(given: Given, catalog: Catalog | None = None) -> Scenario:
    """Return the scenario with its training layout and recomputation mode fixed as the engine chose them."""
    result = _base(given, catalog)
    training = result.training
    layout = training.parallelism
    scenario = result.resolved.scenario
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


def pinned_serving(given: Given, catalog: Catalog | None = None) -> Scenario:
    """Return the scenario with its serving replica (tp, pp, attention DP) fixed as the engine chose it.

    The training-only layout knobs are cleared: serving never reads them, and a training dp fixed
    beside the serving replica's tp could ask for more cards than there are.
    """
    result = _base(given, catalog)
    inference = result.inference
    return dataclasses.replace(
        result.resolved.scenario, tp=inference.tp, pp=inference.pp, attention_dp=inference.ep,
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
        return serving_fits(memory, self.resolved.gpu.capacity_bytes, load.budget), memory


def _serving_replica(result: Estimate) -> _Replica:
    """Return the replica the estimate serves on: every later size asks it directly."""
    inference = result.inference
    return _Replica(result.resolved, inference.tp, inference.pp, inference.ep)


class TrainingShape(NamedTuple):
    """The training layout the engine chose for a scenario, held: sized again without an estimate."""

    resolved: Resolved
    regime: TrainingRegime
    layout: Layout
    recompute: Recompute
    recomputed_layers: int
    micro_batch: int
    global_batch: int
    vp: int
    refused: bool

    def every_layer(self, pp: int | None = None) -> int:
        """Return the layers of one pipeline stage."""
        return math.ceil(self.resolved.arch.layers / (pp or self.layout.pp))

    def memory(
        self,
        *,
        zero: int | None = None,
        recompute: Recompute | None = None,
        micro_batch: int | None = None,
        seq_len: int | None = None,
        recomputed_layers: int | None = None,
    ) -> tuple[bool, TrainingMemory]:
        """Return whether the layout fits with one setting changed, and its memory per card.

        The sizing and the rule the layout search applies to a candidate with these knobs fixed
        (:func:`model.memory.training_memory`, :func:`model.memory.training_fits`): the global batch
        held, so a micro-batch sets the micro-batches in flight; full recomputation covers the
        chosen number of layers in the chosen mode (or ``recomputed_layers``), every layer when the mode
        changes to it.
        """
        r, layout = self.resolved, self.layout
        if zero is not None:
            layout = layout._replace(zero=zero)
        mode = recompute or self.recompute
        micro = micro_batch or self.micro_batch
        redone = 0
        if mode == "full":
            held = self.recomputed_layers if mode == self.recompute else self.every_layer()
            redone = min(recomputed_layers or held, self.every_layer())
        microbatches = max(1, -(-self.global_batch // (layout.dp * micro)))
        memory = training_memory(
            r.arch, self.regime, layout, seq_len=seq_len or r.seq_len, micro_batch=micro, microbatches=microbatches,
            recompute=mode, flash_attention=r.scenario.flash_attention, runtime=runtime_bytes(r.gpu.host_link),
            vp=self.vp, recomputed_layers=redone,
        )  # fmt: skip
        return training_fits(memory, r.gpu.capacity_bytes) and not self.refused, memory


def training_shape(result: Estimate) -> TrainingShape:
    """Return the training layout the estimate chose, to size again."""
    training, r = result.training, result.resolved
    return TrainingShape(
        r, training_regime_of(r), training.parallelism, training.recompute, training.recomputed_layers,
        training.micro_batch, training.global_batch, training.vp, training_refused(r),
    )  # fmt: skip


def _context_split(scenario: Scenario, tokens: int) -> tuple[int, int]:
    """Return (prompt, output) for ``tokens`` of context in the scenario's mix (:func:`with_context`)."""
    mixed = with_context(scenario, tokens)
    return mixed.prompt_len, mixed.output_len


Probe = Callable[[int], tuple[bool, float]]
"""Whether a value fits, and the memory per card it needs (bytes)."""


def _memoised(size: Callable[[int], tuple[bool, float]]) -> Probe:
    """Return ``size`` remembering what it answered: the secant guess and the search ask again."""
    memo: dict[int, tuple[bool, float]] = {}

    def probe(value: int) -> tuple[bool, float]:
        if value not in memo:
            memo[value] = size(value)
        return memo[value]

    return probe


def _secant_guess(probe: Probe, at: int, capacity: float) -> int | None:
    """Guess where memory reaches ``capacity`` from its slope between ``at`` and ``2 * at`` (None: flat)."""
    first, second = probe(at)[1], probe(2 * at)[1]
    slope = (second - first) / at
    if slope <= 0:
        return None
    return int(at + (capacity - first) / slope)


def largest_inference_context(given: Given, catalog: Catalog | None = None, batch: int = 1) -> float:
    """Return the most tokens of prompt + output per sequence that fit with ``batch`` sequences.

    The replica is the one the engine chose for the scenario, held, and the context grows in the scenario's
    prompt:output mix (:func:`with_context`). Memory grows linearly with the KV cache (2 x layers x
    KV heads x head width x bytes per token, or MLA's latent): the first guess solves that line
    through the scenario's context and twice it. A sliding window stops the cache at the window
    (Mistral 7B paper, sec. 2): when everything fits at the longest searched context the answer is
    ``math.inf``. 0 when not even two tokens fit.
    """
    result = _base(given, catalog)
    scenario = result.resolved.scenario
    replica = _serving_replica(result)

    def size(tokens: int) -> tuple[bool, float]:
        prompt, output = _context_split(scenario, tokens)
        fits, memory = replica.memory(batch=batch, prompt_len=prompt, output_len=output)
        return fits, memory.total

    probe = _memoised(size)

    if replica.resolved.arch.sliding_window and probe(TOKEN_LIMIT)[0]:
        return math.inf
    current = scenario.prompt_len + scenario.output_len
    capacity = serving_capacity(replica.resolved.gpu.capacity_bytes, replica.resolved.serving_budget)
    guess = _secant_guess(probe, current, capacity) if 2 * current < TOKEN_LIMIT else None
    largest = largest_passing(lambda tokens: probe(tokens)[0], 2, TOKEN_LIMIT, guess)
    return float(largest) if largest >= 2 else 0.0


def _largest_training(shape: TrainingShape, setting: str, current: int) -> int:
    """Return the largest value of ``setting`` (micro_batch or seq_len) that fits the held layout (0: none)."""
    limit = MICRO_BATCH_LIMIT if setting == "micro_batch" else TOKEN_LIMIT

    def size(value: int) -> tuple[bool, float]:
        fits, memory = shape.memory(**{setting: value})  # type: ignore[arg-type]
        return fits, memory.total

    probe = _memoised(size)
    guess = _secant_guess(probe, current, shape.resolved.gpu.capacity_bytes)
    return largest_passing(lambda value: probe(value)[0], 1, limit, guess)


def largest_training_micro_batch(given: Given, catalog: Catalog | None = None) -> int:
    """Return the largest micro-batch (sequences per card per step) that fits for the chosen layout (0: none).

    Activations grow linearly with the micro-batch (Korthikanti et al. 2022, sec. 4): the first
    guess solves the line through the scenario's micro-batch and twice it.
    """
    shape = training_shape(_base(given, catalog))
    return _largest_training(shape, "micro_batch", shape.micro_batch)


def largest_training_seq_len(given: Given, catalog: Catalog | None = None) -> int:
    """Return the longest training sequence (tokens) that fits for the chosen layout and micro-batch (0: none).

    With flash attention activations grow linearly with the sequence (Korthikanti et al. 2022,
    sec. 4): the first guess solves the line through the scenario's sequence length and twice it.
    """
    shape = training_shape(_base(given, catalog))
    return _largest_training(shape, "seq_len", shape.resolved.seq_len)


def _sized_point(
    shape: TrainingShape, value: int | str, chosen: bool, base: Estimate, **change: int | str
) -> KnobPoint:
    """Return one knob point sized on the held layout: timed only when it is the chosen setting."""
    if chosen:
        training = base.training
        return KnobPoint(value, training.memory_per_gpu, training.fits, True, training.time_s)
    fits, memory = shape.memory(**change)  # type: ignore[arg-type]
    return KnobPoint(value, memory, fits, False, None)


def zero_stage_sweep(given: Given, catalog: Catalog | None = None) -> KnobSweep:
    """Return training memory per card at ZeRO stages 0-3, the rest of the chosen layout held."""
    base = _base(given, catalog)
    shape = training_shape(base)
    chosen = shape.layout.zero
    return KnobSweep("zero", tuple(_sized_point(shape, z, z == chosen, base, zero=z) for z in ZERO_STAGES))


def recompute_sweep(given: Given, catalog: Catalog | None = None) -> KnobSweep:
    """Return training memory per card with no, selective and full recomputation, the layout held.

    Full recomputation covers every layer of a stage; when the chosen layout recomputes only k of
    them, "full, k layers" is a fourth point. The full point is timed (one estimate): what its
    memory saving costs.
    """
    cat = catalog or default_catalog()
    base = _base(given, cat)
    shape = training_shape(base)
    every = shape.every_layer()
    chosen: str = shape.recompute
    partial = shape.recompute == "full" and shape.recomputed_layers < every
    if partial:
        chosen = f"full, {shape.recomputed_layers} layers"
    points = []
    for mode in RECOMPUTE_MODES:
        every_layer = {"recomputed_layers": every} if mode == "full" else {}
        point = _sized_point(shape, mode, mode == chosen, base, recompute=mode, **every_layer)
        if mode == "full" and not point.chosen and point.fits:
            timed = estimate(dataclasses.replace(pinned_training(base), recompute="full", recompute_layers=every), cat)
            point = point._replace(time_s=timed.training.time_s)
        points.append(point)
    if partial:
        points.insert(2, _sized_point(shape, chosen, True, base))
    return KnobSweep("recompute", tuple(points))


def tp_sweep(given: Given, catalog: Catalog | None = None) -> KnobSweep:
    """Return training memory per card at tensor-parallel degrees 1, 2, 4 and 8 on the scenario's cards.

    Pipeline stages, ZeRO stage and recomputation stay as chosen; the data-parallel degree is what
    the cards leave (cards ÷ (tp x pp)), so only degrees whose replica fits in the cards are swept.
    Each other degree is an estimate of its own (the data-parallel degree, the expert split and the
    time all move with it).
    """
    cat = catalog or default_catalog()
    base = _base(given, cat)
    pinned = pinned_training(base)
    chosen, stages, cards = pinned.tp or 1, pinned.pp or 1, pinned.cards
    degrees = sorted({*(degree for degree in TP_OPTIONS if degree == 1 or degree * stages <= cards), chosen})
    points = []
    for degree in degrees:
        if degree == chosen:
            training = base.training
        else:
            training = estimate(dataclasses.replace(pinned, tp=degree, dp=None, ep=None), cat).training
        points.append(KnobPoint(degree, training.memory_per_gpu, training.fits, degree == chosen, training.time_s))
    return KnobSweep("tp", tuple(points))


def _powers_of_two(low: int, high: int) -> list[int]:
    values, value = [], low
    while value <= high:
        values.append(value)
        value *= 2
    return values


def inference_context_sweep(
    given: Given, catalog: Catalog | None = None, batch: int = 1, largest: float | None = None
) -> tuple[LoadPoint, ...]:
    """Return inference memory per card at contexts from 128 tokens in doublings, the replica held.

    The sweep reaches past the model's own context limit, twice the scenario's context and twice
    ``largest`` (the largest context that fits, when known and finite), so the capacity crossing
    shows; the scenario's context and ``largest`` are points of it. Each point is sized on the
    replica the engine chose, as an estimate at that context would size it.
    """
    result = _base(given, catalog)
    scenario = result.resolved.scenario
    replica = _serving_replica(result)
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
    given: Given, catalog: Catalog | None = None, largest: int | None = None
) -> tuple[LoadPoint, ...]:
    """Return inference memory per card at batches from 1 in doublings, the replica and context held.

    The sweep reaches twice the scenario's batch and twice ``largest`` (the largest batch that
    fits, when known), both of which are points of it. Each point is sized on the replica the
    engine chose for the scenario, as an estimate at that batch on that replica would size it.
    """
    result = _base(given, catalog)
    scenario = result.resolved.scenario
    replica = _serving_replica(result)
    current = result.inference.batch  # the scenario's batch, its share of a concurrency, or max
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
