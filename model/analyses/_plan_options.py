"""What a plan returns: its options, the faster variants of serving options, and their Pareto front."""

from __future__ import annotations

import dataclasses
import math
from typing import Literal, NamedTuple

from model.analyses.exclusions import Reason
from model.catalog import Catalog
from model.estimate import estimate
from model.layouts.serving import replicas_needed
from model.scenario import Scenario, with_batch
from model.units import HOUR_S

__all__ = ["FASTER_STEPS", "Plan", "PlanOption", "cost_per_million", "faster_options", "layout_of", "pareto_front"]

FASTER_STEPS = 3
"""How many times a serving option's batch is halved to show what a faster answer costs."""


class PlanOption(NamedTuple):
    """One way to meet the targets, with what it costs and how far past each target it lands."""

    gpu: str
    cards: int
    precision: str
    layout: dict[str, int]
    """tp, pp, dp, ep and zero (serving: the replica's tp and pp, dp replicas, zero 0)."""
    batch: int | None
    """Concurrent sequences per replica (serving); None for training."""
    price_per_gpu_hour: float
    cost_per_hour_usd: float
    cost_usd: float | None
    """Training: the whole run; serving: None (it runs for as long as it serves)."""
    time_s: float | None
    """Training: wall time of the run; serving: None."""
    decode_tokens_per_s: float | None
    tpot_s: float | None
    ttft_s: float | None
    memory_per_gpu: float
    headroom: float
    """How far past the binding target it lands (1.25: 25 % spare throughput, or 25 % faster)."""
    cost_per_million_output_tokens_usd: float | None = None
    """Serving: the fleet's hourly cost over the target's output tokens per hour (idle headroom
    included), per million: the figure to set beside an API's price; None for training."""


class Plan(NamedTuple):
    """The options that meet every target, cheapest first, and the GPUs that cannot, with why."""

    goal: Literal["serve", "train"]
    options: tuple[PlanOption, ...]
    excluded: dict[str, str]
    estimates: int
    """How many engine estimates the plan ran (for the benchmark)."""
    reasons: dict[str, tuple[Reason, ...]]
    """Each excluded GPU's reasons, in the order ``excluded`` joins them with '; '."""
    faster: tuple[PlanOption, ...] = ()
    """Serving: each option's replica again at smaller batches (halved, up to :data:`FASTER_STEPS`
    times), as many replicas as the throughput needs: what a quicker answer for each user costs."""

    def to_dict(self) -> dict[str, object]:
        """Return plain data for JSON."""
        return {
            "goal": self.goal,
            "options": [option._asdict() for option in self.options],
            "excluded": dict(self.excluded),
            "estimates": self.estimates,
            "faster": [option._asdict() for option in self.faster],
        }


def cost_per_million(cost_per_hour_usd: float, tokens_per_s: float) -> float:
    """Return dollars per million output tokens for a fleet costing ``cost_per_hour_usd`` serving ``tokens_per_s``."""
    return cost_per_hour_usd / (tokens_per_s * HOUR_S) * 1e6


def layout_of(tp: int, pp: int, dp: int, ep: int, zero: int) -> dict[str, int]:
    return {"tp": tp, "pp": pp, "dp": dp, "ep": ep, "zero": zero}


def faster_options(
    best: PlanOption, replica: Scenario, tokens_per_s: float, ttft_s: float | None, max_cards: int, cat: Catalog
) -> list[PlanOption]:
    """Return ``best``'s replica at halved batches, each with the replicas the throughput needs (within the limits)."""
    found: list[PlanOption] = []
    batch = best.batch or 1
    for _ in range(FASTER_STEPS):
        batch //= 2
        if batch < 1:
            break
        # The same replica shape, smaller batch: the engine would otherwise pick a shape for that batch.
        pinned = dataclasses.replace(with_batch(replica, batch), tp=best.layout["tp"], pp=best.layout["pp"])
        inference = estimate(pinned, cat).inference
        per_group = inference.decode_tokens_per_s
        if per_group <= 0 or inference.tpot_s >= (best.tpot_s or math.inf):
            break  # a smaller batch no longer answers faster
        if ttft_s is not None and inference.ttft_s > ttft_s:
            break
        groups = replicas_needed(tokens_per_s, per_group)
        cards = groups * replica.cards
        if cards > max_cards:
            break
        found.append(
            best._replace(
                cards=cards,
                layout=layout_of(inference.tp, inference.pp, inference.dp * groups, inference.ep, 0),
                batch=batch,
                cost_per_hour_usd=cards * best.price_per_gpu_hour,
                cost_per_million_output_tokens_usd=cost_per_million(cards * best.price_per_gpu_hour, tokens_per_s),
                decode_tokens_per_s=per_group * groups,
                tpot_s=inference.tpot_s,
                ttft_s=inference.ttft_s,
                memory_per_gpu=inference.memory_per_gpu.total,
                headroom=per_group * groups / tokens_per_s,
            )
        )
    return found


def pareto_front(plan: Plan) -> tuple[PlanOption, ...]:
    """Return the options no other option beats on both cost and speed, cheapest first.

    Training: a lower total cost and a shorter time; serving: a lower cost per hour and a shorter
    time per output token (a faster answer for each user), over the options and their faster
    variants (:attr:`Plan.faster`). A derived definition (Pareto optimality).
    """

    def axes(option: PlanOption) -> tuple[float, float]:
        if plan.goal == "train":
            return option.cost_usd or math.inf, option.time_s or math.inf
        return option.cost_per_hour_usd, option.tpot_s or math.inf

    front: list[PlanOption] = []
    best_speed = math.inf
    for option in sorted((*plan.options, *plan.faster), key=axes):
        speed = axes(option)[1]
        if speed < best_speed:
            front.append(option)
            best_speed = speed
    return tuple(front)
