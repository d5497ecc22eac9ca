"""The engine against published measurements (issue 4): bounds, mapping, report, nearest."""

import json
import math
import subprocess
import sys

import pytest
import yaml

from model import Scenario, default_catalog, estimate
from model.catalog import DATA_DIR
from model.validation import CLASSES, KINDS, load_references, nearest, validate
from model.validation.reference import SERVING_KINDS, TRAINING_KINDS
from model.validation.report import format_report
from model.validation.validate import predict

CATALOG = default_catalog()
REPORT = validate(CATALOG, unsaid=True)


def test_every_published_measurement_is_scored_or_says_why_not():
    # Issue 4: "an entry that cannot be mapped says why instead of being dropped silently".
    with (DATA_DIR / "published_measurements.yaml").open(encoding="utf-8") as handle:
        published = {row["id"] for row in yaml.safe_load(handle)}
    scored = {row.reference.id for row in REPORT.rows}
    unmapped = {ref.id for ref in REPORT.unmapped}
    assert scored | unmapped == published
    assert not scored & unmapped
    assert all(len(ref.unmapped) > 20 for ref in REPORT.unmapped)


def test_each_kind_has_measurements_and_each_row_states_its_assumptions():
    for kind in KINDS:
        assert sum(row.reference.kind == kind for row in REPORT.rows) >= 5, kind
    assert all(row.reference.assumptions for row in REPORT.rows)


DESK_BOUND = 0.12
"""Issue 33's desk runs (llama.cpp, MLC, ExLlamaV2, vLLM at batch 1) were first seen at 26.9 %
median, the engine about a quarter too slow; with each stack's profile (data/stacks.yaml) they are
7.3 % (docs/METHOD.md, "Software stacks"). A regression past 12 % fails, and so does any desk
runner's own median past it."""


def test_median_error_is_at_most_15_percent_overall_and_25_percent_per_kind():
    # Issue 4's accuracy bounds on the shipped reference set; the desk, since issue 33's stacks, to 12 %.
    assert REPORT.overall.median_abs_error <= 0.15
    for score in REPORT.kinds:
        assert score.median_abs_error <= (DESK_BOUND if score.kind == "local" else 0.25), score


def test_each_desk_runner_is_within_the_desk_bound_with_its_own_profile():
    stacks = {score.kind: score for score in REPORT.stacks}
    for name in ("llama.cpp", "ExLlamaV2", "MLC LLM"):
        assert stacks[name].entries >= 5 and stacks[name].median_abs_error <= DESK_BOUND, stacks[name]


KNOWN_MOE_SERVING_OUTLIERS = {
    "sglang-deepseek-v3-fp8-8xmi300x-c100-sharegpt",
    "sglang-deepseek-v32exp-fp8-8xb200-c100-sharegpt-dpattn",
    "sglang-deepseek-v31-fp8-8xmi300x-c1-1k1k",
    "sglang-llama4-scout-bf16-8xmi300x-c100-1k1k",
    "gpustack-vllm-qwen3-235b-a22b-bf16-8xa100-rand32k",
}
"""MoE serving runs off by 2x or more, each named with its cause in docs/METHOD.md (the last: a burst of 100
prompts of 32,000 tokens on eight A100s, 82 output tokens each, where the engine prefills twice as fast)."""
KNOWN_LOCAL_OUTLIERS = {
    "llmperfbench-vllm-codellama-34b-4bit-2xrtx4090",
    "tt-vllm-qwen3-4b-bf16-1xrtx4090-2048-prefill",
}
"""Desk runs off by 2x or more, first seen before issue 33's desk model (docs/METHOD.md names the cause)."""
KNOWN_SERVING_OUTLIERS: set[str] = set()
"""Dense serving runs off by 2x (docs/METHOD.md). JetStream's experimental JAX run was one until it was typed
with its engine's 160 decode slots (issue 33, fifth pass)."""
KNOWN_TYPED_TRAINING_OUTLIERS = {"qwen1-7b-qlora-1xa100-s2048"}
"""Training runs off by 2x only as typed, where the user leaves out a choice the published run made
(docs/METHOD.md): Qwen's QLoRA script checkpoints every layer; typed, the engine need not."""


def test_no_measurement_with_a_stated_card_count_is_off_by_2x_or_more():
    # Model cards that state only GPU-hours leave the card count to an assumption (their notes
    # say which); the bound holds where the run's cards are known, as given and as typed. MoE
    # serving is held to its median below: two of its runs are still off by more (README).
    stated = [
        row
        for row in REPORT.rows
        if (row.reference.gpu_count or row.reference.kind not in TRAINING_KINDS)
        and row.reference.kind not in ("moe_serving", "local")
        and row.reference.id not in KNOWN_SERVING_OUTLIERS
    ]
    known_serving = [row for row in REPORT.rows if row.reference.id in KNOWN_SERVING_OUTLIERS]
    assert all(row.ratio < 2.5 for row in known_serving), [row.reference.id for row in known_serving]
    worst = max(stated, key=lambda row: row.ratio)
    assert worst.ratio < 2.0, (worst.reference.id, worst.predicted, worst.reference.value)
    # As typed, a run may be off by 2x only through its own layout: the engine, told the published
    # layout, is within the kind's 25 % bound, and its own pick is at least 1.5x faster. (Megatron-
    # Bridge's Qwen3-30B-A3B on 8 B200 runs one sequence per micro-batch; the GB200 row of the same
    # table runs four at 2.5x the tokens/s, as the engine's pick does.)
    typed = [row for row in REPORT.rows if row.typed is not None and row.reference.kind in TRAINING_KINDS]
    off = [row for row in typed if max(row.typed, row.reference.value) / min(row.typed, row.reference.value) >= 2.0]
    known = [row for row in off if row.reference.id in KNOWN_TYPED_TRAINING_OUTLIERS]
    off = [row for row in off if row.reference.id not in KNOWN_TYPED_TRAINING_OUTLIERS]
    for row in off:
        assert abs(row.error) <= 0.25 and row.typed >= 1.5 * row.predicted, row.reference.id
    assert len(off) <= 1, [row.reference.id for row in off]
    for row in known:  # a step time: typed, the engine's faster choices shorten it
        assert abs(row.error) <= 0.30 and row.typed < row.predicted, row.reference.id
    # Attention-DP ranks waiting for each other's prefills brought MLPerf's DeepSeek-R1 on B200
    # under 2x. Off by more are only the runs README names: SGLang's attention-DP recipe on
    # ShareGPT (2.6x slower than its own TP8 runs on MI300X and on B200 alike), and SGLang on
    # MI300X with DeepSeek at one user and Llama 4 Scout under load. Any other is a regression.
    moe = {row.reference.id for row in REPORT.rows if row.reference.kind == "moe_serving" and row.ratio >= 2.0}
    assert moe <= KNOWN_MOE_SERVING_OUTLIERS, sorted(moe - KNOWN_MOE_SERVING_OUTLIERS)
    local = {row.reference.id for row in REPORT.rows if row.reference.kind == "local" and row.ratio >= 2.0}
    assert local <= KNOWN_LOCAL_OUTLIERS, sorted(local - KNOWN_LOCAL_OUTLIERS)


def test_every_training_run_with_a_stated_card_count_is_also_scored_as_a_user_would_type_it():
    for row in REPORT.rows:
        ref = row.reference
        if ref.kind in TRAINING_KINDS and ref.gpu_count:
            assert row.typed is not None, ref.id
            typed = ref.typed
            assert typed.cards == ref.scenario.cards
            assert all(getattr(typed, knob) is None for knob in ("tp", "pp", "dp", "ep", "zero", "micro_batch", "vp"))
            assert typed.recompute is None
            # A step time is measured for a stated step: its global batch is typed; otherwise the engine's.
            if ref.predict == "seconds_per_step":
                assert typed.global_batch == ref.scenario.global_batch
            else:
                assert typed.global_batch is None
        elif ref.kind == "memory":
            assert row.typed is None, ref.id


def test_moe_serving_is_within_30_percent_median_at_one_user_and_under_load():
    # Issue 10's bound; one user (the per-layer floor) and full load (experts, attention DP) apart.
    scores = {score.kind: score for score in REPORT.kinds}
    assert scores["moe_serving"].entries >= 15
    assert scores["moe_serving"].median_abs_error <= 0.30
    rows = [row for row in REPORT.rows if row.reference.kind == "moe_serving"]
    one_user = sorted(abs(row.error) for row in rows if row.reference.scenario.batch == 1)
    assert one_user[len(one_user) // 2] <= 0.30


def test_as_typed_training_totals_and_throughput_are_within_issue_9s_medians():
    # Issue 9's bounds as a user would ask: GPU-hours within 25 % median, throughput within 15 %.
    scores = {score.kind: score.median_abs_error for score in REPORT.typed_kinds}
    assert scores["training_total"] <= 0.25
    assert scores["training_throughput"] <= 0.15  # issue 9's bound


def test_predictions_are_positive_and_finite():
    for row in REPORT.rows:
        assert row.predicted > 0 and math.isfinite(row.predicted), row.reference.id


def test_the_error_is_positive_when_the_engine_overshoots_and_the_ratio_is_symmetric():
    reference = REPORT.rows[0].reference
    over = REPORT.rows[0]._replace(predicted=reference.value * 1.5)
    under = REPORT.rows[0]._replace(predicted=reference.value / 1.5)
    assert over.error == pytest.approx(0.5)
    assert under.error == pytest.approx(-1 / 3)
    assert over.ratio == pytest.approx(under.ratio) == pytest.approx(1.5)


def test_each_row_holds_the_engines_own_prediction():
    for row in REPORT.rows[:5]:
        assert row.predicted == predict(row.reference, CATALOG).value


def test_the_text_report_lists_every_row_the_unmapped_and_each_kind():
    text = format_report(REPORT)
    for row in REPORT.rows:
        assert row.reference.id[:46] in text
    for ref in REPORT.unmapped:
        assert f"not mapped: {ref.id}" in text
    for kind in (*KINDS, "overall"):
        assert kind in text


def test_the_cli_prints_the_same_figures_as_json():
    done = subprocess.run(
        [sys.executable, "-m", "model", "validate", "--json"], capture_output=True, text=True, check=False, timeout=120
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert len(data["rows"]) == len(REPORT.rows)
    assert {row["id"] for row in data["unmapped"]} == {ref.id for ref in REPORT.unmapped}
    assert data["overall"]["median_abs_error"] == pytest.approx(REPORT.overall.median_abs_error)
    assert {score["kind"] for score in data["kinds"]} == set(KINDS)
    assert {score["kind"] for score in data["classes"]} == set(CLASSES)
    local = next(row for row in data["rows"] if row["id"] == "xdai-llama3-8b-q4_k_m-1xrtx4090-tg512")
    assert (local["stack"], local["classes"]) == ("llama.cpp", ["local"])
    assert local["scenario_stack"] == "llamacpp"


def test_the_report_scores_each_named_stack_and_the_runs_that_name_none():
    named = sorted({row.reference.stack for row in REPORT.rows if row.reference.stack})
    assert [score.kind for score in REPORT.stacks] == [*named, "not labelled"]
    assert sum(score.entries for score in REPORT.stacks) == len(REPORT.rows)
    assert "by the software each measurement names" in format_report(REPORT)


def test_the_nearest_measurements_to_a_measured_scenario_start_with_it():
    row = next(r for r in REPORT.rows if r.reference.id == "trtllm-llama3.1-8b-fp8-1xh100-1k1k")
    near = nearest(REPORT, row.reference.scenario, CATALOG, count=3)
    assert near[0].row.reference.id == row.reference.id
    assert near[0].distance == pytest.approx(0.0, abs=1e-9)
    assert [n.distance for n in near] == sorted(n.distance for n in near)


def test_a_different_gpu_moves_a_measurement_further_away():
    same = Scenario(model="llama-3.1-8b", gpu="h100-sxm", cards=1, precision="fp8")
    other = Scenario(model="llama-3.1-8b", gpu="a100-sxm-80gb", cards=1, precision="fp8")
    ident = "trtllm-llama3.1-8b-fp8-1xh100-1k1k"

    def distance(scenario):
        return next(n.distance for n in nearest(REPORT, scenario, CATALOG, count=50) if n.row.reference.id == ident)

    assert distance(other) == pytest.approx(distance(same) + 0.5)


def test_references_load_once_and_know_their_sources():
    references = load_references()
    assert references is load_references()
    assert all(ref.source_title and ref.quote for ref in references)


def test_serving_runs_are_also_scored_as_typed_and_only_the_replica_is_left_to_the_engine():
    # As typed, a serving run keeps its concurrency as sequences per replica: where the engine
    # picks smaller replicas than the published one it serves more sequences in all (README).
    serving = [row for row in REPORT.rows if row.reference.kind in SERVING_KINDS]
    assert serving and all(row.typed is not None for row in serving if row.reference.gpu_count)
    for row in serving:
        given, typed = row.reference.scenario, row.reference.typed
        if typed is None:
            continue
        assert (typed.tp, typed.pp, typed.attention_dp) == (None, None, None)
        assert (typed.batch, typed.prompt_len, typed.output_len) == (given.batch, given.prompt_len, given.output_len)
        if (given.tp, given.pp, given.attention_dp) == (None, None, None):
            assert row.typed == pytest.approx(row.predicted, rel=1e-12)


def test_a_desk_runs_prefill_is_scored_on_its_prompt_and_a_step_time_on_its_stated_batch():
    rows = {row.reference.id: row for row in REPORT.rows}
    prefill = rows["xdai-llama3-8b-q4_k_m-1xrtx4090-pp512"]
    result = estimate(prefill.reference.scenario, CATALOG)
    assert prefill.predicted == pytest.approx(512 / result.inference.ttft_s, rel=0.02)
    step = rows["qwen1-72b-lora-4xa100-s2048"]
    training = estimate(step.reference.scenario, CATALOG).training
    assert step.predicted == pytest.approx(32 * 2048 / (training.tokens_per_s_per_gpu * 4))
    assert step.low < step.predicted < step.high  # a slower pessimistic set means a longer step


def test_the_two_card_llama_cpp_split_is_measured_slower_than_one_card():
    # Issue 33's check on a layer split, as published (XiongjieDai's README): the same 8B model on
    # two 4090s decodes slower per token than on one. The engine's answer is reported, not bounded here.
    rows = {row.reference.id: row for row in REPORT.rows}
    one, two = rows["xdai-llama3-8b-q4_k_m-1xrtx4090-tg512"], rows["xdai-llama3-8b-q4_k_m-2xrtx4090-tg512"]
    assert two.reference.value < one.reference.value
    assert (two.reference.scenario.tp, two.reference.scenario.pp) == (1, 2)


def test_each_run_is_also_scored_with_its_software_left_unsaid():
    named = [row for row in REPORT.rows if row.reference.scenario.stack != "typical"]
    assert named and all(row.unsaid is not None for row in named)
    assert all(row.unsaid is None for row in REPORT.rows if row.reference.scenario.stack == "typical")
    # A GGUF file left unsaid runs as llama.cpp runs it: its llama.cpp runs score the same either way.
    gguf = [row for row in named if row.reference.scenario.stack == "llamacpp" and row.precision.startswith("q")]
    assert gguf and all(row.unsaid == pytest.approx(row.predicted, rel=1e-12) for row in gguf)
    # A server's run left unsaid gets the engine's own profile, not the server's: some answers move.
    assert any(row.unsaid != pytest.approx(row.predicted, rel=1e-6) for row in named)
    scored = {score.kind: score for score in REPORT.unsaid}
    assert scored["overall"].entries == REPORT.overall.entries
    assert {f"class {name}" for name in CLASSES} <= scored.keys() and set(KINDS) <= scored.keys()
    assert "left unsaid" in format_report(REPORT)
