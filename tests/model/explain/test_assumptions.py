"""The assumptions in force for a scenario: they follow the scenario, and the ranges move the right way."""

import dataclasses

from model import Scenario, default_catalog
from model.efficiency import EXPECTED, OPTIMISTIC, PESSIMISTIC, Efficiencies
from model.explain import ASSUMPTION_TEXTS, assumptions, range_multipliers

CATALOG = default_catalog()


def _rows(scenario: Scenario) -> dict[str, tuple[str, str]]:
    return {row.name: (row.value, row.note) for row in assumptions(scenario, CATALOG)}


def test_fp8_on_h100_runs_natively_and_falls_back_to_16_bit_on_a100():
    h100 = _rows(Scenario(precision="fp8", gpu="h100-sxm"))
    a100 = _rows(Scenario(precision="fp8", gpu="a100-sxm-80gb"))
    assert h100["Compute precision"][0] == "fp8"
    assert a100["Compute precision"][0] == "fp8 → products in bf16"
    assert "no fp8 tensor cores" in a100["Compute precision"][1]
    assert h100["Dense peak"] != a100["Dense peak"]


def test_weight_only_int4_says_it_computes_in_16_bit():
    rows = _rows(Scenario(precision="int4"))
    assert rows["Compute precision"][0] == "int4 → products in bf16"
    assert "dequantised" in rows["Compute precision"][1]


def test_tokens_say_when_they_were_defaulted_to_chinchilla():
    defaulted = _rows(Scenario(model="llama-3.1-8b"))
    given = _rows(Scenario(model="llama-3.1-8b", tokens=15e12))
    assert "20 per parameter" in defaulted["Tokens trained"][1]
    assert given["Tokens trained"] == ("15T", "given")


def test_the_price_row_carries_its_date_and_source_or_says_how_it_was_estimated():
    priced = _rows(Scenario(gpu="h100-sxm"))
    gpu = CATALOG.gpus["h100-sxm"]
    assert priced["GPU price"][0] == f"${gpu.cloud_usd_per_gpu_hour:,.2f} per GPU-hour"
    assert gpu.cloud_price_date in priced["GPU price"][1]
    h20 = CATALOG.gpus["h20"]
    assert h20.cloud_usd_per_gpu_hour is None  # no published rental rate: estimated from its purchase price
    estimated = _rows(Scenario(gpu="h20"))["GPU price"]
    assert estimated[0].endswith("per GPU-hour") and "purchase" in estimated[1]
    assert _rows(Scenario(gpu="h20", price_per_gpu_hour=2.0))["GPU price"] == ("$2.00 per GPU-hour", "given")


def test_the_layouts_follow_the_cards():
    small = _rows(Scenario(model="llama-3.1-70b", cards=8))
    large = _rows(Scenario(model="llama-3.1-70b", cards=64))
    assert small["Training layout"] != large["Training layout"]
    assert small["Serving replica"] != large["Serving replica"]


def test_a_measured_bandwidth_is_used_where_the_catalog_has_one():
    h200 = _rows(Scenario(gpu="h200"))["Memory bandwidth"]
    h100 = _rows(Scenario(gpu="h100-sxm"))["Memory bandwidth"]
    assert h200[1] == "Measured in the catalog" and h200[0].startswith("4,254 of 4,800")
    assert "85%" in h100[1]


def test_every_expected_efficiency_is_listed_with_its_value():
    rows = [row for row in assumptions(Scenario(), CATALOG) if row.kind == "efficiency"]
    assert len(rows) == len(dataclasses.fields(Efficiencies))
    assert any(row.value == f"{EXPECTED.tp_overlap:g}" for row in rows)


def test_the_range_sets_move_every_family_the_right_way():
    optimistic, pessimistic = range_multipliers(OPTIMISTIC), range_multipliers(PESSIMISTIC)
    for family in ("compute", "memory", "links", "overlap"):
        assert optimistic[family] > 1 > pessimistic[family]
    assert optimistic["overheads"] < 1 < pessimistic["overheads"]
    ranges = [row for row in assumptions(Scenario(), CATALOG) if row.kind == "range"]
    assert [row.name for row in ranges] == ["Optimistic set", "Pessimistic set"]


def test_each_value_and_note_is_its_template_filled_so_an_interface_can_translate_it():
    scenarios = [
        Scenario(),
        Scenario(precision="fp8", gpu="a100-sxm-80gb"),
        Scenario(precision="int4", finetune="lora"),
        Scenario(gpu="h20"),
        Scenario(gpu="h20", price_per_gpu_hour=2.0),
        Scenario(model="deepseek-v3", cards=256, precision="fp8"),
        Scenario(model="llama-3.1-405b", cards=1024, recompute="full"),
    ]
    for scenario in scenarios:
        for row in assumptions(scenario, CATALOG):
            assert row.value == row.value_template.format(**row.fields), row
            assert row.note == row.note_template.format(**row.fields), row
            assert row.kind == "efficiency" or row.name in ASSUMPTION_TEXTS, row.name
