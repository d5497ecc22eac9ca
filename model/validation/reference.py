"""Published measurements (data/published_measurements.yaml) and the scenarios they map to.

Each measurement is a real, sourced figure (GPU-hours of a training run, tokens/s of a serving
benchmark, peak memory, ...). data/reference_scenarios.yaml says how each becomes a scenario and
which of the estimate's figures it is compared with, or why it cannot be (a price, say).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import yaml

from model.caches import once
from model.catalog import DATA_DIR, SAFE_LOADER, CatalogError
from model.scenario import SCENARIO_FIELDS, Scenario
from model.units import parse_quantity

__all__ = [
    "KINDS",
    "PREDICTIONS",
    "SERVING_KINDS",
    "TRAINING_KINDS",
    "TYPED_FIELDS",
    "TYPED_SERVING_FIELDS",
    "Reference",
    "load_references",
]

KINDS: tuple[str, ...] = ("training_total", "training_throughput", "inference", "moe_serving", "memory")
"""The kinds of measurement the estimate is scored on (cost entries are inputs, not predictions)."""
TRAINING_KINDS: tuple[str, ...] = KINDS[:2]
SERVING_KINDS: tuple[str, ...] = KINDS[2:4]
PREDICTIONS: tuple[str, ...] = (
    "gpu_hours",
    "days",
    "tokens_per_s_per_gpu",
    "mfu_palm",
    "hfu_megatron",
    "mfu_megatron",
    "hardware_tflops",
    "megatron_tflops",
    "total_tokens_per_s",
    "user_tokens_per_s",
    "latency_bound_tokens_per_s",
    "inference_allocated_gib",
    "training_allocated_gib",
    "training_allocated_gb",
    "training_reserved_gib",
)
_NUMERIC = frozenset({"tokens", "params"})
TYPED_FIELDS: frozenset[str] = frozenset(
    {
        *("model", "params", "layers", "hidden", "heads", "kv_heads", "head_dim", "ffn", "vocab"),
        *("experts", "active_experts", "mlp", "tied_embeddings"),
        *("gpu", "cards", "interconnect", "network", "precision", "tokens", "seq_len", "finetune"),
    }
)
"""What a user types for a training run: the model, the hardware, the cards, the data. Everything
else (layout, micro-batch, global batch, ZeRO, recomputation, interleaving) is left to the engine."""
TYPED_SERVING_FIELDS: frozenset[str] = frozenset(
    {
        *(name for name in TYPED_FIELDS if name not in {"tokens", "seq_len", "finetune"}),
        *("kv_precision", "batch", "concurrency", "prompt_len", "output_len", "draft_tokens", "draft_acceptance"),
    }
)
"""What a user types for a serving benchmark: the model, the hardware, the cards, the formats, the
concurrency, the lengths and any speculative decoding. The replica (tensor and pipeline degrees,
attention data parallelism) is left to the engine; a benchmark's fixed concurrency is over all the
cards (``concurrency``), so a replica the engine picks serves its share of it."""


@dataclass(frozen=True, slots=True, eq=False)
class Reference:
    """One published measurement and how the engine is compared with it."""

    id: str
    kind: str
    model: str
    gpu: str
    gpu_count: int | None
    metric: str
    value: float
    unit: str
    source_title: str
    source_url: str
    quote: str
    confidence: str
    scenario: Scenario | None
    """None when the entry cannot be mapped (``unmapped`` says why)."""
    typed: Scenario | None = None
    """The scenario with only what a user would type (:data:`TYPED_FIELDS` for a training run,
    :data:`TYPED_SERVING_FIELDS` for a serving one). None for memory entries and for runs whose
    source gives no card count."""
    predict: str = ""
    assumptions: str = ""
    unmapped: str = ""
    tpot_limit_s: float | None = None
    raw: MappingProxyType[str, Any] = field(default_factory=lambda: MappingProxyType({}))


def _scenario(settings: dict[str, Any], ident: str) -> Scenario:
    values: dict[str, Any] = {}
    for name, value in settings.items():
        if name not in SCENARIO_FIELDS:
            raise CatalogError(f"data/reference_scenarios.yaml, row {ident!r}, field {name!r}: not a scenario field")
        values[name] = parse_quantity(value) if name in _NUMERIC and value is not None else value
    return Scenario(**values)


def _typed(entry: dict[str, Any], mapping: dict[str, Any], ident: str) -> Scenario | None:
    """Return the entry's scenario as a user would type it: a training or serving run with a stated card count."""
    kind = str(entry["kind"])
    if kind not in TRAINING_KINDS + SERVING_KINDS or entry.get("gpu_count") is None or "scenario" not in mapping:
        return None
    kept = TYPED_FIELDS if kind in TRAINING_KINDS else TYPED_SERVING_FIELDS
    return _scenario({name: value for name, value in mapping["scenario"].items() if name in kept}, ident)


@once
def load_references() -> tuple[Reference, ...]:
    """Load every published measurement with its mapping (once per process).

    Raises:
        CatalogError: a mapping names an unknown measurement, field or prediction.
    """
    with (DATA_DIR / "published_measurements.yaml").open(encoding="utf-8") as handle:
        measurements = yaml.load(handle, Loader=SAFE_LOADER)
    with (DATA_DIR / "reference_scenarios.yaml").open(encoding="utf-8") as handle:
        mappings = {row["id"]: row for row in yaml.load(handle, Loader=SAFE_LOADER)["references"]}
    references = []
    for entry in measurements:
        ident = entry["id"]
        mapping = mappings.get(ident)
        if mapping is None:
            raise CatalogError(f"data/reference_scenarios.yaml: no row for measurement {ident!r}")
        predict = mapping.get("predict", "")
        if predict and predict not in PREDICTIONS:
            raise CatalogError(f"data/reference_scenarios.yaml, row {ident!r}, field 'predict': unknown {predict!r}")
        source = entry.get("source") or {}
        references.append(
            Reference(
                id=ident,
                kind=entry["kind"],
                model=str(entry.get("model") or ""),
                gpu=str(entry.get("gpu") or ""),
                gpu_count=entry.get("gpu_count"),
                metric=entry["metric"],
                value=float(entry["value"]),
                unit=str(entry.get("unit") or ""),
                source_title=str(source.get("title") or ""),
                source_url=str(source.get("url") or source.get("ref") or ""),
                quote=str(entry.get("quote") or ""),
                confidence=str(entry.get("confidence") or ""),
                scenario=_scenario(mapping["scenario"], ident) if "scenario" in mapping else None,
                typed=_typed(entry, mapping, ident),
                predict=predict,
                assumptions=str(mapping.get("assumptions") or ""),
                unmapped=str(mapping.get("unmapped") or ""),
                tpot_limit_s=mapping.get("tpot_limit_s"),
                raw=MappingProxyType(entry),
            )
        )
    unknown = set(mappings) - {r.id for r in references}
    if unknown:
        raise CatalogError(f"data/reference_scenarios.yaml: rows for unknown measurements {sorted(unknown)}")
    return tuple(references)
