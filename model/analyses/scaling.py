"""Training time and cost as the card count grows, with the scenario's links and slower ones.

:func:`scaling_with_cards` runs the same training on more and more cards (:func:`card_counts`),
with the scenario's own links and with slower ones (:func:`link_variants`), so it shows where
the interconnect and the network start to cost time (the step-time shares say which
communication it is). Built from :func:`estimate`, like :mod:`model.analyses.economics`.

Costs are US dollars; a GPU without a known cloud price gives ``None`` costs rather than an
invented one.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import NamedTuple

from model.catalog import Catalog, default_catalog
from model.estimate import estimate
from model.limits import ScenarioError
from model.scenario import Scenario, check_layout, resolve

__all__ = [
    "MAX_CARDS",
    "OWN_LINKS",
    "SETUP_LABELS",
    "CardScaling",
    "IdealPoint",
    "LinkVariant",
    "ScalingRow",
    "Slowdown",
    "card_counts",
    "link_variants",
    "scaling_with_cards",
]


MAX_CARDS = 100_000
"""The largest card count a scaling sweep tries (the sidebar's own limit)."""
SCALING_SPAN = 16
"""A sweep reaches this many times the scenario's card count."""
PCIE_FALLBACK = "pcie-gen5"
"""The PCIe generation assumed when the GPU's own host link is not PCIe (e.g. NVLink-C2C)."""
OWN_LINKS = "Scenario's links"
PCIE_LINKS = "PCIe inside the node"
ETHERNET_LINKS = "100 Gb Ethernet between nodes"
SETUP_LABELS = (OWN_LINKS, PCIE_LINKS, ETHERNET_LINKS)
"""The labels of :func:`link_variants`' setups, in order."""
HURT_THRESHOLD = 0.10
"""A slower setup "hurts" once it takes 10 % longer than the reference (a chosen threshold)."""
SLOW_NETWORK = "ethernet-100g"
"""The slow network a sweep compares: 100 Gb/s Ethernet (RoCE v2 / EFA class)."""


class LinkVariant(NamedTuple):
    """A link setup to compare: ``None`` keeps the scenario's own link."""

    label: str
    interconnect: str | None
    network: str | None


class ScalingRow(NamedTuple):
    """One card count with one link setup; shares are fractions of the step time (sum 1)."""

    cards: int
    setup: str
    links: str
    """The scale-up and network names, for tooltips."""
    time_s: float
    cost_usd: float | None
    gpu_hours: float
    mfu: float
    fits: bool
    compute: float
    tensor_parallel: float
    data_parallel: float
    expert_parallel: float
    pipeline_transfer: float
    bubble: float
    optimizer: float
    moe_host: float


class IdealPoint(NamedTuple):
    """Perfect scaling: the smallest run's time shrunk in proportion to the cards."""

    cards: int
    time_s: float


class Slowdown(NamedTuple):
    """How much a slower link setup costs against the first (reference) setup."""

    setup: str
    first_cards: int | None
    """The fewest cards at which it takes :data:`HURT_THRESHOLD` longer or more; None: never."""
    worst_cards: int
    """The count at which it falls furthest behind."""
    worst_factor: float
    """Its time over the reference's there (1.0: no slower)."""
    factor: float
    """Its time over the reference's at the largest count."""


class CardScaling(NamedTuple):
    """The result of :func:`scaling_with_cards`."""

    rows: tuple[ScalingRow, ...]
    ideal: tuple[IdealPoint, ...]
    smallest_cards: int | None
    """The smallest count at which training fits with the reference setup."""
    largest_cards: int | None
    """The largest count at which it fits."""
    speedup: float | None
    """How many times faster the largest count trains than the smallest (reference setup);
    perfect scaling would be largest / smallest."""
    slowdowns: tuple[Slowdown, ...]
    """One per setup after the first."""


def link_variants(scenario: Scenario, catalog: Catalog | None = None) -> tuple[LinkVariant, ...]:
    """Return the scenario's links, then PCIe as the scale-up link, then 100 Gb Ethernet as the network.

    The PCIe generation is the GPU's own host link where that is PCIe, else PCIe 5.0. A variant
    that is the same as the scenario's own links is left out.
    """
    catalog = catalog or default_catalog()
    r = resolve(scenario, catalog)
    host = r.gpu.host_link
    pcie = host if host and host.startswith("pcie") and host in catalog.interconnects else PCIE_FALLBACK
    variants = [LinkVariant(OWN_LINKS, scenario.interconnect, scenario.network)]
    if r.scale_up.id != pcie and pcie in catalog.interconnects:
        variants.append(LinkVariant(PCIE_LINKS, pcie, scenario.network))
    if r.network.id != SLOW_NETWORK and SLOW_NETWORK in catalog.networks:
        variants.append(LinkVariant(ETHERNET_LINKS, scenario.interconnect, SLOW_NETWORK))
    return tuple(variants)


def card_counts(scenario: Scenario, catalog: Catalog | None = None) -> tuple[int, ...]:
    """Return the card counts to sweep: powers of two from the fewest that fit training.

    The sweep runs up to 16 x the scenario's cards (or 16 x the fewest that fit, if more),
    capped at :data:`MAX_CARDS`. Empty when training fits on no power of two up to the cap.
    """
    catalog = catalog or default_catalog()
    fewest = None
    cards = 1
    while cards <= MAX_CARDS:
        if (
            _holds_layout(scenario, cards)
            and estimate(dataclasses.replace(scenario, cards=cards), catalog).training.fits
        ):
            fewest = cards
            break
        cards *= 2
    if fewest is None:
        return ()
    top = min(MAX_CARDS, max(scenario.cards, fewest) * SCALING_SPAN)
    counts = []
    while cards <= top:
        if _holds_layout(scenario, cards):
            counts.append(cards)
        cards *= 2
    return tuple(counts)


def _holds_layout(scenario: Scenario, cards: int) -> bool:
    """Return whether ``cards`` can take the layout dimensions the scenario fixes (the scenario's own check)."""
    try:
        check_layout(dataclasses.replace(scenario, cards=cards))
    except ScenarioError:
        return False
    return True


def scaling_with_cards(
    scenario: Scenario,
    catalog: Catalog | None,
    cards_list: Sequence[int],
    variants: Sequence[LinkVariant],
) -> CardScaling:
    """Estimate the training run on each card count with each link setup.

    Each row is ``estimate(...).training`` at that count: wall time, GPU-hours, cost, MFU, and
    the expected step split into compute, tensor-parallel all-reduces, data-parallel gradient
    traffic, expert all-to-alls, pipeline transfers, the pipeline bubble and the optimizer
    (shares of the step; see :mod:`model.training` for each term's source). The ideal line is
    perfect strong scaling, time = T(n0) x n0 / n from the smallest count n0 that fits with the
    first setup: the reference line of scaling studies (e.g. Narayanan et al. 2021, "Efficient
    Large-Scale Language Model Training on GPU Clusters"); a derived definition. The speedup
    is the smallest count's time over the largest's; a slower setup "hurts" from the first
    count where it takes 10 % longer than the reference (a chosen threshold,
    :data:`HURT_THRESHOLD`).

    Args:
        scenario: the training run (its own cards are replaced by each count).
        catalog: the catalog (``None``: the built-in one).
        cards_list: card counts, e.g. from :func:`card_counts`.
        variants: link setups, e.g. from :func:`link_variants`; the first is the reference.
    """
    catalog = catalog or default_catalog()
    rows: list[ScalingRow] = []
    for variant in variants:
        for cards in cards_list:
            result = estimate(
                dataclasses.replace(scenario, cards=cards, interconnect=variant.interconnect, network=variant.network),
                catalog,
            )
            training, step = result.training, result.training.step
            total = step.total if step.total > 0 else 1.0
            rows.append(
                ScalingRow(
                    cards=cards,
                    setup=variant.label,
                    links=f"{result.resolved.scale_up.name} · {result.resolved.network.name}",
                    time_s=training.time_s,
                    cost_usd=training.cost_usd,
                    gpu_hours=training.gpu_hours,
                    mfu=training.mfu,
                    fits=training.fits,
                    compute=step.compute / total,
                    tensor_parallel=step.tensor_parallel / total,
                    data_parallel=step.data_parallel / total,
                    expert_parallel=step.expert_parallel / total,
                    pipeline_transfer=step.pipeline_transfer / total,
                    bubble=step.bubble / total,
                    optimizer=step.optimizer / total,
                    moe_host=step.moe_host / total,
                )
            )
    fitting = {(row.setup, row.cards): row for row in rows if row.fits}
    reference = sorted(
        (row for row in fitting.values() if variants and row.setup == variants[0].label), key=lambda row: row.cards
    )
    if not reference:
        return CardScaling(tuple(rows), (), None, None, None, ())
    first, last = reference[0], reference[-1]
    ideal = tuple(
        IdealPoint(cards, first.time_s * first.cards / cards) for cards in sorted(cards_list) if cards >= first.cards
    )
    slowdowns = []
    for variant in variants[1:]:
        factors = [
            (fitting[variant.label, row.cards].time_s / row.time_s, row.cards)
            for row in reference
            if (variant.label, row.cards) in fitting
        ]
        if not factors:
            continue
        hurt = [cards for factor, cards in factors if factor >= 1.0 + HURT_THRESHOLD]
        worst_factor, worst_cards = max(factors)
        slowdowns.append(
            Slowdown(variant.label, min(hurt) if hurt else None, worst_cards, worst_factor, factors[-1][0])
        )
    speedup = first.time_s / last.time_s
    return CardScaling(tuple(rows), ideal, first.cards, last.cards, speedup, tuple(slowdowns))
