"""What fits on a card: the largest batch, context, micro-batch and sequence length, and what each knob does.

Every function holds the parallel layout fixed while it varies one thing: it first asks the engine
which layout the scenario gets (:func:`model.estimate`), pins that layout's tensor, pipeline and
data parallel degrees, ZeRO stage and recomputation mode in the scenarios it builds, then varies
one field. Memory always comes from the engine's own estimate (``memory_per_gpu`` and ``fits``),
so every answer here agrees with what :func:`model.estimate` reports for the same scenario.

The searches are derived definitions, not published formulas: the engine's memory never falls as
a batch, a context or a sequence grows (KV cache and activations are linear in them, Korthikanti
et al. 2022 sec. 4 for training activations; a sliding window caps the cached context), so the
largest value that fits is found from a first guess (the line through two probes reaching the
card's capacity, or the engine's own largest batch), by steps that double until they bracket the
answer, then bisection. The layout pinning and the knob and load sweeps are :mod:`model.fit_sweeps`,
re-exported here.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable

from model.catalog import Catalog, default_catalog
from model.estimate import estimate
from model.fit_sweeps import (
    BATCH_LIMIT,
    TOKEN_LIMIT,
    TP_OPTIONS,
    ZERO_STAGES,
    KnobPoint,
    KnobSweep,
    LoadPoint,
    inference_batch_sweep,
    inference_context_sweep,
    largest_component,
    pinned_serving,
    pinned_training,
    recompute_sweep,
    tp_sweep,
    with_context,
    zero_stage_sweep,
)
from model.scenario import Scenario

__all__ = [
    "TP_OPTIONS",
    "ZERO_STAGES",
    "KnobPoint",
    "KnobSweep",
    "LoadPoint",
    "inference_batch_sweep",
    "inference_context_sweep",
    "largest_component",
    "largest_inference_batch",
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

MICRO_BATCH_LIMIT = 1_000_000
"""The largest micro-batch searched: the scenario's own limit."""


def _catalog(catalog: Catalog | None) -> Catalog:
    return catalog or default_catalog()


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


def _bisect(fits: Callable[[int], bool], low: int, high: int) -> int:
    """Return the largest fitting value, given that ``low`` fits and ``high`` does not."""
    while high - low > 1:
        middle = (low + high) // 2
        if fits(middle):
            low = middle
        else:
            high = middle
    return low


def _largest(fits: Callable[[int], bool], start: int, limit: int, guess: int | None = None) -> int:
    """Return the largest n in [start, limit] with ``fits(n)``, or start - 1 when none fits.

    ``fits`` must only turn from True to False as n grows. From ``guess`` (or ``start``) steps of
    1, 2, 4, ... bracket the answer, bisection finds it: a good guess costs two probes.
    """
    if guess is not None and start < guess < limit and not fits(guess):
        high, step = guess, 1
        while True:
            candidate = max(start, guess - step)
            if fits(candidate):
                return _bisect(fits, candidate, high)
            if candidate == start:
                return start - 1
            high, step = candidate, step * 2
    if guess is not None and start < guess < limit:
        low = guess
    elif fits(start):
        low = start
    else:
        return start - 1
    step = 1
    while low < limit:
        candidate = min(limit, low + step)
        if not fits(candidate):
            return _bisect(fits, low, candidate)
        low, step = candidate, step * 2
    return limit


def largest_inference_batch(scenario: Scenario, catalog: Catalog | None = None) -> int:
    """Return the most concurrent sequences per replica that fit at the scenario's context (0: none).

    Starts from the engine's own answer (``estimate(...).inference.max_batch``, which sizes the
    prefill activations for a full chunk) and checks it on the exact memory, the serving replica
    held fixed.
    """
    cat = _catalog(catalog)
    pinned = pinned_serving(scenario, cat)
    engine_answer = estimate(pinned, cat).inference.max_batch
    probe = _probe(lambda batch: dataclasses.replace(pinned, batch=batch), "inference", cat)
    return _largest(lambda batch: probe(batch)[0], 1, BATCH_LIMIT, guess=engine_answer)


def largest_inference_context(scenario: Scenario, catalog: Catalog | None = None, batch: int = 1) -> float:
    """Return the most tokens of prompt + output per sequence that fit with ``batch`` sequences.

    The serving replica is held fixed and the context grows in the scenario's prompt:output mix
    (:func:`with_context`). Memory grows with the KV cache (2 x layers x KV heads x head width x
    bytes per token, or MLA's latent), linearly, so the first guess solves that line through the
    scenario's context and twice it; with a sliding window the cache stops growing at the window
    (Mistral 7B paper, sec. 2), so when everything fits at the longest searched context the answer
    is ``math.inf``: memory does not bound the context. 0 when not even two tokens fit.
    """
    cat = _catalog(catalog)
    pinned = dataclasses.replace(pinned_serving(scenario, cat), batch=batch)
    base = estimate(pinned, cat)
    probe = _probe(lambda tokens: with_context(pinned, tokens), "inference", cat)
    if base.resolved.arch.sliding_window and probe(TOKEN_LIMIT)[0]:
        return math.inf
    current = scenario.prompt_len + scenario.output_len
    guess = _secant_guess(probe, current, base.resolved.gpu.memory_bytes) if 2 * current < TOKEN_LIMIT else None
    largest = _largest(lambda tokens: probe(tokens)[0], 2, TOKEN_LIMIT, guess)
    return float(largest) if largest >= 2 else 0.0


def largest_training_micro_batch(scenario: Scenario, catalog: Catalog | None = None) -> int:
    """Return the largest micro-batch (sequences per card per step) that fits for the chosen layout (0: none).

    Activations grow linearly with the micro-batch (Korthikanti et al. 2022, sec. 4): the first
    guess solves the line through the scenario's micro-batch and twice it.
    """
    cat = _catalog(catalog)
    pinned = pinned_training(scenario, cat)
    probe = _probe(lambda micro_batch: dataclasses.replace(pinned, micro_batch=micro_batch), "training", cat)
    capacity = estimate(pinned, cat).resolved.gpu.memory_bytes
    guess = _secant_guess(probe, scenario.micro_batch, capacity)
    return _largest(lambda micro_batch: probe(micro_batch)[0], 1, MICRO_BATCH_LIMIT, guess)


def largest_training_seq_len(scenario: Scenario, catalog: Catalog | None = None) -> int:
    """Return the longest training sequence (tokens) that fits for the chosen layout and micro-batch (0: none).

    With flash attention activations grow linearly with the sequence (Korthikanti et al. 2022,
    sec. 4): the first guess solves the line through the scenario's sequence length and twice it.
    """
    cat = _catalog(catalog)
    pinned = pinned_training(scenario, cat)
    probe = _probe(lambda seq_len: dataclasses.replace(pinned, seq_len=seq_len), "training", cat)
    base = estimate(pinned, cat)
    guess = _secant_guess(probe, base.resolved.seq_len, base.resolved.gpu.memory_bytes)
    return _largest(lambda seq_len: probe(seq_len)[0], 1, TOKEN_LIMIT, guess)
