"""The server's host work per running sequence (Efficiencies.sequence_host_s): one part of the decode step."""

import dataclasses

import pytest

from model import Scenario, default_catalog, estimate, resolve
from model.efficiency import EXPECTED
from model.inference import decode_step, serving_context, serving_rates
from model.inference.decode import with_scheduling

H100_70B = Scenario(model="llama-3.1-70b", gpu="h100-sxm", cards=8, tp=8, precision="fp8", batch=256)


def _step(eff, batch):
    r = resolve(H100_70B, default_catalog())
    ctx = serving_context(r, tp=8, pp=1, compute_key="fp8")
    return decode_step(r, ctx, batch, serving_rates(r, ctx, eff))


def test_the_host_work_grows_with_the_batch_and_adds_to_the_step():
    busy = dataclasses.replace(EXPECTED, sequence_host_s=5e-6)
    for batch in (1, 64, 1024):
        plain, hosted = _step(EXPECTED, batch), _step(busy, batch)
        assert plain.scheduling == 0.0
        assert hosted.scheduling == pytest.approx(5e-6 * batch)
        assert hosted.total == pytest.approx(plain.total + 5e-6 * batch)
        assert dict(hosted.parts)["scheduling"] == hosted.scheduling


def test_the_parts_add_up_with_it_and_typical_pays_none():
    step = _step(dataclasses.replace(EXPECTED, sequence_host_s=1e-5), 512)
    products = max(step.weights, step.compute)
    rest = sum(seconds for name, seconds in step.parts if name not in ("weight reads", "matrix products"))
    assert products + rest == pytest.approx(step.total)
    assert estimate(H100_70B, default_catalog()).inference.decode.scheduling == 0.0  # typical: none


def test_no_work_leaves_the_step_as_it_was():
    step = _step(EXPECTED, 8)
    assert with_scheduling(step, 8, serving_rates(
        resolve(H100_70B), serving_context(resolve(H100_70B), tp=8, pp=1, compute_key="fp8"), EXPECTED
    )) is step  # fmt: skip
