"""The seed's generations table beside the catalog: V100 to B200, and how the main line grew."""

import pytest

from model import default_catalog
from model.analyses.generations import GENERATION_IDS, generation_growth, generations

CATALOG = default_catalog()


def test_generations_run_from_v100_to_b200_in_year_order_with_catalog_figures():
    rows = generations(CATALOG)
    assert {row.gpu_id for row in rows} == set(GENERATION_IDS)
    years = [row.year for row in rows]
    assert years == sorted(years) and rows[0].gpu_id == "v100-sxm-32gb" and rows[-1].gpu_id == "b200"
    for row in rows:
        gpu = CATALOG.gpus[row.gpu_id]
        assert row.memory_bytes == gpu.memory_bytes
        assert row.memory_bandwidth_bytes_per_s == gpu.memory_bandwidth_bytes_per_s
        assert row.dense_flops_per_s == gpu.dense_flops_per_s[row.flops_format]
    assert rows[0].flops_format == "fp16"  # Volta has no bf16 tensor cores


def test_the_seed_table_is_right_up_to_h200_and_off_for_b100_and_b200_memory():
    # docs/reference/gpu_specs_notes.md sec. 4: V100/A100/H100/H200 right; B100 is 1,750 dense (< 2000); NVIDIA now
    # lists 180 GB for HGX B200, not the 192 GB of the 2024 announcement.
    rows = {row.gpu_id: row for row in generations(CATALOG)}
    for gpu_id in ("v100-sxm-32gb", "a100-sxm-40gb", "a100-sxm-80gb", "h100-sxm", "h200"):
        assert rows[gpu_id].year_matches and rows[gpu_id].memory_matches and rows[gpu_id].flops_matches
    assert not rows["b100"].flops_matches and rows["b100"].memory_matches
    assert not rows["b200"].memory_matches and rows["b200"].flops_matches


def test_compute_outgrew_memory_from_v100_to_b200_as_the_seed_says():
    growth = generation_growth(generations(CATALOG))
    assert growth is not None and (growth.first, growth.last) == ("V100", "B200")
    assert growth.flops_ratio == pytest.approx(2250 / 125)
    assert growth.flops_ratio > growth.bandwidth_ratio > growth.memory_ratio > 1
    assert next(step[:2] for step in growth.steps) == ("V100", "A100 80GB")
