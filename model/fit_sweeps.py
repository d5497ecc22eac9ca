"""What each knob does to memory per card, with the parallel layout pinned as the engine chose it.

:func:`pinned_training` and :func:`pinned_serving` ask the engine which layout a scenario gets
(:func:`model.estimate`) and fix its tensor, pipeline and data parallel degrees, ZeRO stage and
recomputation mode, so a sweep varies one thing: the ZeRO stage, the recomputation mode or the
tensor-parallel degree for training (:class:`KnobSweep`), the context or the batch for inference
(:class:`LoadPoint`). Memory always comes from the engine's own estimate. The searches for the
largest value that fits are :mod:`model.fit`, which re-exports every name here.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterable
from typing import NamedTuple

from model.catalog import Catalog, default_catalog
from model.estimate import estimate
from model.memory import InferenceMemory, Layout, TrainingMemory
from model.scenario import RECOMPUTE_MODES, Scenario

__all__ = [
    "BATCH_LIMIT",
    "SHORTEST_CONTEXT",
    "TOKEN_LIMIT",
    "TP_OPTIONS",
    "ZERO_STAGES",
    "KnobPoint",
    "KnobSweep",
    "LoadPoint",
    "inference_batch_sweep",
    "inference_context_sweep",
    "largest_component",
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
BATCH_LIMIT = 10_000_000
"""The most concurrent sequences searched: the scenario's own limit."""
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


def _catalog(catalog: Catalog | None) -> Catalog:
    return catalog or default_catalog()


def _pin_training(scenario: Scenario, cat: Catalog) -> tuple[Scenario, Layout, str]:
    training = estimate(scenario, cat).training
    layout = training.parallelism
    pinned = dataclasses.replace(
        scenario,
        tp=layout.tp,
        pp=layout.pp,
        dp=layout.dp,
        ep=layout.ep,
        zero=layout.zero,
        recompute=training.recompute,
    )
    return pinned, layout, training.recompute


def pinned_training(scenario: Scenario, catalog: Catalog | None = None) -> Scenario:
    """Return ``scenario`` with its training layout and recomputation mode fixed as the engine chose them."""
    return _pin_training(scenario, _catalog(catalog))[0]


def pinned_serving(scenario: Scenario, catalog: Catalog | None = None) -> Scenario:
    """Return ``scenario`` with its serving replica (tensor and pipeline degrees) fixed as the engine chose it."""
    inference = estimate(scenario, _catalog(catalog)).inference
    return dataclasses.replace(scenario, tp=inference.tp, pp=inference.pp)


def with_context(scenario: Scenario, tokens: int) -> Scenario:
    """Return ``scenario`` with prompt + output = ``tokens``, split in the scenario's own prompt:output mix.

    A derived definition: the prompt keeps its share of the context (at least one token each).
    """
    tokens = max(2, int(tokens))
    share = scenario.prompt_len / (scenario.prompt_len + scenario.output_len)
    prompt = min(tokens - 1, max(1, round(tokens * share)))
    return dataclasses.replace(scenario, prompt_len=prompt, output_len=tokens - prompt)


def _knob_sweep(
    knob: str, values: Iterable[int | str], scenarios: Callable[[int | str], Scenario], chosen: int | str, cat: Catalog
) -> KnobSweep:
    points = []
    for value in values:
        training = estimate(scenarios(value), cat).training
        points.append(KnobPoint(value, training.memory_per_gpu, training.fits, value == chosen, training.time_s))
    return KnobSweep(knob, tuple(points))


def zero_stage_sweep(scenario: Scenario, catalog: Catalog | None = None) -> KnobSweep:
    """Return training memory per card at ZeRO stages 0-3, the rest of the chosen layout held."""
    cat = _catalog(catalog)
    pinned, layout, _ = _pin_training(scenario, cat)
    return _knob_sweep(
        "zero", ZERO_STAGES, lambda stage: dataclasses.replace(pinned, zero=int(stage)), layout.zero, cat
    )


def recompute_sweep(scenario: Scenario, catalog: Catalog | None = None) -> KnobSweep:
    """Return training memory per card with no, selective and full activation recomputation, the layout held."""
    cat = _catalog(catalog)
    pinned, _, mode = _pin_training(scenario, cat)
    return _knob_sweep(
        "recompute", RECOMPUTE_MODES, lambda value: dataclasses.replace(pinned, recompute=str(value)), mode, cat
    )


def tp_sweep(scenario: Scenario, catalog: Catalog | None = None) -> KnobSweep:
    """Return training memory per card at tensor-parallel degrees 1, 2, 4 and 8 on the scenario's cards.

    Pipeline stages, ZeRO stage and recomputation stay as chosen; the data-parallel degree is what
    the cards leave (cards ÷ (tp x pp)), so only degrees whose replica fits in the cards are swept.
    """
    cat = _catalog(catalog)
    pinned, layout, _ = _pin_training(scenario, cat)
    degrees = [degree for degree in TP_OPTIONS if degree == 1 or degree * layout.pp <= scenario.cards]
    if layout.tp not in degrees:
        degrees = sorted({*degrees, layout.tp})
    return _knob_sweep(
        "tp", degrees, lambda degree: dataclasses.replace(pinned, tp=int(degree), dp=None, ep=None), layout.tp, cat
    )


def _powers_of_two(low: int, high: int) -> list[int]:
    values, value = [], low
    while value <= high:
        values.append(value)
        value *= 2
    return values


def _load_points(scenarios: Iterable[tuple[int, Scenario]], cat: Catalog) -> tuple[LoadPoint, ...]:
    points = []
    for x, built in scenarios:
        inference = estimate(built, cat).inference
        points.append(LoadPoint(x, inference.memory_per_gpu, inference.fits))
    return tuple(points)


def inference_context_sweep(
    scenario: Scenario, catalog: Catalog | None = None, batch: int = 1, largest: float | None = None
) -> tuple[LoadPoint, ...]:
    """Return inference memory per card at contexts from 128 tokens in doublings, the replica held.

    The sweep reaches past the model's own context limit, twice the scenario's context and twice
    ``largest`` (the largest context that fits, when known and finite), so the capacity crossing
    shows; the scenario's context and ``largest`` are points of it.
    """
    cat = _catalog(catalog)
    pinned = dataclasses.replace(pinned_serving(scenario, cat), batch=batch)
    current = scenario.prompt_len + scenario.output_len
    arch = estimate(pinned, cat).resolved.arch
    top = max(arch.max_context, 2 * current)
    extra = {current}
    if largest is not None and math.isfinite(largest) and largest >= 2:
        top = max(top, 2 * int(largest))
        extra.add(int(largest))
    contexts = sorted({*_powers_of_two(SHORTEST_CONTEXT, min(top, TOKEN_LIMIT)), *extra})
    return _load_points(((tokens, with_context(pinned, tokens)) for tokens in contexts), cat)


def inference_batch_sweep(
    scenario: Scenario, catalog: Catalog | None = None, largest: int | None = None
) -> tuple[LoadPoint, ...]:
    """Return inference memory per card at batches from 1 in doublings, the replica and context held.

    The sweep reaches twice the scenario's batch and twice ``largest`` (the largest batch that
    fits, when known), both of which are points of it.
    """
    cat = _catalog(catalog)
    pinned = pinned_serving(scenario, cat)
    current = scenario.batch if isinstance(scenario.batch, int) else estimate(pinned, cat).inference.batch
    extra = {current}
    top = 2 * current
    if largest:
        top = max(top, 2 * largest)
        extra.add(largest)
    batches = sorted({*_powers_of_two(1, min(top, BATCH_LIMIT)), *extra})
    return _load_points(((batch, dataclasses.replace(pinned, batch=batch)) for batch in batches), cat)


def largest_component(memory: TrainingMemory | InferenceMemory) -> str:
    """Return the field of ``memory`` that takes the most bytes (the total aside): a derived definition."""
    parts = {name: float(value) for name, value in memory._asdict().items() if name != "total"}
    return max(parts, key=lambda name: parts[name])
