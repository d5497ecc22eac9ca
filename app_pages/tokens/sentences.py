"""The tokens-per-second page's words: its metrics, takeaway and captions, in the visit's language.

Pure functions: the engine's estimate and serving sweep in, ``st.metric`` arguments and sentences out
(a figure that cannot run is a dash with its reason, never a number).
"""

from __future__ import annotations

from typing import Any

from app_pages.tokens.rows import BOUND_LABELS, target_label
from model import InferenceEstimate, replica_name
from model.analyses.serving import BatchPoint, Knee, LatencyFit, SweepReplica
from model.catalog import ServingBudget
from ui.format import NOT_RUN, bytes_gb, duration, milliseconds, per_second
from ui.i18n import tr
from ui.memory_rows import budget_text

__all__ = [
    "clamp_note",
    "knee_text",
    "metric_rows",
    "misfit_reason",
    "replica_caption",
    "replicas_text",
    "scale_text",
    "throughput_takeaway",
    "users_note",
]


def clamp_note(asked: int, largest: int) -> str:
    """Say that a link's batch was more than fit and which batch the page shows instead."""
    return tr(
        "The link asked for batch {asked}; at most {largest} sequences fit on each replica, so the page shows "
        "batch {largest}.",
        asked=f"{asked:,}",
        largest=f"{largest:,}",
    )


def users_note(users: int, inference: InferenceEstimate) -> str:
    """Say what a number of users gets: all served at once, or the batch that fits and how many wait (a queue)."""
    if not inference.fits:
        return ""
    if inference.queued:
        return tr(
            "**{users} users**: each replica runs {running} at once and **{queued} wait for a slot**; a "
            "first token takes {ttft}, {wait} of it in the queue. The figures below are for the running batch.",
            users=f"{users:,}",
            running=f"{inference.batch:,}",
            queued=f"{inference.queued:,}",
            ttft=duration(inference.ttft_s),
            wait=duration(inference.queue_wait_s),
        )
    return tr(
        "**{users} users**: every one is served at once, {running} on each replica; the figures below are for that "
        "batch.",
        users=f"{users:,}",
        running=f"{inference.batch:,}",
    )


def job_note(requests: int, job: InferenceEstimate, steady: InferenceEstimate) -> str:
    """Say how a batch job of ``requests`` runs: its waves, its time, and its rate beside a steady load's."""
    if not job.fits or job.job_s is None:
        return ""
    return tr(
        "**A job of {requests} requests** runs {running} at a time on each replica, in {waves} waves: it takes "
        "**{time}**, {rate} output tokens/s over the job against {steady} under a steady load, and a request waits "
        "{wait} on average for its wave.",
        requests=f"{requests:,}",
        running=f"{job.batch:,}",
        waves=f"{job.waves:.3g}",
        time=duration(job.job_s),
        rate=f"{job.decode_tokens_per_s:,.0f}",
        steady=f"{steady.decode_tokens_per_s:,.0f}",
        wait=duration(job.queue_wait_s),
    )


def knee_text(knee: Knee) -> tuple[str, str]:
    """Return the knee metric's value and the sentence under it (a dash when nothing fits)."""
    if knee.largest_batch < 1:
        return NOT_RUN, ""
    if knee.expected is None:
        return tr("none"), tr("always memory-bound")
    value = f"≈ {knee.expected:,.0f}"
    if knee.expected > knee.largest_batch:
        return value, tr("beyond the {n} that fit", n=f"{knee.largest_batch:,}")
    return value, tr("within the {n} that fit", n=f"{knee.largest_batch:,}")


def _rate(tokens_per_s: float | None) -> str:
    """Format a rate for a metric whose label names the unit ('25,353')."""
    return per_second(tokens_per_s, unit="").strip()


def _quiet(delta: str) -> dict[str, Any]:
    return {"delta": delta, "delta_color": "off", "delta_arrow": "off"}


def replicas_text(replicas: int) -> str:
    """Count replicas in the visit's language: '1 replica', '8 replicas'."""
    if replicas == 1:
        return tr("1 replica")
    return tr("{n} replicas", n=f"{replicas:,}")


def scale_text(batch: int, replicas: int, sequences: int) -> str:
    """Say what a total counts: 'batch 32 on each of 8 replicas = 256 sequences'."""
    if replicas == 1:
        return tr("batch {batch} on 1 replica", batch=f"{batch:,}")
    return tr(
        "batch {batch} on each of {replicas} replicas = {sequences} sequences",
        batch=f"{batch:,}",
        replicas=f"{replicas:,}",
        sequences=f"{sequences:,}",
    )


def _not_run(label: str, reason: str) -> dict[str, Any]:
    """A metric for a figure that cannot run: a dash, and the reason in its help (the Overview's form)."""
    return {"label": label, "value": NOT_RUN, "help": tr("Cannot run: {reason}.", reason=reason)}


def metric_rows(
    serving: InferenceEstimate,
    chosen: BatchPoint,
    knee: Knee,
    fit: LatencyFit,
    target_ms: float,
    prompt_len: int,
    reason: str,
    budget: ServingBudget,
    slots: int | None = None,
) -> list[list[dict[str, Any]]]:
    """Return the page's two rows of metrics as ``st.metric`` keyword arguments.

    The first row is the engine's estimate at the chosen batch (TTFT, TPOT with its roofline,
    tokens/s per user and in total): a dash and ``reason`` for each when it does not fit. The second
    is the knee, the largest batch that fits (the estimate's ``max_batch``), and the largest within
    the target.

    Args:
        serving: ``estimate(scenario).inference`` at the chosen batch.
        chosen: the sweep's point at that batch (the same replica: its roofline per user).
        knee: the memory/compute knee on that replica.
        fit: the largest batch within the target on that replica.
        target_ms: the target in ms per output token.
        prompt_len: tokens of each prompt.
        reason: why the chosen batch cannot run ('' when it fits).
        budget: the serving stack's budget of each card, which the largest batch's help names.
        slots: what its server runs at once unless told (None: what fits), said under the largest batch.
    """
    at = tr("At batch {batch}.", batch=f"{serving.batch:,}")
    labels = (tr("Time to first token"), tr("Time per output token"), tr("Tokens/s per user"), tr("Tokens/s in total"))
    if serving.fits:
        first = [
            {
                "label": labels[0],
                "value": duration(serving.ttft_s),
                "help": tr(
                    "{at} Prefill of one {prompt}-token prompt, plus the decode step in flight.",
                    at=at,
                    prompt=f"{prompt_len:,}",
                ),
            },
            {
                "label": labels[1],
                "value": milliseconds(serving.tpot_s, 2),
                **_quiet(tr("ideal {value}", value=milliseconds(serving.tpot_roofline_s, 2))),
                "help": tr(
                    "{at} Expected (efficiencies, overheads, other users' prefills) beside the roofline at "
                    "datasheet peaks.",
                    at=at,
                ),
            },
            {
                "label": labels[2],
                "value": _rate(serving.decode_tokens_per_s_per_user),
                **_quiet(tr("ideal {value}", value=per_second(chosen.roofline_tokens_per_s_per_user))),
                "help": tr("{at} 1 / time per output token.", at=at),
            },
            {
                "label": labels[3],
                "value": _rate(serving.decode_tokens_per_s),
                **_quiet(tr(BOUND_LABELS[serving.bound])),
                "help": tr(
                    "Output tokens over prefill plus decode time: {scale}.",
                    scale=scale_text(serving.batch, serving.dp, chosen.sequences),
                ),
            },
        ]
    else:
        first = [_not_run(label, reason) for label in labels]
    return [first, _limit_metrics(serving, knee, fit, target_ms, reason, budget, slots)]


def _limit_metrics(
    serving: InferenceEstimate,
    knee: Knee,
    fit: LatencyFit,
    target_ms: float,
    reason: str,
    budget: ServingBudget,
    slots: int | None = None,
) -> list[dict[str, Any]]:
    """The second row: the knee, the largest batch that fits, and the largest batch within the target.

    A desk server that runs fewer slots than fit unless told says so under the largest batch.
    """
    if serving.max_batch < 1:
        caption = _quiet(tr("nothing fits"))
    elif slots is not None and slots < serving.max_batch:
        caption = _quiet(tr("its server runs {slots} unless told", slots=f"{slots:,}"))
    else:
        caption = {}
    largest = {
        "label": tr("Largest batch"),
        "value": f"{serving.max_batch:,}",
        **caption,
        "help": tr(
            "Concurrent sequences per replica that fit at this prompt + output length. {budget}",
            budget=budget_text(budget),
        ),
    }
    if serving.max_batch < 1:
        return [
            _not_run(tr("Knee batch"), reason),
            largest,
            _not_run(tr("Batch within target"), reason),
            _not_run(tr("Tokens/s within target"), reason),
        ]
    knee_value, knee_note = knee_text(knee)
    ideal_knee = tr("none") if knee.ideal is None else f"≈ {knee.ideal:,.0f}"
    target_help = tr(
        "The largest batch per replica whose expected time per output token is at most {target}.",
        target=target_label(target_ms),
    )
    if fit.batch is None:
        within = {"label": tr("Batch within target"), "value": tr("none"), **_quiet(tr("even one user misses it"))}
        rate = {"label": tr("Tokens/s within target"), "value": NOT_RUN}
        rate_help = tr("No batch meets {target}.", target=target_label(target_ms))
    else:
        stop = tr("limited by memory") if fit.limit == "memory" else tr("the next batch misses it")
        within = {"label": tr("Batch within target"), "value": f"{fit.batch:,}", **_quiet(stop)}
        rate = {
            "label": tr("Tokens/s within target"),
            "value": _rate(fit.tokens_per_s),
            **_quiet(tr("{rate} per user", rate=per_second(fit.tokens_per_s_per_user))),
        }
        rate_help = tr(
            "Output tokens/s at the largest batch within the target: {scale}.",
            scale=scale_text(fit.batch, serving.dp, fit.sequences),
        )
    return [
        {
            "label": tr("Knee batch"),
            "value": knee_value,
            **(_quiet(knee_note) if knee_note else {}),
            "help": tr(
                "Sequences per replica at which decode's compute time equals its memory time. "
                "At datasheet peaks: {ideal}.",
                ideal=ideal_knee,
            ),
        },
        largest,
        {**within, "help": target_help},
        {**rate, "help": rate_help},
    ]


def _knee_clause(knee: Knee) -> str:
    if knee.expected is None:
        return tr(
            "Decode stays memory-bound at every batch: each sequence's KV-cache reads take longer than its "
            "arithmetic, so there is no knee"
        )
    if knee.expected > knee.largest_batch:
        return tr(
            "Every batch that fits is memory-bound: the knee (≈ {knee} sequences) lies beyond the {largest} that fit",
            knee=f"{knee.expected:,.0f}",
            largest=f"{knee.largest_batch:,}",
        )
    return tr(
        "Past ≈ {knee} sequences decode turns compute-bound and the total stops growing with the batch",
        knee=f"{knee.expected:,.0f}",
    )


def throughput_takeaway(fit: LatencyFit, knee: Knee, target_ms: float, first: BatchPoint, replica: SweepReplica) -> str:
    """Say in a sentence or two what the latency target allows and where the knee is.

    Args:
        fit: the largest batch within the target.
        knee: the memory/compute knee.
        target_ms: the target in ms per output token.
        first: the sweep's batch-1 point (one user's speed on this replica).
        replica: the replica the sweep holds, and how many.
    """
    target = target_label(target_ms)
    name = replica_name(replica.tp, replica.pp, replica.ep)
    if knee.largest_batch < 1:  # the serving verdict says why and what would fit
        return tr("Not even one sequence fits on a replica of {replica}: nothing here has a speed.", replica=name)
    if fit.batch is None:
        return tr(
            "On a replica of {replica} even one user waits {tpot} per token, more than the {target} target: a faster "
            "card, more cards per replica or a smaller precision would be needed. {knee}.",
            replica=name,
            tpot=milliseconds(first.tpot_s),
            target=target,
            knee=_knee_clause(knee),
        )
    if fit.limit == "memory":
        reach = tr(
            "every batch that fits meets the {target} target, so memory caps a replica at {batch} users",
            target=target,
            batch=f"{fit.batch:,}",
        )
    else:
        reach = tr(
            "at the {target} target a replica serves up to **{batch} users**", target=target, batch=f"{fit.batch:,}"
        )
    return tr(
        "On a replica of {replica} one user gets {speed}; {reach}: **{total}** over {replicas} ({each} each). {knee}.",
        replica=name,
        speed=per_second(first.tokens_per_s_per_user),
        reach=reach,
        total=per_second(fit.tokens_per_s),
        replicas=replicas_text(replica.replicas),
        each=per_second(fit.tokens_per_s_per_user),
        knee=_knee_clause(knee),
    )


def misfit_reason(serving: InferenceEstimate) -> str:
    """Say why a chosen batch that does not fit cannot run, when smaller batches do (the engine's budget).

    When not even one sequence fits, the serving verdict's reason says why (``verdict_reason``).

    Args:
        serving: the estimate at the chosen batch (it does not fit); its ``budget_per_gpu`` is the budget.
    """
    return tr(
        "batch {batch} needs {needed} per card, more than the {budget} the serving software uses; "
        "at most {largest} fit",
        batch=f"{serving.batch:,}",
        needed=bytes_gb(serving.memory_per_gpu.total),
        budget=bytes_gb(serving.budget_per_gpu),
        largest=f"{serving.max_batch:,}",
    )


def replica_caption(replica: SweepReplica, chosen: BatchPoint, cards: int) -> str:
    """Say what the batch counts: sequences on each replica, and how many that is over every card."""
    name = replica_name(replica.tp, replica.pp, replica.ep)
    if replica.replicas == 1:
        return tr(
            "One replica of {replica}, the engine's choice for this batch, serves all {batch} sequences.",
            replica=name,
            batch=f"{chosen.batch:,}",
        )
    return tr(
        "Each replica is {replica}, the engine's choice for this batch; the {cards} cards hold {replicas} of them: "
        "{scale}.",
        replica=name,
        cards=f"{cards:,}",
        replicas=f"{replica.replicas:,}",
        scale=scale_text(chosen.batch, replica.replicas, chosen.sequences),
    )
