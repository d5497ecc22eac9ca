"""Published measurements (data/published_measurements.yaml) and the scenarios they map to.

Each measurement is a real, sourced figure (GPU-hours of a training run, tokens/s of a serving
benchmark, peak memory, ...). data/reference_scenarios.yaml says how each becomes a scenario and
which of the estimate's figures it is compared with, or why it cannot be (a price, say).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any
from urllib.parse import urlsplit

import yaml

from model.caches import once
from model.catalog import DATA_DIR, SAFE_LOADER, CatalogError, default_catalog
from model.scenario import SCENARIO_FIELDS, Scenario
from model.units import parse_quantity

__all__ = [
    "CLASSES",
    "KINDS",
    "PREDICTIONS",
    "SERVING_KINDS",
    "STACKS",
    "TRAINING_KINDS",
    "TYPED_FIELDS",
    "TYPED_SERVING_FIELDS",
    "Reference",
    "load_references",
    "source_key",
    "stack_id",
]

KINDS: tuple[str, ...] = ("training_total", "training_throughput", "inference", "moe_serving", "local", "memory")
"""The kinds of measurement the estimate is scored on (cost entries are inputs, not predictions).

``local`` is one user on a desk: decode or prefill at batch 1 on one card (or a few cards of one
machine), as llama.cpp's ``llama-bench``, MLC, ExLlamaV2 or vLLM's latency benchmark time it."""
TRAINING_KINDS: tuple[str, ...] = ("training_total", "training_throughput")
SERVING_KINDS: tuple[str, ...] = ("inference", "moe_serving", "local")
CLASSES: tuple[str, ...] = ("local", "lora_qlora", "queued", "non_nvidia_serving")
"""Classes of run that cut across the kinds (issue 33): one user on a desk (the ``local`` kind),
LoRA and QLoRA fine-tunes (any kind whose scenario fine-tunes adapters), queued servers (a serving
run offered more requests than the server runs at once: the scenario serves the largest batch that
fits, ``batch: max``), and serving on a GPU whose vendor is not NVIDIA."""
STACKS: tuple[str, ...] = (
    *("llama.cpp", "MLC LLM", "ExLlamaV2", "ExLlama", "vLLM", "SGLang", "TensorRT-LLM", "TGI", "MLX", "Ollama"),
    "JetStream",
    *("transformers", "Megatron-LM", "NeMo", "torchtitan", "torchtune", "DeepSpeed", "PEFT", "TRL", "Unsloth"),
)
"""The software a measurement names (``stack.name`` in data/published_measurements.yaml); each is the
``measured_as`` of one profile in data/stacks.yaml, the scenario stack it is estimated with."""
PREDICTIONS: tuple[str, ...] = (
    "gpu_hours",
    "days",
    "tokens_per_s_per_gpu",
    "seconds_per_step",
    "mfu_palm",
    "hfu_megatron",
    "mfu_megatron",
    "hardware_tflops",
    "megatron_tflops",
    "total_tokens_per_s",
    "user_tokens_per_s",
    "prefill_tokens_per_s",
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
        "stack",
    }
)
"""What a user types for a training run: the model, the hardware, the cards, the data, the software. Everything
else (layout, micro-batch, global batch, ZeRO, recomputation, interleaving) is left to the engine."""
TYPED_SERVING_FIELDS: frozenset[str] = frozenset(
    {
        *(name for name in TYPED_FIELDS if name not in {"tokens", "seq_len", "finetune"}),
        *("kv_precision", "batch", "concurrency", "requests", "prompt_len", "output_len"),
        *("draft_tokens", "draft_acceptance"),
        "stack",
    }
)
"""What a user types for a serving benchmark: the model, the hardware, the cards, the formats, the
concurrency, the lengths, any speculative decoding and the software. The replica (tensor and pipeline degrees,
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
    stack: str = ""
    """The software that ran it (one of :data:`STACKS`; empty where the entry names none)."""
    stack_version: str = ""
    source: str = ""
    """The publication it comes from (:func:`source_key` of its URL): the unit a leave-one-source-out
    fit holds out."""
    classes: tuple[str, ...] = ()
    """The :data:`CLASSES` it belongs to."""


_GITHUB_FILE = re.compile(r"^github\.com/([^/]+)/([^/]+)/(?:blob|tree|raw)/[^/]+/(.+)$")
_RAW_GITHUB = re.compile(r"^raw\.githubusercontent\.com/([^/]+)/([^/]+)/[^/]+/(.+)$")
_ARXIV = re.compile(r"^arxiv\.org/(?:abs|pdf)/(\d{4}\.\d{4,5})(?:v\d+)?(?:\.pdf)?$")


def source_key(url: str) -> str:
    """Name the publication a source URL belongs to: one document, whatever its version or section.

    A GitHub file at any commit or branch (or its raw copy) is the file (``github.com/owner/repo/path``);
    an arXiv paper is its abstract without the version; any other page is its host and path without
    the query or fragment. A pull request or issue thread is its own source. So the torchtune README
    read at three commits, or one benchmark page at two of its revisions, is one source: the same
    authors measuring the same way. An entry whose source names a ``publication`` (one submission
    spread over several files, as an MLPerf round's) is grouped by that name instead
    (:func:`load_references`).
    """
    parts = urlsplit(url.strip())
    host = parts.netloc.lower().removeprefix("www.")
    path = parts.path
    if host == "github.com":  # GitHub's owner and repository names are case-insensitive
        segments = path.split("/")
        path = "/".join(segment.lower() if 0 < index < 3 else segment for index, segment in enumerate(segments))
    address = f"{host}{path}".rstrip("/") if host else url.strip().rstrip("/")
    for pattern in (_GITHUB_FILE, _RAW_GITHUB):
        found = pattern.match(address)
        if found:
            owner, repo, path = found.groups()
            return f"github.com/{owner.lower()}/{repo.lower()}/{path}"
    found = _ARXIV.match(address)
    if found:
        return f"arxiv.org/abs/{found.group(1)}"
    return address


def stack_id(name: str) -> str:
    """Return the scenario stack (data/stacks.yaml's id) a measurement's ``stack.name`` runs as.

    Raises:
        CatalogError: no profile lists the name in its ``measured_as``.
    """
    for stack in default_catalog().stacks.values():
        if name in stack.measured_as:
            return str(stack.id)
    raise CatalogError(f"data/stacks.yaml: no stack lists {name!r} in its measured_as")


def _stack(entry: dict[str, Any]) -> tuple[str, str]:
    """Return the entry's stack name and version, checking the name against :data:`STACKS`."""
    stack = entry.get("stack")
    if stack is None:
        return "", ""
    name = stack.get("name") if isinstance(stack, dict) else None
    if name not in STACKS:
        where = f"data/published_measurements.yaml, row {entry['id']!r}, field 'stack.name'"
        raise CatalogError(f"{where}: {name!r} is not one of {', '.join(STACKS)}")
    return str(name), str(stack.get("version") or "")


def _classes(kind: str, scenario: Scenario | None, vendor: str) -> tuple[str, ...]:
    """Return the :data:`CLASSES` of a measurement from its kind, its scenario and its GPU's vendor."""
    found = []
    if kind == "local":
        found.append("local")
    if scenario is not None and scenario.finetune in ("lora", "qlora"):
        found.append("lora_qlora")
    if kind in SERVING_KINDS and scenario is not None and _queued(scenario):
        found.append("queued")
    if kind in SERVING_KINDS and scenario is not None and vendor and vendor.lower() != "nvidia":
        found.append("non_nvidia_serving")
    return tuple(found)


def _queued(scenario: Scenario) -> bool:
    """Whether more requests are offered than run at once.

    The largest batch that fits, or a batch job larger than the slots it is given (a stated batch,
    no concurrency): requests wait either way.
    """
    if scenario.batch == "max":
        return True
    slots = scenario.batch if scenario.concurrency is None and isinstance(scenario.batch, int) else None
    return slots is not None and slots > 1 and scenario.requests is not None and scenario.requests > slots


def _vendor(scenario: Scenario | None) -> str:
    """The catalog vendor of the scenario's GPU ("" when it has none or the GPU is not in the catalog)."""
    if scenario is None or scenario.gpu is None:
        return ""
    gpu = default_catalog().gpus.get(scenario.gpu)
    return gpu.vendor if gpu is not None else ""


def _scenario(settings: dict[str, Any], ident: str, stack: str = "") -> Scenario:
    """Build the scenario a mapping row gives; the measurement's stack runs it unless the row names one."""
    values: dict[str, Any] = {"stack": stack_id(stack)} if stack else {}
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
    if mapping.get("predict") == "seconds_per_step":
        kept = kept | {"global_batch"}  # a step's time is measured for a stated step: its batch is typed too
    typed = {name: value for name, value in mapping["scenario"].items() if name in kept}
    return _scenario(typed, ident, _stack(entry)[0])


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
        url = str(source.get("url") or source.get("ref") or "")
        stack, stack_version = _stack(entry)
        scenario = _scenario(mapping["scenario"], ident, stack) if "scenario" in mapping else None
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
                source_url=url,
                quote=str(entry.get("quote") or ""),
                confidence=str(entry.get("confidence") or ""),
                scenario=scenario,
                typed=_typed(entry, mapping, ident),
                predict=predict,
                assumptions=str(mapping.get("assumptions") or ""),
                unmapped=str(mapping.get("unmapped") or ""),
                tpot_limit_s=mapping.get("tpot_limit_s"),
                raw=MappingProxyType(entry),
                stack=stack,
                stack_version=stack_version,
                source=str(source.get("publication") or "") or (source_key(url) if url else ident),
                classes=_classes(str(entry["kind"]), scenario, _vendor(scenario)),
            )
        )
    unknown = set(mappings) - {r.id for r in references}
    if unknown:
        raise CatalogError(f"data/reference_scenarios.yaml: rows for unknown measurements {sorted(unknown)}")
    return tuple(references)
