"""Reading the measurements: which publication each comes from, the software it names, its classes."""

from dataclasses import replace

import pytest

from model import CatalogError, Scenario
from model.catalog import STACK_IDS
from model.validation import load_references
from model.validation.reference import STACKS, _classes, _stack, source_key, stack_id


def test_one_file_read_at_two_commits_or_sections_is_one_source() -> None:
    at_main = source_key("https://github.com/pytorch/torchtune/blob/main/README.md")
    at_commit = source_key(
        "https://github.com/pytorch/torchtune/blob/bd2a0fc7c31430972728494fa01aaeeb0ebf1ba1/README.md#memory"
    )
    raw = source_key("https://raw.githubusercontent.com/pytorch/torchtune/0217d44c/README.md")
    assert at_main == at_commit == raw == "github.com/pytorch/torchtune/README.md"
    assert source_key("https://github.com/NVIDIA/NeMo/blob/main/x.md") == source_key(
        "https://github.com/nvidia/nemo/blob/v2/x.md"
    )


def test_other_files_papers_and_threads_are_sources_of_their_own() -> None:
    assert source_key("https://github.com/a/b/blob/main/x.md") != source_key("https://github.com/a/b/blob/main/y.md")
    assert (
        source_key("https://arxiv.org/abs/2104.04473v5")
        == source_key("https://arxiv.org/pdf/2104.04473")
        == ("arxiv.org/abs/2104.04473")
    )
    assert source_key("https://github.com/ggml-org/llama.cpp/pull/4766") != source_key(
        "https://github.com/ggml-org/llama.cpp/pull/4812"
    )
    assert source_key("https://www.databricks.com/blog/mpt-7b?utm=x") == "databricks.com/blog/mpt-7b"


def test_a_submission_spread_over_files_is_grouped_by_its_publication() -> None:
    mlperf = {ref.source for ref in load_references() if "inference_results_v4.1" in ref.source_url}
    assert mlperf == {
        "MLPerf Inference v4.1, NVIDIA's closed-division submission",
        "MLPerf Inference v4.1, AMD's closed-division submission",
    }  # one source per submitter, however many of its files the entries read


def test_a_stack_outside_the_list_is_refused_naming_the_row_and_field() -> None:
    assert _stack({"id": "x", "stack": {"name": "vLLM", "version": "0.6.3"}}) == ("vLLM", "0.6.3")
    assert _stack({"id": "x"}) == ("", "")
    with pytest.raises(CatalogError, match=r"row 'x', field 'stack.name'.*'vllm'"):
        _stack({"id": "x", "stack": {"name": "vllm"}})


def test_every_labelled_stack_is_known_and_the_new_kinds_have_their_classes() -> None:
    references = load_references()
    assert {ref.stack for ref in references if ref.stack} <= set(STACKS)
    local = [ref for ref in references if ref.kind == "local"]
    assert len(local) >= 25 and all("local" in ref.classes and ref.stack for ref in local)
    assert all("lora_qlora" in ref.classes for ref in references if ref.scenario and ref.scenario.finetune == "qlora")
    queued = [ref for ref in references if "queued" in ref.classes]
    assert queued and all(ref.scenario is not None and _offered_more_than_runs(ref.scenario) for ref in queued)
    non_nvidia = {ref.scenario.gpu for ref in references if "non_nvidia_serving" in ref.classes and ref.scenario}
    assert non_nvidia and not any(gpu.startswith(("h1", "a1", "b2", "rtx")) for gpu in non_nvidia)


def test_every_named_stack_is_some_profiles_measured_name_and_its_runs_are_estimated_with_it() -> None:
    for name in STACKS:
        assert stack_id(name) in STACK_IDS, name
    references = [ref for ref in load_references() if ref.scenario is not None]
    for ref in references:
        expected = stack_id(ref.stack) if ref.stack else "typical"
        assert ref.scenario is not None and ref.scenario.stack == expected, ref.id
        if ref.typed is not None:
            assert ref.typed.stack == expected, ref.id
    assert stack_id("llama.cpp") == "llamacpp" and stack_id("NeMo") == stack_id("Megatron-LM") == "megatron"
    with pytest.raises(CatalogError, match="measured_as"):
        stack_id("a stack no profile lists")


def _offered_more_than_runs(scenario: Scenario) -> bool:
    job, slots = scenario.requests, scenario.batch
    stated = scenario.concurrency is None and isinstance(slots, int)
    return slots == "max" or (stated and job is not None and job > slots)


def test_a_job_larger_than_its_stated_slots_is_queued_and_one_that_fits_them_or_a_concurrency_is_not() -> None:
    base = Scenario(model="llama-2-7b", gpu="h100", prompt_len=200, output_len=200)
    assert "queued" in _classes("inference", replace(base, batch="max"), "NVIDIA")
    assert "queued" in _classes("inference", replace(base, batch=160, requests=1000), "NVIDIA")
    assert "queued" not in _classes("inference", replace(base, batch=160, requests=160), "NVIDIA")
    assert "queued" not in _classes("inference", replace(base, concurrency=1000, requests=1000), "NVIDIA")
    assert "queued" not in _classes("training_throughput", replace(base, batch="max"), "NVIDIA")
