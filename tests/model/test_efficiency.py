"""Efficiencies: the expected set, the range's ends moved from it, one capped rule for measured shares."""

from dataclasses import fields

import pytest

from model import default_catalog
from model.efficiency import (
    EXPECTED,
    OPTIMISTIC,
    OPTIMISTIC_MOVES,
    PESSIMISTIC,
    PESSIMISTIC_MOVES,
    SHARE_CAP,
    RangeMoves,
    achievable_bandwidth,
    efficiency_variants,
    matmul_ceiling_share,
    matmul_efficiency,
    measured_share,
    moved,
)

GPUS = default_catalog().gpus
SHARES = ("memory_bandwidth", "collective_bandwidth", "network_bandwidth", "tp_overlap", "dp_overlap", "ep_overlap")
OVERHEADS = ("kernel_floor_s", "eager_kernel_s", "hours_lost_per_failure", "run_overhead", "overlap_interference")


def test_a_product_gets_closer_to_its_ceiling_as_it_grows_and_is_half_way_at_w0():
    sizes = [1e8, 1e10, 1e12, 1e14]
    shares = [matmul_efficiency(EXPECTED, "bf16", size, None) for size in sizes]
    assert shares == sorted(shares)
    ceiling = EXPECTED.matmul_ceiling["bf16"]
    assert matmul_efficiency(EXPECTED, "bf16", float("inf"), None) == ceiling
    half = EXPECTED.matmul_half_work_flops["bf16"]
    assert matmul_efficiency(EXPECTED, "bf16", half, None) == pytest.approx(ceiling / 2)


def test_a_measured_ceiling_replaces_the_default_one():
    assert matmul_efficiency(EXPECTED, "bf16", float("inf"), 0.6) == pytest.approx(0.6)
    assert matmul_efficiency(OPTIMISTIC, "bf16", float("inf"), 0.6) == pytest.approx(0.6 * OPTIMISTIC_MOVES.compute)


def test_a_measured_share_is_moved_by_the_sets_scale_and_never_passes_the_cap():
    assert measured_share(None, 0.8, 1.5) == 0.8
    assert measured_share(0.5, 0.8, 1.2) == pytest.approx(0.6)
    assert measured_share(0.9, 0.8, 1.2) == SHARE_CAP
    assert measured_share(None, 0.99, 1.0) == SHARE_CAP


def test_the_optimistic_set_is_faster_in_every_family_and_the_pessimistic_slower():
    for name in SHARES:
        assert getattr(OPTIMISTIC, name) >= getattr(EXPECTED, name) >= getattr(PESSIMISTIC, name), name
    for name in OVERHEADS:
        assert getattr(OPTIMISTIC, name) <= getattr(EXPECTED, name) <= getattr(PESSIMISTIC, name), name
    for precision, ceiling in EXPECTED.matmul_ceiling.items():
        assert OPTIMISTIC.matmul_ceiling[precision] >= ceiling >= PESSIMISTIC.matmul_ceiling[precision]


def test_no_set_assumes_more_than_the_cap_of_any_peak():
    for eff in (OPTIMISTIC, EXPECTED, PESSIMISTIC):
        assert max(eff.matmul_ceiling.values()) <= SHARE_CAP
        for name in ("memory_bandwidth", "collective_bandwidth", "network_bandwidth"):
            assert getattr(eff, name) <= SHARE_CAP


def test_the_variants_of_a_set_are_itself_and_its_two_moved_ends():
    expected, optimistic, pessimistic = efficiency_variants(EXPECTED)
    assert expected is EXPECTED
    assert (optimistic, pessimistic) == (OPTIMISTIC, PESSIMISTIC)
    assert efficiency_variants(EXPECTED) is efficiency_variants(EXPECTED)  # computed once


def test_moving_by_nothing_changes_nothing():
    still = moved(EXPECTED, RangeMoves(1.0, 1.0, 1.0, 1.0, 1.0))
    for field in fields(EXPECTED):
        assert getattr(still, field.name) == getattr(EXPECTED, field.name), field.name


def test_wider_moves_move_every_factor_further():
    wider = RangeMoves(*(value**2 for value in PESSIMISTIC_MOVES))
    far, near = moved(EXPECTED, wider), moved(EXPECTED, PESSIMISTIC_MOVES)
    assert far.memory_bandwidth < near.memory_bandwidth
    assert far.kernel_floor_s > near.kernel_floor_s
    assert far.compute_scale < near.compute_scale


def test_peaks_are_the_dense_datasheet_figures_not_sparse():
    h100 = GPUS["h100-sxm"]
    assert h100.dense_flops_per_s["bf16"] == pytest.approx(989.4e12, rel=1e-3)  # NVIDIA H100 SXM: 1,979 sparse
    assert h100.sparse_flops_per_s["bf16"] == pytest.approx(2 * h100.dense_flops_per_s["bf16"], rel=0.01)


def test_the_measured_matrix_ceiling_is_a_share_of_the_peak():
    h200 = GPUS["h200"]
    share = matmul_ceiling_share(h200, "bf16")
    assert share == pytest.approx(h200.matmul_ceiling_flops_per_s["bf16"] / h200.dense_flops_per_s["bf16"])
    assert 0.7 < share < 0.9  # H200 microbench 8192^3: 784 of 989 TFLOPS
    unmeasured = next(
        gpu for gpu in GPUS.values() if "bf16" in gpu.dense_flops_per_s and not gpu.matmul_ceiling_flops_per_s
    )
    assert matmul_ceiling_share(unmeasured, next(iter(unmeasured.dense_flops_per_s))) is None


def test_streaming_bandwidth_uses_a_measurement_when_there_is_one():
    h200 = GPUS["h200"]
    assert h200.measured_bandwidth_bytes_per_s is not None
    assert achievable_bandwidth(h200, EXPECTED) == pytest.approx(h200.measured_bandwidth_bytes_per_s)
    unmeasured = next(gpu for gpu in GPUS.values() if gpu.measured_bandwidth_bytes_per_s is None)
    share = achievable_bandwidth(unmeasured, EXPECTED) / unmeasured.memory_bandwidth_bytes_per_s
    assert share == pytest.approx(EXPECTED.memory_bandwidth)


def test_quantised_weights_stream_slower_than_16_bit_ones():
    h100 = GPUS["h100-sxm"]
    plain = achievable_bandwidth(h100, EXPECTED)
    assert achievable_bandwidth(h100, EXPECTED, "int4") == pytest.approx(plain * EXPECTED.dequant_bandwidth)
    assert achievable_bandwidth(h100, EXPECTED, "fp8") == plain


def test_the_range_moves_achievable_bandwidth_the_right_way():
    for gpu in (GPUS["h200"], GPUS["a100-sxm-80gb"]):
        rates = [achievable_bandwidth(gpu, eff) for eff in (OPTIMISTIC, EXPECTED, PESSIMISTIC)]
        assert rates[0] > rates[1] > rates[2]
        assert rates[0] < gpu.memory_bandwidth_bytes_per_s
