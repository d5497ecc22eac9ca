"""Numeric formats: bytes per element, the 16-bit parts of quantised weights, the format a chip runs products in."""

import pytest

from model import default_catalog, default_kv_precision
from model.architecture import Architecture
from model.precision import bytes_per_element, compute_precision
from model.precision.formats import weight_breakdown

GPUS = default_catalog().gpus


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


def test_block_scaled_four_bit_formats_carry_their_scales():
    # llama.cpp Q4_0: 32 weights in 18 bytes; NVFP4: one FP8 scale per 16 values: 4.5 bits each.
    assert bytes_per_element("int4") == bytes_per_element("fp4") == pytest.approx(18 / 32)
    assert bytes_per_element("bf16") == 2 and bytes_per_element("fp8") == 1


def test_weight_only_formats_keep_the_embedding_and_head_in_16_bit():
    arch = Architecture(layers=4, hidden=1024, heads=8, kv_heads=8, ffn=4096, vocab=32_000)
    outside = arch.stats.embedding_and_head_params
    inside = arch.stats.total_params - outside
    assert weight_breakdown(arch, "int4").total == pytest.approx(inside * 18 / 32 + outside * 2)
    assert weight_breakdown(arch, "fp8").total == pytest.approx(arch.stats.total_params)  # fp8 quantises everything


def test_fp8_checkpoints_get_an_fp8_cache_and_weight_only_ones_a_16_bit_cache():
    assert [default_kv_precision(p) for p in ("fp8", "fp4", "int4", "int8", "bf16", "fp32")] == [
        "fp8", "fp8", "bf16", "bf16", "bf16", "fp32",
    ]  # fmt: skip
