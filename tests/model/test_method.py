"""The method page's engine: every formula sourced and tied to code, assumptions that follow the scenario."""

import dataclasses
import importlib

import pytest

from model import Scenario, estimate
from model.catalog import default_catalog
from model.efficiency import EXPECTED, OPTIMISTIC, PESSIMISTIC, Efficiencies
from model.memory import kv_bytes_per_sequence, training_regime
from model.method import FORMULA_GROUPS, FORMULAS, assumptions, range_multipliers

CATALOG = default_catalog()


def _resolve(dotted: str) -> object:
    """Import the longest module prefix of ``dotted`` and walk the rest as attributes."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            target = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for name in parts[cut:]:
            target = getattr(target, name)
        return target
    raise AssertionError(f"{dotted} does not resolve")


def _rows(scenario: Scenario) -> dict[str, tuple[str, str]]:
    return {row.name: (row.value, row.note) for row in assumptions(scenario, CATALOG)}


@pytest.mark.parametrize("formula", FORMULAS, ids=lambda f: f.name)
def test_every_formula_has_a_source_a_use_and_an_equation(formula):
    assert formula.source.strip() and formula.used_for.strip() and formula.latex.strip()
    assert formula.group in FORMULA_GROUPS


@pytest.mark.parametrize("formula", FORMULAS, ids=lambda f: f.name)
def test_every_formula_names_code_that_exists(formula):
    assert _resolve(formula.code) is not None


def test_formulas_cover_every_engine_module_and_every_group():
    modules = {f.code.split(".")[1] for f in FORMULAS}
    engine = {"architecture", "memory", "training", "inference", "communication", "efficiency", "parallelism",
              "hardware", "estimate", "scenario"}  # fmt: skip
    assert engine <= modules
    assert {f.group for f in FORMULAS} == set(FORMULA_GROUPS)
    assert len({f.name for f in FORMULAS}) == len(FORMULAS)


def test_the_training_state_formula_is_the_16_bytes_the_engine_uses():
    # ZeRO paper sec. 3.1: mixed-precision Adam keeps 2 + 2 + 12 = 16 bytes per parameter.
    regime = training_regime(CATALOG.models["llama-3.1-8b"].architecture, "bf16", "adamw", "none", 16, True)
    assert regime.weight_bytes + regime.grad_bytes + regime.optimizer_bytes == 16
    formula = next(f for f in FORMULAS if f.name == "Training states and ZeRO")
    assert "16 bytes" in formula.used_for and "12" in formula.latex


def test_the_kv_cache_formula_matches_the_code_for_llama_3_1_70b():
    # Llama 3.1 70B (config.json): 80 layers, 8 KV heads of 128: 2*80*8*128*2 B = 320 KiB per token in bf16.
    arch = CATALOG.models["llama-3.1-70b"].architecture
    per_token = 2 * 80 * 8 * 128 * 2
    assert per_token == 320 * 1024
    # c * 2 L n_kv d * b / (min(t, n_kv) p): TP 8 splits the 8 KV heads, TP 16 cannot split further.
    assert kv_bytes_per_sequence(arch, 4096, "bf16", tp=1, pp=1) == pytest.approx(4096 * per_token)
    assert kv_bytes_per_sequence(arch, 4096, "bf16", tp=8, pp=1) == pytest.approx(4096 * per_token / 8)
    assert kv_bytes_per_sequence(arch, 4096, "bf16", tp=16, pp=2) == pytest.approx(4096 * per_token / (8 * 2))


def test_the_decode_roofline_at_batch_one_is_bytes_over_bandwidth():
    # The seeds' rule: time per token = bytes read / memory bandwidth (memory-bound at batch 1).
    result = estimate(Scenario(model="llama-3.1-8b", gpu="h100-sxm", cards=1, batch=1), CATALOG)
    stats = result.resolved.arch.stats
    weights = 2.0 * stats.dense_matmul_params
    assert result.inference.tpot_roofline_s * 3.35e12 == pytest.approx(weights, rel=0.02)


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


def test_the_price_row_carries_its_date_and_source_or_says_none_is_known():
    priced = _rows(Scenario(gpu="h100-sxm"))
    gpu = CATALOG.gpus["h100-sxm"]
    assert priced["GPU price"][0] == f"${gpu.cloud_usd_per_gpu_hour:,.2f} per GPU-hour"
    assert gpu.cloud_price_date in priced["GPU price"][1]
    assert _rows(Scenario(gpu="h20"))["GPU price"][0] == "none known"


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
