"""The memory hierarchy, the chip summary and the links behind the GPU anatomy page."""

import itertools
import math

import pytest

from model import Scenario, ScenarioError, default_catalog, parse_user_catalog, resolve
from model.analyses.anatomy import (
    HOST_MEMORY_PER_GPU_BYTES,
    SHARED_MEMORY_BYTES_PER_CLOCK_PER_SM,
    chip_summary,
    links,
    memory_hierarchy,
    read_times,
)

CATALOG = default_catalog()
H100 = CATALOG.gpus["h100-sxm"]


def _levels(gpu_id):
    return {level.key: level for level in memory_hierarchy(CATALOG.gpus[gpu_id], CATALOG).levels}


def test_h100_levels_run_from_the_fastest_to_the_largest_as_the_seed_draws_them():
    levels = memory_hierarchy(H100, CATALOG).levels
    assert [level.key for level in levels] == ["registers", "shared", "l2", "device", "host"]
    bandwidths = [level.bandwidth_bytes_per_s for level in levels]
    assert all(upper > lower for upper, lower in itertools.pairwise(bandwidths))
    # From shared memory down, every level is larger than the one above it ("越下面越大越慢").
    capacities = [level.capacity_bytes for level in levels[1:]]
    assert all(upper < lower for upper, lower in itertools.pairwise(capacities))


def test_the_register_file_is_not_a_few_kb_per_sm_but_as_large_as_shared_memory():
    # CUDA C++ Programming Guide: 64K 32-bit registers per SM (256 KiB) for CC >= 5.0, against at
    # most 228 KiB of shared memory per SM on CC 9.0: the one place the seed's ordering breaks on H100.
    hierarchy = memory_hierarchy(H100, CATALOG)
    registers, shared = hierarchy.levels[0], hierarchy.levels[1]
    assert registers.capacity_bytes == 132 * 256 * 1024
    assert registers.capacity_bytes > shared.capacity_bytes
    assert [(b.upper, b.lower, b.quantity) for b in hierarchy.breaks] == [("registers", "shared", "capacity")]


@pytest.mark.parametrize(
    "gpu",
    [g for g in CATALOG.gpus.values() if g.vendor == "NVIDIA" and g.sm_count and g.boost_clock_hz],
    ids=lambda g: g.id,
)
def test_shared_memory_bandwidth_is_sms_times_128_bytes_times_the_clock(gpu):
    shared = {level.key: level for level in memory_hierarchy(gpu, CATALOG).levels}["shared"]
    assert SHARED_MEMORY_BYTES_PER_CLOCK_PER_SM == 32 * 4  # 32 banks x 32 bits per clock (CUDA guide)
    assert shared.bandwidth_bytes_per_s == pytest.approx(gpu.sm_count * 128 * gpu.boost_clock_hz)
    assert shared.bandwidth_kind == "derived"


def test_h100_shared_memory_moves_about_33_tb_per_s():
    # 132 SMs x 128 B x 1.98 GHz = 33.45 TB/s (derived, 0.1 % tolerance).
    assert _levels("h100-sxm")["shared"].bandwidth_bytes_per_s == pytest.approx(33.45e12, rel=1e-3)


def test_register_bandwidth_is_three_four_byte_operands_per_fma_at_the_fp32_peak():
    registers = _levels("h100-sxm")["registers"]
    assert registers.bandwidth_bytes_per_s == pytest.approx(H100.dense_flops_per_s["fp32"] * 12 / 2)
    # The same figure per lane: 132 SMs x 4 sub-partitions x 32 lanes x 12 bytes x 1.98 GHz (scaling book
    # gpus.md: 4 sub-partitions of 32 FP32 cores per SM), within 1 %.
    assert registers.bandwidth_bytes_per_s == pytest.approx(132 * 4 * 32 * 12 * 1.98e9, rel=0.01)


def test_the_l2_point_comes_only_from_a_catalogued_measurement():
    h100_l2 = _levels("h100-sxm")["l2"]
    assert h100_l2.bandwidth_bytes_per_s == 5.5e12  # scaling book gpus.md: "measured to be about 5.5TB/s"
    assert h100_l2.bandwidth_kind == "measured" and "Chips and Cheese" in h100_l2.source
    b200 = memory_hierarchy(CATALOG.gpus["b200"], CATALOG)
    assert {level.key: level for level in b200.levels}["l2"].bandwidth_bytes_per_s is None
    assert any(note.startswith("L2 cache") for note in b200.notes)


def test_device_memory_comes_from_the_catalog_and_host_ram_over_the_host_link_is_an_assumption():
    levels = _levels("h100-sxm")
    assert levels["device"].capacity_bytes == 80e9 and levels["device"].bandwidth_bytes_per_s == 3.35e12
    assert levels["host"].bandwidth_bytes_per_s == CATALOG.interconnects["pcie-gen5"].bandwidth_bytes_per_s
    assert levels["host"].capacity_bytes == HOST_MEMORY_PER_GPU_BYTES
    assert levels["host"].capacity_kind == "assumption"
    assert memory_hierarchy(H100, CATALOG).device_over_host == pytest.approx(3350 / 63)


@pytest.mark.parametrize("gpu_id", ["tpu-v5e", "tpu7x", "gaudi3", "ascend-910b", "cpu-server", "b100"])
def test_chips_without_sm_data_skip_the_on_chip_levels_with_a_note(gpu_id):
    hierarchy = memory_hierarchy(CATALOG.gpus[gpu_id], CATALOG)
    keys = [level.key for level in hierarchy.levels]
    assert not {"registers", "shared", "l2"} & set(keys)
    assert "device" in keys
    assert hierarchy.notes


def test_amd_keeps_its_shared_memory_size_but_gets_no_nvidia_bank_rule():
    shared = _levels("mi300x")["shared"]
    assert shared.capacity_bytes > 0 and shared.bandwidth_bytes_per_s is None


def test_a_user_gpu_with_sms_but_no_clock_or_fp32_gets_capacities_only():
    extra = parse_user_catalog(
        "gpus:\n- {id: my-gpu, name: Mine, vendor: NVIDIA, memory_gb: 24, memory_bandwidth_gb_per_s: 900,"
        " dense_tflops: {bf16: 100}, source: me, sm_count: 40, register_file_per_sm_kb: 256,"
        " shared_memory_per_sm_kb: 100}\n"
    )
    gpu = extra.gpus["my-gpu"]
    hierarchy = memory_hierarchy(gpu, CATALOG.merged(extra))
    levels = {level.key: level for level in hierarchy.levels}
    assert levels["registers"].bandwidth_bytes_per_s is None and levels["shared"].bandwidth_bytes_per_s is None
    assert len(hierarchy.notes) >= 2


@pytest.mark.parametrize("gpu", list(CATALOG.gpus.values()), ids=lambda g: g.id)
def test_every_catalog_gpu_gives_positive_finite_levels(gpu):
    for level in memory_hierarchy(gpu, CATALOG).levels:
        assert level.capacity_bytes > 0 and math.isfinite(level.capacity_bytes)
        assert level.bandwidth_bytes_per_s is None or level.bandwidth_bytes_per_s > 0
        assert level.bandwidth_bytes_per_s is None or level.bandwidth_basis


def test_reading_bytes_takes_bytes_over_bandwidth_only_where_they_fit():
    hierarchy = memory_hierarchy(H100, CATALOG)
    times = {time.key: time for time in read_times(hierarchy, 16e9)}
    assert not times["registers"].fits and times["registers"].seconds is None
    assert times["device"].seconds == pytest.approx(16e9 / 3.35e12)
    assert times["host"].seconds == pytest.approx(16e9 / 63e9)


def test_links_are_the_gpus_own_unless_the_scenario_overrides_them():
    own = links(resolve(Scenario(), CATALOG), CATALOG)
    assert [row.link.id for row in own.rows] == ["nvlink4", "ib-ndr", "pcie-gen5"]
    # NVLink 4 450 GB/s vs PCIe 5.0 63 GB/s per direction: ~7x (docs/reference/gpu_specs_notes.md sec. 4, row 10).
    assert own.scale_up_over_host == pytest.approx(450 / 63)
    assert own.scale_up_over_network == pytest.approx(450 / 50)
    overridden = links(resolve(Scenario(interconnect="pcie-gen5", network="roce-800g"), CATALOG), CATALOG)
    assert overridden.scale_up_over_host == pytest.approx(1.0)
    assert overridden.rows[1].link.id == "roce-800g"


def test_an_unknown_link_is_a_scenario_error():
    with pytest.raises(ScenarioError, match="interconnect"):
        links(resolve(Scenario(interconnect="warp-drive"), CATALOG), CATALOG)


def test_a_chip_without_a_host_link_lists_only_scale_up_and_network():
    assert [row.role for row in links(resolve(Scenario(gpu="tpu7x"), CATALOG), CATALOG).rows] == [
        "scale-up",
        "network",
    ]


def test_the_ridge_point_is_peak_over_bandwidth_and_doubles_in_fp8():
    # Scaling book gpus.md: H100 "990e12 / 3.35e12 = 295", fp8 "590".
    assert chip_summary(H100, "bf16").flops_per_byte == pytest.approx(295, rel=0.01)
    assert chip_summary(H100, "fp8").flops_per_byte == pytest.approx(590, rel=0.01)
    assert chip_summary(CATALOG.gpus["v100-sxm-32gb"], "bf16").flops_format == "fp16"
