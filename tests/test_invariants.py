"""The invariant suite (tests/invariants.py): a CI sample of it, and each check shown to catch what it guards.

The sample runs a fixed seed through every check (the goal verdict and the command line on a
denser sub-sample than the long run's); the long run is ``python -m tests.invariants --n 20000``.
Every other test breaks one figure of a real estimate (or fakes a verdict, a JSON, a text) and
asserts that the check names it, after asserting that the check passes on the unbroken one: a
check that cannot fail would let the sample pass for nothing.
"""

import copy
import dataclasses
import itertools
import json
import random
import subprocess
import sys

import pytest

from model import PRECISIONS, Scenario, ScenarioError
from model.analyses.verdict import Fix, Verdict
from model.cli import build_parser, scenario_from_args
from model.scenario import with_batch
from tests import invariants
from tests.invariants import (
    CHECKS,
    DEQUANT_SLOWDOWN,
    LAYOUT_KNOBS,
    FixOutcome,
    GoalFacts,
    Outcome,
    check_cli_json,
    check_cli_text,
    check_fit_has_every_figure,
    check_fits_means_within_budget,
    check_fixed_knobs_kept,
    check_goal_verdict,
    check_headlines_within_ranges,
    check_layer_split_no_faster,
    check_layout_within_cards,
    check_lower_precision_memory,
    check_lower_precision_tpot,
    check_memory_parts_add_up,
    check_mfu_between_zero_and_one,
    check_more_concurrency,
    check_more_host_bandwidth,
    check_no_figure_without_fit,
    check_offload_only_when_needed,
    check_offload_split,
    check_queue,
    check_queue_serves_as_max,
    check_refusal_names_a_fixed_knob,
    check_serving_batch,
    check_tpot_not_below_roofline,
    check_twice_the_cards,
    cli_arguments,
    draw_scenario,
    format_report,
    observe,
    run,
    run_cli,
    scenario_code,
)

SAMPLE_SEED = 29
SAMPLE_SIZE = 500

FITS = Scenario(model="llama-3.1-8b", gpu="h100-sxm", cards=8, tp=2)
"""Training and serving both fit, with a price: every figure is there."""
TOO_BIG = Scenario(model="llama-3.1-405b", gpu="rtx-4090", cards=1)
"""Neither fits: no time, rate or price anywhere."""
QUEUED = Scenario(model="llama-3.1-8b", gpu="rtx-4090", cards=1, concurrency=64)
"""Serving runs the 26 sequences that fit; 38 wait."""
OFFLOADED = Scenario(model="llama-3.1-70b", gpu="rtx-4090", cards=1, precision="q4_k_m", host_memory_gb=64)
"""Serving runs with half the layers in host memory (issue 32)."""


@pytest.fixture(scope="module")
def fits() -> Outcome:
    outcome = observe(FITS)
    assert outcome.training["fits"]
    assert outcome.inference["fits"]
    return outcome


@pytest.fixture(scope="module")
def too_big() -> Outcome:
    outcome = observe(TOO_BIG)
    assert not outcome.training["fits"]
    assert not outcome.inference["fits"]
    return outcome


def _broken(outcome: Outcome, **scenario_changes) -> Outcome:
    """Return a deep copy of ``outcome`` to break (its scenario changed as given)."""
    scenario = dataclasses.replace(outcome.scenario, **scenario_changes) if scenario_changes else outcome.scenario
    return outcome._replace(scenario=scenario, data=copy.deepcopy(outcome.data))


def test_a_fixed_sample_of_scenarios_breaks_no_invariant():
    # 500 scenarios over the whole space (about 5 s here): the verdict of each, --json of every 2nd,
    # the plain text of every 4th.
    report = run(SAMPLE_SIZE, SAMPLE_SEED, verdict_every=1, cli_every=2, text_every=4)
    assert report.scenarios == SAMPLE_SIZE
    assert report.invalid < SAMPLE_SIZE / 2, "most scenarios must be estimated, not refused"
    for name in (
        "check_twice_the_cards",
        "check_lower_precision_tpot",
        "check_goal_verdict",
        "check_cli_json",
        "check_more_concurrency",
        "check_layer_split_no_faster",
    ):
        least = 5 if name == "check_layer_split_no_faster" else 20
        assert report.checked.get(name, 0) >= least, f"{name} ran {report.checked.get(name, 0)} times"
    if report.violations:
        pytest.fail(format_report(report), pytrace=False)


@pytest.fixture(scope="module")
def offloaded() -> Outcome:
    outcome = observe(OFFLOADED)
    assert outcome.inference["verdict"] == "fits_with_offload"
    return outcome


def test_every_check_of_one_estimate_passes_on_real_ones(fits, too_big, offloaded):
    for outcome in (fits, too_big, offloaded):
        for check in CHECKS:
            assert check(outcome) == [], check.__name__


def test_the_draw_covers_every_model_gpu_precision_mode_and_layout_combination():
    rng = random.Random(1)
    drawn = [draw_scenario(rng) for _ in range(4000)]
    catalog = invariants.CATALOG
    assert {s.model for s in drawn} == set(catalog.models)
    assert {s.gpu for s in drawn} == set(catalog.gpus)
    assert {s.precision for s in drawn} == set(PRECISIONS)
    assert {s.finetune for s in drawn} == {"none", "full", "lora", "qlora"}
    assert {s.batch for s in drawn} >= {1, "max"}
    assert any(s.concurrency for s in drawn)
    cards = {s.cards for s in drawn}
    assert {1, 2, 3, 8, 16_384, 100_000} <= cards
    assert max(cards) == 100_000
    combinations = {tuple(getattr(s, knob) is not None for knob in LAYOUT_KNOBS) for s in drawn}
    assert combinations == set(itertools.product((False, True), repeat=len(LAYOUT_KNOBS)))
    hosted = [s for s in drawn if s.host_memory_gb is not None]
    assert {s.offload for s in hosted} == {"auto", "none", "layers", "experts"}
    assert sum(s.cards == 1 for s in hosted) > len(hosted) / 3  # desks, where host memory matters


def test_a_reported_scenario_is_code_that_rebuilds_it():
    rng = random.Random(2)
    for _ in range(200):
        scenario = draw_scenario(rng)
        assert eval(scenario_code(scenario), {"Scenario": Scenario}) == scenario


def test_the_command_line_arguments_give_the_same_scenario():
    rng = random.Random(3)
    parser = build_parser()
    for _ in range(200):
        scenario = draw_scenario(rng)
        assert scenario_from_args(parser.parse_args(cli_arguments(scenario))) == scenario


def test_layout_within_cards_catches_more_cards_than_the_scenario_has(fits):
    training = _broken(fits)
    training.training["parallelism"]["dp"] = FITS.cards
    assert any("training" in p for p in check_layout_within_cards(training))
    serving = _broken(fits)
    serving.inference["dp"] = FITS.cards + 1
    assert any("serving" in p for p in check_layout_within_cards(serving))


def test_fixed_knobs_kept_catches_a_changed_knob(fits):
    training = _broken(fits)
    training.training["parallelism"]["tp"] = 4
    assert any("training tp" in p for p in check_fixed_knobs_kept(training))
    serving = _broken(fits)
    serving.inference["tp"] = 1
    assert any("serving tp" in p for p in check_fixed_knobs_kept(serving))
    micro = _broken(fits, micro_batch=3)
    assert any("micro_batch" in p for p in check_fixed_knobs_kept(micro))


def test_memory_parts_add_up_catches_a_part_left_out(fits):
    broken = _broken(fits)
    broken.training["memory_per_gpu"]["optimizer"] *= 1.01
    assert any("training" in p for p in check_memory_parts_add_up(broken))
    broken = _broken(fits)
    broken.inference["memory_per_gpu"]["kv_cache"] += 1e6
    assert any("serving" in p for p in check_memory_parts_add_up(broken))


def test_fits_means_within_budget_catches_fits_beyond_the_card_or_the_serving_budget(fits, too_big):
    broken = _broken(too_big)
    broken.training["fits"] = True
    assert any("training" in p for p in check_fits_means_within_budget(broken))
    # Within the card but beyond the server's 90 %: serving must not fit.
    beyond_budget = _broken(fits)
    beyond_budget.inference["memory_per_gpu"]["total"] = 0.95 * fits.capacity_bytes
    assert any("serving" in p for p in check_fits_means_within_budget(beyond_budget))


def test_no_figure_without_fit_catches_a_time_a_price_or_a_range(too_big, fits):
    for part, figure in (("training", "time_s"), ("training", "cost_usd"), ("inference", "tpot_s")):
        broken = _broken(too_big)
        broken.data[part][figure] = 1.0
        assert any(figure in p for p in check_no_figure_without_fit(broken)), figure
    ranged = _broken(too_big)
    ranged.data["ranges"]["time_s"] = {"low": 1.0, "high": 2.0}
    assert any("ranges" in p for p in check_no_figure_without_fit(ranged))
    runner_up = _broken(fits)
    runner_up.training["layout_candidates"][0]["memory_per_gpu"] = 2 * fits.capacity_bytes
    assert any("candidate 0" in p for p in check_no_figure_without_fit(runner_up))


def test_fit_has_every_figure_catches_a_missing_or_non_positive_figure(fits):
    for part, figure, value in (
        ("training", "time_s", None),
        ("training", "mfu", 0.0),
        ("training", "cost_usd", None),
        ("inference", "tpot_s", float("nan")),
        ("inference", "cost_per_million_output_tokens_usd", None),
        ("inference", "decode", None),
    ):
        broken = _broken(fits)
        broken.data[part][figure] = value
        assert any(figure in p for p in check_fit_has_every_figure(broken)), figure
    unpriced = _broken(fits)._replace(priced=False)
    unpriced.training["cost_usd"] = None
    assert check_fit_has_every_figure(unpriced) == []


def test_serving_batch_catches_a_batch_beyond_the_largest_that_fits(fits, too_big):
    beyond = _broken(fits)
    beyond.inference["max_batch"] = 0
    assert check_serving_batch(beyond)
    not_max = _broken(fits, batch="max")
    not_max.inference["batch"] = not_max.inference["max_batch"] - 1
    assert any('"max"' in p for p in check_serving_batch(not_max))
    none_fits = _broken(too_big)
    none_fits.inference["max_batch"] = 3
    assert any("batch 1" in p for p in check_serving_batch(none_fits))


@pytest.fixture(scope="module")
def queued() -> Outcome:
    outcome = observe(QUEUED)
    assert outcome.inference["fits"] and outcome.inference["queued"] == 38
    return outcome


def test_queue_catches_a_wrong_count_a_wait_without_a_queue_and_a_wait_for_what_does_not_run(queued, fits, too_big):
    for outcome in (queued, fits, too_big):
        assert check_queue(outcome) == []
    miscounted = _broken(queued)
    miscounted.inference["queued"] = 37
    assert any("37 queued" in p for p in check_queue(miscounted))
    idle = _broken(queued)
    idle.inference["batch"] -= 1  # a slot left empty while sequences wait
    assert any("wait while a replica runs" in p for p in check_queue(idle))
    off = _broken(queued)
    off.inference["queue_wait_s"] *= 1.01
    assert any("Little's law" in p for p in check_queue(off))
    early = _broken(queued)
    early.inference["ttft_s"] = early.inference["queue_wait_s"] * 0.99
    assert any("shorter than the wait" in p for p in check_queue(early))
    phantom = _broken(fits)
    phantom.inference["queue_wait_s"] = 0.5
    assert any("nothing queued" in p for p in check_queue(phantom))
    unrun = _broken(too_big)
    unrun.inference["queue_wait_s"] = 0.0
    assert any("does not fit but waits" in p for p in check_queue(unrun))


def test_queue_serves_as_max_catches_another_rate_or_a_ttft_without_the_wait(queued):
    full = observe(with_batch(QUEUED, "max"))
    assert check_queue_serves_as_max(queued, full) == []
    faster = _broken(queued)
    faster.inference["decode_tokens_per_s"] *= 1.01
    assert any("decode_tokens_per_s" in p for p in check_queue_serves_as_max(faster, full))
    no_wait = _broken(queued)
    no_wait.inference["ttft_s"] = full.inference["ttft_s"]
    assert any("TTFT" in p for p in check_queue_serves_as_max(no_wait, full))


def test_more_concurrency_catches_a_rate_above_the_largest_batch_and_an_earlier_first_token(queued):
    fewer = observe(dataclasses.replace(QUEUED, concurrency=16))
    full = observe(with_batch(QUEUED, "max"))
    assert check_more_concurrency(fewer, queued, full) == []
    above = _broken(queued)
    above.inference["decode_tokens_per_s"] = full.inference["decode_tokens_per_s"] * 1.01
    assert any("above the max-batch rate" in p for p in check_more_concurrency(fewer, above, full))
    sooner = _broken(queued)
    sooner.inference["ttft_s"] = fewer.inference["ttft_s"] * 0.99
    assert any("answers in" in p for p in check_more_concurrency(fewer, sooner, full))
    below = _broken(queued)
    below.inference["decode_tokens_per_s"] = full.inference["decode_tokens_per_s"] * 0.99
    assert any("not the max-batch rate" in p for p in check_more_concurrency(fewer, below, full))


def test_tpot_not_below_roofline_catches_an_expected_time_under_the_ideal(fits):
    broken = _broken(fits)
    broken.inference["tpot_roofline_s"] = broken.inference["tpot_s"] * (1 + 1e-6)
    assert check_tpot_not_below_roofline(broken)


def test_headlines_within_ranges_catches_a_figure_outside_its_range(fits):
    broken = _broken(fits)
    broken.data["ranges"]["time_s"]["low"] = fits.training["time_s"] * 1.01
    assert any("time_s" in p for p in check_headlines_within_ranges(broken))
    orphan = _broken(fits)
    orphan.training["mfu"] = None
    assert any("no figure" in p for p in check_headlines_within_ranges(orphan))


def test_mfu_between_zero_and_one_catches_one_and_above(fits):
    for value in (1.0, 1.2, 0.0):
        broken = _broken(fits)
        broken.training["mfu"] = value
        assert check_mfu_between_zero_and_one(broken), value


def test_refusal_names_a_fixed_knob_catches_other_refusals():
    fixed = Scenario(cards=8, tp=2, dp=8)
    assert check_refusal_names_a_fixed_knob(fixed, ScenarioError("dp", 8, "at most 4")) == []
    assert check_refusal_names_a_fixed_knob(fixed, ScenarioError("cards", 8, "more"))
    assert check_refusal_names_a_fixed_knob(fixed, ScenarioError("pp", 2, "fewer"))  # pp was left free


def test_twice_the_cards_catches_slower_training_and_a_lost_fit(fits):
    more = _broken(fits, cards=2 * FITS.cards)
    assert check_twice_the_cards(fits, more) == []
    slower = _broken(more)
    slower.training["time_s"] = fits.training["time_s"] * 1.001
    assert any("train in" in p for p in check_twice_the_cards(fits, slower))
    lost = _broken(more)
    lost.training["fits"] = False
    assert any("not on" in p for p in check_twice_the_cards(fits, lost))


def test_the_draw_covers_every_stack():
    rng = random.Random(1)
    assert {draw_scenario(rng).stack for _ in range(4000)} == set(invariants.STACK_IDS)


def test_layer_split_no_faster_catches_two_cards_decoding_faster_than_one():
    desk = Scenario(model="llama-3.1-8b", gpu="rtx-4090", cards=1, precision="q4_k_m", stack="llamacpp")
    one, two = observe(desk), observe(dataclasses.replace(desk, cards=2))
    assert two.inference["pp"] == 2
    assert check_layer_split_no_faster(one, two) == []
    faster = _broken(two)
    faster.inference["tpot_s"] = one.inference["tpot_s"] * 0.99
    assert any("decodes in" in p for p in check_layer_split_no_faster(one, faster))


def test_lower_precision_memory_catches_more_bytes_per_replica(fits):
    lower = _broken(fits, precision="fp8")
    lower.inference["memory_per_gpu"]["weights"] = fits.inference["memory_per_gpu"]["weights"] * 0.5
    assert check_lower_precision_memory(fits, lower) == []
    lower.inference["memory_per_gpu"]["weights"] = fits.inference["memory_per_gpu"]["weights"] * 1.01
    assert check_lower_precision_memory(fits, lower)
    # A wider replica (tp 4 against 2) holds the same weights once: still compared, not exempt.
    wider = _broken(lower)
    wider.inference["tp"] = 4
    assert check_lower_precision_memory(fits, wider)


def test_lower_precision_memory_exempts_no_more_than_the_16_bit_embedding_and_head(fits):
    higher = _broken(fits, precision="fp8")
    lower = _broken(fits, precision="int4")
    weights = higher.inference["memory_per_gpu"]["weights"]
    replica = higher.inference["tp"] * higher.inference["pp"]
    extra = fits.arch.stats.embedding_and_head_params / replica  # one more byte per embedding and head parameter
    lower.inference["memory_per_gpu"]["weights"] = weights + 0.99 * extra
    assert check_lower_precision_memory(higher, lower) == []
    lower.inference["memory_per_gpu"]["weights"] = weights + 1.01 * extra
    assert check_lower_precision_memory(higher, lower)


def test_lower_precision_tpot_catches_slower_decoding_beyond_dequantisation(fits):
    fp8 = _broken(fits, precision="fp8")
    fp8.inference["tpot_s"] = fits.inference["tpot_s"] * 1.001
    assert check_lower_precision_tpot(fits, fp8)  # fp8 is not weight-only: no exemption
    int4 = _broken(fits, precision="int4")
    int4.inference["tpot_s"] = fits.inference["tpot_s"] * DEQUANT_SLOWDOWN * 0.999
    assert check_lower_precision_tpot(fits, int4) == []
    int4.inference["tpot_s"] = fits.inference["tpot_s"] * DEQUANT_SLOWDOWN * 1.001
    assert check_lower_precision_tpot(fits, int4)
    lost = _broken(fits, precision="fp8")
    lost.inference["fits"] = False
    assert check_lower_precision_tpot(fits, lost)


def test_offload_split_catches_a_verdict_a_host_or_a_layer_count_that_disagree(offloaded, fits):
    assert check_offload_split(offloaded) == []
    wrong = _broken(offloaded)
    wrong.inference["verdict"] = "fits"
    assert any("verdict fits" in p for p in check_offload_split(wrong))
    overfull = _broken(offloaded)
    overfull.inference["offload"]["host_weight_bytes"] = offloaded.inference["offload"]["host_budget_bytes"] * 1.01
    assert any("the host holds" in p for p in check_offload_split(overfull))
    too_many = _broken(offloaded)
    too_many.inference["offload"]["layers_on_card"] = 81
    assert any("81 of 80" in p for p in check_offload_split(too_many))
    no_host = _broken(offloaded, host_memory_gb=None)
    assert any("without host memory" in p for p in check_offload_split(no_host))
    assert check_offload_split(fits) == []


def test_offload_only_when_needed_catches_an_offload_or_a_slowdown_of_what_fits(fits):
    with_host = _broken(fits, host_memory_gb=64.0)
    assert check_offload_only_when_needed(with_host, fits) == []
    slower = _broken(with_host)
    slower.inference["tpot_s"] = fits.inference["tpot_s"] * 1.001
    assert check_offload_only_when_needed(slower, fits)
    moved = _broken(with_host)
    moved.inference["offload"]["mode"] = "layers"
    assert check_offload_only_when_needed(moved, fits)


def test_more_host_bandwidth_catches_slower_decoding_and_a_moved_split(offloaded):
    faster = _broken(offloaded, host_bandwidth_gb_s=179.2)
    assert check_more_host_bandwidth(offloaded, faster) == []
    slower = _broken(faster)
    slower.inference["tpot_s"] = offloaded.inference["tpot_s"] * 1.001
    assert any("twice the host bandwidth" in p for p in check_more_host_bandwidth(offloaded, slower))
    moved = _broken(faster)
    moved.inference["offload"]["layers_on_card"] -= 1
    assert any("split moved" in p for p in check_more_host_bandwidth(offloaded, moved))


def test_goal_verdict_catches_a_wrong_runs_a_wrong_memory_and_a_fix_that_does_not_fit():
    facts = GoalFacts(fits=False, needed_bytes=100e9, capacity_bytes=80e9)
    fix = Fix("cards", 16, 60e9)
    good = Verdict("pretrain", False, None, 100e9, 80e9, (fix,))
    checked = [FixOutcome(fix, Scenario(cards=16), True, 60e9)]
    assert check_goal_verdict(good, facts, checked) == []
    assert check_goal_verdict(good._replace(runs=True), facts, checked)
    assert check_goal_verdict(good._replace(needed_bytes=90e9), facts, checked)
    assert check_goal_verdict(good, facts, [FixOutcome(fix, Scenario(cards=16), False, 90e9)])
    assert check_goal_verdict(good, facts, [FixOutcome(fix, Scenario(cards=16), True, 61e9)])
    assert check_goal_verdict(good, facts, [FixOutcome(fix, None, False, 0.0, "dp: 16 is not allowed")])
    refused = Verdict("pretrain", False, "untrainable_precision", 0.0, 80e9, ())
    assert check_goal_verdict(refused, facts, []) == []
    assert check_goal_verdict(refused._replace(needed_bytes=1.0), facts, [])


def test_python_dash_m_model_prints_the_engine_figures_too(fits):
    # The suite calls model.cli.main in process; once, the real entry point in its own process.
    command = [sys.executable, "-m", "model", *cli_arguments(FITS), "--json"]
    done = subprocess.run(command, capture_output=True, text=True, check=True, timeout=120)
    assert check_cli_json(fits.data, json.loads(done.stdout)) == []


def test_cli_json_catches_a_figure_that_differs(fits):
    printed = copy.deepcopy(fits.data)
    printed["inference"]["max_batch"] += 1
    assert any("max_batch" in p for p in check_cli_json(fits.data, printed))
    assert check_cli_json(fits.data, copy.deepcopy(fits.data)) == []


def test_cli_text_catches_a_time_or_price_for_what_does_not_fit(too_big):
    status, text, _ = run_cli(cli_arguments(TOO_BIG))
    assert status == 0
    assert check_cli_text(too_big, text) == []
    timed = text.replace("inference:\n", "inference:\n  TTFT 12.0 ms, TPOT 3.00 ms\n")
    assert any("TTFT" in p for p in check_cli_text(too_big, timed))
    priced = text.replace("training:\n", "training:\n  1 days, $12,345\n")
    assert any("training" in p for p in check_cli_text(too_big, priced))
    said = text.replace("fits: no", "fits: yes", 1)
    assert any("fits: yes" in p for p in check_cli_text(too_big, said))
