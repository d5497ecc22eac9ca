"""The sourced catalogs in data/: GPUs, links, networks, model presets and API prices.

Each YAML file is read once with ``yaml.safe_load``, validated field by field and turned into
frozen dataclasses whose field names carry their unit. A bad row raises :class:`CatalogError`
naming the file, the row and the field. A user's own file of extra GPUs or models (the
``--catalog`` flag, or an upload in the app) goes through the same validation.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

import yaml

from model.architecture import Architecture
from model.units import GB, TERA

__all__ = [
    "DATA_DIR",
    "ApiPrice",
    "Catalog",
    "CatalogError",
    "Gpu",
    "Link",
    "ModelPreset",
    "default_catalog",
    "load_user_catalog",
    "parse_user_catalog",
]

DATA_DIR = Path(__file__).resolve().parents[1] / "data"
MAX_USER_CATALOG_BYTES = 256_000
"""Uploads larger than this are refused before parsing (a catalog of 100 GPUs is ~40 kB)."""
_MAX_ROWS = 500
_MAX_DEPTH = 8
_FLOP_KEYS = ("fp32", "tf32", "bf16", "fp16", "fp8", "int8", "fp4")


class CatalogError(ValueError):
    """A catalog row is missing a field or holds a value out of range."""


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

    def merged(self, extra: Catalog) -> Catalog:
        """Return this catalog with ``extra``'s rows added (same ids are replaced)."""
        return Catalog(
            gpus=MappingProxyType({**self.gpus, **extra.gpus}),
            models=MappingProxyType({**self.models, **extra.models}),
            interconnects=MappingProxyType({**self.interconnects, **extra.interconnects}),
            networks=MappingProxyType({**self.networks, **extra.networks}),
            prices=self.prices + extra.prices,
            seed_claims=self.seed_claims,
        )


class _Row:
    """Typed access to one YAML row; every failure names file, row and field."""

    def __init__(self, raw: Any, file: str, index: int) -> None:
        if not isinstance(raw, dict):
            raise CatalogError(f"{file}, row {index + 1}: expected a mapping of fields, got {_kind(raw)}")
        self.raw = raw
        self.file = file
        ident = raw.get("id")
        self.label = f"row {ident!r}" if isinstance(ident, str) and ident else f"row {index + 1}"

    def fail(self, name: str, message: str) -> CatalogError:
        return CatalogError(f"{self.file}, {self.label}, field {name!r}: {message}")

    def text(self, name: str, *, required: bool = True, default: str = "") -> str:
        value = self.raw.get(name)
        if value is None:
            if required:
                raise self.fail(name, "is required (text)")
            return default
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            raise self.fail(name, f"must be text, got {_kind(value)}")
        text = str(value).strip()
        if required and not text:
            raise self.fail(name, "must not be empty")
        if len(text) > 2000:
            raise self.fail(name, "is longer than 2,000 characters")
        return text

    def identifier(self, name: str = "id") -> str:
        text = self.text(name)
        if len(text) > 64 or not all(c.isalnum() or c in "-_." for c in text):
            raise self.fail(name, "must be 1-64 letters, digits, '-', '_' or '.'")
        return text

    def number(
        self,
        name: str,
        *,
        required: bool = True,
        minimum: float = 0.0,
        maximum: float = 1e18,
        strictly_positive: bool = True,
    ) -> float | None:
        value = self.raw.get(name)
        if value is None:
            if required:
                raise self.fail(name, f"is required (a number greater than {minimum:g})")
            return None
        return self._check_number(name, value, minimum, maximum, strictly_positive)

    def _check_number(self, name: str, value: Any, minimum: float, maximum: float, strictly_positive: bool) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.fail(name, f"must be a number, got {_kind(value)}")
        number = float(value)
        if not math.isfinite(number):
            raise self.fail(name, f"must be a finite number, got {value!r}")
        if number < minimum or (strictly_positive and number <= minimum) or number > maximum:
            bound = f"greater than {minimum:g}" if strictly_positive else f"at least {minimum:g}"
            raise self.fail(name, f"must be {bound} and at most {maximum:g}, got {value!r}")
        return number

    def integer(self, name: str, *, required: bool = True, minimum: int = 1, maximum: int = 10**7) -> int:
        value = self.raw.get(name)
        if value is None:
            if required:
                raise self.fail(name, f"is required (a whole number from {minimum} to {maximum})")
            return 0
        if isinstance(value, bool) or not isinstance(value, int) or not minimum <= value <= maximum:
            raise self.fail(name, f"must be a whole number from {minimum} to {maximum}, got {value!r}")
        return value

    def flag(self, name: str, default: bool = False) -> bool:
        value = self.raw.get(name, default)
        if value is None:
            return default
        if not isinstance(value, bool):
            raise self.fail(name, f"must be true or false, got {value!r}")
        return value

    def choice(self, name: str, allowed: Iterable[str], default: str) -> str:
        value = self.raw.get(name, default)
        options = tuple(allowed)
        if value is None:
            return default
        if value not in options:
            raise self.fail(name, f"must be one of {', '.join(options)}, got {value!r}")
        return str(value)

    def flops_table(self, name: str, *, required: bool) -> dict[str, float]:
        value = self.raw.get(name)
        if value is None:
            if required:
                raise self.fail(name, "is required (a mapping like {bf16: 989.4, fp8: 1978.9} in TFLOPS)")
            return {}
        if not isinstance(value, dict):
            raise self.fail(name, f"must be a mapping of precision to TFLOPS, got {_kind(value)}")
        table: dict[str, float] = {}
        for key, tflops in value.items():
            if key not in _FLOP_KEYS and not (isinstance(key, str) and key.endswith("acc")):
                raise self.fail(name, f"unknown precision {key!r} (allowed: {', '.join(_FLOP_KEYS)})")
            if tflops is None or key not in _FLOP_KEYS:
                continue
            table[key] = self._check_number(f"{name}.{key}", tflops, 0.0, 1e7, True) * TERA
        if required and not any(k in table for k in ("fp32", "bf16", "fp16")):
            raise self.fail(name, "needs at least one of fp32, bf16 or fp16")
        return table

    def mapping(self, name: str) -> _Row | None:
        value = self.raw.get(name)
        if value is None:
            return None
        if not isinstance(value, dict):
            raise self.fail(name, f"must be a mapping, got {_kind(value)}")
        sub = _Row(value, self.file, 0)
        sub.label = f"{self.label}, {name}"
        return sub


def _kind(value: Any) -> str:
    """Describe a YAML value's type for an error message."""
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, (int, float)):
        return f"the number {value!r}"
    text = str(value)
    return f"the text {text[:40]!r}"


def _gpu(row: _Row, *, user: bool = False) -> Gpu:
    # Fields are read in the order a row is written, so the first problem reported is the
    # first one a reader meets.
    ident = row.identifier()
    name = row.text("name")
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
    )


def _link(row: _Row, kind_default: str) -> Link:
    bidirectional = row.number("bidirectional_gb_per_s", required=False, maximum=1e6)
    efficiency = row.number("measured_efficiency", required=False, maximum=1.0)
    return Link(
        id=row.identifier(),
        name=row.text("name"),
        kind=row.text("kind", required=False, default=kind_default),
        bandwidth_bytes_per_s=(row.number("bandwidth_gb_per_s", maximum=1e6) or 0.0) * GB,
        latency_s=(row.number("latency_us", maximum=1e6) or 0.0) * 1e-6,
        source=row.text("source"),
        bidirectional_bytes_per_s=bidirectional * GB if bidirectional else None,
        measured_efficiency=efficiency,
        latency_source=row.text("latency_source", required=False),
    )


def _model(row: _Row, *, user: bool = False) -> ModelPreset:
    moe = row.mapping("moe")
    mla = row.mapping("mla")
    attention = row.choice("attention", ("standard", "mla"), "mla" if mla else "standard")
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
            mlp=row.choice("mlp", ("gated", "plain"), "gated"),  # type: ignore[arg-type]
            norm=row.choice("norm", ("rms", "layer"), "rms"),  # type: ignore[arg-type]
            attention=attention,  # type: ignore[arg-type]
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
    except (ArithmeticError, ValueError) as error:  # a shape that cannot be counted
        raise row.fail("layers", f"the shapes do not form a model: {error}") from error
    official = row.number("official_params", required=not user, maximum=1e15)
    return ModelPreset(
        id=row.identifier(),
        name=row.text("name"),
        family=row.text("family", required=False, default="custom"),
        architecture=arch,
        official_params=official or arch.stats.total_params,
        official_active_params=row.number("official_active_params", required=False, maximum=1e15),
        source=row.text("source"),
        params_source=row.text("params_source", required=False),
        user_supplied=user,
    )


def _price(row: _Row) -> ApiPrice:
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


def _rows(document: Any, key: str, file: str, *, required: bool = True) -> list[_Row]:
    if not isinstance(document, dict):
        raise CatalogError(f"{file}: expected a mapping with a {key!r} list at the top, got {_kind(document)}")
    items = document.get(key)
    if items is None:
        if required:
            raise CatalogError(f"{file}: no {key!r} list at the top level")
        return []
    if not isinstance(items, list):
        raise CatalogError(f"{file}, {key!r}: expected a list of rows, got {_kind(items)}")
    if len(items) > _MAX_ROWS:
        raise CatalogError(f"{file}, {key!r}: {len(items)} rows is more than the {_MAX_ROWS} allowed")
    return [_Row(item, file, index) for index, item in enumerate(items)]


def _unique(items: list[Any], file: str) -> dict[str, Any]:
    table: dict[str, Any] = {}
    for item in items:
        if item.id in table:
            raise CatalogError(f"{file}, row {item.id!r}, field 'id': appears twice")
        table[item.id] = item
    return table


def _read(path: Path) -> Any:
    with path.open(encoding="utf-8") as handle:
        return yaml.safe_load(handle)


@functools.cache
def default_catalog() -> Catalog:
    """Load the built-in catalogs from data/ (once per process) and check their references.

    Raises:
        CatalogError: a row is invalid or refers to an unknown link or network.
    """
    files = {
        name: _read(DATA_DIR / f"{name}.yaml") for name in ("gpus", "interconnects", "networks", "models", "prices")
    }
    gpus = _unique([_gpu(r) for r in _rows(files["gpus"], "gpus", "data/gpus.yaml")], "data/gpus.yaml")
    links = _unique(
        [_link(r, "scale-up") for r in _rows(files["interconnects"], "interconnects", "data/interconnects.yaml")],
        "data/interconnects.yaml",
    )
    networks = _unique(
        [_link(r, "network") for r in _rows(files["networks"], "networks", "data/networks.yaml")],
        "data/networks.yaml",
    )
    models = _unique([_model(r) for r in _rows(files["models"], "models", "data/models.yaml")], "data/models.yaml")
    prices = tuple(_price(r) for r in _rows(files["prices"], "prices", "data/prices.yaml"))
    claims = tuple(_price(r) for r in _rows(files["prices"], "seed_claims", "data/prices.yaml", required=False))
    catalog = Catalog(
        gpus=MappingProxyType(gpus),
        models=MappingProxyType(models),
        interconnects=MappingProxyType(links),
        networks=MappingProxyType(networks),
        prices=prices,
        seed_claims=claims,
    )
    _check_references(catalog, "data/gpus.yaml")
    return catalog


def _check_references(catalog: Catalog, file: str) -> None:
    for gpu in catalog.gpus.values():
        for name, ident, table in (
            ("scale_up", gpu.scale_up, catalog.interconnects),
            ("network", gpu.network, catalog.networks),
            ("host_link", gpu.host_link, catalog.interconnects),
        ):
            if ident is not None and ident not in table:
                raise CatalogError(
                    f"{file}, row {gpu.id!r}, field {name!r}: unknown id {ident!r} (known: {', '.join(sorted(table))})"
                )


def _depth(value: Any, limit: int) -> int:
    """Return the nesting depth of a parsed document, stopping once past ``limit``."""
    if limit < 0:
        return 1
    if isinstance(value, dict):
        return 1 + max((_depth(v, limit - 1) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_depth(v, limit - 1) for v in value), default=0)
    return 0


def parse_user_catalog(text: str | bytes, name: str = "catalog") -> Catalog:
    """Validate a user's YAML of extra ``gpus:`` and ``models:`` rows.

    The format is the one data/gpus.yaml and data/models.yaml use; a GPU row needs at least id,
    name, memory_gb, memory_bandwidth_gb_per_s, dense_tflops and source, a model row id, name,
    layers, hidden, heads, ffn, vocab and source.

    Raises:
        CatalogError: the text is too large, not YAML, or a row is invalid (the message names
            the file, the row and the field).
    """
    if len(text) > MAX_USER_CATALOG_BYTES:
        raise CatalogError(f"{name}: {len(text):,} bytes is larger than the {MAX_USER_CATALOG_BYTES:,} allowed")
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as error:
            raise CatalogError(f"{name}: not UTF-8 text ({error.reason} at byte {error.start})") from error
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        raise CatalogError(f"{name}: not valid YAML{where}") from error
    except RecursionError as error:
        raise CatalogError(f"{name}: nested more than {_MAX_DEPTH} levels deep") from error
    if _depth(document, _MAX_DEPTH + 1) > _MAX_DEPTH:
        raise CatalogError(f"{name}: nested more than {_MAX_DEPTH} levels deep")
    if not isinstance(document, dict) or not ({"gpus", "models"} & set(document)):
        raise CatalogError(f"{name}: expected a mapping with a 'gpus:' and/or 'models:' list at the top")
    unknown = set(document) - {"gpus", "models", "schema_version"}
    if unknown:
        raise CatalogError(f"{name}: unknown top-level key {sorted(map(str, unknown))[0]!r} (allowed: gpus, models)")
    base = default_catalog()
    gpus = _unique([_gpu(r, user=True) for r in _rows(document, "gpus", name, required=False)], name)
    models = _unique([_model(r, user=True) for r in _rows(document, "models", name, required=False)], name)
    extra = Catalog(
        gpus=MappingProxyType(gpus),
        models=MappingProxyType(models),
        interconnects=base.interconnects,
        networks=base.networks,
        prices=(),
    )
    _check_references(extra, name)
    return extra


def load_user_catalog(path: str | Path) -> Catalog:
    """Read and validate a user catalog file (see :func:`parse_user_catalog`).

    Raises:
        CatalogError: the file cannot be read or is invalid.
    """
    file = Path(path)
    try:
        size = file.stat().st_size
        if size > MAX_USER_CATALOG_BYTES:
            raise CatalogError(f"{file}: {size:,} bytes is larger than the {MAX_USER_CATALOG_BYTES:,} allowed")
        data = file.read_bytes()
    except OSError as error:
        raise CatalogError(f"{file}: cannot be read ({error.strerror or error})") from error
    return parse_user_catalog(data, str(file))
