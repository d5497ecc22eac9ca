"""Run the engine backwards: the cheapest GPU x cards x layout that meets a serving or training target.

Serving (:func:`plan_serving`): for every GPU and allowed precision, each replica size in powers of
two is laid out by the engine's own serving search, loaded with the largest batch whose time per
output token meets the target (:func:`model.analyses.serving.largest_batch_within_latency`), and
repeated until the replicas deliver the tokens per second asked for. Cards cost their price per
GPU-hour, so for one GPU the cheapest option is the one with the fewest cards; across GPUs the
options are ranked by dollars per hour.

Training (:func:`plan_training`): for every GPU and precision, card counts double from one; each
count is estimated with the engine's layout search, and the cheapest count that fits and meets the
deadline and the budget is that GPU's option. GPU-hours grow with the communication and bubbles
more cards bring, so the doubling stops once the cost has risen twice in a row past a count that
met the targets.

A GPU that cannot meet the targets is listed in ``excluded`` with the reason: an English sentence, and
in ``reasons`` the same as :mod:`~model.analyses.exclusions` codes with their values (the interface words
them itself).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Sequence

from model.analyses._plan_options import Plan, PlanOption, cost_per_million, faster_options, layout_of, pareto_front
from model.analyses.exclusions import Reason, worded
from model.analyses.serving import largest_batch_within_latency
from model.catalog import Catalog, default_catalog
from model.estimate import estimate
from model.layouts.serving import replicas_needed
from model.limits import ScenarioError
from model.precision import Precision
from model.pricing import Owning, market_rent_ratio, owning_price, rental_price
from model.scenario import Scenario, with_batch

__all__ = ["Plan", "PlanOption", "pareto_front", "plan_serving", "plan_training"]

MAX_REPLICA_CARDS = 64
"""The largest serving replica tried (eight 8-GPU nodes: DeepSeek-V3 in BF16 needs about 16 H100s)."""
HOUR_S = 3600.0


def _positive(name: str, value: float | None, allowed: str) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise ScenarioError(name, value, allowed)


def _gpus(catalog: Catalog, gpus: Sequence[str] | None) -> list[str]:
    if not gpus:
        return [gpu_id for gpu_id in catalog.gpus if gpu_id != "cpu-server"]
    unknown = [gpu_id for gpu_id in gpus if gpu_id not in catalog.gpus]
    if unknown:
        raise ScenarioError("gpus", ",".join(unknown), f"GPU ids from the catalog: {', '.join(catalog.gpus)}")
    return list(gpus)


def _price(catalog: Catalog, gpu_id: str, given: float | None, owning: Owning | None) -> float | None:
    """One GPU-hour as the app prices it: a given price, owning (when the card is sold), else renting."""
    if given is not None:
        return given
    gpu = catalog.gpus[gpu_id]
    if owning is not None and gpu.purchase_usd is not None:
        return owning_price(gpu, owning).usd_per_gpu_hour
    return rental_price(gpu, market_rent_ratio()).usd_per_gpu_hour


def _powers_of_two(limit: int) -> Iterable[int]:
    cards = 1
    while cards <= limit:
        yield cards
        cards *= 2


def plan_serving(
    base: Scenario,
    output_tokens_per_s: float,
    *,
    tpot_s: float | None = None,
    ttft_s: float | None = None,
    precisions: Sequence[Precision] = ("bf16",),
    gpus: Sequence[str] | None = None,
    max_cards: int = 1024,
    price_per_gpu_hour: float | None = None,
    owning: Owning | None = None,
    catalog: Catalog | None = None,
) -> Plan:
    """Return the cheapest ways to serve ``output_tokens_per_s`` in total within the latency targets.

    Args:
        base: the model and workload (prompt and output lengths); its GPU, cards and layout are replaced.
        output_tokens_per_s: generated tokens per second over every replica.
        tpot_s: the most seconds per output token a user may wait (None: no target).
        ttft_s: the most seconds to the first token (None: no target).
        precisions: the weight formats allowed.
        gpus: the GPU ids to search (None: every GPU in the catalog).
        max_cards: the most cards an option may use.
        price_per_gpu_hour: one price for every GPU (None: each GPU's catalog price).
        owning: price the cards as owned (purchase over years plus power) instead of rented.
        catalog: the catalog to search (None: the built-in one).

    Raises:
        ScenarioError: a target is not a positive number, or a GPU id is unknown.
    """
    _positive("output_tokens_per_s", output_tokens_per_s, "a positive number of output tokens per second")
    _positive("tpot_s", tpot_s, "a positive number of seconds per output token")
    _positive("ttft_s", ttft_s, "a positive number of seconds")
    _positive("max_cards", max_cards, "a positive whole number of cards")
    cat = catalog or default_catalog()
    options: list[PlanOption] = []
    faster: list[PlanOption] = []
    missed: dict[str, set[Reason]] = {}
    estimates = 0
    latency = tpot_s if tpot_s is not None else 3600.0  # no target: any speed a batch gives
    for gpu_id in _gpus(cat, gpus):
        price = _price(cat, gpu_id, price_per_gpu_hour, owning)
        if price is None:
            missed[gpu_id] = {Reason("no_price")}
            continue
        best: PlanOption | None = None
        best_replica: Scenario | None = None
        reasons: set[Reason] = set()
        for precision in precisions:
            for replica_cards in _powers_of_two(min(max_cards, MAX_REPLICA_CARDS)):
                if best is not None and replica_cards >= best.cards:
                    break  # exact bound: every option from here uses at least this many cards
                scenario = dataclasses.replace(
                    base, gpu=gpu_id, cards=replica_cards, precision=precision, kv_precision=None,
                    tp=None, pp=None, dp=None, ep=None, attention_dp=None, price_per_gpu_hour=price,
                )  # fmt: skip
                fit = largest_batch_within_latency(scenario, cat, latency)
                estimates += 1
                if fit.batch is None:
                    reasons.add(Reason("no_fit" if fit.limit == "memory" else "tpot"))
                    continue
                served = estimate(with_batch(scenario, fit.batch), cat)
                estimates += 1
                inference = served.inference
                if ttft_s is not None and inference.ttft_s > ttft_s:
                    reasons.add(Reason("ttft"))
                    continue
                per_group = fit.tokens_per_s or 0.0
                groups = replicas_needed(output_tokens_per_s, per_group)
                cards = groups * replica_cards
                if cards > max_cards:
                    reasons.add(Reason("max_cards", (("cards", f"{max_cards:,}"),)))
                    continue
                option = PlanOption(
                    gpu=gpu_id,
                    cards=cards,
                    precision=precision,
                    layout=layout_of(inference.tp, inference.pp, inference.dp * groups, inference.ep, 0),
                    batch=fit.batch,
                    price_per_gpu_hour=price,
                    cost_per_hour_usd=cards * price,
                    cost_per_million_output_tokens_usd=cost_per_million(cards * price, output_tokens_per_s),
                    cost_usd=None,
                    time_s=None,
                    decode_tokens_per_s=per_group * groups,
                    tpot_s=fit.tpot_s,
                    ttft_s=inference.ttft_s,
                    memory_per_gpu=inference.memory_per_gpu.total,
                    headroom=per_group * groups / output_tokens_per_s,
                )
                if best is None or option.cost_per_hour_usd < best.cost_per_hour_usd:
                    best, best_replica = option, scenario
        if best is None or best_replica is None:
            missed[gpu_id] = reasons
        else:
            options.append(best)
            quicker = faster_options(best, best_replica, output_tokens_per_s, ttft_s, max_cards, cat)
            faster += quicker
            estimates += len(quicker)
    options.sort(key=lambda option: (option.cost_per_hour_usd, option.cards))
    sentences, why = worded(missed)
    return Plan("serve", tuple(options), sentences, estimates, why, tuple(faster))


def plan_training(
    base: Scenario,
    *,
    days: float | None = None,
    budget_usd: float | None = None,
    precisions: Sequence[Precision] = ("bf16",),
    gpus: Sequence[str] | None = None,
    max_cards: int = 65_536,
    price_per_gpu_hour: float | None = None,
    owning: Owning | None = None,
    catalog: Catalog | None = None,
) -> Plan:
    """Return the cheapest ways to train ``base`` (its model, tokens and fine-tuning mode) within the targets.

    Args:
        base: the model, tokens, sequence length and fine-tuning mode; GPU, cards and layout are replaced.
        days: the longest wall time allowed (None: no deadline).
        budget_usd: the most the run may cost (None: no budget).
        precisions: the training formats allowed.
        gpus: the GPU ids to search (None: every GPU in the catalog).
        max_cards: the most cards an option may use.
        price_per_gpu_hour: one price for every GPU (None: each GPU's catalog price).
        owning: price the cards as owned (purchase over years plus power) instead of rented.
        catalog: the catalog to search (None: the built-in one).

    Raises:
        ScenarioError: a target is not a positive number, or a GPU id is unknown.
    """
    _positive("days", days, "a positive number of days")
    _positive("budget_usd", budget_usd, "a positive number of dollars")
    _positive("max_cards", max_cards, "a positive whole number of cards")
    cat = catalog or default_catalog()
    deadline = days * 86_400.0 if days is not None else math.inf
    budget = budget_usd if budget_usd is not None else math.inf
    options: list[PlanOption] = []
    missed: dict[str, set[Reason]] = {}
    estimates = 0
    for gpu_id in _gpus(cat, gpus):
        price = _price(cat, gpu_id, price_per_gpu_hour, owning)
        if price is None:
            missed[gpu_id] = {Reason("no_price")}
            continue
        found: list[PlanOption] = []
        reasons: set[Reason] = set()
        for precision in precisions:
            rising = 0
            for cards in _powers_of_two(max_cards):
                scenario = dataclasses.replace(
                    base, gpu=gpu_id, cards=cards, precision=precision, tp=None, pp=None, dp=None, ep=None,
                    zero=None, micro_batch=None, vp=None, global_batch=None, price_per_gpu_hour=price,
                )  # fmt: skip
                training = estimate(scenario, cat).training
                estimates += 1
                if not training.fits:
                    reasons.add(Reason("no_fit_max_cards", (("cards", f"{max_cards:,}"),)))
                    continue
                cost = training.cost_usd if training.cost_usd is not None else math.inf
                if found and cost >= (found[-1].cost_usd or math.inf):
                    rising += 1
                    if rising >= 2:  # past the cheapest count: more cards only cost more from here
                        break
                if training.time_s > deadline:
                    reasons.add(Reason("deadline"))
                    continue
                if cost > budget:
                    reasons.add(Reason("budget"))
                    continue
                layout = training.parallelism
                found.append(
                    PlanOption(
                        gpu=gpu_id,
                        cards=cards,
                        precision=training.precision,
                        layout=layout_of(layout.tp, layout.pp, layout.dp, layout.ep, layout.zero),
                        batch=None,
                        price_per_gpu_hour=price,
                        cost_per_hour_usd=cards * price,
                        cost_usd=cost,
                        time_s=training.time_s,
                        decode_tokens_per_s=None,
                        tpot_s=None,
                        ttft_s=None,
                        memory_per_gpu=training.memory_per_gpu.total,
                        # A free run (a price of 0) is within any budget: its budget headroom is unbounded.
                        headroom=min(deadline / training.time_s, budget / cost if cost > 0 else math.inf),
                    )
                )
        if found:
            options.append(min(found, key=lambda option: option.cost_usd or math.inf))
        else:
            missed[gpu_id] = reasons
    options.sort(key=lambda option: (option.cost_usd or math.inf, option.time_s or math.inf))
    sentences, why = worded(missed)
    return Plan("train", tuple(options), sentences, estimates, why)
