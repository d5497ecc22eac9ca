"""The Tokens page's view model: frozen, built once per scenario and target, clamped to the largest batch."""

import dataclasses

import pytest

from app_pages.tokens.view import tokens_view
from model import Scenario, default_catalog, estimate
from tests.app_pages.estimates import estimates
from ui.format import duration
from ui.view import forget_views, view_or_stop


def test_a_rerun_with_the_same_inputs_returns_the_same_frozen_view_without_an_estimate(monkeypatch):
    forget_views()
    calls = estimates(monkeypatch)
    scenario = Scenario(cards=16, batch=8)
    view = view_or_stop(tokens_view, scenario, 50.0, None, 0, 0)
    assert calls and view.points and view.batch == 8 and not view.clamp_note
    calls.clear()
    assert view_or_stop(tokens_view, scenario, 50.0, None, 0, 0) is view
    assert not calls
    with pytest.raises(dataclasses.FrozenInstanceError):
        view.batch = 1  # type: ignore[misc]


def test_a_batch_past_the_largest_that_fits_is_shown_at_the_largest_and_said():
    asked = Scenario(batch=100_000)
    largest = estimate(asked).inference.max_batch
    assert 1 <= largest < asked.batch
    view = tokens_view(asked, 50.0, None, 0, 0, default_catalog())
    assert view.batch == largest == max(view.batch_options)
    assert "100,000" in view.clamp_note and f"{largest:,}" in view.clamp_note
    # The next rerun asks for the largest with the link's batch remembered: the same figures, the same note.
    again = tokens_view(dataclasses.replace(asked, batch=largest), 50.0, asked.batch, 0, 0, default_catalog())
    assert (again.metrics, again.clamp_note) == (view.metrics, view.clamp_note)


def test_more_users_than_fit_are_queued_and_the_page_shows_the_running_batch():
    # Issue 33: 64 users on one RTX 4090 got no figure ("at most 26 sequences fit"); a server queues them.
    scenario = Scenario(model="llama-3.1-8b", gpu="rtx-4090", cards=1, batch=1)
    view = tokens_view(scenario, 50.0, None, 64, 0, default_catalog())
    engine = estimate(dataclasses.replace(scenario, concurrency=64), default_catalog()).inference
    assert engine.fits and engine.queued > 0
    assert view.batch == engine.batch  # the figures are the running batch's
    first_token = next(tile for row in view.metrics for tile in row if tile["label"] == "Time to first token")
    assert first_token["value"] == duration(engine.ttft_s)  # the queue included: one answer with the note
    assert f"**{engine.queued:,} wait for a slot**" in view.users_note
    few = tokens_view(scenario, 50.0, None, 4, 0, default_catalog())
    assert few.batch == 4 and "every one is served at once" in few.users_note
    assert tokens_view(scenario, 50.0, None, 0, 0, default_catalog()).users_note == ""


def test_a_batch_job_is_said_with_its_waves_and_time_and_leaves_the_steady_figures_alone():
    # A 1,000-request job at the page's batch of 32 on one H100: 32 waves (31 full, one of 8).
    scenario = Scenario(model="llama-3.1-8b", gpu="h100-sxm", cards=1, batch=32)
    steady = tokens_view(scenario, 50.0, None, 0, 0, default_catalog())
    view = tokens_view(scenario, 50.0, None, 0, 1000, default_catalog())
    job = estimate(dataclasses.replace(scenario, requests=1000), default_catalog()).inference
    assert job.waves == pytest.approx(31 + 8 / 32)
    assert duration(job.job_s) in view.job_note and "1,000 requests" in view.job_note
    assert view.metrics == steady.metrics and steady.job_note == ""
