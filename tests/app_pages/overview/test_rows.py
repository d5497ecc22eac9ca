"""The Overview's shaping: the seeds' comparison on the scenario's own cards, and why full load can trail one user."""

from app_pages.overview.charts import token_time_chart
from app_pages.overview.rows import (
    full_load_help,
    full_load_shortfall,
    replica_label,
    token_time_heading,
    token_time_notes,
    token_time_rows,
)
from model import Scenario, default_catalog
from model.analyses.compare import cpu_versus_gpu, serving_pair
from ui.format import milliseconds

CATALOG = default_catalog()
DEEPSEEK_ON_H20 = Scenario(model="deepseek-r1", gpu="h20", cards=8, precision="fp8")
CPU_MEMORY = CATALOG.gpus["cpu-server"].memory_bytes


def test_the_chart_rows_are_the_scenarios_replica_at_the_one_user_figure_and_the_cpu():
    comparison = cpu_versus_gpu(DEEPSEEK_ON_H20, CATALOG)
    one, _ = serving_pair(DEEPSEEK_ON_H20, CATALOG)
    label = replica_label(comparison.replica_cards, "NVIDIA H20 96GB")
    assert label == "8 × NVIDIA H20 96GB"
    rows = token_time_rows(comparison, label, "Server CPU")
    gpu = {row["kind"]: row["ms"] for row in rows if row["label"] == label}
    assert gpu == {"ideal": one.inference.tpot_roofline_s * 1e3, "expected": one.inference.tpot_s * 1e3}
    assert [row["label"] for row in rows] == [label, label, "Server CPU", "Server CPU"]
    assert token_time_chart(rows=rows).to_dict()["layer"][0]["encoding"]["x"]["title"] == "ms per token, one user"


def test_where_one_card_cannot_hold_the_model_the_seeds_figure_is_called_the_one_card_roofline():
    # Issue 29: the metric said 12.1 ms on 8 cards, the chart beside it 9.2 ms on one H20 that cannot hold R1.
    comparison = cpu_versus_gpu(DEEPSEEK_ON_H20, CATALOG)
    label = replica_label(comparison.replica_cards, "H20")
    notes = token_time_notes(comparison, "H20", label, "DeepSeek-R1", CPU_MEMORY)
    seeds = notes[0]
    assert "roofline of one H20" in seeds and "cannot hold DeepSeek-R1" in seeds
    assert milliseconds(comparison.one_card_ideal_s) == "9.2 ms" and "9.2 ms" in seeds
    assert milliseconds(comparison.gpu_expected_s) in seeds  # the page's "per token, 1 user"
    assert "8 × H20" in token_time_heading(comparison, label)


def test_a_replica_that_cannot_serve_has_no_bars_and_says_why():
    comparison = cpu_versus_gpu(Scenario(model="llama-3.1-70b", gpu="rtx-4090", cards=2, precision="int4"), CATALOG)
    label = replica_label(comparison.replica_cards, "RTX 4090")
    assert {row["label"] for row in token_time_rows(comparison, label, "Server CPU")} == {"Server CPU"}
    assert "×** faster" not in token_time_heading(comparison, label)
    assert "does not fit on 2 × RTX 4090" in token_time_notes(comparison, "RTX 4090", label, "70B", CPU_MEMORY)[0]


def test_one_card_that_holds_the_model_needs_no_roofline_note():
    comparison = cpu_versus_gpu(Scenario(model="llama-3.1-8b", gpu="h100-sxm", cards=1), CATALOG)
    assert comparison.one_card_fits and comparison.cpu_fits
    assert token_time_notes(comparison, "H100", replica_label(1, "H100"), "Llama 3.1 8B", CPU_MEMORY) == []


def test_full_load_below_one_user_says_it_runs_one_sequence_at_a_time_with_each_prefill():
    # Llama 3.1 8B on one RTX 4090 with a 20k-token prompt: only one sequence fits (DESIGN.md 6).
    one, full = serving_pair(Scenario(model="llama-3.1-8b", gpu="rtx-4090", cards=1, prompt_len=20_000), CATALOG)
    single, loaded = one.inference, full.inference
    assert loaded.fits and loaded.max_batch == loaded.batch == 1
    assert loaded.decode_tokens_per_s < single.decode_tokens_per_s_per_user
    why = full_load_shortfall(single, loaded)
    assert "one sequence fits" in why and "prefill" in why and milliseconds(loaded.ttft_s, 0) in why
    assert "batch 1 on each replica (tp 1 × pp 1)" in full_load_help(loaded)


def test_full_load_above_one_user_needs_no_explanation():
    one, full = serving_pair(Scenario(model="llama-3.1-8b", gpu="h100-sxm", cards=8), CATALOG)
    assert full.inference.decode_tokens_per_s > one.inference.decode_tokens_per_s_per_user
    assert full_load_shortfall(one.inference, full.inference) == ""


def test_the_seeds_laptop_sits_beside_the_cards_only_when_it_holds_the_model():
    # Issue 32: the seeds' M3 Pro laptop (36 GB, 150 GB/s) beside the scenario's cards and the server CPU.
    small = cpu_versus_gpu(Scenario(model="llama-3.1-8b", gpu="rtx-4090", cards=1), CATALOG)
    assert small.laptop_expected_s is not None and small.laptop_ideal_s is not None
    rows = token_time_rows(small, "1 × RTX 4090", "Server CPU", "M3 Pro laptop")
    assert [row["label"] for row in rows] == ["1 × RTX 4090"] * 2 + ["M3 Pro laptop"] * 2 + ["Server CPU"] * 2
    # Bytes over bandwidth: the laptop's 150 GB/s sits between a 4090's ~1 TB/s and the CPU's 64 GB/s.
    assert small.gpu_expected_s < small.laptop_expected_s < small.cpu_expected_s
    big = cpu_versus_gpu(Scenario(model="llama-3.1-70b", gpu="h100-sxm", cards=8), CATALOG)
    assert big.laptop_expected_s is None  # 141 GB of weights in 36 GB: no number for what cannot run
    assert "M3 Pro laptop" not in {row["label"] for row in token_time_rows(big, "8 × H100", "CPU", "M3 Pro laptop")}
