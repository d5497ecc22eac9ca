"""The method page's formulas: every one sourced, tied to code, and matching what the code computes."""

import importlib

import pytest

from model import Scenario, default_catalog, estimate
from model.explain import FORMULA_GROUPS, FORMULAS
from model.inference import kv_bytes_per_sequence
from model.memory import training_regime

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


@pytest.mark.parametrize("formula", FORMULAS, ids=lambda f: f.name)
def test_every_formula_has_a_source_a_use_and_an_equation(formula):
    assert formula.source.strip() and formula.used_for.strip() and formula.latex.strip()
    assert formula.group in FORMULA_GROUPS


@pytest.mark.parametrize("formula", FORMULAS, ids=lambda f: f.name)
def test_every_formula_says_its_use_as_a_template_filled_with_its_figures(formula):
    assert formula.used_for == formula.used_for_template.format(**formula.fields)
    assert formula.template or not formula.fields


@pytest.mark.parametrize("formula", FORMULAS, ids=lambda f: f.name)
def test_every_formula_names_code_that_exists(formula):
    assert _resolve(formula.code) is not None


def test_formulas_cover_every_engine_module_and_every_group():
    modules = {".".join(f.code.split(".")[1:3]) if f.code.startswith("model.layouts.") else f.code.split(".")[1]
               for f in FORMULAS}  # fmt: skip
    engine = {"architecture", "batch", "memory", "training", "inference", "communication", "efficiency",
              "layouts.training", "layouts.serving", "precision", "estimate"}  # fmt: skip
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
