"""The decode step's matrix-product rule against products timed on an H200.

data/h200_decode_products.jsonl holds 700 products (Llama 3.1 8B, 70B and 405B layers as tensor
parallelism 1 to 8 shards them, 1 to 4,096 rows, bf16 and fp8; python3 -m
benchmarks.gpu_decode_products on one H200, 2026-12-04). The engine charges each decode product
max(weight bytes / achievable bandwidth, FLOPs / the largest product's rate) plus one kernel's
floor, with no tile-size penalty (model.inference.context.serving_rates): these rows check that
rule at every batch, so a change to it (a shape penalty on decode, a bandwidth share) shows here.
"""

import json
import statistics
from pathlib import Path

import pytest

from model import Scenario, default_catalog, estimate
from model.efficiency import EXPECTED
from model.inference import serving_context, serving_rates

ROWS = [
    row
    for row in map(json.loads, (Path(__file__).parents[2] / "data" / "h200_decode_products.jsonl").open())
    if row["kind"] == "decode_product"
]


def _rates(precision: str):
    full = estimate(Scenario(model="llama-3.1-8b", gpu="h200", cards=1, precision=precision), default_catalog())
    r, inference = full.resolved, full.inference
    ctx = serving_context(r, tp=1, pp=1, compute_key=inference.compute_precision)
    return serving_rates(r, ctx, EXPECTED)


def _ratio(row: dict, rates) -> float:
    flops = 2.0 * row["m"] * row["k"] * row["n"]
    predicted = max(row["weight_bytes"] / rates.weight_bandwidth, flops / rates.decode_flops_per_s)
    return row["seconds"] / (predicted + EXPECTED.kernel_floor_s)


def test_the_measured_set_covers_decode_and_full_load_batches():
    assert len(ROWS) == 700
    assert {row["prec"] for row in ROWS} == {"bf16", "fp8"}
    assert {row["tp"] for row in ROWS} == {1, 2, 4, 8}
    assert min(row["m"] for row in ROWS) == 1 and max(row["m"] for row in ROWS) == 4096


@pytest.mark.parametrize("precision", ["bf16", "fp8"])
def test_decode_products_follow_the_roofline_plus_a_kernel_floor_at_every_batch(precision):
    rates = _rates(precision)
    by_rows: dict[int, list[float]] = {}
    for row in ROWS:
        if row["prec"] == precision:
            by_rows.setdefault(row["m"], []).append(_ratio(row, rates))
    medians = {m: statistics.median(ratios) for m, ratios in by_rows.items()}
    # Within 20 % at each batch, memory-bound (1-64 rows) through compute-bound (1,024 and more).
    assert all(0.8 <= median <= 1.2 for median in medians.values()), medians
    assert 0.9 <= statistics.median(_ratio(row, rates) for row in ROWS if row["prec"] == precision) <= 1.1
