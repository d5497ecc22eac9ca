"""The Plan page: targets from the link, the CLI's answer, and an option loaded into the sidebar."""

import json

import pytest

from model.cli import main
from tests.app.conftest import open_page


def test_the_plan_page_shows_the_cheapest_option_the_cli_finds(capsys):
    at = open_page("plan", model="llama-3.1-8b", plan_tps="20000", plan_tpot="40")
    assert not at.exception
    main(["plan", "serve", "--model", "llama-3.1-8b", "--output-tokens-per-s", "20000", "--tpot-ms", "40", "--json"])
    best = json.loads(capsys.readouterr().out)["options"][0]
    table = at.dataframe[0].value
    assert table.iloc[0]["tokens/s"] == round(best["decode_tokens_per_s"])
    assert f"× {best['cards']:,}" in table.iloc[0]["option"]
    assert "Cheapest" in at.markdown[0].value or any("Cheapest" in m.value for m in at.markdown)


def test_loading_an_option_puts_it_in_the_sidebar_scenario():
    at = open_page("plan", model="llama-3.1-8b", plan_goal="train", plan_days="20", tokens="2e11")
    assert not at.exception
    at.button(key="plan_load_0").click().run()
    assert not at.exception
    table = at.dataframe[0].value
    gpu, cards = at.session_state["gpu"], at.session_state["cards"]
    assert f"× {cards:,}" in table.iloc[0]["option"]
    assert at.query_params["gpu"] == gpu and at.session_state["goal"] == "pretrain"


def test_an_impossible_target_lists_every_gpu_with_a_reason():
    at = open_page("plan", model="llama-3.1-405b", plan_tps="1e9", plan_tpot="0.01")
    assert not at.exception
    assert any("No GPU in the catalog meets" in m.value for m in at.markdown)
    assert at.expander and "Why not" in at.expander[0].label


def test_the_plan_weighs_every_format_the_link_names_and_matches_the_cli(capsys):
    # 500 tokens/s at 20 ms per token: some GPU meets it in one format only, so the union matters.
    at = open_page("plan", model="llama-3.1-70b", plan_tps="500", plan_tpot="20", plan_prec="bf16,fp8")
    assert not at.exception
    assert at.multiselect(key="plan_prec").value == ["bf16", "fp8"]

    def plan(precisions):
        main([
            "plan", "serve", "--model", "llama-3.1-70b", "--output-tokens-per-s", "500", "--tpot-ms", "20",
            "--precision", precisions, "--json",
        ])  # fmt: skip
        return json.loads(capsys.readouterr().out)["options"]

    options = plan("bf16,fp8")
    # Both formats are weighed: each GPU's option is the cheaper of its bf16 and fp8 ones.
    alone = {precision: {o["gpu"]: o["cost_per_hour_usd"] for o in plan(precision)} for precision in ("bf16", "fp8")}
    assert set(alone["bf16"]) ^ set(alone["fp8"])
    assert {o["gpu"] for o in options} == set(alone["bf16"]) | set(alone["fp8"])
    for option in options:
        costs = [alone[p][option["gpu"]] for p in alone if option["gpu"] in alone[p]]
        assert option["cost_per_hour_usd"] == pytest.approx(min(costs))
    table = at.dataframe[0].value
    assert table.iloc[0]["tokens/s"] == round(options[0]["decode_tokens_per_s"])
    assert options[0]["precision"] in table.iloc[0]["option"]
    at.multiselect(key="plan_prec").set_value([]).run()  # none chosen: the sidebar's precision alone
    assert not at.exception and "plan_prec" not in at.query_params
