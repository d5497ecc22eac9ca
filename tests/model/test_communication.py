"""Collectives over the scale-up link and the network: the alpha-beta model and the group paths."""

import pytest

from model import default_catalog
from model.communication import (
    RING_STEP_LATENCY_S,
    all_gather_time,
    all_reduce_time,
    all_to_all_time,
    group_path,
    p2p_time,
)
from model.efficiency import EXPECTED, OPTIMISTIC, PESSIMISTIC

CATALOG = default_catalog()
NVLINK, PCIE = CATALOG.interconnects["nvlink4"], CATALOG.interconnects["pcie-gen5"]
IB, ETHERNET = CATALOG.networks["ib-ndr"], CATALOG.networks["ethernet-100g"]


def test_a_group_inside_a_node_talks_over_the_scale_up_link():
    path = group_path(8, 1, 8, NVLINK, IB, EXPECTED)
    assert not path.crosses_nodes
    assert path.latency_s == NVLINK.latency_s
    share = NVLINK.measured_efficiency or EXPECTED.collective_bandwidth
    assert path.bandwidth_bytes_per_s == pytest.approx(NVLINK.bandwidth_bytes_per_s * share)


def test_a_group_across_nodes_is_bounded_by_the_nics_of_its_members_on_each_node():
    # 64 ranks, one per GPU, 8 per node: 8 rails of the NIC at once (rail-optimised cluster).
    inside = group_path(8, 1, 8, NVLINK, IB, EXPECTED)
    across = group_path(64, 1, 8, NVLINK, IB, EXPECTED)
    strided = group_path(64, 8, 8, NVLINK, IB, EXPECTED)  # one member per node: one NIC
    assert across.crosses_nodes and strided.crosses_nodes
    assert strided.bandwidth_bytes_per_s < across.bandwidth_bytes_per_s <= inside.bandwidth_bytes_per_s
    assert across.latency_s > inside.latency_s


def test_more_nodes_add_network_latency_logarithmically():
    latencies = [group_path(8 * nodes, 1, 8, NVLINK, IB, EXPECTED).latency_s for nodes in (2, 4, 16)]
    assert latencies[0] < latencies[1] < latencies[2]
    step = latencies[1] - latencies[0]
    assert latencies[2] - latencies[1] == pytest.approx(2 * step)  # log2: 2 -> 4 is one step, 4 -> 16 two


def test_a_ring_all_reduce_moves_twice_what_an_all_gather_moves():
    # Thakur et al. 2005: all-reduce 2(n-1)/n of the buffer per GPU, all-gather (n-1)/n.
    path = group_path(8, 1, 8, NVLINK, IB, EXPECTED)
    big = 8e9
    reduce, gather = all_reduce_time(big, 8, path), all_gather_time(big, 8, path)
    assert (reduce - path.latency_s) == pytest.approx(2 * (gather - path.ring_latency_s))
    assert gather == pytest.approx(path.ring_latency_s + 7 / 8 * big / path.bandwidth_bytes_per_s)


def test_a_ring_pays_one_hop_per_member_and_the_network_per_node():
    # NCCL's tuning model (src/graph/tuning.cc): (n - nodes) intra-node steps + (nodes - 1) network steps.
    small, large = group_path(64, 1, 8, NVLINK, IB, EXPECTED), group_path(2048, 1, 8, NVLINK, IB, EXPECTED)
    hop, net = RING_STEP_LATENCY_S["scale-up"], RING_STEP_LATENCY_S["network"]
    assert small.ring_latency_s == pytest.approx(NVLINK.latency_s + 56 * hop + 7 * net)
    assert large.ring_latency_s == pytest.approx(NVLINK.latency_s + 1792 * hop + 255 * net)
    # Trees keep all-reduces logarithmic: 32 times the nodes adds log2(32) network latencies.
    assert large.latency_s - small.latency_s == pytest.approx(IB.latency_s * 5)
    assert all_gather_time(1e6, 2048, large, calls=10) == pytest.approx(
        10 * large.ring_latency_s + 2047 / 2048 * 1e6 / large.bandwidth_bytes_per_s
    )


def test_nothing_to_send_or_nobody_to_send_to_costs_nothing():
    path = group_path(8, 1, 8, NVLINK, IB, EXPECTED)
    for collective in (all_reduce_time, all_gather_time, all_to_all_time):
        assert collective(0.0, 8, path) == 0.0
        assert collective(1e9, 1, path) == 0.0
    assert p2p_time(0.0, path) == 0.0
    assert p2p_time(1e6, path) == pytest.approx(path.latency_s + 1e6 / path.bandwidth_bytes_per_s)


def test_a_slower_link_or_network_never_speeds_a_collective_up():
    fast_up, slow_up = group_path(8, 1, 8, NVLINK, IB, EXPECTED), group_path(8, 1, 8, PCIE, IB, EXPECTED)
    assert all_reduce_time(1e9, 8, slow_up) > all_reduce_time(1e9, 8, fast_up)
    fast_net, slow_net = group_path(64, 8, 8, NVLINK, IB, EXPECTED), group_path(64, 8, 8, NVLINK, ETHERNET, EXPECTED)
    assert all_reduce_time(1e9, 64, slow_net) > all_reduce_time(1e9, 64, fast_net)


def test_the_optimistic_set_sees_faster_links_than_the_pessimistic_one():
    paths = [group_path(64, 1, 8, NVLINK, IB, eff) for eff in (OPTIMISTIC, EXPECTED, PESSIMISTIC)]
    rates = [path.bandwidth_bytes_per_s for path in paths]
    assert rates[0] > rates[1] > rates[2]


def test_an_all_to_all_across_nodes_is_limited_by_one_nic_per_gpu():
    # A ring gains one NIC per member on the node (rails); an all-to-all sends each GPU's
    # off-node share through its own NIC (DeepSeek-V3 sec. 3.2.2).
    up, net = CATALOG.interconnects["nvlink4"], CATALOG.networks["ib-ndr"]
    path = group_path(64, 1, 8, up, net, EXPECTED)
    assert path.crosses_nodes
    ring_share = all_gather_time(1e9, 64, path)
    exchange = all_to_all_time(1e9, 64, path)
    nic = net.bandwidth_bytes_per_s * (net.measured_efficiency or EXPECTED.network_bandwidth)
    assert exchange > 4 * ring_share
    assert exchange == pytest.approx(path.latency_s + 63 / 64 * 1e9 / (nic / (56 / 64)), rel=1e-9)
