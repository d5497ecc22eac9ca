"""Side-by-side comparisons: every GPU for one scenario, saved scenarios, one user against full load, GPU against CPU.

Pure functions over :func:`model.estimate`; no formula of their own beyond picking fields (each
figure's source is in the engine module that computes it).
"""

from __future__ import annotations

import dataclasses
from typing import NamedTuple

from model.catalog import Catalog, Gpu, default_catalog
from model.estimate import estimate
from model.layouts.serving import serving_layouts, serving_load
from model.results import Estimate
from model.scenario import Resolved, Scenario, resolve, with_batch
from model.stacks import stack_there

__all__ = [
    "SEED_CPU_ID",
    "SEED_LAPTOP_ID",
    "GpuComparison",
    "ScenarioFigures",
    "TokenTimeComparison",
    "compare_gpus",
    "cpu_versus_gpu",
    "fewest_serving_cards",
    "scenario_figures",
    "serving_pair",
]

SEED_CPU_ID = "cpu-server"
SEED_LAPTOP_ID = "apple-m3-pro"
"""The seeds' laptop: an M3 Pro, whose unified memory its GPU reads at 150 GB/s."""
"""The seed article's server CPU: 64 GB/s of memory bandwidth."""


class GpuComparison(NamedTuple):
    """One GPU running the scenario's model on the scenario's card count.

    Figures that only mean something when the work fits (throughput, price per token, training
    time and cost) are ``None`` when it does not; a GPU without a known price has ``None`` for
    every dollar figure. Units: bytes, bytes/s, FLOP/s, tokens/s, seconds, US dollars.
    """

    gpu_id: str
    name: str
    vendor: str
    user_supplied: bool
    memory_bytes: float
    memory_bandwidth_bytes_per_s: float
    dense_bf16_flops_per_s: float | None
    """The datasheet's dense bf16 peak; ``None`` where the chip has no bf16 path (V100)."""
    serving_fits: bool
    """Weights and one sequence fit on the scenario's cards (each GPU's own layout)."""
    cards_needed: int | None
    """Fewest cards (tp x pp) that hold the weights and one sequence; ``None``: no sensible group does."""
    serving_batch: int
    """Concurrent sequences per replica at full load (the largest batch that fits)."""
    serving_tokens_per_s: float | None
    """Output tokens per second at full load across every replica of the scenario's cards."""
    cost_per_million_output_tokens_usd: float | None
    training_fits: bool
    training_time_s: float | None
    training_cost_usd: float | None
    price_per_gpu_hour: float | None
    """The on-demand cloud price the dollar figures use; ``None`` when the catalog has none."""


class ScenarioFigures(NamedTuple):
    """The headline figures of one scenario, for comparing saved scenarios side by side.

    A time, rate or price of a part that does not fit is ``None``: nothing that cannot run gets a
    number (DESIGN.md 9). Memory figures stay: they say by how much it does not fit.
    """

    model_name: str
    gpu_name: str
    """The GPU's short name (no parenthesised detail)."""
    cards: int
    precision: str
    training_fits: bool
    training_time_s: float | None
    training_cost_usd: float | None
    training_memory_per_gpu_bytes: float
    serving_fits: bool
    serving_memory_per_gpu_bytes: float
    """Per card at full load (the largest batch that fits)."""
    tpot_s: float | None
    """Time per output token for one user (batch 1)."""
    serving_tokens_per_s: float | None
    """Output tokens per second at full load, all replicas."""
    cost_per_million_output_tokens_usd: float | None


class TokenTimeComparison(NamedTuple):
    """Time per generated token for one user: the scenario's own replica against the seeds' server CPU.

    The replica is the one the engine chose for one user (batch 1) on the scenario's cards, so its
    expected time is the Overview's "per token, 1 user" figure. The seeds' rule on one card (bytes
    of weights read / one card's bandwidth) is kept beside it: it is the seed article's figure
    (~9 ms for DeepSeek-R1 on one H20) even where one card cannot hold the model.
    """

    replica_cards: int
    """Cards in the replica that serves one user (tp x pp, or ep under attention data parallelism)."""
    gpu_fits: bool
    """The replica holds the weights and one sequence (the serving verdict's rule)."""
    gpu_ideal_s: float | None
    """The replica's roofline at datasheet peaks; ``None`` when it does not fit."""
    gpu_expected_s: float | None
    """The replica's time per token with the efficiencies; ``None`` when it does not fit."""
    one_card_ideal_s: float
    """The seeds' rule on one card of the scenario's GPU: bytes read per token / its bandwidth."""
    one_card_fits: bool
    """One card holds the weights and one sequence."""
    cpu_ideal_s: float
    cpu_expected_s: float
    cpu_fits: bool
    """The seeds' server CPU holds the weights and one sequence in its memory."""
    gpu_speedup: float | None
    """How many times faster the replica gives one user a token than the CPU (expected against
    expected); ``None`` when the replica does not fit."""
    laptop_ideal_s: float | None = None
    """The seeds' M3 Pro laptop (:data:`SEED_LAPTOP_ID`): its roofline; ``None`` when it cannot hold the model."""
    laptop_expected_s: float | None = None
    """The laptop's time per token with the efficiencies; ``None`` when it cannot hold the model."""


def cpu_versus_gpu(scenario: Scenario, catalog: Catalog | None = None) -> TokenTimeComparison:
    """Compare one user's time per token on the scenario's replica with the seed's 64 GB/s server CPU.

    The replica is ``estimate(with_batch(scenario, 1))``'s: the layout the engine chose on the
    scenario's cards, the same figure every page shows for one user. The seed's own comparison is
    per device (DeepSeek-R1's 37 GB of active FP8 weights: ~9 ms on one H20 at 4 TB/s, ~578 ms on
    the CPU, the seed's bytes / bandwidth); that one-card roofline is returned too, with whether
    one card can hold the model at all.
    """
    catalog = catalog or default_catalog()
    one_user = with_batch(scenario, 1)
    replica = estimate(one_user, catalog).inference
    single = dataclasses.replace(one_user, cards=1, tp=None, pp=None, dp=None, ep=None, attention_dp=None)
    card = estimate(single, catalog).inference
    cpu_stack = stack_there(catalog, single.stack, SEED_CPU_ID)
    cpu = estimate(dataclasses.replace(single, gpu=SEED_CPU_ID, stack=cpu_stack), catalog).inference
    laptop = None
    if SEED_LAPTOP_ID in catalog.gpus:
        # The laptop computes from its own memory: no host memory to offload to, whatever the scenario's.
        laptop_stack = stack_there(catalog, single.stack, SEED_LAPTOP_ID)
        moved = dataclasses.replace(single, gpu=SEED_LAPTOP_ID, host_memory_gb=None, offload="auto", stack=laptop_stack)
        laptop = estimate(moved, catalog).inference
    laptop_fits = laptop is not None and laptop.fits
    fits = replica.fits
    return TokenTimeComparison(
        replica_cards=replica.tp * replica.pp * replica.ep,
        gpu_fits=fits,
        gpu_ideal_s=replica.tpot_roofline_s if fits else None,
        gpu_expected_s=replica.tpot_s if fits else None,
        one_card_ideal_s=card.tpot_roofline_s,
        one_card_fits=card.fits,
        cpu_ideal_s=cpu.tpot_roofline_s,
        cpu_expected_s=cpu.tpot_s,
        cpu_fits=cpu.fits,
        gpu_speedup=cpu.tpot_s / replica.tpot_s if fits else None,
        laptop_ideal_s=laptop.tpot_roofline_s if laptop is not None and laptop_fits else None,
        laptop_expected_s=laptop.tpot_s if laptop is not None and laptop_fits else None,
    )


def serving_pair(scenario: Scenario, catalog: Catalog | None = None) -> tuple[Estimate, Estimate]:
    """Return the scenario served to one user (batch 1) and at full load (the largest batch)."""
    catalog = catalog or default_catalog()
    one = estimate(with_batch(scenario, 1), catalog)
    full = estimate(with_batch(scenario, "max"), catalog)
    return one, full


def _on_own_hardware(scenario: Scenario, gpu_id: str) -> Scenario:
    """Put ``scenario`` on ``gpu_id`` with that GPU's own links, node size, price and layout.

    A link, price or parallel layout fixed for one GPU rarely makes sense for another (an AMD
    card has no NVLink; an 80 GB card needs a different split than a 24 GB one).
    """
    return dataclasses.replace(
        scenario,
        gpu=gpu_id,
        interconnect=None,
        network=None,
        gpus_per_node=None,
        price_per_gpu_hour=None,
        tp=None,
        pp=None,
        dp=None,
        ep=None,
        batch="max",
    )


def _fewest_cards(resolved: Resolved) -> int | None:
    s, gpu = resolved.scenario, resolved.gpu
    node = s.gpus_per_node or gpu.gpus_per_node
    plan = serving_layouts(
        resolved.arch,
        serving_load(resolved),
        # The largest sensible group: tensor parallelism up to a full node, one pipeline stage per layer.
        cards=node * resolved.arch.layers,
        gpus_per_node=node,
        capacity_bytes=gpu.capacity_bytes,
        batch=1,
        tp=None,
        pp=None,
    )[0]
    return plan.tp * plan.pp if plan.fits else None


def fewest_serving_cards(scenario: Scenario, catalog: Catalog | None = None) -> int | None:
    """Return the fewest cards of the scenario's GPU that serve one sequence of its context.

    The engine's own layout search (:func:`model.layouts.serving.serving_layouts`: the
    smallest tensor-parallel group inside a node, then pipeline stages) run without the
    scenario's card limit, up to a full node times one stage per layer.

    Returns:
        ``tp x pp`` of the smallest replica whose weights, one sequence's KV cache and runtime fit;
        ``None`` when even the largest group does not fit.

    Raises:
        ScenarioError: the scenario is invalid.
    """
    return _fewest_cards(resolve(scenario, catalog))


def _compare_one(scenario: Scenario, gpu: Gpu, catalog: Catalog) -> GpuComparison:
    own = with_batch(scenario, "max") if gpu.id == scenario.gpu else _on_own_hardware(scenario, gpu.id)
    result = estimate(own, catalog)
    training, serving = result.training, result.inference
    return GpuComparison(
        gpu_id=gpu.id,
        name=gpu.name,
        vendor=gpu.vendor,
        user_supplied=gpu.user_supplied,
        memory_bytes=gpu.memory_bytes,
        memory_bandwidth_bytes_per_s=gpu.memory_bandwidth_bytes_per_s,
        dense_bf16_flops_per_s=gpu.dense_flops_per_s.get("bf16"),
        serving_fits=serving.fits,
        cards_needed=_fewest_cards(result.resolved),
        serving_batch=serving.batch,
        serving_tokens_per_s=serving.decode_tokens_per_s if serving.fits else None,
        cost_per_million_output_tokens_usd=serving.cost_per_million_output_tokens_usd if serving.fits else None,
        training_fits=training.fits,
        training_time_s=training.time_s if training.fits else None,
        training_cost_usd=training.cost_usd if training.fits else None,
        price_per_gpu_hour=result.resolved.price_per_gpu_hour,
    )


def compare_gpus(scenario: Scenario, catalog: Catalog | None = None) -> tuple[GpuComparison, ...]:
    """Run the scenario's model, precision, workload and card count on every GPU in the catalog.

    The scenario's own GPU keeps every setting of the scenario (its row is the scenario itself);
    every other GPU uses its own scale-up link, network, node size, cloud price and automatic
    parallel layout. Serving is estimated at full load (the largest batch that fits, continuous
    batching). User-added GPUs are included. The 37 catalog GPUs take ~4-8 ms on one core (one
    estimate and one layout search each).

    Raises:
        ScenarioError: the scenario's model or settings are invalid (the GPU is replaced, so an
            unknown GPU id is not an error here).
    """
    catalog = catalog or default_catalog()
    return tuple(_compare_one(scenario, gpu, catalog) for gpu in catalog.gpus.values())


def scenario_figures(scenario: Scenario, catalog: Catalog | None = None) -> ScenarioFigures:
    """Return the headline figures of ``scenario``: training, one user's speed, and full load.

    One user is batch 1; full load is the largest batch that fits (the two estimates of
    :func:`serving_pair`).

    Raises:
        ScenarioError: the scenario is invalid.
    """
    one, full = serving_pair(scenario, catalog or default_catalog())
    training, single, loaded = one.training, one.inference, full.inference
    trains, serves = training.fits, single.fits and loaded.fits
    return ScenarioFigures(
        model_name=one.resolved.model_name,
        gpu_name=one.resolved.gpu.short_name,
        cards=scenario.cards,
        precision=scenario.precision,
        training_fits=trains,
        training_time_s=training.time_s if trains else None,
        training_cost_usd=training.cost_usd if trains else None,
        training_memory_per_gpu_bytes=training.memory_per_gpu.total,
        serving_fits=serves,
        serving_memory_per_gpu_bytes=loaded.memory_per_gpu.total,
        tpot_s=single.tpot_s if serves else None,
        serving_tokens_per_s=loaded.decode_tokens_per_s if serves else None,
        cost_per_million_output_tokens_usd=loaded.cost_per_million_output_tokens_usd if serves else None,
    )
