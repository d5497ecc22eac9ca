"""A desk server's slots (data/stacks.yaml): they cap the batch the engine chooses, never one the user fixes."""

import dataclasses

from model import Scenario, estimate

MAC = Scenario(model="llama-3.1-8b", gpu="apple-m3-max", cards=1, precision="q4_k_m", stack="llamacpp")


def _served(scenario: Scenario):
    return estimate(scenario).inference


def test_full_load_on_llama_cpp_is_its_four_slots_and_says_why():
    full = estimate(dataclasses.replace(MAC, batch="max"))
    assert full.inference.fits and full.inference.batch == full.inference.max_batch == 4
    assert any("llama.cpp's server runs 4 at a time unless told" in w for w in full.warnings)


def test_more_users_than_slots_wait_for_one():
    queued = _served(dataclasses.replace(MAC, concurrency=10))
    assert (queued.batch, queued.queued) == (4, 6)
    assert queued.queue_wait_s > 0.0 and queued.ttft_s > queued.queue_wait_s
    within = _served(dataclasses.replace(MAC, concurrency=3))
    assert (within.batch, within.queued, within.queue_wait_s) == (3, 0, 0.0)


def test_a_batch_the_user_fixes_is_the_slot_count_and_runs_whole():
    fixed = estimate(dataclasses.replace(MAC, batch=16))
    assert fixed.inference.fits and fixed.inference.batch == 16 and fixed.inference.max_batch > 16
    assert not any("unless told" in w for w in fixed.warnings)


def test_ollama_runs_one_and_a_data_centre_server_what_the_memory_holds():
    ollama = _served(dataclasses.replace(MAC, stack="ollama", batch="max"))
    assert ollama.batch == 1
    vllm = _served(Scenario(model="llama-3.1-8b", gpu="h100-sxm", cards=1, stack="vllm", batch="max"))
    assert vllm.batch > 100  # no slots: the scheduler admits what the KV cache holds
