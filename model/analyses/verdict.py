"""Whether the user's goal runs on their cards, and if not, the smallest changes that make it run.

A goal is what the user came to do: serve the model, fine-tune it, or pre-train it. Its verdict is
the engine's own memory answer for that mode, the same one every page shows: serving fits when one
sequence of the scenario's context fits beside the weights on a replica (batch 1: more users only
add KV cache, and the largest batch that fits is a separate figure); training fits when the layout
the engine chose fits the card. Pre-training and full fine-tuning in a serving format (int8, int4,
GPTQ/AWQ, NF4, MXFP4/NVFP4, llama.cpp's quants) are refused, not estimated: no framework trains every
weight in them (QLoRA trains 16-bit adapters on an NF4 base, which is the ``qlora`` goal).

Serving's verdict is the estimate's own code (model.inference.serving_verdict): "fits" on the cards,
"fits_with_offload" with part of the model in the host's memory (the split and the tokens per second
with it), or "wont_run" (what it needs and has). Training never offloads here.

Each fix changes one thing and is checked with :func:`model.estimate` before it is offered: more
cards (the fewest that fit, doubling from the scenario's), a smaller format for the weights, an
adapter method instead of full fine-tuning, a shorter context or sequence.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Final, Literal, NamedTuple, get_args

from model.analyses.compare import fewest_serving_cards
from model.analyses.fit import largest_inference_context, largest_training_seq_len, training_shape, with_context
from model.catalog import Catalog, ServingBudget, default_catalog
from model.estimate import estimate, training_refused
from model.inference import Offload
from model.limits import ScenarioError
from model.precision import GGUF_PRECISIONS, Precision, bytes_per_element
from model.scenario import Finetune, Scenario, resolve, with_batch

__all__ = [
    "GOALS",
    "Fix",
    "Goal",
    "Verdict",
    "goal_scenario",
    "goal_verdict",
]

Goal = Literal["serve", "finetune", "pretrain"]
GOALS: Final[tuple[Goal, ...]] = get_args(Goal)
MAX_CARDS: Final = 131_072
"""The most cards a fix suggests (twice the largest published training cluster, ~65k H100s)."""
SHORTEST_USEFUL_CONTEXT: Final = 256
"""A context or training sequence shorter than this is not offered as a fix: nothing useful fits in it."""
_SERVING_FORMATS: Final[tuple[Precision, ...]] = ("fp8", "int4")
_GGUF_SERVING_FORMATS: Final[tuple[Precision, ...]] = ("q4_k_m", "q3_k_m", "q2_k")
"""The smaller formats a fix tries, in order: a llama.cpp user is offered llama.cpp's own mixes (a runner
of GGUF files cannot load fp8 or int4 checkpoints), everyone else fp8 then int4."""


class Fix(NamedTuple):
    """One change to the scenario that makes the goal fit, checked by the engine."""

    knob: str
    """'cards', 'precision', 'finetune', 'context' (prompt + output tokens) or 'seq_len'."""
    value: int | str
    needed_bytes: float
    """Memory per card after the change."""


class Verdict(NamedTuple):
    """Whether the goal runs, why not, and what would make it run."""

    goal: Goal
    runs: bool
    refusal: str | None
    """Why the goal is refused outright ('untrainable_precision'), or None."""
    needed_bytes: float
    """Memory per card the goal needs as the scenario stands (0 when refused)."""
    capacity_bytes: float
    fixes: tuple[Fix, ...]
    code: str = ""
    """The verdict as a code: serving's "fits", "fits_with_offload" or "wont_run" (the estimate's own,
    model.inference.serving_verdict); training's "fits", "wont_run" or "refused"."""
    offload: Offload | None = None
    """Serving: the split between the cards and host memory when it runs with offload, or, when it
    does not run, what it needs and has (``needed_bytes`` and ``has_bytes``); None otherwise."""
    tokens_per_s: float | None = None
    """Serving one user when it runs: output tokens per second (1 / TPOT)."""
    lightest_bytes: float | None = None
    """Training that fits: memory per card on the same layout with every layer recomputed, the least it
    can take (the search fills the card with the fastest setting that fits); None for serving."""
    serving_budget: ServingBudget = ServingBudget()
    """Serving: how the scenario's stack budgets each card (a share of it, or of what is free)."""
    budget_bytes: float = 0.0
    """Serving: what that budget lets the stack use of each card for this model, in bytes (the
    estimate's ``budget_per_gpu``; 0 for training)."""


def goal_scenario(scenario: Scenario, goal: Goal) -> Scenario:
    """Return ``scenario`` as the goal runs it: pre-training never fine-tunes, fine-tuning always does."""
    if goal == "pretrain" and scenario.finetune != "none":
        return dataclasses.replace(scenario, finetune="none")
    if goal == "finetune" and scenario.finetune == "none":
        return dataclasses.replace(scenario, finetune="lora")
    return scenario


def goal_verdict(scenario: Scenario, goal: Goal, catalog: Catalog | None = None) -> Verdict:
    """Return whether ``goal`` runs on the scenario's cards and, if not, the fixes that make it run.

    Raises:
        ScenarioError: the scenario is invalid.
    """
    cat = catalog or default_catalog()
    scenario = goal_scenario(scenario, goal)
    if goal == "serve":
        return _serving_verdict(scenario, cat)
    return _training_verdict(scenario, goal, cat)


def _serving_verdict(scenario: Scenario, cat: Catalog) -> Verdict:
    one = with_batch(scenario, 1)
    result = estimate(one, cat)
    capacity = result.resolved.gpu.capacity_bytes
    budget = result.resolved.serving_budget
    inference = result.inference
    usable = inference.budget_per_gpu
    needed = inference.memory_per_gpu.total
    split = inference.offload if inference.offload.mode != "none" or not inference.fits else None
    if inference.fits:
        rate = inference.decode_tokens_per_s_per_user
        return Verdict("serve", True, None, needed, capacity, (), inference.verdict, split, rate, None, budget, usable)
    fixes: list[Fix | None] = []
    cards = fewest_serving_cards(one, cat)
    if cards is not None and cards > scenario.cards:
        fixes.append(_checked(dataclasses.replace(one, cards=cards), "cards", cards, "inference", cat))
    offered = _GGUF_SERVING_FORMATS if scenario.precision in GGUF_PRECISIONS else _SERVING_FORMATS
    smaller = [p for p in offered if bytes_per_element(p) < bytes_per_element(scenario.precision)]
    fixes.append(_first(_checked(_with_precision(one, p), "precision", p, "inference", cat) for p in smaller))
    context = largest_inference_context(result, cat)
    if SHORTEST_USEFUL_CONTEXT <= context < scenario.prompt_len + scenario.output_len:
        fixes.append(_checked(with_context(one, int(context)), "context", int(context), "inference", cat))
    found = tuple(fix for fix in fixes if fix is not None)
    return Verdict(
        "serve",
        False,
        None,
        needed,
        capacity,
        found,
        inference.verdict,
        split,
        serving_budget=budget,
        budget_bytes=usable,
    )


def _training_verdict(scenario: Scenario, goal: Goal, cat: Catalog) -> Verdict:
    capacity = cat.gpus[scenario.gpu].capacity_bytes if scenario.gpu in cat.gpus else 0.0
    fixes: list[Fix | None] = []
    if training_refused(resolve(scenario, cat)):
        if goal == "finetune":
            fixes.append(_checked(_with_finetune(scenario, "qlora"), "finetune", "qlora", "training", cat))
        fixes.append(_checked(_with_precision(scenario, "bf16"), "precision", "bf16", "training", cat))
        found = tuple(fix for fix in fixes if fix is not None)
        return Verdict(goal, False, "untrainable_precision", 0.0, capacity, found, "refused")
    result = estimate(scenario, cat)
    capacity = result.resolved.gpu.capacity_bytes
    needed = result.training.memory_per_gpu.total
    if result.training.fits:
        shape = training_shape(result)
        _, lightest = shape.memory(recompute="full", recomputed_layers=shape.every_layer())
        return Verdict(goal, True, None, needed, capacity, (), "fits", lightest_bytes=lightest.total)
    if goal == "finetune":
        lighter = _LIGHTER_METHODS.get(scenario.finetune, ())
        fixes.append(_first(_checked(_with_finetune(scenario, m), "finetune", m, "training", cat) for m in lighter))
    cards = _fewest_training_cards(scenario, cat)
    if cards is not None:
        fixes.append(_checked(dataclasses.replace(scenario, cards=cards), "cards", cards, "training", cat))
    seq_len = largest_training_seq_len(result, cat)
    if SHORTEST_USEFUL_CONTEXT <= seq_len < result.resolved.seq_len:
        fixes.append(_checked(dataclasses.replace(scenario, seq_len=seq_len), "seq_len", seq_len, "training", cat))
    return Verdict(goal, False, None, needed, capacity, tuple(fix for fix in fixes if fix is not None), "wont_run")


_LIGHTER_METHODS: Final[dict[str, tuple[Finetune, ...]]] = {"full": ("lora", "qlora"), "lora": ("qlora",)}
"""The fine-tuning methods that hold less than each one, tried in order: LoRA freezes the base, QLoRA also
quantises it to 4 bits."""


def _first(fixes: Iterable[Fix | None]) -> Fix | None:
    """Return the first fix that fits (the candidates are checked lazily, in order)."""
    return next((fix for fix in fixes if fix is not None), None)


def _with_finetune(scenario: Scenario, method: Finetune) -> Scenario:
    """Return ``scenario`` fine-tuned with ``method``."""
    return dataclasses.replace(scenario, finetune=method)


def _with_precision(scenario: Scenario, precision: Precision) -> Scenario:
    """Return ``scenario`` in ``precision``, its KV cache's format left to the engine's default."""
    return dataclasses.replace(scenario, precision=precision, kv_precision=None)


def _checked(scenario: Scenario, knob: str, value: int | str, part: str, cat: Catalog) -> Fix | None:
    """Return the fix with the memory per card it gives, or None when the engine says it does not fit.

    A fix is shown only after the engine has checked it (DESIGN.md 9); a change that is not a
    valid scenario (a fixed layout the new card count cannot hold) is not a fix either.
    """
    try:
        part_result = getattr(estimate(scenario, cat), part)
    except ScenarioError:
        return None
    if not part_result.fits:
        return None
    return Fix(knob, value, part_result.memory_per_gpu.total)


def _fewest_training_cards(scenario: Scenario, cat: Catalog) -> int | None:
    """Return the fewest cards (doubling from the scenario's) on which training fits, or None up to MAX_CARDS.

    Fit is monotone in cards for the engine's search (more cards shard ZeRO states and pipeline
    stages further), so the doublings are bisected: about log2 of log2 of the range in estimates.
    """
    counts = []
    count = scenario.cards * 2
    while count <= MAX_CARDS:
        counts.append(count)
        count *= 2

    def fits(cards: int) -> bool:
        try:
            return estimate(dataclasses.replace(scenario, cards=cards), cat).training.fits
        except ScenarioError:  # the fixed layout cannot take this many cards
            return False

    if not counts or not fits(counts[-1]):
        return None
    low, high = 0, len(counts) - 1  # counts[high] fits
    while low < high:
        middle = (low + high) // 2
        if fits(counts[middle]):
            high = middle
        else:
            low = middle + 1
    return counts[high]
