import dataclasses
import math

import pytest

from model import Scenario, default_catalog, estimate
from model.analyses.fit import (
    largest_inference_batch,
    largest_inference_context,
    largest_training_micro_batch,
    largest_training_seq_len,
    pinned_serving,
    pinned_training,
    with_context,
)
from model.analyses.search import largest_passing

CATALOG = default_catalog()
LLAMA_8B_ON_ONE = Scenario(model="llama-3.1-8b", gpu="h100-sxm", cards=1, prompt_len=3000, output_len=1000, batch=8)
LLAMA_8B_ON_EIGHT = Scenario(model="llama-3.1-8b", gpu="h100-sxm", cards=8, batch=32)
# Few sequences fit: the prefill chunk is smaller than the engine's full-chunk allowance.
LLAMA_70B_TIGHT = Scenario(model="llama-3.1-70b", gpu="h100-sxm", cards=2, prompt_len=256, output_len=2048, batch=1)
NOTHING_FITS = Scenario(model="llama-3.1-405b", gpu="rtx-4090", cards=1, batch=1)


def _serves(scenario, **changes):
    return estimate(dataclasses.replace(scenario, **changes), CATALOG).inference.fits


def _trains(scenario, **changes):
    return estimate(dataclasses.replace(scenario, **changes), CATALOG).training.fits


@pytest.mark.parametrize("scenario", [LLAMA_8B_ON_ONE, LLAMA_8B_ON_EIGHT, LLAMA_70B_TIGHT])
def test_the_largest_inference_batch_fits_and_one_more_does_not(scenario):
    largest = largest_inference_batch(scenario, CATALOG)
    pinned = pinned_serving(scenario, CATALOG)
    assert largest >= 1
    assert _serves(pinned, batch=largest)
    assert not _serves(pinned, batch=largest + 1)


def test_the_largest_batch_is_never_below_the_engines_own_max_batch():
    for scenario in (LLAMA_8B_ON_ONE, LLAMA_70B_TIGHT):
        engine = estimate(pinned_serving(scenario, CATALOG), CATALOG).inference.max_batch
        assert largest_inference_batch(scenario, CATALOG) >= engine


def test_the_largest_context_fits_and_ten_percent_more_does_not():
    assert CATALOG.models["llama-3.1-8b"].architecture.sliding_window is None
    largest = largest_inference_context(LLAMA_8B_ON_ONE, CATALOG, batch=8)
    pinned = dataclasses.replace(pinned_serving(LLAMA_8B_ON_ONE, CATALOG), batch=8)
    assert 2 <= largest < math.inf
    assert estimate(with_context(pinned, int(largest)), CATALOG).inference.fits
    assert not estimate(with_context(pinned, int(largest * 1.1)), CATALOG).inference.fits
    assert not estimate(with_context(pinned, int(largest) + 1), CATALOG).inference.fits


def test_the_largest_context_is_about_the_free_memory_over_the_kv_cache_per_token():
    # Llama 3.1 8B: 2 (K, V) x 32 layers x 8 KV heads x 128 x 2 bytes = 131,072 bytes per token
    # (config.json). What is left after weights, runtime and activations holds batch x context of it.
    memory = estimate(LLAMA_8B_ON_ONE, CATALOG).inference.memory_per_gpu
    free = 80e9 - (memory.total - memory.kv_cache)
    largest = largest_inference_context(LLAMA_8B_ON_ONE, CATALOG, batch=8)
    assert largest == pytest.approx(free / (8 * 131_072), rel=0.01)


def test_a_sliding_window_leaves_the_context_unbounded_by_memory():
    # Mistral 7B caches at most its 4,096-token window (Mistral 7B paper, Table 1).
    scenario = Scenario(model="mistral-7b", gpu="h100-sxm", cards=1, batch=8)
    assert largest_inference_context(scenario, CATALOG, batch=8) == math.inf


def test_the_largest_context_shrinks_as_the_batch_grows():
    few = largest_inference_context(LLAMA_8B_ON_ONE, CATALOG, batch=4)
    many = largest_inference_context(LLAMA_8B_ON_ONE, CATALOG, batch=64)
    assert many < few


def test_the_largest_training_micro_batch_fits_and_one_more_does_not():
    largest = largest_training_micro_batch(LLAMA_8B_ON_EIGHT, CATALOG)
    pinned = pinned_training(LLAMA_8B_ON_EIGHT, CATALOG)
    assert largest >= 1
    assert _trains(pinned, micro_batch=largest)
    assert not _trains(pinned, micro_batch=largest + 1)


def test_the_largest_training_sequence_fits_and_one_more_token_does_not():
    largest = largest_training_seq_len(LLAMA_8B_ON_EIGHT, CATALOG)
    pinned = pinned_training(LLAMA_8B_ON_EIGHT, CATALOG)
    assert largest >= 128
    assert _trains(pinned, seq_len=largest)
    assert not _trains(pinned, seq_len=largest + 1)


def test_the_searches_answer_zero_when_nothing_fits():
    assert largest_inference_batch(NOTHING_FITS, CATALOG) == 0
    assert largest_inference_context(NOTHING_FITS, CATALOG, batch=1) == 0
    assert largest_training_micro_batch(NOTHING_FITS, CATALOG) == 0
    assert largest_training_seq_len(NOTHING_FITS, CATALOG) == 0


@pytest.mark.parametrize("guess", [None, -5, 1, 2, 7, 19, 20, 21, 39, 40, 41, 500])
def test_the_search_finds_the_last_fitting_value_from_any_first_guess(guess):
    for threshold in range(45):
        calls = []

        def fits(n, threshold=threshold, calls=calls):
            calls.append(n)
            return n <= threshold

        assert largest_passing(fits, 1, 40, guess) == min(threshold, 40)
        assert len(calls) <= 16
