"""A batch job of N requests (Scenario.requests): waves of the running batch, the job's own rate."""

import dataclasses

import pytest

from model import Scenario, ScenarioError, default_catalog, estimate
from model.inference import job_waves

H200_70B = Scenario(model="llama-3.1-70b", gpu="h200", cards=8, precision="fp8", tp=8, batch="max", prompt_len=128,
                    output_len=4096)  # fmt: skip


def _served(requests):
    return estimate(dataclasses.replace(H200_70B, requests=requests), default_catalog()).inference


def test_waves_split_a_replica_share_into_full_waves_and_a_last_partial_one():
    assert job_waves(1000, 300) == (3, 100, pytest.approx((300 * 3 + 100 * 3) / 1000))
    assert job_waves(600, 300)[:2] == (2, 0)
    assert job_waves(10, 300)[:2] == (0, 10)  # smaller than a batch: one wave of its own size


def test_a_job_of_whole_waves_runs_at_the_steady_rate_and_a_partial_wave_costs_rate():
    steady = _served(None)
    batch = steady.batch
    whole = _served(3 * batch)
    assert whole.decode_tokens_per_s == pytest.approx(steady.decode_tokens_per_s)
    assert whole.job_s == pytest.approx(3 * batch * 4096 / steady.decode_tokens_per_s)
    # One sequence more than three waves: a fourth, nearly empty wave pays a whole one's weight reads.
    ragged = _served(3 * batch + 1)
    assert ragged.waves == pytest.approx(3 + 1 / batch)
    alone = estimate(dataclasses.replace(H200_70B, batch=1), default_catalog()).inference
    assert ragged.job_s - whole.job_s == pytest.approx(alone.ttft_s + 4096 * alone.tpot_s, rel=1e-6)
    assert ragged.decode_tokens_per_s < steady.decode_tokens_per_s


def test_a_job_smaller_than_the_batch_runs_whole_at_its_own_size():
    small = _served(100)
    assert small.batch == 100 and small.waves == 1 and small.queue_wait_s == 0
    assert small.decode_tokens_per_s < _served(None).decode_tokens_per_s


def test_without_a_batch_every_request_is_in_flight_and_what_does_not_fit_waits():
    job = estimate(dataclasses.replace(H200_70B, batch=1, requests=100_000), default_catalog()).inference
    assert job.batch == job.max_batch and job.queued == 100_000 - job.dp * job.batch
    assert job.queue_wait_s > 0 and job.ttft_s > job.queue_wait_s and job.waves > 1


def test_a_job_is_noted_and_a_bad_size_names_the_field():
    result = estimate(dataclasses.replace(H200_70B, requests=3000), default_catalog())
    assert [note.code for note in result.notes if note.code == "inference_job"] == ["inference_job"]
    with pytest.raises(ScenarioError, match="requests"):
        estimate(dataclasses.replace(H200_70B, requests=0), default_catalog())
