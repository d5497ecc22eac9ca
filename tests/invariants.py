"""Issue 29's invariants ("one scenario, one answer", DESIGN.md 9, STYLE.md 8) over random scenarios.

``python -m tests.invariants --n 20000 [--seed S]`` draws N scenarios over the whole scenario space
(every catalog model and GPU, 1 to 100k cards, every precision, batch, context, fine-tune mode,
optimizer, recomputation, the layout knobs tp, pp, dp, ep, zero, micro_batch and vp each fixed
or free, and host memory for offload), checks every invariant below on the engine
(:func:`model.estimate` and its ``to_dict``) and, for a sub-sample, on the goal verdict and the
command line, then prints one line per violated invariant (its count and the first reproducing
scenarios) and the summary
``N scenarios, K invalid inputs, V violations in T s``. It exits 1 on any violation.

A ScenarioError is a legal answer only for fixed layout knobs the cards cannot hold (DESIGN.md 9:
fixed knobs are constraints), and it must name one of the knobs the scenario fixed; any other
exception is a violation. Each check is a pure function of what the engine returned, so
tests/test_invariants.py can feed it a broken result and see it fail.

Seeded :class:`random.Random`, not hypothesis: the long run is a command with a summary line, and a
seed reproduces it exactly; tests/model/test_properties.py holds the hypothesis properties
(nothing negative or NaN, the expected figure between the range's ends, monotone in size and
bandwidth), which this suite does not repeat.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import io
import json
import math
import random
import re
import sys
import time
import traceback
from collections.abc import Callable, Iterable, Sequence
from typing import Any, NamedTuple

from model import KV_PRECISIONS, PRECISIONS, Scenario, ScenarioError, default_catalog, estimate, serving_capacity
from model.analyses.fit import with_context
from model.analyses.verdict import GOALS, Fix, Verdict, goal_scenario, goal_verdict
from model.architecture import Architecture
from model.catalog import STACK_IDS, ServingBudget
from model.cli import main as cli_main
from model.efficiency import EXPECTED
from model.precision import QUANTIZED_WEIGHT_PRECISIONS, bytes_per_element
from model.precision.formats import layer_weights, weight_breakdown
from model.scenario import FINETUNE_MODES, OPTIMIZERS, RECOMPUTE_MODES, SCENARIO_FIELDS, offered_concurrency, with_batch
from model.stacks import training_knobs

__all__ = [
    "CHECKS",
    "DEQUANT_SLOWDOWN",
    "LAYOUT_KNOBS",
    "FixOutcome",
    "GoalFacts",
    "Outcome",
    "Report",
    "check_cli_json",
    "check_cli_text",
    "check_fit_has_every_figure",
    "check_fits_means_within_budget",
    "check_fixed_knobs_kept",
    "check_goal_verdict",
    "check_headlines_within_ranges",
    "check_job",
    "check_layer_split_no_faster",
    "check_layout_within_cards",
    "check_lower_precision_memory",
    "check_lower_precision_tpot",
    "check_memory_parts_add_up",
    "check_mfu_between_zero_and_one",
    "check_more_concurrency",
    "check_more_host_bandwidth",
    "check_no_figure_without_fit",
    "check_offload_only_when_needed",
    "check_offload_split",
    "check_queue",
    "check_queue_serves_as_max",
    "check_refusal_names_a_fixed_knob",
    "check_serving_batch",
    "check_tpot_not_below_roofline",
    "check_twice_the_cards",
    "cli_arguments",
    "draw_scenario",
    "format_report",
    "observe",
    "run",
    "run_cli",
    "scenario_code",
]

CATALOG = default_catalog()
MODEL_IDS = tuple(CATALOG.models)
GPU_IDS = tuple(CATALOG.gpus)
LAYOUT_KNOBS = ("tp", "pp", "dp", "ep", "zero", "micro_batch", "vp")
"""The layout dimensions a user may fix; each is drawn fixed or free independently."""
REFUSABLE = frozenset({*LAYOUT_KNOBS, "attention_dp", "recompute_layers", "stack"})
"""The fields whose fixed values the cards may be unable to hold (a ScenarioError is then the answer); a
stack, too, may not run on the scenario's GPU (TensorRT-LLM on an AMD card)."""
LAYER_SPLIT_STACKS = tuple(
    stack.id
    for stack in CATALOG.stacks.values()
    if stack.serves and stack.split == "layer" and stack.multi_card != "search"
)
"""Desk runners that split a model by layers over cards (llama.cpp, Ollama, ExLlamaV2, MLX)."""
POWERS_OF_TWO_CARDS = tuple(2**k for k in range(15))
"""1, 2, 4, ..., 16,384: the counts people type."""
ODD_CARDS = (3, 5, 6, 7, 12, 24, 48, 96, 100, 384, 1000, 3072, 24_576, 65_536, 100_000)
RELATIVE = 1e-9
"""Tolerance of every comparison of two figures the engine computes along different paths."""
NO_CRASH = "no_crash"
"""The invariant every scenario holds first: the engine answers or refuses it, never raises anything else."""
HOST_MEMORY_GB = (8.0, 16.0, 32.0, 64.0, 128.0, 256.0, 512.0, 1536.0)
"""Host memories drawn for offload: a laptop's to a server's."""
SUM_TOLERANCE = 1e-6
"""Tolerance of a memory total against the sum of its parts (the brief's 1e-6 relative)."""

TRAINING_PARTS = ("weights", "gradients", "optimizer", "activations", "other")
SERVING_PARTS = ("weights", "kv_cache", "activations", "other")
TRAINING_FIGURES = ("time_s", "gpu_hours", "cost_usd", "energy_kwh", "tokens_per_s_per_gpu", "mfu", "step")
"""What a training run takes once it runs: null when it does not fit, finite and positive when it does."""
SERVING_FIGURES = (
    "ttft_s",
    "tpot_s",
    "tpot_roofline_s",
    "decode_step_s",
    "decode_tokens_per_s",
    "decode_tokens_per_s_per_user",
    "prefill_tokens_per_s",
    "cost_per_million_output_tokens_usd",
    "decode",
)
"""What serving gives once it runs: null when it does not fit, finite and positive when it does."""
PRICED_FIGURES = frozenset({"cost_usd", "cost_per_million_output_tokens_usd"})
"""Null also for a fit when the GPU has no price (the engine says so in a ``no_price`` note)."""
POWERED_FIGURES = frozenset({"energy_kwh"})
"""Null also for a fit when the GPU row has no power figure (tdp_w)."""
TRAINING_RANGES = frozenset({"time_s", "gpu_hours", "cost_usd", "energy_kwh", "tokens_per_s_per_gpu", "mfu"})
SERVING_RANGES = frozenset(
    {
        "ttft_s",
        "tpot_s",
        "decode_tokens_per_s",
        "decode_tokens_per_s_per_user",
        "prefill_tokens_per_s",
        "cost_per_million_output_tokens_usd",
    }
)
DEQUANT_SLOWDOWN = 1.0 / EXPECTED.dequant_bandwidth
"""How much slower a weight-only format (int8/int4/fp4, GPTQ/AWQ, NF4, MXFP4/NVFP4, llama.cpp's) may
decode one user than a format above it that is not weight-only (:func:`check_lower_precision_tpot`):
1 / ``dequant_bandwidth`` = 1 / 0.70."""


# --------------------------------------------------------------------------------------------------
# The scenario space


def _log_uniform(rng: random.Random, low: float, high: float) -> float:
    return math.exp(rng.uniform(math.log(low), math.log(high)))


def _log_int(rng: random.Random, low: int, high: int) -> int:
    return max(low, min(high, round(_log_uniform(rng, low, high))))


def _cards(rng: random.Random) -> int:
    pick = rng.random()
    if pick < 0.45:
        return rng.choice(POWERS_OF_TWO_CARDS)
    if pick < 0.6:
        return rng.choice(ODD_CARDS)
    return _log_int(rng, 1, 100_000)


def _divisors(n: int) -> list[int]:
    small = [d for d in range(1, math.isqrt(n) + 1) if n % d == 0]
    return sorted({*small, *(n // d for d in small)})


def _layout(rng: random.Random, cards: int) -> dict[str, Any]:
    """Fix each layout knob independently (or none of them, in 40 % of scenarios)."""
    if rng.random() < 0.4:
        return {}
    share = rng.choice((0.15, 0.35, 0.6))
    knobs: dict[str, Any] = {}
    if rng.random() < share:
        knobs["tp"] = rng.choice((1, 1, 2, 2, 4, 4, 8, 8, 3, 6, 16, 32, 64))
    if rng.random() < share:
        knobs["pp"] = rng.choice((1, 1, 2, 2, 4, 4, 8, 16, 3, 5, 32, 64, 128))
    if rng.random() < share:
        # Mostly a divisor that tp x pp leaves room for; sometimes one that cannot be met.
        room = max(1, cards // ((knobs.get("tp") or 1) * (knobs.get("pp") or 1)))
        fitting = [d for d in _divisors(cards) if d <= room]
        knobs["dp"] = rng.choice(fitting) if fitting and rng.random() < 0.75 else _log_int(rng, 1, 2 * cards)
    if rng.random() < share:
        knobs["ep"] = rng.choice((1, 1, 2, 4, 8, 8, 16, 32, 64, 256))
    if rng.random() < share:
        knobs["zero"] = rng.choice((0, 1, 2, 3))
    if rng.random() < share:
        knobs["micro_batch"] = rng.choice((1, 1, 2, 4, 8, 16, 3))
    if rng.random() < share:
        knobs["vp"] = rng.choice((1, 1, 2, 3, 4, 8))
    return knobs


def draw_scenario(rng: random.Random) -> Scenario:
    """Draw one scenario from the whole space (every catalog model and GPU, 1 to 100k cards, every knob)."""
    cards = _cards(rng)
    fields: dict[str, Any] = {
        "model": rng.choice(MODEL_IDS),
        "gpu": rng.choice(GPU_IDS),
        "cards": cards,
        "precision": rng.choice(PRECISIONS),
        "finetune": rng.choice(FINETUNE_MODES),
        "optimizer": rng.choice(OPTIMIZERS),
        "prompt_len": _log_int(rng, 1, 131_072),
        "output_len": _log_int(rng, 1, 16_384),
        "utilization": rng.choice((0.7, 0.7, 0.05, 0.3, 1.0, round(rng.uniform(0.01, 1.0), 3))),
        **_layout(rng, cards),
    }
    batch_pick = rng.random()
    if batch_pick < 0.4:
        fields["batch"] = 1
    elif batch_pick < 0.7:
        fields["batch"] = _log_int(rng, 1, 4096)
    elif batch_pick < 0.9:
        fields["batch"] = "max"
    else:
        fields["concurrency"] = _log_int(rng, 1, 100_000)
    if rng.random() < 0.15:
        fields["requests"] = _log_int(rng, 1, 1_000_000)  # a batch job, on any of the loads above
    if rng.random() < 0.3:
        fields["recompute"] = rng.choice(RECOMPUTE_MODES)
        if fields["recompute"] == "full" and rng.random() < 0.2:
            fields["recompute_layers"] = rng.choice((1, 2, 4, 8))
    if rng.random() < 0.2:
        fields["kv_precision"] = rng.choice(KV_PRECISIONS)
    if rng.random() < 0.3:
        fields["tokens"] = float(f"{_log_uniform(rng, 1e6, 3e13):.3g}")
    if rng.random() < 0.2:
        fields["seq_len"] = rng.choice((512, 2048, 4096, 8192, 32_768, 131_072))
    if rng.random() < 0.15:
        fields["global_batch"] = _log_int(rng, 1, 16_384)
    if rng.random() < 0.05:
        fields["attention_dp"] = rng.choice((1, 2, 4, 8, 16, 64))
    if rng.random() < 0.05:
        fields["draft_tokens"] = rng.choice((1, 2, 3, 4))
    if rng.random() < 0.05:
        fields["target_tpot_s"] = rng.choice((0.005, 0.02, 0.05, 0.2))
    if rng.random() < 0.05:
        fields["gpus_per_node"] = rng.choice((1, 2, 4, 8, 16, 72))
    if rng.random() < 0.05:
        fields["interconnect"] = rng.choice(tuple(CATALOG.interconnects))
    if rng.random() < 0.05:
        fields["network"] = rng.choice(tuple(CATALOG.networks))
    if rng.random() < 0.05:
        fields["price_per_gpu_hour"] = round(_log_uniform(rng, 0.05, 20.0), 2)
    if rng.random() < 0.05:
        fields["mfu"] = round(rng.uniform(0.05, 0.7), 2)
    if rng.random() < 0.05:
        fields["flash_attention"] = False
    if rng.random() < 0.05:
        fields["master_weights"] = False
    if rng.random() < 0.05:
        fields["lora_rank"] = rng.choice((4, 64, 256))
    if rng.random() < 0.15:
        fields["host_memory_gb"] = rng.choice(HOST_MEMORY_GB)
        if rng.random() < 0.3:
            fields["host_bandwidth_gb_s"] = rng.choice((51.2, 89.6, 204.8, 460.8))
        fields["offload"] = rng.choice(("auto", "auto", "auto", "layers", "experts", "none"))
        if rng.random() < 0.5:  # a desk: one card, where a host's memory matters
            fields["cards"] = 1
            for knob in LAYOUT_KNOBS:
                fields.pop(knob, None)
    # The stack is drawn from the scenario's own fields, not from ``rng``: the sequence of scenarios a
    # seed gives stays the one it gave before stacks were drawn.
    own = random.Random(repr(sorted(fields.items())))
    if own.random() < 0.2:
        fields["stack"] = own.choice(STACK_IDS)
    return Scenario(**fields)


_DEFAULTS = Scenario()


def scenario_code(scenario: Scenario) -> str:
    """Write ``scenario`` as the ``Scenario(...)`` call that reproduces it (fields left at defaults omitted)."""
    given = [
        f"{name}={getattr(scenario, name)!r}"
        for name in SCENARIO_FIELDS
        if name in ("model", "gpu", "cards") or getattr(scenario, name) != getattr(_DEFAULTS, name)
    ]
    return f"Scenario({', '.join(given)})"


# --------------------------------------------------------------------------------------------------
# What the engine returned, as the checks read it


class Outcome(NamedTuple):
    """One estimate as the checks read it: the scenario, ``estimate(...).to_dict()`` and the card's budgets."""

    scenario: Scenario
    data: dict[str, Any]
    capacity_bytes: float
    """The card's memory as the engine counts it (``resolved.gpu.capacity_bytes``): training's budget."""
    priced: bool
    """Whether the estimate had a price per GPU-hour (else costs may be null)."""
    powered: bool
    """Whether the GPU row has a power figure (else energy may be null)."""
    arch: Architecture | None = None
    """The model's shape, to size its tensors in each format (model.precision.formats.weight_breakdown)."""
    budget: ServingBudget = ServingBudget()
    """What the scenario's serving stack lets itself use of each card (``resolved.serving_budget``)."""
    stack: str = "typical"
    """The stack that runs it (``resolved.stack.id``): the one named, or the one its inputs imply."""

    @property
    def training(self) -> dict[str, Any]:
        return self.data["training"]

    @property
    def inference(self) -> dict[str, Any]:
        return self.data["inference"]

    @property
    def serving_budget(self) -> float:
        """The replica's budget: a share of the card, or (TensorRT-LLM) weights and runtime plus a share of the rest."""
        memory = self.inference["memory_per_gpu"]
        return serving_capacity(self.capacity_bytes, self.budget, memory["weights"] + memory["other"])

    def candidate_fits(self, candidate: dict[str, Any]) -> bool:
        """Whether a serving runner-up fits, from its memory alone where the budget is a share of the card.

        A budget of the free memory depends on what each layout holds, which a candidate does not
        report: within the least such a budget gives (held nothing) it fits; past the card it does
        not; between the two its own flag says.
        """
        least = serving_capacity(self.capacity_bytes, self.budget)
        total = candidate["memory_per_gpu"]
        if total <= least or not self.budget.of_free:
            return total <= least
        return bool(candidate["fits"]) and total <= self.capacity_bytes


def observe(scenario: Scenario) -> Outcome:
    """Estimate ``scenario`` and keep what the checks read.

    Raises:
        ScenarioError: the scenario is invalid.
    """
    result = estimate(scenario)
    resolved = result.resolved
    return Outcome(
        scenario,
        result.to_dict(),
        resolved.gpu.capacity_bytes,
        resolved.price_per_gpu_hour is not None,
        bool(resolved.gpu.tdp_w),
        resolved.arch,
        resolved.serving_budget,
        resolved.stack.id,
    )


def _close(a: float, b: float, tolerance: float = RELATIVE) -> bool:
    return abs(a - b) <= tolerance * max(abs(a), abs(b), 1e-300)


def _at_most(a: float, b: float, tolerance: float = RELATIVE) -> bool:
    """Return whether a <= b, within ``tolerance`` of the larger."""
    return a <= b + tolerance * max(abs(a), abs(b))


def _positive_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value > 0


# --------------------------------------------------------------------------------------------------
# Checks of one estimate: each returns the ways it is broken (empty: it holds)


def check_layout_within_cards(o: Outcome) -> list[str]:
    """A training layout never uses more cards than the scenario has; nor do the serving replicas.

    Training: tp x pp x dp <= cards. Serving: a replica is tp x pp x ep cards (ep: attention data
    parallelism) and dp replicas of it share the cards, so tp x pp x ep x dp <= cards.
    """
    cards = o.scenario.cards
    problems = []
    layout = o.training["parallelism"]
    used = layout["tp"] * layout["pp"] * layout["dp"]
    if used > cards:
        problems.append(f"training tp {layout['tp']} x pp {layout['pp']} x dp {layout['dp']} = {used} > {cards} cards")
    i = o.inference
    replica = i["tp"] * i["pp"] * i["ep"]
    if replica * i["dp"] > cards:
        problems.append(
            f"serving replica tp {i['tp']} x pp {i['pp']} x ep {i['ep']} times dp {i['dp']} > {cards} cards"
        )
    if min(layout["tp"], layout["pp"], layout["dp"], layout["ep"], i["tp"], i["pp"], i["dp"], i["ep"]) < 1:
        problems.append("a parallel degree below 1")
    return problems


def check_fixed_knobs_kept(o: Outcome) -> list[str]:
    """Every layout dimension the user fixed is the one the result uses.

    Training keeps tp, pp, dp, ep, zero, micro_batch and vp (and a fixed recomputation mode);
    serving keeps tp and pp (its replica; dp there is the replicas the cards make), except where
    attention data parallelism over more than one card serves a mixture of experts (replicas of
    attention DP x EP are not tp x pp), and the attention-DP degree when fixed on a mixture of experts.
    """
    s, t, i = o.scenario, o.training, o.inference
    problems = []
    kept = {**t["parallelism"], "micro_batch": t["micro_batch"], "vp": t["vp"]}
    for knob in LAYOUT_KNOBS:
        fixed = getattr(s, knob)
        if fixed is not None and kept[knob] != fixed:
            problems.append(f"training {knob} fixed at {fixed}, result has {kept[knob]}")
    if s.recompute is not None and t["recompute"] != s.recompute:
        problems.append(f"training recompute fixed at {s.recompute}, result has {t['recompute']}")
    moe = o.data["inputs"]["architecture"]["experts"] > 1
    attention_dp = bool(s.attention_dp and s.attention_dp > 1 and moe)
    for knob in ("tp", "pp"):
        fixed = getattr(s, knob)
        if fixed is not None and not attention_dp and i[knob] != fixed:
            problems.append(f"serving {knob} fixed at {fixed}, result has {i[knob]}")
    if attention_dp and i["ep"] != min(s.attention_dp or 1, s.cards):
        problems.append(f"serving attention_dp fixed at {s.attention_dp}, result has ep {i['ep']}")
    return problems


def check_memory_parts_add_up(o: Outcome) -> list[str]:
    """Training's weights, gradients, optimizer, activations and other add up to its total; serving's too."""
    problems = []
    for name, parts, memory in (
        ("training", TRAINING_PARTS, o.training["memory_per_gpu"]),
        ("serving", SERVING_PARTS, o.inference["memory_per_gpu"]),
    ):
        values = [memory[part] for part in parts]
        if any(not math.isfinite(v) or v < 0 for v in values):
            problems.append(f"{name} memory has a negative or non-finite part: {memory}")
            continue
        if not _close(sum(values), memory["total"], SUM_TOLERANCE):
            problems.append(f"{name} parts add up to {sum(values):.6g}, total says {memory['total']:.6g}")
    return problems


def check_fits_means_within_budget(o: Outcome) -> list[str]:
    """Training fits iff its total is within the card and its format trains; serving iff within the server's budget.

    A format that does not train (int8 or int4 weights, every weight trained) is refused with the
    note ``not_training_format``: its memory may fit, the run still does not.
    """
    problems = []
    total = o.training["memory_per_gpu"]["total"]
    refused = any(note["code"] == "not_training_format" for note in o.data["notes"])
    if o.training["fits"] != (total <= o.capacity_bytes and not refused):
        problems.append(
            f"training fits={o.training['fits']} with {total:.6g} B against a card of {o.capacity_bytes:.6g}"
            + (" (its format is refused)" if refused else "")
        )
    total = o.inference["memory_per_gpu"]["total"]
    if o.inference["fits"] != (total <= o.serving_budget):
        problems.append(
            f"serving fits={o.inference['fits']} with {total:.6g} B against a budget of {o.serving_budget:.6g}"
        )
    return problems


def check_no_figure_without_fit(o: Outcome) -> list[str]:
    """A part that does not fit has no time, rate or price (null), nor a range for one; nor has a runner-up."""
    problems = []
    for name, part, figures, ranged in (
        ("training", o.training, TRAINING_FIGURES, TRAINING_RANGES),
        ("serving", o.inference, SERVING_FIGURES, SERVING_RANGES),
    ):
        if part["fits"]:
            continue
        shown = [figure for figure in figures if part[figure] is not None]
        if shown:
            problems.append(f"{name} does not fit but shows {', '.join(shown)}")
        ranges = sorted(ranged & o.data["ranges"].keys())
        if ranges:
            problems.append(f"{name} does not fit but has ranges for {', '.join(ranges)}")
    for name, candidates, figures in (
        ("training", o.training["layout_candidates"], ("time_s",)),
        ("serving", o.inference["layout_candidates"], ("tpot_s", "decode_tokens_per_s")),
    ):
        for index, candidate in enumerate(candidates):
            if name == "training":
                fits = candidate["memory_per_gpu"] <= o.capacity_bytes
            else:
                fits = o.candidate_fits(candidate)
            for figure in figures:
                value = candidate[figure]
                if not fits and value is not None:
                    problems.append(f"{name} candidate {index} does not fit but shows {figure} {value:.4g}")
                if fits and not _positive_number(value):
                    problems.append(f"{name} candidate {index} fits but its {figure} is {value!r}")
    return problems


def check_fit_has_every_figure(o: Outcome) -> list[str]:
    """A part that fits has every time, rate and price, finite and positive (a price null only without one)."""
    problems = []
    for name, part, figures in (
        ("training", o.training, TRAINING_FIGURES),
        ("serving", o.inference, SERVING_FIGURES),
    ):
        if not part["fits"]:
            continue
        for figure in figures:
            value = part[figure]
            if figure in ("step", "decode"):
                if not isinstance(value, dict) or not _positive_number(value.get("total")):
                    problems.append(f"{name} fits but its {figure} is {value!r}")
                continue
            if value is None and (
                (figure in PRICED_FIGURES and not o.priced) or (figure in POWERED_FIGURES and not o.powered)
            ):
                continue
            if not _positive_number(value):
                problems.append(f"{name} fits but its {figure} is {value!r}")
    return problems


def check_serving_batch(o: Outcome) -> list[str]:
    """Serving fits at batch b iff b <= the largest batch; "max" serves the largest; none fits: 0.

    Within that: a fit has max_batch >= the batch shown, a "max" that fits shows max_batch itself,
    and a replica that cannot hold one sequence reports max_batch 0 (DESIGN.md 9: one rule).
    """
    i, s = o.inference, o.scenario
    problems = []
    batch, most, fits = i["batch"], i["max_batch"], i["fits"]
    if fits and most < batch:
        problems.append(f"serving fits at batch {batch} but max_batch is {most}")
    if not fits and batch <= most:
        problems.append(f"serving does not fit at batch {batch} though max_batch is {most}")
    # A batch job smaller than the replicas' batches runs whole: its even share on each replica.
    share = -(-s.requests // i["dp"]) if s.requests is not None else None
    if s.batch == "max" and fits and batch != min(most, share or most):
        problems.append(f'batch "max" fits but serves {batch}, max_batch {most}')
    if batch == 1 and not fits and most != 0:
        problems.append(f"not even batch 1 fits, yet max_batch is {most}")
    if s.batch != "max" and offered_concurrency(s) is None and batch != min(s.batch, share or s.batch):
        problems.append(f"batch {s.batch} asked, {batch} shown")
    return problems


def check_queue(o: Outcome) -> list[str]:
    """Only a concurrency above what the replicas run queues: queued = concurrency - dp x batch, its wait in TTFT.

    A queued scenario fits at its running batch (``batch``, which is then ``max_batch``: the most that
    fit, or a desk server's slots when fewer): what waits holds no memory. Its mean wait is Little's
    law's queued x output_len / decode_tokens_per_s (:func:`model.inference.queue_wait`), part of the
    time to first token; no wait without a queue, and no wait (null) for what does not run.
    """
    i, s = o.inference, o.scenario
    problems = []
    queued, wait = i["queued"], i["queue_wait_s"]
    offered = offered_concurrency(s)
    expected = max(0, offered - i["dp"] * i["batch"]) if offered is not None and i["fits"] else 0
    if queued != expected:
        asked = f"concurrency {offered}" if offered is not None else f"batch {s.batch}"
        problems.append(f"{queued} queued with {asked}, dp {i['dp']} x batch {i['batch']}, fits={i['fits']}")
    if not i["fits"]:
        if wait is not None:
            problems.append(f"does not fit but waits {wait!r} s")
        return problems
    if queued and i["batch"] != i["max_batch"]:
        problems.append(f"{queued} wait while a replica runs {i['batch']} of the {i['max_batch']} that fit")
    if not (isinstance(wait, float) and math.isfinite(wait) and wait >= 0.0):
        return [*problems, f"queue wait {wait!r}"]
    if s.requests is not None:
        pass  # a batch job waits for its wave (check_job), not as a refilled queue does
    elif queued:
        little = queued * s.output_len / i["decode_tokens_per_s"]
        if not _close(wait, little):
            problems.append(f"queue wait {wait:.6g} s, Little's law gives {little:.6g} s")
    elif wait != 0.0:
        problems.append(f"nothing queued, yet a wait of {wait:.6g} s")
    if not _at_most(wait, i["ttft_s"]):
        problems.append(f"time to first token {i['ttft_s']:.6g} s is shorter than the wait {wait:.6g} s")
    return problems


def check_job(job: Outcome, steady: Outcome) -> list[str]:
    """A batch job runs in waves of the running batch: whole waves at the steady rate, and no faster.

    ``steady`` is the scenario without the job (its requests all in flight as a concurrency when the
    job set the load). A job of whole waves runs no faster than the steady rate; a queued job takes at
    least its full waves' time at that rate (its last, partial wave adds to it).
    """
    j, f = job.inference, steady.inference
    if not j["fits"]:
        return [] if j["job_s"] is None else [f"does not fit, yet the job takes {j['job_s']!r} s"]
    requests = job.scenario.requests
    assert requests is not None
    problems = []
    if not (isinstance(j["job_s"], float) and j["job_s"] > 0.0 and math.isfinite(j["job_s"])):
        return [f"job time {j['job_s']!r}"]
    output = requests * job.scenario.output_len
    if not _close(output / j["job_s"], j["decode_tokens_per_s"]):
        problems.append(f"{output} tokens over {j['job_s']:.6g} s, yet {j['decode_tokens_per_s']:.6g} tokens/s")
    rate, steady_rate, waves = j["decode_tokens_per_s"], f["decode_tokens_per_s"], j["waves"]
    if f["fits"] and f["batch"] == j["batch"]:
        if waves == int(waves) and not _at_most(rate, steady_rate, 1e-6):
            # Whole waves are the steady cycle, computed another way round (a few parts in a million);
            # a share that does not divide evenly over the replicas waits for the busiest one.
            problems.append(f"{waves:g} whole waves serve {rate:.6g} tokens/s, steady {steady_rate:.6g}")
        whole = math.floor(waves) * j["batch"] * j["dp"] * job.scenario.output_len / steady_rate
        if j["queued"] and not _at_most(whole, j["job_s"], 1e-6):
            # A last, partial wave may run a little better per token than a full one: the full ones
            # still take what they take.
            problems.append(f"the job takes {j['job_s']:.6g} s, its {math.floor(waves)} full waves {whole:.6g} s")
    if not j["waves"] >= min(1.0, requests / j["batch"]) - 1e-9:
        problems.append(f"{j['waves']} waves for {requests} requests at batch {j['batch']}")
    return problems


def check_tpot_not_below_roofline(o: Outcome) -> list[str]:
    """The expected time per output token is never below the roofline's (the datasheet ideal)."""
    i = o.inference
    if not i["fits"] or i["tpot_s"] is None or i["tpot_roofline_s"] is None:
        return []
    if not _at_most(i["tpot_roofline_s"], i["tpot_s"]):
        return [f"tpot {i['tpot_s']:.6g} s below the roofline's {i['tpot_roofline_s']:.6g} s"]
    return []


def check_headlines_within_ranges(o: Outcome) -> list[str]:
    """Every headline with a range lies in it (low <= value <= high), and every range is ordered."""
    problems = []
    for name, bounds in o.data["ranges"].items():
        part = o.training if name in TRAINING_RANGES else o.inference
        value = part.get(name)
        low, high = bounds["low"], bounds["high"]
        if value is None:
            problems.append(f"{name} has a range [{low:.6g}, {high:.6g}] but no figure")
        elif not (_at_most(low, value) and _at_most(value, high)):
            problems.append(f"{name} {value:.6g} outside its range [{low:.6g}, {high:.6g}]")
    return problems


def check_mfu_between_zero_and_one(o: Outcome) -> list[str]:
    """A training run that fits has a model FLOPs utilisation in (0, 1)."""
    mfu = o.training["mfu"]
    if o.training["fits"] and not (isinstance(mfu, float) and 0.0 < mfu < 1.0):
        return [f"mfu {mfu!r} outside (0, 1)"]
    return []


def check_offload_split(o: Outcome) -> list[str]:
    """Serving's verdict is its fit and its split; a split is used only with host memory, and the host holds it.

    "fits" and "fits_with_offload" iff serving fits, "wont_run" iff not; an offload only with host
    memory on a chip that does not compute from it; its host part within the host's budget; whole
    layers on the card between 0 and all of them (all of them when only experts are offloaded).
    """
    i, s = o.inference, o.scenario
    split, verdict = i["offload"], i["verdict"]
    problems = []
    if (verdict != "wont_run") != i["fits"]:
        problems.append(f"verdict {verdict} but fits={i['fits']}")
    if (split["mode"] != "none") != (verdict == "fits_with_offload"):
        problems.append(f"verdict {verdict} with an offload of mode {split['mode']}")
    if split["mode"] == "none":
        return problems
    if s.host_memory_gb is None or s.offload == "none" or CATALOG.gpus[s.gpu].shares_host_memory:
        problems.append(f"offloads {split['mode']} without host memory to offload to")
    host = split["host_weight_bytes"] + split["host_kv_bytes"]
    if not _at_most(host, split["host_budget_bytes"]):
        problems.append(f"the host holds {host:.6g} B of a budget of {split['host_budget_bytes']:.6g}")
    if not 0 <= split["layers_on_card"] <= split["layers"]:
        problems.append(f"{split['layers_on_card']} of {split['layers']} layers on the card")
    if split["mode"] == "experts" and (split["layers_on_card"] != split["layers"] or not split["head_on_card"]):
        problems.append("an experts offload moved whole layers")
    if split["mode"] == "layers" and split["cpu_moe_layers"]:
        problems.append("a layers offload moved experts")
    return problems


CHECKS: tuple[Callable[[Outcome], list[str]], ...] = (
    check_layout_within_cards,
    check_fixed_knobs_kept,
    check_memory_parts_add_up,
    check_fits_means_within_budget,
    check_no_figure_without_fit,
    check_fit_has_every_figure,
    check_serving_batch,
    check_queue,
    check_tpot_not_below_roofline,
    check_headlines_within_ranges,
    check_mfu_between_zero_and_one,
    check_offload_split,
)
"""The checks of one estimate."""


def check_refusal_names_a_fixed_knob(scenario: Scenario, error: ScenarioError) -> list[str]:
    """A ScenarioError is the answer only to layout knobs the cards cannot hold, and names one the scenario fixed."""
    field = error.field
    if field not in REFUSABLE:
        return [f"refused on {field!r}, not a layout knob: {error}"]
    if getattr(scenario, field) is None:
        return [f"refused on {field!r}, which the scenario left free: {error}"]
    if not str(error).startswith(f"{field}:"):
        return [f"the message does not name {field!r}: {error}"]
    return []


# --------------------------------------------------------------------------------------------------
# Checks across estimates


def layout_is_free(scenario: Scenario) -> bool:
    """Return whether the engine chooses the whole training layout and the global batch.

    A stack that sets training knobs (torchtune's FSDP, PEFT's Trainer without tensor parallelism)
    fixes them as a user would: twice the cards under pure FSDP may gather more slowly than it computes.
    """
    free = all(getattr(scenario, knob) is None for knob in LAYOUT_KNOBS) and scenario.global_batch is None
    return free and not training_knobs(CATALOG.stacks[scenario.stack], scenario.cards * 2)


def check_layer_split_no_faster(one: Outcome, split: Outcome) -> list[str]:
    """A layer split over several cards decodes one user no faster than one card that holds the model (issue 33).

    Each card runs its share of the layers in turn and hands the activations on, so the token's
    time is the sum of the stages' plus the transfers: never below one card's.
    """
    o, s = one.inference, split.inference
    if not (o["fits"] and s["fits"]) or s["pp"] * s["tp"] <= 1:
        return []
    if o["verdict"] != "fits":  # the one card holds part of the model in host memory: not the premise
        return []
    if not _at_most(o["tpot_s"], s["tpot_s"]):
        return [
            f"{split.scenario.stack} over {s['pp']} cards decodes in {s['tpot_s']:.6g} s a token, "
            f"one card in {o['tpot_s']:.6g} s"
        ]
    return []


def check_twice_the_cards(fewer: Outcome, more: Outcome) -> list[str]:
    """Twice the cards never trains slower and never stops fitting (the whole layout and batch left free)."""
    t1, t2 = fewer.training, more.training
    problems = []
    if t1["fits"] and not t2["fits"]:
        needed = t2["memory_per_gpu"]["total"]
        problems.append(
            f"fits on {fewer.scenario.cards} cards, not on {more.scenario.cards} (needs {needed:.4g} B per card)"
        )
    if t1["fits"] and t2["fits"] and not _at_most(t2["time_s"], t1["time_s"]):
        problems.append(
            f"{more.scenario.cards} cards train in {t2['time_s']:.6g} s, {fewer.scenario.cards} in {t1['time_s']:.6g} s"
            f" ({_layout_text(t2)} against {_layout_text(t1)})"
        )
    return problems


def check_queue_serves_as_max(queued: Outcome, full: Outcome) -> list[str]:
    """A concurrency above what fits serves as batch "max" does: the same replica, rate and TPOT; TTFT plus the wait."""
    q, m = queued.inference, full.inference
    if not q["queued"]:
        return []
    shape = ("tp", "pp", "ep", "dp", "batch")
    if any(q[k] != m[k] for k in shape):
        return [f"queued on { {k: q[k] for k in shape} }, batch max on { {k: m[k] for k in shape} }"]
    problems = [
        f"queued {name} {q[name]:.6g}, batch max {m[name]:.6g}"
        for name in ("decode_tokens_per_s", "tpot_s")
        if not _close(q[name], m[name])
    ]
    if not _close(q["ttft_s"], m["ttft_s"] + q["queue_wait_s"]):
        problems.append(
            f"queued TTFT {q['ttft_s']:.6g} s, batch max {m['ttft_s']:.6g} s + wait {q['queue_wait_s']:.6g} s"
        )
    return problems


def check_more_concurrency(fewer: Outcome, more: Outcome, full: Outcome) -> list[str]:
    """On one replica, more concurrency never serves more tokens/s than its largest batch, nor answers sooner.

    ``fewer`` and ``more`` are the same pinned replica at a concurrency and at twice it; ``full``
    the replica at batch "max". A concurrency above what fits runs at the largest batch and the
    rest wait, so the total rate stops at the max-batch rate and the time to first token keeps
    growing with the queue (what vLLM under overload shows: see docs/METHOD.md, "Queues").
    """
    f, m, top = fewer.inference, more.inference, full.inference
    if not (f["fits"] and m["fits"] and top["fits"]):
        if f["fits"] != m["fits"] or f["fits"] != top["fits"]:
            return [
                f"fits: concurrency {fewer.scenario.concurrency} {f['fits']}, "
                f"{more.scenario.concurrency} {m['fits']}, batch max {top['fits']}"
            ]
        return []
    problems = []
    # On a split with host memory the largest batch is not the fastest: past the cards' room each more
    # sequence's KV cache is read from host memory at its bandwidth (model.inference.offload), so
    # the max-batch rate bounds nothing there. Exempt by that mechanism, checked only without it.
    offloaded = top["offload"]["mode"] != "none" or m["offload"]["mode"] != "none"
    if not offloaded and not _at_most(m["decode_tokens_per_s"], top["decode_tokens_per_s"]):
        problems.append(
            f"concurrency {more.scenario.concurrency} serves {m['decode_tokens_per_s']:.6g} tokens/s, "
            f"above the max-batch rate {top['decode_tokens_per_s']:.6g} (batch {m['batch']} of {top['batch']})"
        )
    if m["queued"] and not offloaded and not _close(m["decode_tokens_per_s"], top["decode_tokens_per_s"]):
        problems.append(
            f"{m['queued']} queued, yet {m['decode_tokens_per_s']:.6g} tokens/s, not the max-batch rate "
            f"{top['decode_tokens_per_s']:.6g}"
        )
    if not _at_most(f["ttft_s"], m["ttft_s"]):
        problems.append(
            f"concurrency {more.scenario.concurrency} answers in {m['ttft_s']:.6g} s, "
            f"{fewer.scenario.concurrency} in {f['ttft_s']:.6g} s"
        )
    return problems


def _layout_text(t: dict[str, Any]) -> str:
    p = t["parallelism"]
    return (
        f"tp {p['tp']} pp {p['pp']} dp {p['dp']} ep {p['ep']} zero {p['zero']} {t['recompute']}"
        f" mb {t['micro_batch']} vp {t['vp']} gb {t['global_batch']}"
    )


def check_offload_only_when_needed(with_host: Outcome, without: Outcome) -> list[str]:
    """Host memory never changes serving that fits the cards; when the cards cannot hold it, it runs or not with it.

    ``without`` is the same scenario with no host memory. Offload is used only when needed, so a
    serving that fits without the host is the same with it (never slower); one that does not fit
    either runs with an offload or still does not.
    """
    a, b = with_host.inference, without.inference
    if b["fits"]:
        if a["offload"]["mode"] != "none" or a["tpot_s"] != b["tpot_s"] or a["ttft_s"] != b["ttft_s"]:
            return [
                f"fits on the cards alone (TPOT {b['tpot_s']:.6g} s) but with host memory offloads"
                f" {a['offload']['mode']}, TPOT {a['tpot_s']!r}"
            ]
        return []
    if a["fits"] and a["offload"]["mode"] == "none":
        return ["does not fit the cards alone, yet fits with host memory without offloading"]
    return []


def check_more_host_bandwidth(slower: Outcome, faster: Outcome) -> list[str]:
    """Twice the host memory's bandwidth never decodes one user more slowly, nor changes the split."""
    a, b = slower.inference, faster.inference
    problems = []
    if a["offload"] != {**b["offload"]}:
        problems.append(f"the split moved with the host's bandwidth: {a['offload']} vs {b['offload']}")
    if a["fits"] and b["fits"] and not _at_most(b["tpot_s"], a["tpot_s"]):
        problems.append(f"twice the host bandwidth decodes in {b['tpot_s']:.6g} s, not {a['tpot_s']:.6g} s")
    return problems


def weight_rank(precision: str) -> float:
    """Return the bytes a weight of the bulk takes in ``precision``: fp32 > bf16 = fp16 > q8_0 > fp8 = int8 > q2_k."""
    return bytes_per_element(precision)


_HELD_PARTS = ("embedding", "head", "attention", "dense_mlp", "shared_experts", "routed_experts", "router", "norms")


def wider_tensor_bytes(arch: Architecture, lower: str, higher: str, copies: int = 1) -> float:
    """Return the bytes a replica of the ``lower`` format holds beyond the ``higher`` one in the parts it keeps wider.

    Per part of model.precision.formats.WeightBreakdown (embedding, head, attention, MLPs, experts, router, norms),
    the lower format's excess where it has one; each part but the routed experts is held ``copies``
    times (once per card of an attention-DP replica), the routed experts once (split over those cards).
    """
    lo, hi = weight_breakdown(arch, lower), weight_breakdown(arch, higher)
    extra = 0.0
    for part in _HELD_PARTS:
        if part == "head" and lo.tied:
            continue  # the tied head is the embedding's matrix, held once
        excess = max(0.0, getattr(lo, part) - getattr(hi, part))
        extra += excess * (1 if part == "routed_experts" else copies)
    return extra


def read_ratio(arch: Architecture, lower: str, higher: str) -> float:
    """Return how many times the weight bytes a decode step reads in ``lower`` may exceed ``higher``'s (>= 1).

    A step reads every matrix but the routed experts, and some routed experts; the card that takes longest
    reads the first whole and a share of the second (a share that attention data parallelism changes),
    so the bound is the larger of the two parts' ratios.
    """
    lo, hi = weight_breakdown(arch, lower), weight_breakdown(arch, higher)
    ratio = max(1.0, lo.read_every_step / hi.read_every_step)
    if hi.routed_experts:
        ratio = max(ratio, lo.routed_experts / hi.routed_experts)
    return ratio


def _replica_weights(o: Outcome) -> float:
    """Return the weights a replica holds: its cards', and with an offload the host's too (the whole model).

    With an offload the cards hold what fits, so their share says nothing of the format: the host's part
    is added, less the embedding's copy a tied output layer keeps on the card (llama.cpp's duplicate).
    """
    i = o.inference
    held = i["memory_per_gpu"]["weights"] * i["tp"] * i["pp"] * i["ep"]
    split = i["offload"]
    if split["mode"] == "none":
        return held
    held += split["host_weight_bytes"]
    if o.arch is not None and o.arch.tied_embeddings and split["head_on_card"]:
        held -= layer_weights(o.arch, o.scenario.precision).embedding
    return held


def check_lower_precision_memory(higher: Outcome, lower: Outcome) -> list[str]:
    """Lower-precision weights never take more serving memory per replica (weights per card x replica cards).

    "Lower" is the bulk's width (:func:`weight_rank`). Both outcomes serve one user (batch 1) with the
    same KV-cache format, so only the weights differ. Two mechanisms the Method page names are exempt,
    each by the bytes it explains, no more:

    - attention data parallelism ("Attention data parallelism": W_card = W_dense + W_exp / e): a
      replica of e cards holds the attention and dense weights once per card, so when the lower
      precision's fastest replica is a wider attention-DP one than the higher's, it holds more
      bytes for a reason that is not the weights' format (the driver also compares the two
      formats on one pinned replica, where this exemption cannot apply);
    - the tensors a format keeps wider than its bulk ("Weights in memory"; model.precision.formats): the 16-bit
      embedding and LM head of weight-only formats (int8/int4/fp4, GPTQ/AWQ, NF4, NVFP4, as
      bitsandbytes, GPTQ, AWQ and ModelOpt keep them), MXFP4's bf16 attention beside its experts
      (gpt-oss), llama.cpp's Q6_K head and Q5_K/Q6_K attn_v and ffn_down: against a format whose bulk
      is wider the lower one may take up to the bytes of the parts where it is wider
      (:func:`wider_tensor_bytes`), once per copy a replica holds. Against fp8 that is one more byte
      per embedding and head parameter, as before these formats; what the check still catches is the
      engine's own bookkeeping: replicas, shards, copies, a format's bytes that never reach memory.
    """
    a, b = _replica_weights(higher), _replica_weights(lower)
    if lower.inference["ep"] > higher.inference["ep"]:
        return []
    allowance = 0.0
    if lower.arch is not None:
        allowance = wider_tensor_bytes(
            lower.arch, lower.scenario.precision, higher.scenario.precision, lower.inference["ep"]
        )
    if _at_most(b, a + allowance):
        return []
    return [
        f"{lower.scenario.precision} weights take {b:.6g} B per replica, {higher.scenario.precision} {a:.6g} B"
        + (f" (+{allowance:.4g} B for the tensors it keeps wider)" if allowance else "")
        + f" ({_replica_text(lower)} against {_replica_text(higher)})"
    ]


def _replica_text(o: Outcome) -> str:
    i = o.inference
    return f"tp {i['tp']} pp {i['pp']} ep {i['ep']}"


def _holds_more(lower: Outcome, higher: Outcome) -> bool:
    """Return whether the lower format's weights take more bytes in all than the higher's (its mix is wider).

    MXFP4 keeps a mixture of experts' attention in bf16 beside its 4.25-bit experts, so against fp4
    (4.5 bits throughout) it can hold more; llama.cpp's mixes widen some tensors. Such a format may
    not fit where the other does, the cards' or the host's memory being the same.
    """
    if lower.arch is None:
        return False
    return weight_breakdown(lower.arch, lower.scenario.precision).total > (
        weight_breakdown(lower.arch, higher.scenario.precision).total
    )


def check_lower_precision_tpot(higher: Outcome, lower: Outcome) -> list[str]:
    """Lower-precision weights never decode one user more slowly (batch 1, the same KV-cache format).

    Only when both fit (one that does not has no time); a higher precision that serves one user
    while the lower does not fit is itself a violation.

    Exempted, by name, when the lower format is weight-only and the higher is not: three mechanisms
    the Method page states, which make such a format read its bytes more slowly. Its weights stream
    at ``EXPECTED.dequant_bandwidth`` (0.70) of the bandwidth (the B_ach line: "weight-only
    int8/int4/fp4 stream at 0.7 of that"; gpt-fast int8 reaches 155.6 against 104.9 tok/s for a 2x
    smaller read); it keeps the embedding and LM head in 16-bit ("Weights in memory"), so against fp8
    its head is read in twice the bytes; and a mixture of experts' smaller expert slices stream at a
    lower share S / (S + S0) of the bandwidth (the B_ach line). So its time per token may exceed the
    higher format's by up to 1 / 0.70 (:data:`DEQUANT_SLOWDOWN`): over 4,786 pairs the worst was 1.32
    (fp8 to int4 on a T4). And where the lower format's mix reads more weight bytes per step than
    the higher's (its bulk is narrower but it keeps more tensors wide: NF4's 16-bit head against
    q5_0's Q6_K one, a large vocabulary's share), by that ratio too (:func:`read_ratio`), and no more.
    A GPU without fp8 or fp4 tensor cores computes in 16-bit (``compute_precision``), which changes
    its FLOPs rate, not the bytes it reads: batch-1 decoding needs no exemption for it and gets none.
    """
    h, lo = higher.inference, lower.inference
    if higher.stack != lower.stack:
        # Different software (a GGUF file left "typical" runs as llama.cpp runs it, another format as a
        # server): its kernels, its split over the cards and its budget differ, so no order holds.
        return []
    if not (h["fits"] and lo["fits"]):
        if h["fits"] and not lo["fits"] and not _holds_more(lower, higher):
            return [f"{higher.scenario.precision} serves one user, {lower.scenario.precision} does not fit"]
        return []
    if lo["offload"]["host_weight_bytes"] > h["offload"]["host_weight_bytes"]:
        # Offload (host memory): the cards hold what fits, so a lower format whose mix is larger in all (its
        # read ratio above 1) puts every extra byte on the host, read at the host's bandwidth. That multiplies
        # the difference by the cards' bandwidth over the host's; the check compares splits that hold alike.
        return []
    allowed = h["tpot_s"]
    exempt = lower.scenario.precision in QUANTIZED_WEIGHT_PRECISIONS
    exempt = exempt and higher.scenario.precision not in QUANTIZED_WEIGHT_PRECISIONS
    if exempt:
        allowed *= DEQUANT_SLOWDOWN
    ratio = 1.0
    if lower.arch is not None:
        ratio = read_ratio(lower.arch, lower.scenario.precision, higher.scenario.precision)
        allowed *= ratio
    if not _at_most(lo["tpot_s"], allowed):
        return [
            f"{lower.scenario.precision} decodes one user in {lo['tpot_s']:.6g} s per token,"
            f" {higher.scenario.precision} in {h['tpot_s']:.6g} s"
            f" ({_replica_text(lower)} against {_replica_text(higher)})"
            + (f"; allowed {allowed:.6g} s with dequantisation" if exempt else "")
            + (f"; reads {ratio:.4g}x the bytes" if ratio > 1.0 else "")
        ]
    return []


class FixOutcome(NamedTuple):
    """A fix the verdict offered, and what the engine says of the scenario it makes."""

    fix: Fix
    scenario: Scenario | None
    """The scenario with the fix applied (None: the fix names a knob the check cannot apply)."""
    fits: bool
    needed_bytes: float
    error: str | None = None
    """The engine's error on the fixed scenario, if any."""


class GoalFacts(NamedTuple):
    """What the engine says of a goal's scenario as it stands: whether that goal's part fits, and its memory."""

    fits: bool
    needed_bytes: float
    capacity_bytes: float


def check_goal_verdict(verdict: Verdict, facts: GoalFacts, fixes: Sequence[FixOutcome]) -> list[str]:
    """The goal's verdict agrees with the engine; every fix it offers fits per the engine, at the memory it says.

    A goal refused outright (``untrainable_precision``: int8/int4 pre-training or full fine-tuning)
    is a verdict, not a fit: it must say it does not run, with no memory figure, the engine must not
    run it either, and its fixes still fit.
    """
    problems = []
    if verdict.refusal is not None:
        if verdict.runs or verdict.needed_bytes != 0:
            problems.append(f"refused ({verdict.refusal}) but runs={verdict.runs}, needs {verdict.needed_bytes:.4g} B")
        if facts.fits:
            problems.append(f"{verdict.goal}: refused ({verdict.refusal}) but the engine's estimate runs it")
    else:
        if verdict.runs != facts.fits:
            problems.append(f"{verdict.goal}: verdict runs={verdict.runs}, engine fits={facts.fits}")
        if not _close(verdict.needed_bytes, facts.needed_bytes):
            problems.append(
                f"{verdict.goal}: verdict needs {verdict.needed_bytes:.6g} B, engine {facts.needed_bytes:.6g}"
            )
        if not _close(verdict.capacity_bytes, facts.capacity_bytes):
            problems.append(
                f"{verdict.goal}: verdict's card {verdict.capacity_bytes:.6g} B, engine's {facts.capacity_bytes:.6g}"
            )
        if verdict.runs and verdict.fixes:
            problems.append(f"{verdict.goal} runs yet offers fixes {verdict.fixes}")
    for outcome in fixes:
        fix = outcome.fix
        if outcome.error is not None:
            problems.append(f"{verdict.goal} fix {fix.knob}={fix.value!r} is not a valid scenario: {outcome.error}")
        elif not outcome.fits:
            problems.append(
                f"{verdict.goal} fix {fix.knob}={fix.value!r} does not fit: needs {outcome.needed_bytes:.6g} B"
            )
        elif not _close(fix.needed_bytes, outcome.needed_bytes):
            problems.append(
                f"{verdict.goal} fix {fix.knob}={fix.value!r} says {fix.needed_bytes:.6g} B,"
                f" engine {outcome.needed_bytes:.6g}"
            )
    return problems


def check_cli_json(expected: dict[str, Any], printed: dict[str, Any]) -> list[str]:
    """``python -m model estimate ... --json`` prints the engine's ``to_dict()`` for the same scenario."""
    plain = json.loads(json.dumps(expected))  # tuples to lists, as JSON has them
    return [f"--json differs at {path}: {a!r} != {b!r}" for path, a, b in _differences(plain, printed)][:5]


def _differences(a: Any, b: Any, path: str = "") -> Iterable[tuple[str, Any, Any]]:
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(a.keys() | b.keys()):
            yield from _differences(a.get(key, "<absent>"), b.get(key, "<absent>"), f"{path}.{key}")
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for index, (x, y) in enumerate(zip(a, b, strict=True)):
            yield from _differences(x, y, f"{path}[{index}]")
    elif isinstance(a, float) and isinstance(b, float):
        if not (a == b or (math.isnan(a) and math.isnan(b))):
            yield path, a, b
    elif a != b:
        yield path, a, b


_RUN_WORDS = {
    "training": re.compile(r"\bdays\b|GPU-hours|MFU|\$|tokens/s per card|kWh"),
    "inference": re.compile(r"TTFT|TPOT|tokens/s|\$|per million"),
}
"""What the text prints only for a part that runs: times, rates, prices."""


def check_cli_text(o: Outcome, text: str) -> list[str]:
    """The plain text prints no time, rate or price for a part that does not fit, and says "fits" as the engine does."""
    sections = _sections(text)
    problems = []
    for name, part in (("training", o.training), ("inference", o.inference)):
        body = sections.get(name)
        if body is None:
            problems.append(f"no {name} section in the text")
            continue
        said = re.search(r"fits: (yes|no)", body)
        if said is None or (said.group(1) == "yes") != part["fits"]:
            problems.append(f"{name} text says {said.group(0) if said else 'nothing'}, engine fits={part['fits']}")
        run = _RUN_WORDS[name].search(body)
        if not part["fits"] and run is not None:
            line = next(line for line in body.splitlines() if run.group(0) in line)
            problems.append(f"{name} does not fit but the text prints {run.group(0)!r}: {line.strip()}")
        if part["fits"] and run is None:
            problems.append(f"{name} fits but the text prints no time or rate")
    return problems


def _sections(text: str) -> dict[str, str]:
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in text.splitlines():
        if line in ("training:", "inference:"):
            current = sections.setdefault(line[:-1], [])
        elif line.startswith("warning:"):
            current = None
        elif current is not None:
            current.append(line)
    return {name: "\n".join(lines) for name, lines in sections.items()}


# --------------------------------------------------------------------------------------------------
# The driver


_FLAG_VALUES = {
    "tied_embeddings": None,
    "master_weights": "--no-master-weights",
    "flash_attention": "--no-flash-attention",
}


def cli_arguments(scenario: Scenario) -> list[str]:
    """Return the ``python -m model estimate`` arguments that give ``scenario`` (defaults left out)."""
    argv = ["estimate"]
    for name in SCENARIO_FIELDS:
        value = getattr(scenario, name)
        if value == getattr(_DEFAULTS, name) and name not in ("model", "gpu", "cards"):
            continue
        if name in _FLAG_VALUES:
            if value is False and _FLAG_VALUES[name]:
                argv.append(str(_FLAG_VALUES[name]))
            elif name == "tied_embeddings" and value is not None:
                argv += ["--tied-embeddings", "true" if value else "false"]
            continue
        if value is None:
            continue
        argv += [f"--{name.replace('_', '-')}", repr(value) if isinstance(value, float) else str(value)]
    return argv


def run_cli(argv: Sequence[str]) -> tuple[int, str, str]:
    """Run ``python -m model`` in this process; return its exit status, stdout and stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = cli_main(list(argv))
        except SystemExit as exit_:
            status = exit_.code if isinstance(exit_.code, int) else 1
    return status, out.getvalue(), err.getvalue()


def _apply_fix(scenario: Scenario, goal: str, fix: Fix) -> Scenario | None:
    """Return the scenario ``fix`` makes (the verdict's own change), or None for a knob this suite does not know."""
    if fix.knob == "cards":
        return dataclasses.replace(scenario, cards=int(fix.value))
    if fix.knob == "precision":
        return dataclasses.replace(scenario, precision=fix.value, kv_precision=None)  # type: ignore[arg-type]
    if fix.knob == "finetune":
        return dataclasses.replace(scenario, finetune=fix.value)  # type: ignore[arg-type]
    if fix.knob == "context":
        return with_context(scenario, int(fix.value))
    if fix.knob == "seq_len":
        return dataclasses.replace(scenario, seq_len=int(fix.value))
    return None


def verdict_inputs(scenario: Scenario, goal: str) -> tuple[Verdict, GoalFacts, list[FixOutcome]]:
    """Ask the verdict for ``goal`` and the engine for the same goal's scenario and for each fix applied."""
    verdict = goal_verdict(scenario, goal)  # type: ignore[arg-type]
    asked = goal_scenario(scenario, goal)  # type: ignore[arg-type]
    part = "inference" if goal == "serve" else "training"
    if goal == "serve":
        asked = with_batch(asked, 1)
    result = estimate(asked)
    engine = getattr(result, part)
    facts = GoalFacts(engine.fits, engine.memory_per_gpu.total, result.resolved.gpu.capacity_bytes)
    outcomes = []
    for fix in verdict.fixes:
        fixed = _apply_fix(asked, goal, fix)
        if fixed is None:
            outcomes.append(FixOutcome(fix, None, False, 0.0, f"unknown knob {fix.knob!r}"))
            continue
        try:
            after = getattr(estimate(fixed), part)
        except ScenarioError as error:
            outcomes.append(FixOutcome(fix, fixed, False, 0.0, str(error)))
            continue
        outcomes.append(FixOutcome(fix, fixed, after.fits, after.memory_per_gpu.total))
    return verdict, facts, outcomes


class Violation(NamedTuple):
    """One invariant broken by one scenario."""

    invariant: str
    scenario: Scenario
    detail: str


class Report(NamedTuple):
    """What a run found."""

    scenarios: int
    invalid: int
    """Scenarios whose fixed layout the cards cannot hold (a ScenarioError naming the knob)."""
    violations: list[Violation]
    seconds: float
    checked: dict[str, int]
    """How many times each invariant was checked."""
    slowest: list[tuple[float, Scenario]]

    def by_invariant(self) -> dict[str, list[Violation]]:
        """Group the violations by invariant, in order of first appearance."""
        grouped: dict[str, list[Violation]] = {}
        for violation in self.violations:
            grouped.setdefault(violation.invariant, []).append(violation)
        return grouped

    def summary(self) -> str:
        """The one-line summary: ``N scenarios, K invalid inputs, V violations in T s``."""
        found = len(self.violations)
        return f"{self.scenarios} scenarios, {self.invalid} invalid inputs, {found} violations in {self.seconds:.1f} s"


def _lower_precision(rng: random.Random, precision: str) -> str | None:
    lower = [p for p in PRECISIONS if weight_rank(p) < weight_rank(precision)]
    return rng.choice(lower) if lower else None


class _DerivedCrashError(Exception):
    """The engine raised on a scenario a check derived (twice the cards, another precision, a pinned replica)."""

    def __init__(self, scenario: Scenario, error: Exception) -> None:
        super().__init__(f"{type(error).__name__}: {error} ({_where(error)})")
        self.scenario = scenario


def _derived(scenario: Scenario) -> Outcome:
    """Observe a scenario a check derived; a crash names that scenario, not the one drawn."""
    try:
        return observe(scenario)
    except Exception as error:
        raise _DerivedCrashError(scenario, error) from error


class _Run:
    """One run's bookkeeping: record each check's problems against its scenario."""

    def __init__(self) -> None:
        self.violations: list[Violation] = []
        self.checked: dict[str, int] = {}
        self.crashed: set[Scenario] = set()

    def check(self, name: str, scenario: Scenario, problems: Callable[[], list[str]]) -> None:
        self.checked[name] = self.checked.get(name, 0) + 1
        try:
            found = problems()
        except _DerivedCrashError as crash:  # the engine crashed on a scenario the check derived
            if crash.scenario not in self.crashed:  # counted once, whichever check derived it first
                self.crashed.add(crash.scenario)
                self.violations.append(Violation(NO_CRASH, crash.scenario, f"{name}: estimate raised {crash}"))
            return
        except Exception as error:  # the check itself, or the engine in a call of its own (the verdict, the CLI)
            detail = f"{name}: raised {type(error).__name__}: {error} ({_where(error)})"
            self.violations.append(Violation(NO_CRASH, scenario, detail))
            return
        self.violations += [Violation(name, scenario, detail) for detail in found]


def _where(error: BaseException) -> str:
    frames = traceback.extract_tb(error.__traceback__)
    inside = [f for f in frames if "/model/" in f.filename] or frames
    last = inside[-1]
    return f"{last.filename.rsplit('/', 2)[-2]}/{last.filename.rsplit('/', 1)[-1]}:{last.lineno}"


def run(
    n: int,
    seed: int = 0,
    *,
    verdict_every: int = 8,
    cli_every: int = 20,
    text_every: int = 50,
    progress: Callable[[int, Report], None] | None = None,
) -> Report:
    """Draw ``n`` scenarios from ``seed`` and check every invariant; return what was found.

    Every scenario gets the checks of one estimate, twice the cards (when its layout and batch are
    free) and a lower precision; one with a concurrency, batch "max" and twice the concurrency;
    every ``verdict_every``-th the goal verdict (one goal in turn), every ``cli_every``-th
    ``--json`` and every ``text_every``-th the plain text.
    """
    rng = random.Random(seed)
    state = _Run()
    invalid = 0
    slowest: list[tuple[float, Scenario]] = []
    started = time.perf_counter()
    for index in range(n):
        scenario = draw_scenario(rng)
        side = random.Random(rng.random())  # the scenario's own choices: a later check never shifts the next draw
        began = time.perf_counter()
        invalid += _check_scenario(scenario, index, side, state, verdict_every, cli_every, text_every)
        slowest = sorted([*slowest, (time.perf_counter() - began, scenario)], key=lambda item: -item[0])[:5]
        if progress is not None and (index + 1) % 1000 == 0:
            progress(
                index + 1,
                Report(index + 1, invalid, state.violations, time.perf_counter() - started, state.checked, slowest),
            )
    return Report(n, invalid, state.violations, time.perf_counter() - started, state.checked, slowest)


def _check_scenario(
    scenario: Scenario,
    index: int,
    rng: random.Random,
    state: _Run,
    verdict_every: int,
    cli_every: int,
    text_every: int,
) -> int:
    """Check one scenario; return 1 when the engine refused it as invalid, else 0."""
    try:
        outcome = observe(scenario)
    except ScenarioError as error:
        refused = error
        state.check(
            "check_refusal_names_a_fixed_knob", scenario, lambda: check_refusal_names_a_fixed_knob(scenario, refused)
        )
        if cli_every and index % cli_every == 0:
            state.check("check_cli_refusal", scenario, lambda: _cli_refusal(scenario, refused))
        return 1
    except Exception as error:
        detail = f"estimate raised {type(error).__name__}: {error} ({_where(error)})"
        state.violations.append(Violation(NO_CRASH, scenario, detail))
        return 0
    for check in CHECKS:
        state.check(check.__name__, scenario, lambda check=check: check(outcome))
    if layout_is_free(scenario):
        more = dataclasses.replace(scenario, cards=scenario.cards * 2)
        state.check("check_twice_the_cards", scenario, lambda: check_twice_the_cards(outcome, _derived(more)))
    lower = _lower_precision(rng, scenario.precision)
    if lower is not None:
        _check_lower_precision(scenario, outcome, lower, state)
    if scenario.concurrency is not None and scenario.requests is None:  # a job has its own check
        _check_concurrency(scenario, outcome, state)
    if scenario.requests is not None:
        steady = dataclasses.replace(scenario, requests=None, concurrency=offered_concurrency(scenario))
        state.check("check_job", scenario, lambda: check_job(outcome, _derived(steady)))
    if scenario.stack in LAYER_SPLIT_STACKS and scenario.cards > 1 and scenario.tp is None and scenario.pp is None:
        user = dataclasses.replace(with_batch(scenario, 1), attention_dp=None, **_TRAINING_ONLY)
        state.check(
            "check_layer_split_no_faster",
            scenario,
            lambda: check_layer_split_no_faster(_derived(dataclasses.replace(user, cards=1)), _derived(user)),
        )
    if scenario.host_memory_gb is not None:
        _check_host_memory(scenario, outcome, state)
    if verdict_every and index % verdict_every == 0:
        goal = GOALS[(index // verdict_every) % len(GOALS)]
        state.check("check_goal_verdict", scenario, lambda: check_goal_verdict(*verdict_inputs(scenario, goal)))
    if cli_every and index % cli_every == 0:
        state.check("check_cli_json", scenario, lambda: _cli_json(scenario, outcome))
    if text_every and index % text_every == 0:
        state.check("check_cli_text", scenario, lambda: _cli_text(scenario, outcome))
    return 0


def _check_host_memory(scenario: Scenario, outcome: Outcome, state: _Run) -> None:
    """Compare the scenario with no host memory, and with twice its bandwidth (when it offloads)."""
    without = dataclasses.replace(scenario, host_memory_gb=None, host_bandwidth_gb_s=None, offload="auto")
    state.check(
        "check_offload_only_when_needed", scenario, lambda: check_offload_only_when_needed(outcome, _derived(without))
    )
    if outcome.inference["offload"]["mode"] != "none":
        bandwidth = scenario.host_bandwidth_gb_s or CATALOG.gpus["desktop-cpu"].memory_bandwidth_bytes_per_s / 1e9
        faster = dataclasses.replace(scenario, host_bandwidth_gb_s=min(2 * bandwidth, 1e5))
        state.check("check_more_host_bandwidth", scenario, lambda: check_more_host_bandwidth(outcome, _derived(faster)))


_TRAINING_ONLY = {"dp": None, "ep": None, "zero": None, "micro_batch": None, "vp": None, "global_batch": None}
"""Training knobs serving never reads: cleared where a serving replica is pinned, so they cannot clash with it."""


def _check_lower_precision(scenario: Scenario, outcome: Outcome, lower: str, state: _Run) -> None:
    """Compare the scenario's weights with ``lower`` ones: one user, the same KV-cache format.

    First as the engine chooses each one's replica (what a page shows), then on the higher
    precision's replica pinned for both (tp, pp and attention DP), where no exemption applies.
    """
    kv = scenario.kv_precision or observe_kv(outcome)
    higher_one = with_batch(dataclasses.replace(scenario, kv_precision=kv), 1)
    pairs: dict[str, tuple[Outcome, Outcome]] = {}

    def pair(pinned: bool) -> tuple[Outcome, Outcome]:
        key = "pinned" if pinned else "chosen"
        if key not in pairs:
            if not pinned:
                high = _derived(higher_one)
            else:
                chosen = pair(False)[0].inference
                same = {"tp": chosen["tp"], "pp": chosen["pp"], "attention_dp": chosen["ep"], **_TRAINING_ONLY}
                high = _derived(dataclasses.replace(higher_one, recompute_layers=None, **same))
            pairs[key] = high, _derived(dataclasses.replace(high.scenario, precision=lower))
        return pairs[key]

    for pinned in (False, True):
        prefix = "same replica: " if pinned else ""
        for check in (check_lower_precision_memory, check_lower_precision_tpot):

            def problems(
                check: Callable[[Outcome, Outcome], list[str]] = check, pinned: bool = pinned, prefix: str = prefix
            ) -> list[str]:
                return [prefix + problem for problem in check(*pair(pinned))]

            state.check(check.__name__, higher_one, problems)


def _check_concurrency(scenario: Scenario, outcome: Outcome, state: _Run) -> None:
    """Compare a concurrency with batch "max" as the engine chooses, then with twice it on the chosen replica."""
    state.check(
        "check_queue_serves_as_max",
        scenario,
        lambda: check_queue_serves_as_max(outcome, _derived(with_batch(scenario, "max"))),
    )

    def problems() -> list[str]:
        chosen = outcome.inference
        same = {"tp": chosen["tp"], "pp": chosen["pp"], "attention_dp": chosen["ep"], **_TRAINING_ONLY}
        pinned = dataclasses.replace(scenario, recompute_layers=None, **same)
        assert scenario.concurrency is not None
        twice = dataclasses.replace(pinned, concurrency=scenario.concurrency * 2)
        return check_more_concurrency(_derived(pinned), _derived(twice), _derived(with_batch(pinned, "max")))

    state.check("check_more_concurrency", scenario, problems)


def observe_kv(o: Outcome) -> str:
    """Return the KV-cache format the estimate used (the scenario's, or its precision's default)."""
    return str(o.data["inputs"]["kv_precision"])


def _cli_json(scenario: Scenario, outcome: Outcome) -> list[str]:
    status, out, err = run_cli([*cli_arguments(scenario), "--json"])
    if status != 0:
        return [f"--json exited {status}: {err.strip()[:300]}"]
    return check_cli_json(outcome.data, json.loads(out))


def _cli_text(scenario: Scenario, outcome: Outcome) -> list[str]:
    status, out, err = run_cli(cli_arguments(scenario))
    if status != 0:
        return [f"the text exited {status}: {err.strip()[:300]}"]
    return check_cli_text(outcome, out)


def _cli_refusal(scenario: Scenario, error: ScenarioError) -> list[str]:
    """The command line refuses what the engine refuses: status 2, one line naming the flag."""
    status, out, err = run_cli([*cli_arguments(scenario), "--json"])
    flag = "--" + error.field.replace("_", "-")
    lines = err.strip().splitlines()
    if status != 2 or out or len(lines) != 1 or flag not in lines[0]:
        return [f"the engine refuses {error.field} but the command line exits {status}: {err.strip()[:300]!r}"]
    return []


def format_report(report: Report, shown: int = 3) -> str:
    """Write each violated invariant with its count and first ``shown`` reproducing scenarios, then the summary."""
    lines = []
    for name, found in report.by_invariant().items():
        lines.append(f"{name}: {len(found)} violations (checked {report.checked.get(name, 0)} times)")
        for violation in found[:shown]:
            lines.append(f"  {scenario_code(violation.scenario)}")
            lines.append(f"    {violation.detail}")
    if report.slowest:
        seconds, scenario = report.slowest[0]
        lines.append(f"slowest scenario: {seconds:.2f} s, {scenario_code(scenario)}")
    lines.append(report.summary())
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``python -m tests.invariants``; return 1 on any violation."""
    parser = argparse.ArgumentParser(prog="python -m tests.invariants", description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=200, help="scenarios to draw (default 200)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--verdict-every", type=int, default=8, help="check the goal verdict every Nth scenario (0: never)"
    )
    parser.add_argument("--cli-every", type=int, default=20, help="check --json every Nth scenario (0: never)")
    parser.add_argument("--text-every", type=int, default=50, help="check the plain text every Nth scenario (0: never)")
    parser.add_argument("--progress", action="store_true", help="print a line every 1,000 scenarios")
    args = parser.parse_args(argv)

    def progress(done: int, report: Report) -> None:
        print(f"... {report.summary()}", file=sys.stderr, flush=True)

    report = run(
        args.n,
        args.seed,
        verdict_every=args.verdict_every,
        cli_every=args.cli_every,
        text_every=args.text_every,
        progress=progress if args.progress else None,
    )
    print(format_report(report))
    return 1 if report.violations else 0


if __name__ == "__main__":
    sys.exit(main())
