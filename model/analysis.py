"""Analyses the pages show, built from estimates: comparisons and sweeps (pure, no UI).

Every function here takes a scenario (and a catalog) and returns plain numbers or rows, so
pages only lay things out.
"""

from __future__ import annotations

import dataclasses
from typing import NamedTuple

from model.catalog import Catalog, default_catalog
from model.estimate import Estimate, estimate
from model.scenario import Scenario

__all__ = ["TokenTimeComparison", "cpu_versus_gpu", "serving_pair"]

SEED_CPU_ID = "cpu-server"
"""The seed article's server CPU: 64 GB/s of memory bandwidth."""


class TokenTimeComparison(NamedTuple):
    """Time per generated token at batch 1: the seeds' bytes-over-bandwidth rule, GPU against CPU."""

    gpu_ideal_s: float
    gpu_expected_s: float
    cpu_ideal_s: float
    cpu_expected_s: float
    gpu_speedup: float
    """How many times faster the GPU generates a token than the CPU (ideal, as in the seed)."""


def cpu_versus_gpu(scenario: Scenario, catalog: Catalog | None = None) -> TokenTimeComparison:
    """Compare one user's time per token on the scenario's GPU with the seed's 64 GB/s CPU.

    Both read the same weight bytes per token (the seed's rule: bytes / bandwidth); the CPU runs
    one card, the GPU as many as the model needs.
    """
    catalog = catalog or default_catalog()
    single = dataclasses.replace(scenario, batch=1)
    gpu = estimate(single, catalog).inference
    cpu = estimate(dataclasses.replace(single, gpu=SEED_CPU_ID, cards=1, tp=None, pp=None), catalog).inference
    return TokenTimeComparison(
        gpu_ideal_s=gpu.tpot_roofline_s,
        gpu_expected_s=gpu.tpot_s,
        cpu_ideal_s=cpu.tpot_roofline_s,
        cpu_expected_s=cpu.tpot_s,
        gpu_speedup=cpu.tpot_roofline_s / gpu.tpot_roofline_s,
    )


def serving_pair(scenario: Scenario, catalog: Catalog | None = None) -> tuple[Estimate, Estimate]:
    """Return the scenario served to one user (batch 1) and at full load (the largest batch)."""
    catalog = catalog or default_catalog()
    one = estimate(dataclasses.replace(scenario, batch=1), catalog)
    full = estimate(dataclasses.replace(scenario, batch="max"), catalog)
    return one, full
