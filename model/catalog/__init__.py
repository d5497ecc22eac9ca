"""The sourced catalogs in data/: GPUs, links, networks, model presets, API prices, software stacks.

Each YAML file is read once with the safe loader (libyaml's parser where the wheel has it),
validated field by field and turned into frozen dataclasses whose field names carry their unit.
A bad row raises :class:`CatalogError` naming the file, the row and the field. A user's own file
of extra GPUs or models (the ``--catalog`` flag, or an upload in the app) goes through the same
validation. The row types
and their readers are :mod:`model.catalog.schema`; the field checks are private to this package.
A model typed only as a parameter count gets its shape from :mod:`model.catalog.derived`.
"""

from __future__ import annotations

from pathlib import Path
from types import MappingProxyType
from typing import Any

import yaml

from model.caches import once
from model.catalog._rows import CatalogError, quoted, rows_of, unique_by_id
from model.catalog.derived import Shape, default_vocab, derive_architecture
from model.catalog.schema import (
    DRIVER_RESERVED_BYTES,
    ApiPrice,
    Catalog,
    Gpu,
    Link,
    ModelPreset,
    gpu_from_row,
    link_from_row,
    model_from_row,
    price_from_row,
    short_name,
)
from model.catalog.stacks import (
    SERVING_MEMORY_FRACTION,
    STACK_IDS,
    Platform,
    ServingBudget,
    Stack,
    StackId,
    read_stacks,
)

__all__ = [
    "DATA_DIR",
    "DRIVER_RESERVED_BYTES",
    "MAX_USER_CATALOG_BYTES",
    "SAFE_LOADER",
    "SERVING_MEMORY_FRACTION",
    "STACK_IDS",
    "ApiPrice",
    "Catalog",
    "CatalogError",
    "Gpu",
    "Link",
    "ModelPreset",
    "Platform",
    "ServingBudget",
    "Shape",
    "Stack",
    "StackId",
    "default_catalog",
    "default_vocab",
    "derive_architecture",
    "load_user_catalog",
    "parse_user_catalog",
    "short_name",
]

DATA_DIR = Path(__file__).resolve().parents[2] / "data"
MAX_USER_CATALOG_BYTES = 256_000
"""Uploads larger than this are refused before parsing (a catalog of 100 GPUs is ~40 kB)."""
_MAX_DEPTH = 8


SAFE_LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""libyaml's safe loader when the wheel has it: a full-size upload is screened in ~1 ms and read 5-8x faster."""


def _read(path: Path) -> Any:
    with path.open(encoding="utf-8") as handle:
        return yaml.load(handle, Loader=SAFE_LOADER)  # safe: SafeLoader's constructor, libyaml's parser


@once
def default_catalog() -> Catalog:
    """Load the built-in catalogs from data/ (once per process) and check their references.

    Raises:
        CatalogError: a row is invalid or refers to an unknown link or network.
    """
    files = {
        name: _read(DATA_DIR / f"{name}.yaml") for name in ("gpus", "interconnects", "networks", "models", "prices")
    }
    gpus = unique_by_id([gpu_from_row(r) for r in rows_of(files["gpus"], "gpus", "data/gpus.yaml")], "data/gpus.yaml")
    links = unique_by_id(
        [
            link_from_row(r, "scale-up")
            for r in rows_of(files["interconnects"], "interconnects", "data/interconnects.yaml")
        ],
        "data/interconnects.yaml",
    )
    networks = unique_by_id(
        [link_from_row(r, "network") for r in rows_of(files["networks"], "networks", "data/networks.yaml")],
        "data/networks.yaml",
    )
    models = unique_by_id(
        [model_from_row(r) for r in rows_of(files["models"], "models", "data/models.yaml")], "data/models.yaml"
    )
    prices = tuple(price_from_row(r) for r in rows_of(files["prices"], "prices", "data/prices.yaml"))
    claims = tuple(
        price_from_row(r) for r in rows_of(files["prices"], "seed_claims", "data/prices.yaml", required=False)
    )
    stacks, platforms, families = read_stacks(_read(DATA_DIR / "stacks.yaml"))
    catalog = Catalog(
        gpus=MappingProxyType(gpus),
        models=MappingProxyType(models),
        interconnects=MappingProxyType(links),
        networks=MappingProxyType(networks),
        prices=prices,
        seed_claims=claims,
        stacks=stacks,
        platforms=platforms,
        families=families,
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


def _screen_events(text: str, name: str) -> None:
    """Refuse YAML aliases and deep nesting before anything is built from the text.

    An alias re-uses a node, so ten lines of nested aliases describe billions of values ("billion
    laughs"); walking what safe_load returns would then never end. Catalog rows never need them.
    Deep nesting is refused here, from the parser's events, because safe_load's constructor
    recurses once per level and takes seconds to fail on 100,000 of them.
    """
    depth = 0
    for event in yaml.parse(text, Loader=SAFE_LOADER):
        if isinstance(event, yaml.AliasEvent):
            anchor = quoted(event.anchor, 20).strip("'")
            raise CatalogError(f"{name}: YAML aliases (*{anchor}) are not allowed; write each row out in full")
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > _MAX_DEPTH:
                raise CatalogError(f"{name}: nested more than {_MAX_DEPTH} levels deep")
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1


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
        _screen_events(text, name)
        document = yaml.load(text, Loader=SAFE_LOADER)  # safe: SafeLoader's constructor, libyaml's parser
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        raise CatalogError(f"{name}: not valid YAML{where}") from error
    if not isinstance(document, dict) or not ({"gpus", "models"} & set(document)):
        raise CatalogError(f"{name}: expected a mapping with a 'gpus:' and/or 'models:' list at the top")
    unknown = set(document) - {"gpus", "models", "schema_version"}
    if unknown:
        first = quoted(sorted(map(str, unknown))[0])
        raise CatalogError(f"{name}: unknown top-level key {first} (allowed: gpus, models)")
    base = default_catalog()
    gpus = unique_by_id([gpu_from_row(r, user=True) for r in rows_of(document, "gpus", name, required=False)], name)
    models = unique_by_id(
        [model_from_row(r, user=True) for r in rows_of(document, "models", name, required=False)], name
    )
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
    name = str(file) if str(file).isprintable() else ascii(str(file))  # a newline or NUL would break the message
    try:
        size = file.stat().st_size
        if size > MAX_USER_CATALOG_BYTES:
            raise CatalogError(f"{name}: {size:,} bytes is larger than the {MAX_USER_CATALOG_BYTES:,} allowed")
        with file.open("rb") as handle:  # at most one byte past the cap: /dev/zero has no size and no end
            data = handle.read(MAX_USER_CATALOG_BYTES + 1)
    except CatalogError:
        raise
    except (OSError, ValueError) as error:  # ValueError: a path with a NUL byte
        raise CatalogError(f"{name}: cannot be read ({getattr(error, 'strerror', None) or error})") from error
    if len(data) > MAX_USER_CATALOG_BYTES:
        raise CatalogError(f"{name}: larger than the {MAX_USER_CATALOG_BYTES:,} bytes allowed")
    return parse_user_catalog(data, name)
