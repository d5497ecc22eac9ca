import pytest

from app_pages.method.rows import VERDICT_LABELS
from model.explain import FORMULAS
from model.seeds import SEED_CLAIMS
from tests.app.conftest import open_page, sidebar_moves


def _assumptions(at) -> dict[str, str]:
    """Return the scenario assumptions table as name -> value."""
    table = at.table[0].value
    return dict(zip(table["Assumption"], table["Value"], strict=True))


def test_method_page_shows_assumptions_first_then_formulas_and_seed_claims_on_demand():
    at = open_page("method")
    assert at.segmented_control(key="method_view").value == "assumptions"
    assert "Compute precision" in _assumptions(at)
    assert any("Measured accuracy" in info.value and "Validation page" in info.value for info in at.info)
    assert any("How the low–high ranges are made" in block.value for block in at.markdown)
    at.segmented_control(key="method_view").set_value("formulas").run()
    equations = sum(block.value.count("$$") // 2 for block in at.markdown)
    assert equations == len(FORMULAS)
    at.segmented_control(key="method_view").set_value("claims").run()
    claims = [table.value for table in at.table]
    assert sum(len(table) for table in claims) == len(SEED_CLAIMS)
    assert {verdict for table in claims for verdict in table["Verdict"]} <= set(VERDICT_LABELS.values())


def test_a_shared_link_opens_the_method_section_it_names():
    at = open_page("method", method_view="claims")
    assert at.segmented_control(key="method_view").value == "claims"
    assert len(at.table) >= 5


@pytest.mark.parametrize(
    ("kind", "key", "value"),
    sidebar_moves("llama-3.1-70b"),
)
def test_each_sidebar_control_changes_the_assumptions_table(kind, key, value):
    at = open_page("method", model="llama-3.1-8b", cards="64")
    before = _assumptions(at)
    getattr(at, kind)(key=key).set_value(value).run()
    assert not at.exception
    assert _assumptions(at) != before, f"moving {key} changed nothing"


def test_changing_the_gpu_changes_the_peak_and_shows_the_fp8_fallback():
    at = open_page("method", precision="fp8")
    assert _assumptions(at)["Compute precision"] == "fp8"
    at.selectbox(key="gpu").set_value("a100-sxm-80gb").run()
    rows = _assumptions(at)
    assert rows["Compute precision"] == "fp8 → products in bf16"
    assert rows["Dense peak"] == "312.0 TFLOPS (bf16)"


def test_a_shared_link_restores_the_scenario_the_assumptions_describe():
    at = open_page("method", model="llama-3.1-70b", gpu="h200", cards="64")
    assert at.selectbox(key="gpu").value == "h200"
    rows = _assumptions(at)
    assert rows["Memory bandwidth"].startswith("4,254 of 4,800")
    assert any("Llama 3.1 70B on 64 × NVIDIA H200" in caption.value for caption in at.caption)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_shared_rules_state_the_serving_budget_and_reserve_with_the_engines_figures(lang):
    from model import default_catalog, serving_capacity

    at = open_page("method", method_view="rules", gpu="rtx-4090", lang=lang)
    text = "\n".join(block.value for block in at.markdown)
    card = default_catalog().gpus["rtx-4090"].capacity_bytes
    budget, reserve = serving_capacity(card), card - serving_capacity(card)
    for figure in (f"{budget / 1e9:,.1f} GB", f"{card / 1e9:,.1f} GB", f"{reserve / 1e9:,.1f} GB", "90%"):
        assert figure in text, figure
    assert ("tp × pp × dp" in text) and ("⌈N ÷" in text)
    # A desk runner's budget is its own: llama.cpp keeps its --fit-target margin, 1024 MiB, free.
    desk = default_catalog().stacks["llamacpp"].serving_budget.reserve_bytes
    assert f"{desk / 1e9:,.1f} GB" in text and "--fit-target" in text
