"""Training time and cost as the card count grows, with the scenario's links and slower ones."""

import dataclasses
import itertools

import pytest

from model import Scenario, default_catalog, estimate
from model.analyses.scaling import MAX_CARDS, OWN_LINKS, card_counts, link_variants, scaling_with_cards

CATALOG = default_catalog()
BASE = Scenario(model="llama-3.1-8b", gpu="h100-sxm", cards=8)


@pytest.mark.parametrize("cards", [8, 16, 64, 256, 1024])
def test_slower_links_never_make_training_faster(cards):
    scenario = Scenario(model="llama-3.1-70b", gpu="h100-sxm", cards=cards)
    nvlink = estimate(scenario, CATALOG).training.time_s
    pcie = estimate(dataclasses.replace(scenario, interconnect="pcie-gen5"), CATALOG).training.time_s
    ethernet = estimate(dataclasses.replace(scenario, network="ethernet-100g"), CATALOG).training.time_s
    assert pcie >= nvlink
    assert ethernet >= nvlink


def test_the_sweep_shows_slower_links_at_least_as_slow_at_every_count():
    scenario = Scenario(model="llama-3.1-70b", gpu="h100-sxm", cards=64)
    scaling = scaling_with_cards(scenario, CATALOG, (16, 64, 256), link_variants(scenario, CATALOG))
    own = {row.cards: row.time_s for row in scaling.rows if row.setup == OWN_LINKS}
    for row in scaling.rows:
        assert row.time_s >= own[row.cards] * (1 - 1e-12)
    assert all(slowdown.worst_factor >= 1.0 for slowdown in scaling.slowdowns)


def test_link_variants_swap_in_the_gpus_own_pcie_generation_and_100g_ethernet():
    a100 = link_variants(Scenario(gpu="a100-sxm-80gb"), CATALOG)
    assert [(v.interconnect, v.network) for v in a100] == [(None, None), ("pcie-gen4", None), (None, "ethernet-100g")]
    # An H100 PCIe already uses PCIe 5.0 and 100 Gb Ethernet: nothing slower to compare.
    assert len(link_variants(Scenario(gpu="h100-pcie"), CATALOG)) == 1


def test_card_counts_start_at_the_fewest_that_fit_and_reach_sixteen_times_the_scenario():
    counts = card_counts(BASE, CATALOG)
    assert all(b == 2 * a for a, b in itertools.pairwise(counts))
    assert estimate(dataclasses.replace(BASE, cards=counts[0]), CATALOG).training.fits
    if counts[0] > 1:
        assert not estimate(dataclasses.replace(BASE, cards=counts[0] // 2), CATALOG).training.fits
    assert counts[-1] == 16 * BASE.cards


def test_card_counts_stop_at_the_cap():
    counts = card_counts(dataclasses.replace(BASE, cards=65536), CATALOG)
    assert counts[-1] <= MAX_CARDS < 2 * counts[-1]


def test_ideal_line_is_the_smallest_run_scaled_by_cards():
    scaling = scaling_with_cards(BASE, CATALOG, (2, 4, 8, 16), link_variants(BASE, CATALOG))
    first = next(row for row in scaling.rows if row.setup == OWN_LINKS and row.cards == 2)
    for point in scaling.ideal:
        assert point.time_s * point.cards == pytest.approx(first.time_s * first.cards)
    assert scaling.speedup == pytest.approx(first.time_s / scaling.rows[3].time_s)


def test_step_shares_add_up_to_the_whole_step():
    scenario = Scenario(model="llama-3.1-70b", cards=64)
    scaling = scaling_with_cards(scenario, CATALOG, (16, 64), link_variants(scenario, CATALOG))
    for row in scaling.rows:
        parts = (
            row.compute,
            row.tensor_parallel,
            row.data_parallel,
            row.expert_parallel,
            row.pipeline_transfer,
            row.bubble,
            row.optimizer,
        )
        assert sum(parts) == pytest.approx(1.0)
        assert min(parts) >= 0.0
