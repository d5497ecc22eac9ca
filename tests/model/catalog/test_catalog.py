import pytest

from model import CatalogError, default_catalog, load_user_catalog, parse_user_catalog

CATALOG = default_catalog()
GPUS = list(CATALOG.gpus.values())
REQUIRED_GPU_IDS = [
    "v100-sxm-32gb",
    "a100-sxm-40gb",
    "a100-sxm-80gb",
    "a100-pcie-80gb",
    "h100-sxm",
    "h100-pcie",
    "h800",
    "h20",
    "h200",
    "b200",
    "gb200",
    "rtx-3090",
    "rtx-4090",
    "rtx-5090",
    "l40s",
    "a10",
    "l4",
    "t4",
    "mi300x",
    "mi325x",
    "tpu-v5e",
    "tpu-v5p",
    "ascend-910b",
    "gaudi3",
    "cpu-server",
]
REQUIRED_MODEL_IDS = [
    "llama-3.2-1b",
    "tinyllama-1.1b",
    "llama-2-7b",
    "llama-2-13b",
    "llama-2-70b",
    "mistral-7b",
    "llama-3.1-8b",
    "llama-3.1-70b",
    "llama-3.1-405b",
    "codellama-34b",
    "mixtral-8x7b",
    "qwen2.5-72b",
    "qwen3-235b-a22b",
    "deepseek-v3",
    "deepseek-r1",
    "gpt-3-175b",
    "bloom-176b",
]


def test_every_required_gpu_model_link_and_network_id_is_present():
    assert set(REQUIRED_GPU_IDS) <= set(CATALOG.gpus)
    assert set(REQUIRED_MODEL_IDS) <= set(CATALOG.models)
    assert {"pcie-gen4", "pcie-gen5", "nvlink3", "nvlink4", "nvlink5", "infinity-fabric", "tpu-ici"} <= set(
        CATALOG.interconnects
    )
    assert {"ib-hdr", "ib-ndr", "ib-xdr", "roce-400g", "ethernet-100g"} <= set(CATALOG.networks)


@pytest.mark.parametrize("gpu", GPUS, ids=lambda g: g.id)
def test_every_gpu_row_has_positive_sizes_and_a_source(gpu):
    assert gpu.memory_bytes > 0
    assert gpu.memory_bandwidth_bytes_per_s > 0
    assert gpu.dense_flops_per_s and all(v > 0 for v in gpu.dense_flops_per_s.values())
    assert gpu.gpus_per_node >= 1
    assert len(gpu.source) > 10
    if gpu.cloud_usd_per_gpu_hour is not None:
        assert gpu.cloud_price_date and gpu.cloud_price_source
    if gpu.purchase_usd is not None:
        assert gpu.purchase_source


@pytest.mark.parametrize("gpu", GPUS, ids=lambda g: g.id)
def test_a_card_holds_what_its_driver_reports_within_the_printed_binary_size(gpu):
    # Vendors print GiB of HBM as "GB": a reported total sits between the printed figure read as
    # decimal GB and read as GiB (+1 % for the rounding of names such as "141 GB"), with its source.
    if gpu.gpu_memory_share is not None:  # a unified memory: the share the OS lets the GPU use
        assert gpu.capacity_bytes == pytest.approx(gpu.memory_bytes * gpu.gpu_memory_share)
        return
    if gpu.reported_memory_bytes is None:
        assert gpu.capacity_bytes == gpu.memory_bytes
        return
    assert "MiB" in gpu.reported_memory_source and "/" in gpu.reported_memory_source
    assert 0.93 * gpu.memory_bytes <= gpu.reported_memory_bytes <= 1.01 * gpu.memory_bytes * 2**30 / 1e9
    assert gpu.capacity_bytes == pytest.approx(gpu.reported_memory_bytes - 0.6e9)


def test_an_h100_holds_85_gb_not_the_80_its_name_prints():
    h100 = CATALOG.gpus["h100-sxm"]
    assert h100.memory_bytes == 80e9
    assert h100.reported_memory_bytes == 81_559 * 2**20  # nvidia-smi's total
    assert 84.9e9 < h100.capacity_bytes < 85.1e9  # CUDA's totalGlobalMem: 85,045,477,376 bytes


@pytest.mark.parametrize("gpu", [g for g in GPUS if g.sparse_flops_per_s], ids=lambda g: g.id)
def test_dense_figures_are_not_the_sparse_ones(gpu):
    # Dense peak = vendor 'with sparsity' figure / 2 (docs/reference/gpu_specs_notes.md sec. 1; Blackwell Ultra
    # FP4 is the one exception, 14 vs 18 PF).
    for precision, sparse in gpu.sparse_flops_per_s.items():
        dense = gpu.dense_flops_per_s.get(precision)
        if dense is not None:
            assert dense < sparse


@pytest.mark.parametrize(
    ("gpu_id", "memory_gb", "bandwidth_gb_s", "bf16_tflops"),
    [
        # Datasheet values as gpu_specs.yaml records them (dense, decimal GB).
        ("h100-sxm", 80, 3350, 989.4),
        ("h200", 141, 4800, 989.4),
        ("a100-sxm-80gb", 80, 2039, 312),
        ("h20", 96, 4000, 148),
        ("mi300x", 192, 5300, 1307.4),
        ("rtx-4090", 24, 1008, 165.2),
    ],
)
def test_headline_specs_match_the_sourced_reference(gpu_id, memory_gb, bandwidth_gb_s, bf16_tflops):
    gpu = CATALOG.gpus[gpu_id]
    assert gpu.memory_bytes == memory_gb * 1e9
    assert gpu.memory_bandwidth_bytes_per_s == pytest.approx(bandwidth_gb_s * 1e9)
    assert gpu.dense_flops_per_s["bf16"] == pytest.approx(bf16_tflops * 1e12)


def test_cpu_server_streams_64_gb_per_second_as_in_the_seed():
    assert CATALOG.gpus["cpu-server"].memory_bandwidth_bytes_per_s == 64e9


@pytest.mark.parametrize(
    ("gpu_id", "memory_gb", "bandwidth_gb_s"),
    [
        # Tom's Hardware 2021-10-18 (M1 Max 64 GB, 400 GBps);
        # support.apple.com/117737 (M3 Pro 150GB/s, M3 Max 400GB/s); Apple newsroom 2024-10-30 (M4 Max
        # 546GB/s); Apple newsroom 2023-06-05 (M2 Ultra 192GB, 800GB/s); techpowerup (M3 Ultra 512 GB,
        # 819 GB/s); svethardware.cz (Ryzen AI Max+ 395: LPDDR5X-8000, 256-bit, 256 GB/s); NVIDIA via
        # ai-infrastructure.net (DGX Spark 128 GB, 273 GB/s); 2 x 64 bit x 5,600 MT/s = 89.6 GB/s.
        ("apple-m1-max", 64, 400),
        ("apple-m3-pro", 36, 150),
        ("apple-m3-max", 128, 400),
        ("apple-m4-max", 128, 546),
        ("apple-m2-ultra", 192, 800),
        ("apple-m3-ultra", 512, 819),
        ("amd-ryzen-ai-max-395", 128, 256),
        ("nvidia-dgx-spark", 128, 273),
        ("desktop-cpu", 64, 89.6),
    ],
)
def test_the_machines_on_a_desk_match_their_sources(gpu_id, memory_gb, bandwidth_gb_s):
    gpu = CATALOG.gpus[gpu_id]
    assert gpu.memory_bytes == memory_gb * 1e9
    assert gpu.memory_bandwidth_bytes_per_s == pytest.approx(bandwidth_gb_s * 1e9)
    assert gpu.shares_host_memory and not gpu.for_rent
    assert gpu.memory_bytes in gpu.memory_options_bytes


def test_macos_lets_the_gpu_use_about_three_quarters_of_a_large_unified_memory():
    # gpustack/gpustack issue 1375: recommendedMaxWorkingSetSize is "75% of total RAM".
    m3_max = CATALOG.gpus["apple-m3-max"]
    assert m3_max.capacity_bytes == pytest.approx(96e9)
    assert "iogpu.wired_limit_mb" in m3_max.gpu_memory_share_source


def test_a_machine_on_a_desk_is_priced_as_owned_not_rented():
    from model.pricing import owning_price, rental_price

    spark = CATALOG.gpus["nvidia-dgx-spark"]
    quote = rental_price(spark, 1e-4)
    assert quote.source == "owned" and quote == owning_price(spark)
    mine = parse_user_catalog(
        "gpus:\n  - {id: my-box, name: My Box, memory_gb: 64, memory_bandwidth_gb_per_s: 200,"
        " dense_tflops: {fp16: 20}, for_rent: false, source: my own datasheet}\n"
    ).gpus["my-box"]
    unpriced = rental_price(mine, 1e-4)  # bought, with no price: not rented at a guessed rate either
    assert unpriced.usd_per_gpu_hour is None and "type one" in unpriced.note


@pytest.mark.parametrize("link", [*CATALOG.interconnects.values(), *CATALOG.networks.values()], ids=lambda x: x.id)
def test_every_link_has_bandwidth_latency_and_a_source(link):
    assert link.bandwidth_bytes_per_s > 0
    assert link.latency_s > 0
    assert link.source


def test_nvlink_is_roughly_ten_times_pcie_per_direction():
    # Seed claim "NVLink ~10x faster than PCIe"; docs/reference/gpu_specs_notes.md: 7-14x by generation.
    ratio = (
        CATALOG.interconnects["nvlink4"].bandwidth_bytes_per_s
        / CATALOG.interconnects["pcie-gen5"].bandwidth_bytes_per_s
    )
    assert 6 < ratio < 15


def test_api_prices_include_the_seed_figures_with_dates():
    prices = {(p.provider, p.model): p for p in CATALOG.prices}
    gpt4o = [p for p in CATALOG.prices if p.model == "GPT-4o" and p.input_usd_per_million == 5.0]
    sonnet = [p for p in CATALOG.prices if "3.5 Sonnet" in p.model]
    assert gpt4o and gpt4o[0].output_usd_per_million == 15.0
    assert sonnet and (sonnet[0].input_usd_per_million, sonnet[0].output_usd_per_million) == (3.0, 15.0)
    assert all(p.date and p.source for p in prices.values())


GOOD_GPU = """
gpus:
  - id: my-card
    name: My Card
    memory_gb: 48
    memory_bandwidth_gb_per_s: 1000
    dense_tflops: {bf16: 200}
    source: "my own datasheet"
"""


def test_a_user_gpu_is_accepted_and_merged_without_disturbing_the_rest():
    extra = parse_user_catalog(GOOD_GPU, "mine.yaml")
    merged = CATALOG.merged(extra)
    assert merged.gpus["my-card"].memory_bytes == 48e9
    assert merged.gpus["my-card"].user_supplied
    assert set(CATALOG.gpus) < set(merged.gpus)
    assert "my-card" not in CATALOG.gpus


def test_a_user_model_row_is_accepted():
    text = """
models:
  - id: tiny
    name: Tiny
    layers: 4
    hidden: 512
    heads: 8
    ffn: 1536
    vocab: 1000
    source: mine
"""
    extra = parse_user_catalog(text, "m.yaml")
    assert extra.models["tiny"].architecture.stats.total_params > 0


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        (GOOD_GPU.replace("memory_gb: 48", "memory_gb: -48"), "row 'my-card', field 'memory_gb'"),
        (GOOD_GPU.replace("memory_gb: 48", "memory_gb: lots"), "field 'memory_gb': must be a number"),
        (GOOD_GPU.replace("memory_gb: 48", "memory_gb: .nan"), "field 'memory_gb': must be a finite number"),
        (GOOD_GPU.replace('    source: "my own datasheet"\n', ""), "field 'source': is required"),
        (GOOD_GPU.replace("{bf16: 200}", "{bf17: 200}"), "unknown precision 'bf17'"),
        (GOOD_GPU.replace("id: my-card", "id: 'bad id!'"), "field 'id'"),
        (GOOD_GPU + "    scale_up: warp-drive\n", "field 'scale_up': unknown id 'warp-drive'"),
        ("gpus: 3", "expected a list of rows"),
        ("nothing: []", "expected a mapping with a 'gpus:'"),
        ("gpus: [1, 2]", "row 1: expected a mapping"),
        ("gpus: [{id: a", "not valid YAML"),
    ],
)
def test_a_bad_user_row_is_refused_with_file_row_and_field(text, fragment):
    with pytest.raises(CatalogError) as error:
        parse_user_catalog(text, "mine.yaml")
    assert str(error.value).startswith("mine.yaml")
    assert fragment in str(error.value)


def test_an_oversized_upload_is_refused_before_parsing():
    with pytest.raises(CatalogError, match="larger than"):
        parse_user_catalog("#" * 300_000, "big.yaml")


def test_load_user_catalog_reads_a_file(tmp_path):
    path = tmp_path / "extra.yaml"
    path.write_text(GOOD_GPU, encoding="utf-8")
    assert "my-card" in load_user_catalog(path).gpus
    with pytest.raises(CatalogError, match="cannot be read"):
        load_user_catalog(tmp_path / "missing.yaml")
