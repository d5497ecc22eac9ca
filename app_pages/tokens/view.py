"""The Tokens page's view model: the scenario at the page's batch turned, once, into everything the page shows.

One step, built before the page's controls and remembered by :func:`ui.view.view_or_stop`: the
batch slider stops at the engine's largest batch, and a link asking for more than fits is shown
the largest that does (the view's ``batch``; the page script puts it into the session). Engine
calls: the scenario's estimate (a second one at the largest batch when the asked one does not
fit), the batch sweep and the point at the chosen batch, the knee, the largest batch within the
latency target, the sweep's replica and the serving verdict, all on the replica
``estimate(scenario)`` chooses. ``python -m benchmarks.engine_calls`` prints how many estimates
a rerun takes.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from app_pages.tokens.decode import breakdown_rows, breakdown_takeaway, speculative_label
from app_pages.tokens.rows import (
    batch_options,
    chosen_rows,
    knee_rows,
    line_rows,
    point_rows,
    seconds_from_ms,
    target_rows,
)
from app_pages.tokens.sentences import (
    clamp_note,
    job_note,
    metric_rows,
    misfit_reason,
    replica_caption,
    replicas_text,
    throughput_takeaway,
    users_note,
)
from model import Catalog, Scenario, estimate
from model.analyses.serving import ReplicaFor, batch_sweep, knee_batch, largest_batch_within_latency, sweep_replica
from model.analyses.verdict import Verdict, goal_verdict
from ui.i18n import tr
from ui.page import scenario_tag
from ui.verdict import verdict_reason

__all__ = ["REPLICA", "TokensView", "tokens_view"]

REPLICA: ReplicaFor = "scenario"
"""Sweep the replica estimate(scenario) chooses for the chosen batch: the page's figures are the estimate's."""

Rows = tuple[dict[str, Any], ...]


@dataclass(frozen=True)
class TokensView:
    """Every number, sentence and chart row the Tokens page shows for one scenario and latency target."""

    title: str
    tag: str
    """The scenario in a few words: the title while presenting."""
    verdict: Verdict
    """Serving one sequence: the page shows it when even that does not run."""
    gpu_name: str
    precision: str
    takeaway: str
    batch: int
    """The batch the figures are for: the scenario's, or the largest that fits when it asked for more."""
    clamp_note: str
    """Why the batch is smaller than a link asked for ('' when it is not)."""
    users_note: str
    """With a number of users: the batch each replica runs, and how many wait ('' without users)."""
    job_note: str
    """With a batch job: its waves, its time and its throughput beside a steady load's ('' without one)."""
    batch_options: tuple[int, ...]
    """The batch slider's steps: the swept batches and the chosen one, none past the largest that fits."""
    replica_caption: str
    """What the batch counts ('' when the batch does not fit)."""
    speculative: str
    metrics: tuple[Rows, ...]
    """Two rows of four tiles, as ``st.metric`` keyword arguments."""
    charted: bool
    """Whether one sequence fits (else there is nothing to chart)."""
    throughput_title: str
    points: Rows
    lines: Rows
    knee: Rows
    chosen: Rows
    target: Rows
    breakdown_takeaway: str
    breakdown: Rows


def tokens_view(
    scenario: Scenario, target_ms: float, asked: int | None, users: int, job: int, catalog: Catalog
) -> TokensView:
    """Return the Tokens page for ``scenario`` (its batch the page's) and the latency target.

    Args:
        scenario: the sidebar's scenario at the page's batch, prompt, output and speculative decoding.
        target_ms: the latency target, ms per output token.
        asked: the batch a link asked for before the page showed the largest that fits (None: none).
        users: sequences in flight over every replica (0: none; the page's batch is the load). With
            users the engine chooses the batch each replica runs, and queues what does not fit
            (:mod:`model.layouts.serving`); the page's figures are for that running batch.
        job: requests in a batch job (0: none): the page says how long the job takes, in waves of the
            running batch (``Scenario.requests``); its other figures stay those of a steady load.
        catalog: the visit's catalog.

    Raises:
        ScenarioError: the scenario is invalid.
    """
    crowd = ""
    if users:
        crowded = dataclasses.replace(scenario, batch=1, concurrency=users)
        loaded = estimate(crowded, catalog).inference
        crowd = users_note(users, loaded)
        if loaded.fits:  # the figures are the crowd's: its running batch, and a first token after the queue
            scenario = crowded
    result = estimate(scenario, catalog)
    largest = result.inference.max_batch
    if 1 <= largest < result.inference.batch:  # more than fits: show the largest batch that does, and say so
        asked, scenario = result.inference.batch, dataclasses.replace(scenario, batch=largest)
        result = estimate(scenario, catalog)
    serving, gpu = result.inference, result.resolved.gpu
    batch = serving.batch  # the scenario's, a whole number
    work = ""
    if job and serving.fits:  # the same running batch, working through one job in waves of it
        work = job_note(job, estimate(dataclasses.replace(scenario, requests=job), catalog).inference, serving)
    points = batch_sweep(scenario, catalog, replica_for=REPLICA)
    chosen = batch_sweep(scenario, catalog, [batch], replica_for=REPLICA)[0]
    knee = knee_batch(scenario, catalog, replica_for=REPLICA)
    fit = largest_batch_within_latency(scenario, catalog, seconds_from_ms(target_ms), replica_for=REPLICA)
    replica = sweep_replica(scenario, catalog, replica_for=REPLICA)
    verdict = goal_verdict(scenario, "serve", catalog)  # one sequence: can the model be served at all
    if serving.fits:
        reason = ""
    elif verdict.runs:
        reason = misfit_reason(serving)
    else:
        reason = verdict_reason(verdict, gpu.short_name, scenario.precision)  # the Overview's words
    title = tr(
        "{model} on {cards} × {gpu}", model=result.inputs["model_name"], cards=f"{scenario.cards:,}", gpu=gpu.short_name
    )
    resolved = result.resolved
    metrics = metric_rows(
        serving, chosen, knee, fit, target_ms, scenario.prompt_len, reason, resolved.serving_budget,
        resolved.serving_slots,
    )  # fmt: skip
    return TokensView(
        title=title,
        tag=tr("Tokens/s · {scenario}", scenario=scenario_tag(result)),
        verdict=verdict,
        gpu_name=gpu.short_name,
        precision=scenario.precision,
        takeaway=throughput_takeaway(fit, knee, target_ms, points[0], replica),
        batch=batch,
        clamp_note=clamp_note(asked, batch) if asked is not None else "",
        users_note=crowd,
        job_note=work,
        batch_options=tuple(batch_options(points, batch, serving.max_batch)),
        replica_caption=replica_caption(replica, chosen, scenario.cards) if serving.fits else "",
        speculative=speculative_label(scenario),
        metrics=tuple(tuple(row) for row in metrics),
        charted=serving.max_batch >= 1,
        throughput_title=tr(
            "**Output tokens/s over {replicas} against batch**", replicas=replicas_text(replica.replicas)
        ),
        points=tuple(point_rows(points)),
        lines=tuple(line_rows(points)),
        knee=tuple(knee_rows(knee)),
        chosen=tuple(chosen_rows(chosen)),
        target=tuple(target_rows(target_ms)),
        breakdown_takeaway=breakdown_takeaway(points),
        breakdown=tuple(breakdown_rows(points)),
    )
