"""The catalog's row types, frozen dataclasses whose field names carry their unit, and their readers.

:class:`Gpu`, :class:`Link`, :class:`ModelPreset` and :class:`ApiPrice` are one row each of
data/gpus.yaml, data/interconnects.yaml and data/networks.yaml, data/models.yaml and
data/prices.yaml; :class:`Catalog` holds them all, keyed by id. ``*_from_row`` read one validated
row in the units vendors print and convert it to SI units. :mod:`model.catalog` exports the types
and is where the catalogs are loaded.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import get_args

from model.architecture import Architecture, AttentionKind, MlpKind, NormKind
from model.catalog._rows import CatalogError, Row
from model.catalog.stacks import Family, Platform, Stack
from model.units import GB, MIB

__all__ = [
    "DRIVER_RESERVED_BYTES",
    "ApiPrice",
    "Catalog",
    "Gpu",
    "Link",
    "ModelPreset",
    "gpu_from_row",
    "link_from_row",
    "model_from_row",
    "price_from_row",
    "short_name",
]


DRIVER_RESERVED_BYTES = 0.6e9
"""What nvidia-smi's total holds that CUDA cannot allocate (cudaDeviceProp.totalGlobalMem is
smaller): 453 MiB on an H100 80GB (81,559 vs 81,106 MiB), 616 MiB on an H200 (143,771 vs the
139.8 GiB torch reports in data/h200_microbench.jsonl), 621 MiB on an A100 40GB, about 729 MiB on a
B200, 450 MiB on a T4. The CUDA context itself is in the estimate (model.memory.RUNTIME_BYTES)."""


def short_name(name: str) -> str:
    """Return a catalog name without its parenthesised detail: 'H100 SXM (80 GB)' becomes 'H100 SXM'."""
    return name.split(" (")[0]


@dataclass(frozen=True, slots=True, eq=False)
class Gpu:
    """One accelerator as its vendor publishes it (peaks are dense, not 2:4 sparse)."""

    id: str
    name: str
    vendor: str
    year: int
    memory_bytes: float
    memory_bandwidth_bytes_per_s: float
    dense_flops_per_s: Mapping[str, float]
    scale_up: str
    gpus_per_node: int
    network: str
    source: str
    memory_type: str = ""
    sparse_flops_per_s: Mapping[str, float] = field(default_factory=dict)
    matmul_ceiling_flops_per_s: Mapping[str, float] = field(default_factory=dict)
    """Measured largest matrix-product rate (stas00's MAMF, the H200 microbench)."""
    measured_bandwidth_bytes_per_s: float | None = None
    l2_cache_bytes: float | None = None
    l2_bandwidth_bytes_per_s: float | None = None
    """Measured L2 cache bandwidth (NVIDIA does not publish one); its source is ``l2_bandwidth_source``."""
    l2_bandwidth_source: str = ""
    sm_count: int | None = None
    boost_clock_hz: float | None = None
    register_file_per_sm_bytes: float | None = None
    shared_memory_per_sm_bytes: float | None = None
    tdp_w: float | None = None
    host_link: str | None = None
    purchase_usd: float | None = None
    purchase_source: str = ""
    cloud_usd_per_gpu_hour: float | None = None
    cloud_usd_per_gpu_hour_high: float | None = None
    cloud_price_date: str = ""
    cloud_price_source: str = ""
    confidence: str = ""
    notes: str = ""
    user_supplied: bool = False
    reported_memory_bytes: float | None = None
    """The memory the driver reports (nvidia-smi's total): vendors print 80 GiB as "80 GB"."""
    reported_memory_source: str = ""
    shares_host_memory: bool = False
    """The chip computes from the machine's own memory: a CPU, or a unified-memory machine (Apple
    M-series, Ryzen AI Max, DGX Spark). There is no host memory beside it to offload weights to."""
    gpu_memory_share: float | None = None
    """Of a unified memory, the share the operating system lets the GPU allocate (macOS wires about
    three quarters by default); its source is ``gpu_memory_share_source``. None: all of it."""
    gpu_memory_share_source: str = ""
    memory_options_bytes: tuple[float, ...] = ()
    """The memory sizes the machine is sold with (the row describes the largest, ``memory_bytes``)."""
    for_rent: bool = True
    """Whether clouds rent it by the hour; a machine on a desk is bought, so it is priced as owned."""

    @property
    def short_name(self) -> str:
        """The name without its parenthesised detail, for titles and sentences."""
        return short_name(self.name)

    @property
    def capacity_bytes(self) -> float:
        """What the accelerator can allocate: the one home of a card's usable memory.

        A unified memory: the share the operating system lets the GPU use (``gpu_memory_share``), no
        offload beyond it. A card: what CUDA can allocate, the driver's total less what it keeps
        (:data:`DRIVER_RESERVED_BYTES`), else the printed size.
        """
        if self.gpu_memory_share is not None:
            return self.memory_bytes * self.gpu_memory_share
        if self.reported_memory_bytes:
            return max(self.reported_memory_bytes - DRIVER_RESERVED_BYTES, 0.0)
        return self.memory_bytes


@dataclass(frozen=True, slots=True, eq=False)
class Link:
    """A scale-up interconnect or a scale-out network, per GPU and per direction."""

    id: str
    name: str
    kind: str
    """"scale-up", "host" or "network"."""
    bandwidth_bytes_per_s: float
    latency_s: float
    source: str
    bidirectional_bytes_per_s: float | None = None
    measured_efficiency: float | None = None
    latency_source: str = ""
    library_latency_s: float | None = None
    """Measured fixed cost of one all-reduce through the collective library (NCCL, RCCL) over the link:
    the intercept of nccl-tests' time against message size. None: ``latency_s``."""

    @property
    def short_name(self) -> str:
        """The name without its parenthesised detail."""
        return short_name(self.name)


@dataclass(frozen=True, slots=True, eq=False)
class ModelPreset:
    """A named model: its architecture and the parameter count its publisher states."""

    id: str
    name: str
    family: str
    architecture: Architecture
    official_params: float
    source: str
    official_active_params: float | None = None
    params_source: str = ""
    released: str = ""
    """Release month 'YYYY-MM' (the model card's date): pickers list the newest first."""
    user_supplied: bool = False


@dataclass(frozen=True, slots=True, eq=False)
class ApiPrice:
    """A dated API list price in US dollars per million tokens."""

    id: str
    provider: str
    model: str
    input_usd_per_million: float
    output_usd_per_million: float
    date: str
    source: str
    note: str = ""
    comparable_model: str | None = None


@dataclass(frozen=True, slots=True, eq=False)
class Catalog:
    """Every catalog the engine reads, keyed by id."""

    gpus: Mapping[str, Gpu]
    models: Mapping[str, ModelPreset]
    interconnects: Mapping[str, Link]
    networks: Mapping[str, Link]
    prices: tuple[ApiPrice, ...]
    seed_claims: tuple[ApiPrice, ...] = ()
    stacks: Mapping[str, Stack] = field(default_factory=lambda: MappingProxyType({}))
    """The software stacks of data/stacks.yaml (empty: every stack runs as typical)."""
    platforms: Mapping[str, Platform] = field(default_factory=lambda: MappingProxyType({}))
    """The platforms of data/stacks.yaml (empty: every GPU runs at CUDA's constants)."""
    families: Mapping[str, Family] = field(default_factory=lambda: MappingProxyType({}))
    """The families of stacks of data/stacks.yaml, whose constants their members fall back on."""

    def merged(self, extra: Catalog) -> Catalog:
        """Return this catalog with ``extra``'s rows added (same ids are replaced); its stacks stay."""
        return Catalog(
            gpus=MappingProxyType({**self.gpus, **extra.gpus}),
            models=MappingProxyType({**self.models, **extra.models}),
            interconnects=MappingProxyType({**self.interconnects, **extra.interconnects}),
            networks=MappingProxyType({**self.networks, **extra.networks}),
            prices=self.prices + extra.prices,
            seed_claims=self.seed_claims,
            stacks=self.stacks,
            platforms=self.platforms,
            families=self.families,
        )


_MLP_KINDS: tuple[MlpKind, ...] = get_args(MlpKind)
_NORM_KINDS: tuple[NormKind, ...] = get_args(NormKind)
_ATTENTION_KINDS: tuple[AttentionKind, ...] = get_args(AttentionKind)


def gpu_from_row(row: Row, *, user: bool = False) -> Gpu:
    """Read one GPU row as data/gpus.yaml writes it; ``user`` relaxes what a user's own row may omit."""
    # Fields are read in the order a row is written, so the first problem reported is the
    # first one a reader meets.
    ident = row.identifier()
    name = row.display_name()
    vendor = row.text("vendor", required=not user, default="custom")
    year = row.integer("year", required=not user, minimum=1990, maximum=2100) or 2025
    memory = (row.number("memory_gb", maximum=1e6) or 0.0) * GB
    bandwidth = (row.number("memory_bandwidth_gb_per_s", maximum=1e6) or 0.0) * GB
    dense = row.flops_table("dense_tflops", required=True)
    clock = row.number("boost_clock_mhz", required=False, maximum=1e5)
    reg = row.number("register_file_per_sm_kb", required=False, maximum=1e6)
    smem = row.number("shared_memory_per_sm_kb", required=False, maximum=1e6)
    l2 = row.number("l2_cache_mb", required=False, maximum=1e6)
    l2_bandwidth = row.number("l2_bandwidth_gb_per_s", required=False, maximum=1e6)
    measured_bw = row.number("measured_bandwidth_gb_per_s", required=False, maximum=1e6)
    price = row.number("cloud_usd_per_gpu_hour", required=False, maximum=1e4)
    reported = row.number("reported_memory_mib", required=False, maximum=1e8)
    gpu_share = row.number("gpu_memory_share", required=False, maximum=1.0)
    return Gpu(
        id=ident,
        name=name,
        vendor=vendor,
        year=year,
        memory_bytes=memory,
        memory_bandwidth_bytes_per_s=bandwidth,
        dense_flops_per_s=MappingProxyType(dense),
        scale_up=row.text("scale_up", required=not user, default="pcie-gen5"),
        gpus_per_node=row.integer("gpus_per_node", required=not user, maximum=100_000) or 8,
        network=row.text("network", required=not user, default="ib-ndr"),
        source=row.text("source"),
        memory_type=row.text("memory_type", required=False),
        sparse_flops_per_s=MappingProxyType(row.flops_table("sparse_tflops", required=False)),
        matmul_ceiling_flops_per_s=MappingProxyType(row.flops_table("matmul_ceiling_tflops", required=False)),
        measured_bandwidth_bytes_per_s=measured_bw * GB if measured_bw else None,
        l2_cache_bytes=l2 * 1e6 if l2 else None,
        l2_bandwidth_bytes_per_s=l2_bandwidth * GB if l2_bandwidth else None,
        l2_bandwidth_source=row.text("l2_bandwidth_source", required=l2_bandwidth is not None and not user),
        sm_count=row.integer("sm_count", required=False, maximum=100_000) or None,
        boost_clock_hz=clock * 1e6 if clock else None,
        register_file_per_sm_bytes=reg * 1024 if reg else None,
        shared_memory_per_sm_bytes=smem * 1024 if smem else None,
        tdp_w=row.number("tdp_w", required=False, maximum=1e5),
        host_link=row.text("host_link", required=False) or None,
        purchase_usd=row.number("purchase_usd", required=False, maximum=1e8),
        purchase_source=row.text("purchase_source", required=False),
        cloud_usd_per_gpu_hour=price,
        cloud_usd_per_gpu_hour_high=row.number("cloud_usd_per_gpu_hour_high", required=False, maximum=1e4),
        cloud_price_date=row.text("cloud_price_date", required=price is not None and not user),
        cloud_price_source=row.text("cloud_price_source", required=price is not None and not user),
        confidence=row.text("confidence", required=False),
        notes=row.text("notes", required=False),
        user_supplied=user,
        reported_memory_bytes=reported * MIB if reported else None,
        reported_memory_source=row.text("reported_memory_source", required=reported is not None and not user),
        shares_host_memory=row.flag("shares_host_memory"),
        gpu_memory_share=gpu_share,
        gpu_memory_share_source=row.text("gpu_memory_share_source", required=gpu_share is not None and not user),
        memory_options_bytes=tuple(size * GB for size in row.numbers("memory_options_gb", maximum=1e6)),
        for_rent=row.flag("for_rent", default=True),
    )


def link_from_row(row: Row, kind_default: str) -> Link:
    """Read one interconnect or network row; ``kind_default`` is its kind when the row names none."""
    bidirectional = row.number("bidirectional_gb_per_s", required=False, maximum=1e6)
    efficiency = row.number("measured_efficiency", required=False, maximum=1.0)
    library = row.number("library_latency_us", required=False, maximum=1e6)
    return Link(
        id=row.identifier(),
        name=row.display_name(),
        kind=row.text("kind", required=False, default=kind_default),
        bandwidth_bytes_per_s=(row.number("bandwidth_gb_per_s", maximum=1e6) or 0.0) * GB,
        latency_s=(row.number("latency_us", maximum=1e6) or 0.0) * 1e-6,
        source=row.text("source"),
        bidirectional_bytes_per_s=bidirectional * GB if bidirectional else None,
        measured_efficiency=efficiency,
        latency_source=row.text("latency_source", required=False),
        library_latency_s=library * 1e-6 if library is not None else None,
    )


def model_from_row(row: Row, *, user: bool = False) -> ModelPreset:
    """Read one model row as data/models.yaml writes it, building its :class:`Architecture`."""
    moe = row.mapping("moe")
    mla = row.mapping("mla")
    default_attention: AttentionKind = "mla" if mla else "standard"
    attention = row.choice("attention", _ATTENTION_KINDS, default_attention)
    if attention == "mla" and mla is None:
        raise row.fail("mla", "is required when attention is mla")
    heads = row.integer("heads", maximum=4096)
    layers = row.integer("layers", maximum=2048)
    hidden = row.integer("hidden", maximum=1_000_000)
    kv_heads = row.integer("kv_heads", required=False, maximum=4096) or heads
    if heads % kv_heads:
        raise row.fail("kv_heads", f"must divide heads ({heads}), got {kv_heads}")
    experts = moe.integer("experts", maximum=100_000) if moe else 0
    active = moe.integer("active_experts", maximum=experts) if moe else 0
    dense_layers = moe.integer("dense_layers", required=False, minimum=0, maximum=layers) if moe else 0
    try:
        arch = Architecture(
            layers=layers,
            hidden=hidden,
            heads=heads,
            kv_heads=kv_heads,
            head_dim=row.integer("head_dim", required=False, maximum=100_000),
            ffn=row.integer("ffn", maximum=10_000_000),
            vocab=row.integer("vocab", maximum=10_000_000),
            tied_embeddings=row.flag("tied_embeddings"),
            mlp=row.choice("mlp", _MLP_KINDS, "gated"),
            norm=row.choice("norm", _NORM_KINDS, "rms"),
            attention=attention,
            qkv_bias=row.flag("qkv_bias"),
            position_embeddings=row.integer("position_embeddings", required=False, minimum=0, maximum=10**7),
            sliding_window=row.integer("sliding_window", required=False, maximum=10**8) or None,
            max_context=row.integer("max_context", required=False, maximum=10**8) or 4096,
            experts=experts,
            active_experts=active,
            shared_experts=moe.integer("shared_experts", required=False, minimum=0, maximum=1024) if moe else 0,
            expert_ffn=moe.integer("expert_ffn", maximum=10_000_000) if moe else 0,
            dense_layers=dense_layers,
            q_lora_rank=mla.integer("q_lora_rank", required=False, minimum=0, maximum=10**6) if mla else 0,
            kv_lora_rank=mla.integer("kv_lora_rank", maximum=10**6) if mla else 0,
            qk_nope_head_dim=mla.integer("qk_nope_head_dim", maximum=10**5) if mla else 0,
            qk_rope_head_dim=mla.integer("qk_rope_head_dim", maximum=10**5) if mla else 0,
            v_head_dim=mla.integer("v_head_dim", maximum=10**5) if mla else 0,
        )
    except CatalogError:  # a field's own check, inside the call: it names its field
        raise
    except (ArithmeticError, ValueError) as error:  # a shape that cannot be counted
        raise row.fail("layers", f"the shapes do not form a model: {error}") from error
    official = row.number("official_params", required=not user, maximum=1e15)
    return ModelPreset(
        id=row.identifier(),
        name=row.display_name(),
        family=row.text("family", required=False, default="custom"),
        architecture=arch,
        official_params=official or arch.stats.total_params,
        official_active_params=row.number("official_active_params", required=False, maximum=1e15),
        source=row.text("source"),
        params_source=row.text("params_source", required=False),
        released=row.text("released", required=False),
        user_supplied=user,
    )


def price_from_row(row: Row) -> ApiPrice:
    """Read one dated API price row as data/prices.yaml writes it."""
    return ApiPrice(
        id=row.identifier(),
        provider=row.text("provider"),
        model=row.text("model"),
        input_usd_per_million=row.number("input_usd_per_million", maximum=1e4) or 0.0,
        output_usd_per_million=row.number("output_usd_per_million", maximum=1e4) or 0.0,
        date=row.text("date"),
        source=row.text("source"),
        note=row.text("note", required=False),
        comparable_model=row.text("comparable_model", required=False) or None,
    )
