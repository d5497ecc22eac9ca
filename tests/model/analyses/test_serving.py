import dataclasses
import math
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from model import Scenario, ScenarioError, default_catalog, estimate
from model.analyses.serving import batch_sweep, knee_batch, largest_batch_within_latency, sweep_replica
from model.efficiency import EXPECTED
from model.inference import serving_context, serving_rates

CATALOG = default_catalog()
# Short contexts on one H100: the KV cache is small, so the knee lies inside the batches that fit.
SHORT = Scenario(model="llama-3.1-8b", gpu="h100-sxm", cards=1, prompt_len=128, output_len=128)
LONG = Scenario(model="llama-3.1-8b", gpu="h100-sxm", cards=8, prompt_len=4000, output_len=500)
SCENARIOS = [
    SHORT,
    LONG,
    Scenario(model="llama-3.1-70b", gpu="h100-sxm", cards=8),  # tensor parallel
    Scenario(model="llama-3.1-405b", gpu="h100-sxm", cards=64),  # tensor x pipeline parallel
    Scenario(model="mixtral-8x7b", gpu="h100-sxm", cards=8),  # MoE
    Scenario(model="deepseek-r1", precision="fp8", gpu="h20", cards=8),  # MoE, latent attention
]


def _at(scenario, batch):
    # The sweep holds the full-load replica as the batch moves.
    full = estimate(dataclasses.replace(scenario, batch="max"), CATALOG).inference
    return estimate(dataclasses.replace(scenario, batch=batch, tp=full.tp, pp=full.pp), CATALOG).inference


def test_the_default_sweep_runs_over_powers_of_two_up_to_the_largest_batch_that_fits():
    points = batch_sweep(SHORT, CATALOG)
    largest = estimate(dataclasses.replace(SHORT, batch="max"), CATALOG).inference.max_batch
    batches = [point.batch for point in points]
    assert batches[-1] == largest
    assert batches[:-1] == [2**power for power in range(len(batches) - 1)]
    assert batches[-2] < largest < 2 * batches[-2]
    assert all(point.fits for point in points)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: f"{s.model}-{s.gpu}-{s.cards}")
def test_each_point_is_the_estimate_at_that_batch(scenario):
    for point in batch_sweep(scenario, CATALOG):
        expected = _at(scenario, point.batch)
        assert point.tpot_s == pytest.approx(expected.tpot_s, rel=1e-12)
        assert point.ttft_s == pytest.approx(expected.ttft_s, rel=1e-12)
        assert point.tokens_per_s == pytest.approx(expected.decode_tokens_per_s, rel=1e-12)
        assert point.tokens_per_s_per_user == pytest.approx(expected.decode_tokens_per_s_per_user, rel=1e-12)
        assert point.tpot_roofline_s == pytest.approx(expected.tpot_roofline_s, rel=1e-12)
        assert point.bound == expected.bound
        assert point.fits == expected.fits


def test_total_tokens_per_s_does_not_fall_with_batch_up_to_the_knee():
    knee = knee_batch(SHORT, CATALOG).expected
    assert knee is not None
    totals = [point.tokens_per_s for point in batch_sweep(SHORT, CATALOG) if point.batch <= knee]
    assert len(totals) >= 8
    assert totals == sorted(totals)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: f"{s.model}-{s.gpu}-{s.cards}")
def test_each_users_speed_does_not_rise_with_batch(scenario):
    speeds = [point.tokens_per_s_per_user for point in batch_sweep(scenario, CATALOG)]
    assert speeds == sorted(speeds, reverse=True)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: f"{s.model}-{s.gpu}-{s.cards}")
def test_the_roofline_is_never_slower_than_the_expected(scenario):
    for point in batch_sweep(scenario, CATALOG):
        assert point.roofline_tokens_per_s >= point.tokens_per_s
        assert point.roofline_tokens_per_s_per_user >= point.tokens_per_s_per_user
        assert point.tpot_roofline_s <= point.tpot_s


def test_the_knee_is_where_memory_time_and_compute_time_cross():
    knee = knee_batch(SHORT, CATALOG)
    assert knee.expected is not None and 1 < knee.expected < knee.largest_batch
    below = _at(SHORT, math.floor(knee.expected)).decode
    above = _at(SHORT, math.ceil(knee.expected)).decode
    assert below.memory_time >= below.compute_time
    assert above.compute_time >= above.memory_time
    points = batch_sweep(SHORT, CATALOG)
    assert {p.bound for p in points if p.batch < knee.expected} == {"memory"}
    assert {p.bound for p in points if p.batch > knee.expected} == {"compute"}


def _dense_knee(scenario, ideal):
    """The closed form for a dense model: memory time W/B + b x kv/B equals compute time 2 N b / F."""
    full = estimate(dataclasses.replace(scenario, batch="max"), CATALOG)
    r, inference = full.resolved, full.inference
    key = inference.compute_precision
    peak = r.gpu.dense_flops_per_s[key]
    ctx = serving_context(r, tp=inference.tp, pp=inference.pp, compute_key=key)
    rates = serving_rates(r, ctx, EXPECTED)
    bandwidth = r.gpu.memory_bandwidth_bytes_per_s
    weight_bw, kv_bw, flops = (
        (bandwidth, bandwidth, peak)
        if ideal
        else (rates.weight_bandwidth, rates.kv_bandwidth, rates.decode_flops_per_s)
    )
    shards = ctx.tp * ctx.pp
    per_sequence_compute = 2.0 * r.arch.stats.matmul_params_active / shards / flops
    micro = ctx.dense_weight_bytes / shards / weight_bw / (per_sequence_compute - ctx.kv_bytes_mean / kv_bw)
    return micro * ctx.pp


@pytest.mark.parametrize("ideal", [False, True], ids=["expected", "ideal"])
def test_the_knee_of_a_dense_model_matches_the_closed_form(ideal):
    knee = knee_batch(SHORT, CATALOG)
    assert (knee.ideal if ideal else knee.expected) == pytest.approx(_dense_knee(SHORT, ideal), rel=1e-6)


def test_the_ideal_knee_with_no_kv_cache_is_the_h100_ridge_point():
    # Roofline ridge point (Williams et al. 2009): peak FLOP/s / bandwidth. NVIDIA H100 SXM5 datasheet:
    # 989.4 TFLOP/s dense BF16, 3.35 TB/s HBM3 -> 295 FLOPs per byte. 16-bit weights give 1 FLOP per
    # byte per sequence (2 FLOPs and 2 bytes per parameter), so the knee is ~295 sequences.
    # A one-token context makes the KV reads negligible; tolerance 3 % (the LM head and embedding).
    tiny = dataclasses.replace(SHORT, prompt_len=1, output_len=1)
    assert knee_batch(tiny, CATALOG).ideal == pytest.approx(989.4e12 / 3.35e12, rel=0.03)


def test_long_contexts_have_no_knee_because_kv_reads_outgrow_the_arithmetic():
    knee = knee_batch(LONG, CATALOG)
    assert knee.expected is None and knee.ideal is None
    assert {point.bound for point in batch_sweep(LONG, CATALOG, [1, 64, 4096, 65536])} == {"memory"}


def test_the_expected_knee_comes_before_the_ideal_one():
    # Achievable compute falls further below peak than achievable bandwidth does.
    knee = knee_batch(SHORT, CATALOG)
    assert knee.expected is not None and knee.ideal is not None
    assert knee.expected < knee.ideal


@pytest.mark.parametrize("target_ms", [8.0, 15.0, 30.0])
def test_the_largest_batch_within_target_meets_it_and_the_next_batch_does_not(target_ms):
    fit = largest_batch_within_latency(LONG, CATALOG, target_ms / 1e3)
    assert fit.batch is not None and fit.limit == "latency"
    assert _at(LONG, fit.batch).tpot_s <= target_ms / 1e3
    assert _at(LONG, fit.batch + 1).tpot_s > target_ms / 1e3
    assert fit.tokens_per_s == pytest.approx(_at(LONG, fit.batch).decode_tokens_per_s, rel=1e-12)
    assert fit.tokens_per_s_per_user == pytest.approx(1.0 / fit.tpot_s)


def test_a_looser_target_never_allows_a_smaller_batch():
    batches = [largest_batch_within_latency(LONG, CATALOG, ms / 1e3).batch for ms in (8, 10, 20, 30, 100)]
    assert batches == sorted(batches)


def test_a_generous_target_is_limited_by_memory():
    fit = largest_batch_within_latency(LONG, CATALOG, 10.0)
    assert fit.limit == "memory"
    assert fit.batch == knee_batch(LONG, CATALOG).largest_batch


def test_a_target_faster_than_one_user_allows_no_batch():
    one = _at(LONG, 1)
    fit = largest_batch_within_latency(LONG, CATALOG, one.tpot_s * 0.99)
    assert fit.batch is None and fit.tokens_per_s is None and fit.limit == "latency"


def test_a_model_that_does_not_fit_is_a_result_not_an_error():
    too_big = Scenario(model="llama-3.1-405b", gpu="rtx-4090", cards=1)
    points = batch_sweep(too_big, CATALOG)
    assert [point.batch for point in points] == [1]
    assert not points[0].fits
    assert knee_batch(too_big, CATALOG).largest_batch == 0
    fit = largest_batch_within_latency(too_big, CATALOG, 1.0)
    assert fit.batch is None and fit.limit == "memory"


@pytest.mark.parametrize("target", [0.0, -1.0, math.nan, math.inf, "fast", True])
def test_a_bad_latency_target_is_refused(target):
    with pytest.raises(ScenarioError, match="target_tpot_s"):
        largest_batch_within_latency(SHORT, CATALOG, target)


@pytest.mark.parametrize("batches", [[0], [1.5], [True], [-4]])
def test_a_bad_batch_is_refused(batches):
    with pytest.raises(ScenarioError, match="batch"):
        batch_sweep(SHORT, CATALOG, batches)


def test_a_sweep_of_fifteen_batches_is_fast():
    # The page runs a sweep on every rerun; the brief asks for well under 5 ms (median of 7 runs).
    scenario = Scenario(model="deepseek-r1", precision="fp8", gpu="h20", cards=8)
    batches = [2**power for power in range(15)]
    timings = []
    for _ in range(7):
        start = time.perf_counter()
        batch_sweep(scenario, CATALOG, batches)
        timings.append(time.perf_counter() - start)
    assert sorted(timings)[3] < 5e-3


@given(
    model=st.sampled_from(["llama-3.2-1b", "llama-3.1-8b", "llama-3.1-70b", "mixtral-8x7b", "qwen2.5-72b"]),
    gpu=st.sampled_from(["h100-sxm", "a100-sxm-80gb", "h200", "rtx-4090"]),
    cards=st.sampled_from([1, 2, 8, 16]),
    prompt=st.integers(1, 16384),
    output=st.integers(1, 4096),
)
def test_sweeps_are_finite_positive_and_ordered(model, gpu, cards, prompt, output):
    scenario = Scenario(model=model, gpu=gpu, cards=cards, prompt_len=prompt, output_len=output)
    points = batch_sweep(scenario, CATALOG)
    for point in points:
        for value in (point.tokens_per_s, point.tokens_per_s_per_user, point.ttft_s, point.tpot_s):
            assert math.isfinite(value) and value > 0
        assert point.roofline_tokens_per_s >= point.tokens_per_s
    speeds = [point.tokens_per_s_per_user for point in points]
    assert speeds == sorted(speeds, reverse=True)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_the_sweep_says_which_replica_it_serves_on_and_counts_sequences_over_all_of_them(scenario):
    full = estimate(dataclasses.replace(scenario, batch="max"), CATALOG).inference
    replica = sweep_replica(scenario, CATALOG)
    assert (replica.tp, replica.pp, replica.ep, replica.replicas) == (full.tp, full.pp, full.ep, full.dp)
    for point in batch_sweep(scenario, CATALOG, [1, 7]):
        assert point.sequences == point.batch * replica.replicas


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: f"{s.model}-{s.gpu}-{s.cards}")
@pytest.mark.parametrize("batch", [1, 32, 256])
def test_held_on_the_scenarios_own_replica_the_sweep_is_the_estimate_at_its_batch(scenario, batch):
    # Issue 29: a page showing the sweep beside the estimate must show one answer: the same replica,
    # the same figures at the chosen batch, the same largest batch and the same "fits".
    at = dataclasses.replace(scenario, batch=batch)
    expected = estimate(at, CATALOG).inference
    point = batch_sweep(at, CATALOG, [batch], replica_for="scenario")[0]
    replica = sweep_replica(at, CATALOG, replica_for="scenario")
    assert (replica.tp, replica.pp, replica.ep, replica.replicas) == (
        expected.tp,
        expected.pp,
        expected.ep,
        expected.dp,
    )
    assert point.fits == expected.fits
    assert point.tpot_s == pytest.approx(expected.tpot_s, rel=1e-12)
    assert point.ttft_s == pytest.approx(expected.ttft_s, rel=1e-12)
    assert point.tokens_per_s == pytest.approx(expected.decode_tokens_per_s, rel=1e-12)
    assert point.tpot_roofline_s == pytest.approx(expected.tpot_roofline_s, rel=1e-12)
    assert knee_batch(at, CATALOG, replica_for="scenario").largest_batch == expected.max_batch
    points = batch_sweep(at, CATALOG, replica_for="scenario")
    assert max(point.batch for point in points) == max(expected.max_batch, 1)
    assert all(point.fits == (point.batch <= expected.max_batch) for point in points)


def test_the_batch_a_latency_target_allows_counts_its_sequences_over_every_replica():
    fit = largest_batch_within_latency(LONG, CATALOG, 0.05)
    replica = sweep_replica(LONG, CATALOG)
    assert fit.batch is not None and fit.sequences == fit.batch * replica.replicas


def test_an_unknown_replica_choice_is_refused():
    with pytest.raises(ScenarioError, match="replica_for"):
        batch_sweep(SHORT, CATALOG, replica_for="fastest")
