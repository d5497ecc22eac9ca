"""What a GPU delivers in a precision: the format the products run in, peaks, achievable bandwidth."""

import pytest

from model import default_catalog
from model.efficiency import EXPECTED, OPTIMISTIC, PESSIMISTIC
from model.hardware import achievable_bandwidth, compute_precision, matmul_ceiling_share

CATALOG = default_catalog()
GPUS = CATALOG.gpus


@pytest.mark.parametrize(
    ("gpu", "precision", "key", "warns"),
    [
        ("h100-sxm", "fp8", "fp8", False),
        ("a100-sxm-80gb", "fp8", "bf16", True),  # no FP8 before Hopper/Ada
        ("h100-sxm", "fp4", "bf16", True),  # no FP4 before Blackwell
        ("b200", "fp4", "fp4", False),
        ("v100-sxm-32gb", "bf16", "fp16", True),  # Volta has no bf16 tensor cores
        ("h100-sxm", "int4", "bf16", False),  # weight-only: dequantised to 16-bit by design
        ("h100-sxm", "int8", "bf16", False),
    ],
)
def test_products_run_in_the_nearest_format_the_chip_has(gpu, precision, key, warns):
    chosen, note = compute_precision(GPUS[gpu], precision)
    assert chosen == key
    assert (note is not None) == warns
    if note:
        assert precision in note and key in note


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
