"""A loaded replica under continuous batching: it prefills arriving requests between decode steps.

Its output rate is output tokens over prefill plus decode time (Orca, Yu et al. 2022;
Sarathi-Serve, Agrawal et al. 2024, sec. 2).
"""

from __future__ import annotations

from typing import Literal, NamedTuple

from model.inference.context import ServingContext, ServingRates
from model.inference.decode import DecodeStep, decode_step
from model.inference.prefill import prefill_time
from model.scenario import Resolved

__all__ = ["LoadedServing", "loaded_serving"]


class LoadedServing(NamedTuple):
    """A replica serving ``batch`` users under continuous batching, in seconds and tokens/s."""

    step: DecodeStep
    tpot_s: float
    """Time between one user's tokens: the step plus its share of the other users' prefills."""
    ttft_s: float
    """One prompt's prefill, plus half a running step to wait for when others are in flight."""
    tokens_per_s: float
    """Output tokens/s over ``replicas`` replicas: output over prefill plus decode time."""
    prefill_tokens_per_s: float
    """Prompt tokens/s over ``replicas`` replicas when every user's prompt is prefilled."""
    bound: Literal["memory", "compute"]
    """Which side of the roofline the decode step is on."""


def loaded_serving(r: Resolved, ctx: ServingContext, rates: ServingRates, batch: int, replicas: int) -> LoadedServing:
    """Return what a loaded replica delivers at ``batch`` concurrent users.

    Continuous batching (Orca, Yu et al. 2022; Sarathi-Serve, Agrawal et al. 2024, sec. 2): in a
    cycle a replica prefills its ``batch`` users' prompts and decodes ``output`` tokens for each,
    so total = replicas x batch x output / (prefill(batch) + output x step); each user's tokens
    also wait for the other users' prefills: TPOT = step + prefill(batch) x (batch - 1) / batch / output.
    """
    output = float(r.scenario.output_len)
    step = decode_step(r, ctx, batch, rates)
    single = prefill_time(r, ctx, 1, rates)
    prefill_all = single if batch == 1 else prefill_time(r, ctx, batch, rates)
    return LoadedServing(
        step=step,
        tpot_s=step.per_token + prefill_all * (batch - 1) / batch / output,
        ttft_s=single + (0.5 * step.total if batch > 1 else 0.0),
        tokens_per_s=replicas * batch * output / (prefill_all + output * step.per_token),
        prefill_tokens_per_s=replicas * batch * r.scenario.prompt_len / prefill_all,
        bound="memory" if step.memory_time >= step.compute_time else "compute",
    )
