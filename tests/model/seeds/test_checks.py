"""The seed claims beside the engine: computed, not stored, and judged by one rule."""

import dataclasses
import math
from types import MappingProxyType

import pytest

from model import Catalog, default_catalog
from model.seeds import APPROXIMATE_TOLERANCE, PARTLY_FACTOR, SEED_CLAIMS, VERDICTS, check_claims, verdict

CATALOG = default_catalog()
CHECKS = {check.claim.id: check for check in check_claims(CATALOG)}


def _with_gpu(gpu_id: str, **changes) -> Catalog:
    """Return the default catalog with one GPU row changed (a new object: nothing cached)."""
    gpus = dict(CATALOG.gpus)
    gpus[gpu_id] = dataclasses.replace(gpus[gpu_id], **changes)
    return dataclasses.replace(CATALOG, gpus=MappingProxyType(gpus))


def test_every_claim_gets_one_row_in_order():
    rows = check_claims(CATALOG)
    assert [row.claim.id for row in rows] == [claim.id for claim in SEED_CLAIMS]


@pytest.mark.parametrize("claim_id", list(CHECKS))
def test_each_row_has_a_computed_engine_value_a_verdict_and_its_assumptions(claim_id):
    row = CHECKS[claim_id]
    assert math.isfinite(row.engine_value) and row.engine_value > 0
    assert row.verdict in VERDICTS
    assert row.engine and len(row.assumptions) > 20


def test_deepseek_r1_on_h20_lands_within_5_percent_of_the_seeds_9_ms():
    # docs/seeds/ai-infra-gpu-centric.zh.txt 1.2: 37B x 1 byte / 4,000 GB/s ~ 9 ms/token.
    row = CHECKS["rule-h20-9ms"]
    assert row.engine_value == pytest.approx(9.0, rel=0.05)
    assert row.verdict == "consistent"


def test_deepseek_r1_on_a_64_gb_per_second_cpu_lands_within_5_percent_of_578_ms():
    # docs/seeds/ai-infra-gpu-centric.zh.txt 1.2: 37B x 1 byte / 64 GB/s ~ 578 ms/token.
    row = CHECKS["rule-cpu-578ms"]
    assert row.engine_value == pytest.approx(578.0, rel=0.05)
    assert CHECKS["rule-64x"].engine_value == pytest.approx(4000 / 64, rel=0.01)


def test_engine_values_are_computed_from_the_catalog_not_stored():
    h20 = CATALOG.gpus["h20"]
    slower = check_claims(_with_gpu("h20", memory_bandwidth_bytes_per_s=h20.memory_bandwidth_bytes_per_s / 2))
    assert {r.claim.id: r for r in slower}["rule-h20-9ms"].engine_value == pytest.approx(
        2 * CHECKS["rule-h20-9ms"].engine_value, rel=0.01
    )
    cheaper = check_claims(_with_gpu("h100-sxm", purchase_usd=20_000.0, cloud_usd_per_gpu_hour=1.0))
    by_id = {r.claim.id: r for r in cheaper}
    assert by_id["server-8x-h100"].engine_value == pytest.approx(160_000)
    assert by_id["cost-70b"].engine_value < CHECKS["cost-70b"].engine_value
    assert by_id["self-hosted-70b"].engine_value < CHECKS["self-hosted-70b"].engine_value


def test_a_catalog_row_missing_a_figure_gives_an_unchecked_row_not_an_error():
    h100 = CATALOG.gpus["h100-sxm"]
    rows = check_claims(
        _with_gpu("h100-sxm", dense_flops_per_s=MappingProxyType({"bf16": h100.dense_flops_per_s["bf16"]}))
    )
    tensor = {r.claim.id: r for r in rows}["tensor-cores-8x"]
    assert tensor.engine == "n/a" and tensor.assumptions.startswith("Not checked")
    assert len(rows) == len(SEED_CLAIMS)


def test_the_verdict_rule():
    assert verdict((10, 10), (10.1, 10.1), 0.02) == "consistent"
    assert verdict((10, 10), (8, 12), 0.0) == "consistent"  # the claim lies in the engine's range
    assert verdict((10, 10), (13, 13), 0.0) == "partly"
    assert verdict((10, 10), (10 * PARTLY_FACTOR * 1.01, 16), 0.0) == "contradicts"
    assert verdict((10, 10), (5, 5), 0.0) == "contradicts"
    assert verdict((10, 10), (11.4, 11.4), APPROXIMATE_TOLERANCE) == "consistent"
    assert verdict((2000, math.inf), (2250, 2250), 0.02) == "consistent"
    assert verdict((1, 1), (math.nan, math.nan), 0.0) == "contradicts"


@pytest.mark.parametrize(
    ("claim_id", "expected"),
    [
        # docs/reference/gpu_specs_notes.md sec. 4: rows 2-4 right, 5 partly wrong, 6d consistent, 6e not supported,
        # 7 consistent, 9 misleading (7.4x like-for-like, 15x BF16 vs FP32), 10 roughly right (7-14x).
        ("gen-a100", "consistent"),
        ("gen-h100", "consistent"),
        ("gen-h200", "consistent"),
        ("gen-blackwell", "partly"),
        ("price-h100", "consistent"),
        ("h20-specs", "consistent"),
        ("tensor-cores-8x", "partly"),
        ("nvlink-10x-pcie", "consistent"),
    ],
)
def test_hardware_verdicts_agree_with_the_reference_notes(claim_id, expected):
    assert CHECKS[claim_id].verdict == expected


def test_b200_at_60k_is_not_supported_by_the_catalog():
    # docs/reference/gpu_specs_notes.md 6e: Jensen Huang said $30-40k per Blackwell GPU.
    assert CHECKS["price-b200"].verdict != "consistent"


def test_training_a_7b_model_does_not_fit_80_gb_with_full_adamw_but_does_with_8_bit_adam():
    # 16 bytes per parameter (ZeRO paper sec. 3.1) x 6.7B = 108 GB before activations.
    row = CHECKS["vram-7b-training"]
    assert row.engine_value > 100 and row.verdict == "contradicts"
    assert "8-bit Adam" in row.assumptions and "fits)" in row.assumptions


def test_gpt3_takes_about_34_days_on_1024_a100s():
    # Narayanan et al. 2021 sec. 5.1: 34 days for 175B on 300B tokens with 1,024 A100s.
    row = CHECKS["gpt3-34-days"]
    assert row.verdict == "consistent"
    assert 20 < row.engine_value < 45


def test_350_years_matches_one_v100_not_one_cpu():
    # Lambda Labs 2020: 355 GPU-years on one V100; a 4 TFLOPS CPU is ~30x slower than a V100's tensor cores.
    row = CHECKS["gpt3-350-years-cpu"]
    assert row.verdict == "contradicts" and row.engine_value > 3000
    assert "V100" in row.assumptions


def test_training_cost_rows_state_their_reference_setup():
    for claim_id in ("cost-7b", "cost-70b", "cost-1t"):
        text = CHECKS[claim_id].assumptions
        assert "20 tokens per parameter" in text and "1,024 × NVIDIA H100" in text and "per GPU-hour" in text
    assert CHECKS["cost-70b"].verdict == "consistent"


def test_api_prices_come_from_the_catalog_and_name_later_changes():
    gpt = CHECKS["api-gpt-4o"]
    assert gpt.engine_value == 15.0 and gpt.verdict == "partly"  # cut to $2.50/$10 on 2024-08-06
    assert "2024-08-06" in gpt.assumptions
    assert CHECKS["api-claude-3-5"].verdict == "consistent"
