"""data/stacks.yaml: every stack and platform row is validated, and a bad one names its file, row and field."""

from __future__ import annotations

import copy

import pytest
import yaml

from model import CatalogError
from model.catalog import DATA_DIR, STACK_IDS
from model.catalog.stacks import read_stacks

DOCUMENT = yaml.safe_load((DATA_DIR / "stacks.yaml").read_text(encoding="utf-8"))


def _with(stack: str, **fields: object) -> dict[str, object]:
    document = copy.deepcopy(DOCUMENT)
    row = next(row for row in document["stacks"] if row["id"] == stack)
    row.update(fields)
    return document


def test_the_shipped_file_has_every_stack_and_each_measured_name_once() -> None:
    stacks, platforms, families = read_stacks(DOCUMENT)
    assert tuple(stacks) == STACK_IDS
    assert {"cuda", "rocm"} <= set(platforms)
    assert {stack.family for stack in stacks.values() if stack.family} == set(families) == {"desk"}
    names = [name for stack in stacks.values() for name in stack.measured_as]
    assert len(names) == len(set(names))


def test_a_fitted_constant_that_is_not_a_stack_constant_is_refused() -> None:
    message = r"stacks.yaml, row 'llamacpp', field 'fitted': unknown 'kernel_floor_scale'"
    with pytest.raises(CatalogError, match=message):
        read_stacks(_with("llamacpp", fitted=["kernel_floor_scale"]))


def test_a_constant_out_of_range_is_refused() -> None:
    with pytest.raises(CatalogError, match=r"row 'llamacpp', constants, field 'kernel_floor_s'"):
        read_stacks(_with("llamacpp", constants={"kernel_floor_s": -1.0}))


def test_an_unknown_platform_or_multi_card_policy_is_refused() -> None:
    with pytest.raises(CatalogError, match="field 'platforms': unknown 'vulkan'"):
        read_stacks(_with("llamacpp", platforms=["cuda", "vulkan"]))
    with pytest.raises(CatalogError, match="field 'multi_card'"):
        read_stacks(_with("llamacpp", multi_card="some"))


def test_a_missing_stack_row_is_refused() -> None:
    document = copy.deepcopy(DOCUMENT)
    document["stacks"] = [row for row in document["stacks"] if row["id"] != "vllm"]
    with pytest.raises(CatalogError, match="no row for the stack"):
        read_stacks(document)


def test_a_stack_running_another_ones_kernels_takes_its_constants() -> None:
    stacks, _, _ = read_stacks(_with("llamacpp", constants={"kernel_floor_s": 7.0e-6}))
    assert dict(stacks["ollama"].constants) == {"kernel_floor_s": 7.0e-6}
    with pytest.raises(CatalogError, match="constants_of"):
        read_stacks(_with("ollama", constants_of="nothing"))


def test_a_stack_falls_back_on_its_familys_constants_and_an_unknown_family_is_refused() -> None:
    document = _with("mlx")
    next(row for row in document["families"] if row["id"] == "desk")["constants"] = {"kernel_floor_s": 3.0e-6}
    stacks, _, _ = read_stacks(document)
    assert dict(stacks["mlx"].effective_constants) == {"kernel_floor_s": 3.0e-6}
    own = {**stacks["llamacpp"].effective_constants}
    assert own["kernel_floor_s"] == stacks["llamacpp"].constants.get("kernel_floor_s", 3.0e-6)
    with pytest.raises(CatalogError, match="field 'family': unknown family 'garage'"):
        read_stacks(_with("mlx", family="garage"))


@pytest.mark.parametrize("slots", [0, -4, 2.5, "four", True])
def test_slots_must_be_a_whole_count(slots: object) -> None:
    with pytest.raises(CatalogError, match=r"row 'llamacpp', field 'slots': must be a whole number from 1"):
        read_stacks(_with("llamacpp", slots=slots))


def test_the_desk_servers_carry_their_documented_slots_and_data_centre_servers_none() -> None:
    stacks, _, _ = read_stacks(DOCUMENT)
    assert stacks["llamacpp"].slots == 4  # llama-server -np auto (PR #16736)
    assert stacks["ollama"].slots == 1  # OLLAMA_NUM_PARALLEL, docs/faq.mdx
    assert stacks["vllm"].slots is None and stacks["typical"].slots is None
