"""The default global batch: grows with the model and the cluster, stops at the critical batch."""

import pytest

from model import default_catalog
from model.architecture import Architecture
from model.batch import TOKENS_PER_GPU_FLOOR, critical_batch_tokens, default_global_batch

CATALOG = default_catalog()


def test_the_default_batch_grows_with_the_model_and_the_cluster_and_stops_at_the_critical_batch():
    arch: Architecture = CATALOG.models["llama-3.1-70b"].architecture
    small = CATALOG.models["llama-3.1-8b"].architecture
    assert default_global_batch(small, 15e12, 64, 4096) < default_global_batch(arch, 15e12, 64, 4096)
    assert default_global_batch(arch, 15e12, 64, 4096) * 4096 == pytest.approx(4 * 2**20, rel=0.01)
    assert default_global_batch(arch, 15e12, 4096, 4096) * 4096 == pytest.approx(4096 * TOKENS_PER_GPU_FLOOR, rel=0.01)
    non_embedding = arch.stats.total_params - arch.stats.embedding_params
    capped = default_global_batch(arch, 15e12, 100_000, 4096) * 4096
    assert capped == pytest.approx(critical_batch_tokens(non_embedding, 15e12), rel=0.01)


def test_the_critical_batch_grows_as_the_run_gets_bigger_and_longer():
    # Kaplan et al. 2020: B_crit grows as the loss falls, with more parameters or more data.
    assert critical_batch_tokens(7e9, 2e12) < critical_batch_tokens(70e9, 2e12) < critical_batch_tokens(70e9, 15e12)
    assert 1e6 < critical_batch_tokens(7e9, 2e12) < 2e7  # GPT-3-era batches of 1-4M tokens sit below it


def test_a_fine_tune_on_few_tokens_gets_a_small_batch_and_always_at_least_one_sequence():
    arch = CATALOG.models["llama-3.1-8b"].architecture
    fine_tune = default_global_batch(arch, 1e8, 8, 4096)
    assert 1 <= fine_tune < default_global_batch(arch, 15e12, 8, 4096)
    assert default_global_batch(arch, 1.0, 1, 131_072) == 1
