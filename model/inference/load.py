"""A loaded replica under continuous batching: it prefills arriving requests between decode steps.

Its output rate is output tokens over prefill plus decode time (Orca, Yu et al. 2022;
Sarathi-Serve, Agrawal et al. 2024, sec. 2). Under attention data parallelism the ranks step
together, so an iteration lasts as long as its busiest rank's prefills (TensorRT-LLM tech blog 10,
"ADP Balance Strategy": the iteration time is the maximum over ranks), and one in which any rank
prefills replays no rank's CUDA graph (SGLang's prepare_mlp_sync_batch_raw takes the minimum of
the ranks' can_cuda_graph): the others decode eagerly, at the pace the host launches kernels.
"""

from __future__ import annotations

import math
from typing import Literal, NamedTuple

from model.inference.context import ServingContext, ServingRates
from model.inference.decode import DecodeStep, decode_step
from model.inference.offload import Offload, offloaded_prefill, offloaded_step
from model.inference.prefill import prefill_time
from model.scenario import Resolved

__all__ = [
    "JobWaves",
    "LoadedServing",
    "busiest_rank_prompts",
    "eager_iteration_share",
    "job_waves",
    "loaded_serving",
    "queue_wait",
]


class LoadedServing(NamedTuple):
    """A replica serving ``batch`` users under continuous batching, in seconds and tokens/s."""

    step: DecodeStep
    tpot_s: float
    """Time between one user's tokens: the step plus its share of the other users' prefills."""
    ttft_s: float
    """One prompt's prefill, plus half a running step to wait for when others are in flight, plus
    the wait for a slot when more sequences are in flight than run (``queue_wait_s``)."""
    tokens_per_s: float
    """Output tokens/s over ``replicas`` replicas: output over prefill plus decode time."""
    prefill_tokens_per_s: float
    """Prompt tokens/s over ``replicas`` replicas when every user's prompt is prefilled."""
    bound: Literal["memory", "compute"]
    """Which side of the roofline the decode step is on."""
    eager_s: float = 0.0
    """Per output token, what decoding without CUDA graphs adds in iterations where some
    attention-DP rank prefills (included in ``tpot_s``; 0 without attention DP)."""
    queue_wait_s: float = 0.0
    """How long a sequence waits, on average, for a slot before its prefill starts (:func:`queue_wait`;
    included in ``ttft_s``; 0 when every sequence in flight runs)."""
    job_s: float | None = None
    """A batch job's time, first prompt to last token (:func:`job_waves`; None: a steady load)."""
    waves: float = 0.0
    """A batch job's waves per replica: full ones, plus the share of a batch the last one runs."""


def busiest_rank_prompts(per_rank: float, ranks: int) -> float:
    """Return the prompts the busiest of ``ranks`` ranks prefills in one iteration, on average.

    Each rank starts ``per_rank`` new requests an iteration (its sequences over the output length):
    with equal lengths it starts floor(per_rank) or one more, the extra one with probability
    frac(per_rank), independently of the other ranks, so the busiest rank has the extra one with
    probability 1 - (1 - frac)^ranks. One rank gives ``per_rank`` (nothing waits for anyone).
    """
    whole = math.floor(per_rank)
    extra = per_rank - whole
    if ranks <= 1 or extra <= 0.0:
        return per_rank
    return whole + 1.0 - (1.0 - extra) ** ranks


def eager_iteration_share(per_rank: float, ranks: int) -> float:
    """Return the share of iterations in which at least one of ``ranks`` ranks starts a prefill.

    Each rank starts ``per_rank`` new requests an iteration (its sequences over the output length),
    one at a time, so it prefills in that share of iterations (all of them from one a step on).
    """
    alone = min(1.0, per_rank)
    return 1.0 - (1.0 - alone) ** ranks


def queue_wait(waiting: int, tokens_per_s: float, output_len: int) -> float:
    """Return the mean time a sequence waits for a slot when ``waiting`` more are in flight than run.

    A load generator at a fixed concurrency is a closed system without think time: N sequences in
    flight, C of them running (the replicas' batches), and each one that finishes is replaced at
    once. The servers then run full, so the N - C others always wait, and sequences leave (and
    join the queue) at the servers' rate X = tokens_per_s / output_len. Little's law on the queue,
    L = X W (Little 1961, "A proof for the queuing formula L = lambda W", Operations Research 9(3);
    the interactive response-time law R = N / X - Z with think time Z = 0, Lazowska et al. 1984,
    "Quantitative System Performance", ch. 3), gives the mean wait W = (N - C) / X: exact for the
    mean whatever the distribution of service times, as long as the servers stay full, which is
    how vLLM's and TGI's schedulers run (first come, first served; admitted while the KV cache has
    room, the rest in a waiting queue). A one-off burst of N, served in waves of C, waits less
    (:func:`job_waves`); a fixed concurrency refills the queue as it drains. 0 when nothing waits or
    nothing is served.
    """
    if waiting <= 0 or tokens_per_s <= 0.0:
        return 0.0
    return waiting * output_len / tokens_per_s


class JobWaves(NamedTuple):
    """How a replica works through its share of a batch job, in waves of what it runs at once."""

    full: int
    """Waves at the full batch."""
    last: int
    """Sequences in the last, partial wave (0: none)."""
    mean_wait_waves: float
    """Waves a request waits for, on average, before its own starts."""


def job_waves(requests: float, batch: int) -> JobWaves:
    """Split one replica's ``requests`` into waves of ``batch``.

    Requests offered at once with equal lengths start together and finish together, so a server
    that admits a request when a slot frees runs them in waves (trtllm-bench and vLLM's
    benchmark_throughput submit the whole prompt set at once; their figure is output tokens over
    the whole run). The last wave runs the remainder: a small one costs nearly a full wave's weight
    reads for a fraction of its tokens, which a steady load, always refilled, never pays.
    """
    whole = max(1, math.ceil(requests - 1e-9))
    full, last = divmod(whole, batch)
    waits = batch * full * (full - 1) / 2 + last * full
    return JobWaves(full, last, waits / whole)


def loaded_serving(
    r: Resolved,
    ctx: ServingContext,
    rates: ServingRates,
    batch: int,
    replicas: float,
    waiting: int = 0,
    offload: Offload | None = None,
) -> LoadedServing:
    """Return what loaded replicas deliver at ``batch`` concurrent users each.

    With ``offload`` (part of the model in host memory, :mod:`model.inference.offload`) the steps and
    prefills are the offloaded ones: the cards' share and the host's, in turn.

    ``replicas`` counts replicas' worth of users in flight: fewer than the replicas there are when
    a concurrency over all of them does not fill each one's share. ``waiting`` sequences more are
    in flight than the replicas run (a concurrency above what fits): each waits for a slot
    (:func:`queue_wait`) before its time to first token starts, and nothing else changes, since
    the replicas run full either way.

    Continuous batching (Orca, Yu et al. 2022; Sarathi-Serve, Agrawal et al. 2024, sec. 2): in a
    cycle a replica prefills its ``batch`` users' prompts and decodes ``output`` tokens for each,
    so total = replicas x batch x output / (prefill(batch) + output x step); each user's tokens
    also wait for the other users' prefills: TPOT = step + prefill(batch) x (batch - 1) / batch / output.

    Under attention data parallelism over ep ranks (in-flight batching, no balancing scheduler),
    a prompt is prefilled on the rank its request landed on while the others wait at the next MoE
    all-to-all: a cycle pays output x (busiest rank's prompts per iteration) prompts' time, not
    batch / ep. TensorRT-LLM measured DeepSeek-V3 on 8 GB200 with attention DP 8 at a mean
    balance ratio of 54 % this way, and 1.33x the throughput once it scheduled prompts together.
    In those iterations the other ranks decode without their CUDA graph: a step then lasts at
    least its kernels' host launch time (:attr:`Efficiencies.eager_kernel_s`).
    """
    output = float(r.scenario.output_len)
    job = r.scenario.requests
    share = job / replicas if job is not None else 0.0  # the job's requests one replica serves
    cycle = _cycle(r, ctx, rates, batch, offload)
    step = cycle.step
    job_s, waves = None, 0.0
    if job is None:
        tokens_per_s = replicas * batch * output / cycle.seconds
        wait = queue_wait(waiting, tokens_per_s, r.scenario.output_len)
    else:
        plan = job_waves(share, batch)
        job_s = plan.full * cycle.seconds + (_cycle(r, ctx, rates, plan.last, offload).seconds if plan.last else 0.0)
        tokens_per_s = replicas * share * output / job_s
        wait = plan.mean_wait_waves * cycle.seconds
        waves = plan.full + plan.last / batch
    return LoadedServing(
        step=step,
        tpot_s=cycle.per_token + cycle.prefill_all * (batch - 1) / batch / output,
        ttft_s=cycle.single + (0.5 * step.total if batch > 1 else 0.0) + wait,
        tokens_per_s=tokens_per_s,
        prefill_tokens_per_s=replicas * batch * r.scenario.prompt_len / cycle.prefill_all,
        bound="memory" if step.memory_time >= step.compute_time else "compute",
        eager_s=cycle.eager,
        queue_wait_s=wait,
        job_s=job_s,
        waves=waves,
    )


class _Cycle(NamedTuple):
    """One cycle of a replica's batch: it prefills every prompt of the batch, then decodes ``output`` tokens each."""

    single: float
    """One prompt's prefill alone (a time to first token's)."""
    step: DecodeStep
    prefill_all: float
    """The batch's prompts' prefill."""
    per_token: float
    """One decode step per token, the eager share included."""
    eager: float
    output: float

    @property
    def seconds(self) -> float:
        """The cycle's time: the batch's prefill and its decode."""
        return self.prefill_all + self.output * self.per_token


def _cycle(r: Resolved, ctx: ServingContext, rates: ServingRates, batch: int, offload: Offload | None) -> _Cycle:
    """Return one cycle of ``batch`` sequences (:class:`_Cycle`)."""
    output = float(r.scenario.output_len)
    single = prefill_time(r, ctx, 1, rates)
    prefill_all = single if batch == 1 else prefill_time(r, ctx, batch, rates)
    if offload is not None and offload.mode != "none":
        step = offloaded_step(r, ctx, rates, offload, batch)
        one = offloaded_prefill(r, ctx, rates, offload, 1, single)
        prefill_all = one if batch == 1 else offloaded_prefill(r, ctx, rates, offload, batch, prefill_all)
        single = one
    else:
        step = decode_step(r, ctx, batch, rates)
    eager = 0.0
    if ctx.ep > 1 and batch > 1:
        per_rank = batch / ctx.ep
        prefill_all *= output * busiest_rank_prompts(per_rank / output, ctx.ep) / per_rank
        launched = ctx.kernels * rates.eff.eager_kernel_s  # the host's pace for one eager step
        if launched > step.total:
            eager = eager_iteration_share(per_rank / output, ctx.ep) * (launched - step.total) / step.tokens_per_step
    return _Cycle(single, step, prefill_all, step.per_token + eager, eager, output)
