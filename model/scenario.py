"""The scenario: what the user asks about, and its resolution against the catalogs.

A :class:`Scenario` holds the user's choices as plain values (ids, counts, flags); ``None``
means "choose for me". :func:`resolve` checks every value, looks the ids up and fills in the
defaults, raising :class:`ScenarioError` (naming the field, the value and what is allowed) on a
bad input. "Does not fit" is never an error: it is a result of the estimate.
"""

from __future__ import annotations

import functools
import operator
from dataclasses import dataclass, field, fields, replace
from typing import Any, Final, Literal, NamedTuple, get_args

from model.architecture import Architecture, MlpKind
from model.caches import BoundedMemo
from model.catalog import (
    STACK_IDS,
    Catalog,
    Gpu,
    Link,
    ModelPreset,
    Platform,
    ServingBudget,
    Shape,
    Stack,
    StackId,
    default_catalog,
    default_vocab,
    derive_architecture,
)
from model.limits import ScenarioError, check_choice, check_ranges
from model.precision import KV_PRECISIONS, PRECISIONS, KvPrecision, Precision, default_kv_precision
from model.pricing import PriceQuote, market_rent_ratio, rental_price
from model.stacks import check_stack, implied_stack, platform_of, serving_stack, stack_of

__all__ = [
    "ADAPTER_NAMES",
    "DEFAULT_CARDS",
    "DEFAULT_HOST",
    "FINETUNE_MODES",
    "MAX_BATCH",
    "OFFLOAD_MODES",
    "OPTIMIZERS",
    "RECOMPUTE_MODES",
    "SCENARIO_FIELDS",
    "Finetune",
    "HostMemory",
    "Offload",
    "Optimizer",
    "Recompute",
    "Resolved",
    "Scenario",
    "check_layout",
    "default_cards",
    "dram_bandwidth_gb_s",
    "engine_sets_batch",
    "offered_concurrency",
    "resolve",
    "trains_adapters",
    "with_batch",
]

Offload = Literal["auto", "none", "layers", "experts"]
"""Where serving puts what a card cannot hold: the engine's choice, nowhere, whole layers in host
memory (llama.cpp's -ngl), or a mixture of experts' routed experts (llama.cpp's --n-cpu-moe)."""
Recompute = Literal["none", "selective", "full"]
Optimizer = Literal["adamw", "adamw-8bit", "sgd", "adafactor"]
Finetune = Literal["none", "full", "lora", "qlora"]
RECOMPUTE_MODES: Final[tuple[Recompute, ...]] = get_args(Recompute)
OPTIMIZERS: Final[tuple[Optimizer, ...]] = get_args(Optimizer)
FINETUNE_MODES: Final[tuple[Finetune, ...]] = get_args(Finetune)
OFFLOAD_MODES: Final[tuple[Offload, ...]] = get_args(Offload)
_ADAPTER_MODES: Final[frozenset[Finetune]] = frozenset({"lora", "qlora"})
ADAPTER_NAMES: Final[dict[str, str]] = {"lora": "LoRA", "qlora": "QLoRA"}
"""How the adapter methods are written (Hu et al. 2021; Dettmers et al. 2023)."""

DEFAULT_MODEL = "llama-3.1-8b"
DEFAULT_GPU = "h100-sxm"
DEFAULT_CARDS = 8
"""Cards when none is named, on a GPU that is rented or racked: one node of eight."""
CHINCHILLA_TOKENS_PER_PARAM = 20.0
"""Default pre-training budget: 20 tokens per parameter (Hoffmann et al. 2022, Table 3)."""
DEFAULT_FINETUNE_TOKENS = 1e8
MAX_BATCH: Final = 10_000_000
"""The most concurrent sequences per serving replica a scenario may ask for (and any search tries)."""
DEFAULT_HOST: Final = "desktop-cpu"
"""The catalog row of the machine a card sits in when the scenario gives only its memory: a desktop
CPU with two channels of DDR5-5600 (its bandwidth is the host's unless the scenario gives one, its
compute the host CPU's)."""
DRAM_CHANNEL_BITS: Final = 64
"""Data bits of one DDR4/DDR5 channel (a DDR5 DIMM's two 32-bit subchannels: JEDEC JESD79-5)."""


def dram_bandwidth_gb_s(transfers_mt_s: float, channels: int, bus_bits: int = DRAM_CHANNEL_BITS) -> float:
    """Return the peak bandwidth of ``channels`` memory channels at ``transfers_mt_s`` in GB/s.

    Peak = transfers per second x bus width in bytes x channels: two channels of DDR5-5600 move
    5,600e6 x 8 B x 2 = 89.6 GB/s; a server socket of twelve DDR5-4800 channels 460.8 GB/s (a
    second socket adds its own, reached across the socket link).
    """
    return transfers_mt_s * bus_bits / 8.0 * channels / 1e3


def default_cards(gpu: Gpu) -> int:
    """Return the card count a user means who names a GPU but no count.

    A machine bought for a desk (the catalog's ``for_rent: false``: a Mac, a DGX Spark, a Ryzen AI
    box) is one box with one GPU: whoever names one means that one, not eight of them chained over
    Ethernet. Any other GPU: one node of eight (:data:`DEFAULT_CARDS`).
    """
    return DEFAULT_CARDS if gpu.for_rent else 1


def trains_adapters(finetune: Finetune) -> bool:
    """Return whether ``finetune`` trains low-rank adapters on a frozen base (LoRA, QLoRA)."""
    return finetune in _ADAPTER_MODES


@dataclass(frozen=True, slots=True)
class Scenario:
    """Everything one estimate depends on. ``None`` means: choose automatically."""

    model: str | None = DEFAULT_MODEL
    params: float | None = None
    layers: int | None = None
    hidden: int | None = None
    heads: int | None = None
    kv_heads: int | None = None
    head_dim: int | None = None
    """Width of one attention head; None: hidden / heads."""
    ffn: int | None = None
    vocab: int | None = None
    experts: int | None = None
    active_experts: int | None = None
    mlp: MlpKind | None = None
    """'gated' (SwiGLU, three matrices) or 'plain' (GELU, two); None keeps the model's."""
    tied_embeddings: bool | None = None
    gpu: str = DEFAULT_GPU
    cards: int = DEFAULT_CARDS
    gpus_per_node: int | None = None
    interconnect: str | None = None
    network: str | None = None
    precision: Precision = "bf16"
    kv_precision: KvPrecision | None = None
    stack: StackId = "typical"
    """The software that serves or trains (data/stacks.yaml: vllm, llamacpp, megatron, ...); "typical"
    is what a user gets who does not say: the engine as calibrated over every measurement."""
    # training
    tokens: float | None = None
    seq_len: int | None = None
    global_batch: int | None = None
    micro_batch: int | None = None
    tp: int | None = None
    pp: int | None = None
    dp: int | None = None
    ep: int | None = None
    zero: int | None = None
    vp: int | None = None
    """Interleaved pipeline: model chunks per pipeline stage (Megatron's virtual pipeline)."""
    recompute: Recompute | None = None
    recompute_layers: int | None = None
    """Layers per stage recomputed in full (None: all, or the fewest that fit when searched)."""
    optimizer: Optimizer = "adamw"
    finetune: Finetune = "none"
    lora_rank: int = 16
    mfu: float | None = None
    master_weights: bool = True
    flash_attention: bool = True
    # inference
    batch: int | Literal["max"] = 1
    concurrency: int | None = None
    """Sequences in flight over every replica (what a load generator's max concurrency sets): each
    replica serves its share, rounded up, and ``batch`` is left at 1. None: ``batch`` per replica."""
    requests: int | None = None
    """A batch job: this many requests offered at once (an offline run over a prompt set, or a
    benchmark's prompts), served in waves of what runs at once; throughput is the job's output over
    its time. Without ``batch`` or ``concurrency`` they are all in flight, so each replica runs the
    largest batch that fits and the rest wait. None: a steady load that never runs dry."""
    prompt_len: int = 1024
    output_len: int = 256
    utilization: float = 0.7
    target_tpot_s: float | None = None
    """The slowest time per output token a full-load serving layout may give (None: no target)."""
    attention_dp: int | None = None
    """Serving a mixture of experts: attention data-parallel over this many cards, experts split
    over them (1: never; None: the engine chooses)."""
    draft_tokens: int = 0
    """Speculative decoding: tokens drafted per step and verified in one pass (0: off, a stock server)."""
    draft_acceptance: float = 0.8
    """The chance each drafted token is accepted (DeepSeek-V3's MTP: 0.85-0.9, its report sec. 5.4.3)."""
    price_per_gpu_hour: float | None = None
    # host memory and offload (serving only: training never offloads here)
    host_memory_gb: float | None = None
    """The RAM of the machine the cards sit in, in GB: serving places there what the cards cannot hold
    (None: none is counted, so nothing is offloaded). Per replica: each replica's machine has its own."""
    host_bandwidth_gb_s: float | None = None
    """That memory's bandwidth in GB/s (None: the :data:`DEFAULT_HOST` desktop's two channels of DDR5-5600)."""
    offload: Offload = "auto"
    """What serving offloads to host memory when the cards cannot hold it: auto (the engine chooses),
    none, layers or experts (a mixture of experts' routed experts)."""
    _hash: int | None = field(default=None, init=False, repr=False, compare=False)
    """The scenario's hash, worked out on first use: each estimate's caches are keyed by it, and
    hashing some fifty fields costs more than any one lookup. Not at construction, where an
    unhashable bad value would raise before validation could name the field."""

    def __hash__(self) -> int:
        found = self._hash
        if found is None:
            found = hash(_scenario_values(self))
            object.__setattr__(self, "_hash", found)
        return found

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        # Rebuilt from its values, so a copy from another process hashes afresh (string hashes
        # differ between processes).
        return _scenario_from_values, (_scenario_values(self),)

    def to_dict(self) -> dict[str, object]:
        """Return the fields as a plain dict (for JSON, YAML and URLs)."""
        return {name: getattr(self, name) for name in SCENARIO_FIELDS}


SCENARIO_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(Scenario) if f.init)
_scenario_values = operator.attrgetter(*SCENARIO_FIELDS)


def _scenario_from_values(values: tuple[Any, ...]) -> Scenario:
    return Scenario(**dict(zip(SCENARIO_FIELDS, values, strict=True)))


def offered_concurrency(scenario: Scenario) -> int | None:
    """Return the sequences in flight over all replicas the scenario offers, if it counts them so.

    Its concurrency (no more than a batch job's requests); or, for a batch job left at the default
    batch of one, the whole job (every request is offered at once, so what does not fit waits).
    None: a batch per replica.
    """
    if scenario.concurrency is not None:
        return min(scenario.concurrency, scenario.requests or scenario.concurrency)
    if scenario.requests is not None and scenario.batch == 1:
        return scenario.requests
    return None


def engine_sets_batch(scenario: Scenario) -> bool:
    """Return whether the engine chooses the running batch: full load (batch "max") or what a concurrency admits.

    Only then does a server's default slot count cap it; a batch the user fixes is their own slot count.
    """
    return scenario.batch == "max" or offered_concurrency(scenario) is not None


def with_batch(scenario: Scenario, batch: int | Literal["max"]) -> Scenario:
    """Return ``scenario`` serving ``batch`` sequences on each replica under a steady load.

    A concurrency over all replicas, and a batch job's size, are dropped.
    """
    return replace(scenario, batch=batch, concurrency=None, requests=None)


class HostMemory(NamedTuple):
    """The memory of the machine the cards sit in, where serving puts the weights a card cannot hold."""

    memory_bytes: float
    bandwidth_bytes_per_s: float
    flops_per_s: float
    """The host CPU's dense peak (the :data:`DEFAULT_HOST` row's fp32): it runs the layers kept there."""
    link: Link | None
    """The card's link to the host (PCIe), over which llama.cpp copies host weights to prefill a prompt."""


class Resolved(NamedTuple):
    """A scenario checked against the catalogs, every default filled in except the layout."""

    scenario: Scenario
    arch: Architecture
    model_name: str
    gpu: Gpu
    scale_up: Link
    network: Link
    gpus_per_node: int
    precision: Precision
    kv_precision: KvPrecision
    tokens: float
    seq_len: int
    recompute: Recompute | None
    price_per_gpu_hour: float | None
    price: PriceQuote
    """Where the price comes from: given, the catalog's rental rate, or estimated from the purchase price."""
    stack: Stack
    """The scenario's software stack, its mechanisms and constants (:mod:`model.stacks`)."""
    platform: Platform
    """The vendor software the GPU runs (CUDA, ROCm, ...), with its constants."""
    host: HostMemory | None = None
    """The host memory serving may offload to: None without one, for a chip that computes from the
    host's own memory (``Gpu.shares_host_memory``), or when the scenario turns offload off."""

    @property
    def serving_budget(self) -> ServingBudget:
        """What the stack that serves lets itself use of each card (typical's 90 %; llama.cpp's all but 1 GiB)."""
        return serving_stack(self.stack).serving_budget

    @property
    def serving_slots(self) -> int | None:
        """The most sequences the stack that serves runs at once unless told (None: what the memory holds)."""
        return serving_stack(self.stack).slots


def _validate(s: Scenario) -> None:
    """Check every field's type and range (ids are checked against the catalog later)."""
    check_ranges(s)
    check_choice("precision", s.precision, PRECISIONS)
    check_choice("stack", s.stack, STACK_IDS)
    if s.kv_precision is not None:
        check_choice("kv_precision", s.kv_precision, KV_PRECISIONS)
    if s.zero is not None and (isinstance(s.zero, bool) or s.zero not in (0, 1, 2, 3)):
        raise ScenarioError("zero", s.zero, "0, 1, 2 or 3")
    if s.recompute is not None:
        check_choice("recompute", s.recompute, RECOMPUTE_MODES)
    if s.recompute_layers is not None and s.recompute not in (None, "full"):
        raise ScenarioError("recompute_layers", s.recompute_layers, 'only with recompute "full" (or unset)')
    check_choice("optimizer", s.optimizer, OPTIMIZERS)
    if s.mlp is not None:
        check_choice("mlp", s.mlp, ("gated", "plain"))
    if s.tied_embeddings is not None and not isinstance(s.tied_embeddings, bool):
        raise ScenarioError("tied_embeddings", s.tied_embeddings, "true or false")
    check_choice("finetune", s.finetune, FINETUNE_MODES)
    check_choice("offload", s.offload, OFFLOAD_MODES)
    if s.offload in ("layers", "experts") and s.host_memory_gb is None:
        raise ScenarioError("host_memory_gb", None, f"a host memory size in GB to offload {s.offload} to (e.g. 64)")
    if s.batch != "max" and (
        isinstance(s.batch, bool) or not isinstance(s.batch, int) or not 1 <= s.batch <= MAX_BATCH
    ):
        raise ScenarioError("batch", s.batch, f"a whole number from 1 to {MAX_BATCH:,}, or max")
    if s.concurrency is not None and s.batch != 1:
        raise ScenarioError(
            "concurrency", s.concurrency, "batch (per replica) or concurrency (over all replicas), not both"
        )
    if s.model is None and s.params is None and (s.layers is None or s.hidden is None):
        raise ScenarioError("model", None, "a preset id, or a parameter count (params), or layers and hidden")
    if s.heads is not None and s.kv_heads is not None and s.heads % s.kv_heads:
        raise ScenarioError("kv_heads", s.kv_heads, f"a divisor of heads ({s.heads})")
    if s.hidden is not None and s.heads is not None and s.head_dim is None and s.hidden % s.heads:
        raise ScenarioError("heads", s.heads, f"a divisor of hidden ({s.hidden})")
    if s.experts is not None and s.active_experts is not None and s.active_experts > s.experts:
        raise ScenarioError("active_experts", s.active_experts, f"at most experts ({s.experts})")
    check_layout(s)


def check_layout(s: Scenario) -> None:
    """Refuse fixed layout dimensions the scenario's cards cannot hold (DESIGN.md 9: fixed knobs are constraints).

    A replica is tp x pp cards and dp replicas share the cards, so the fixed ones multiply to at
    most the cards, and a fixed dp divides them (the rest of the layout fills cards / dp); a fixed
    ep is at most the cards (a mixture of experts' ep also divides tp x dp: checked with the model
    in :func:`resolve`). Attention data parallelism spreads one replica over ep cards, at most the cards.
    """
    if s.tp is None and s.pp is None and s.dp is None and s.ep is None and s.attention_dp is None:
        return  # nothing fixed: the usual case, checked on every estimate
    cards = s.cards
    model_parallel = (s.tp or 1) * (s.pp or 1)
    fixed = " × ".join(f"{name} {value}" for name, value in (("tp", s.tp), ("pp", s.pp)) if value)
    if model_parallel > cards:
        name = "pp" if s.pp else "tp"
        raise ScenarioError(
            name, getattr(s, name), f"{fixed} needs {model_parallel:,} cards; the scenario has {cards:,}"
        )
    if s.dp is not None:
        if cards % s.dp:
            raise ScenarioError("dp", s.dp, f"a divisor of the {cards:,} cards (e.g. {_divisor_near(cards, s.dp):,})")
        if model_parallel * s.dp > cards:
            most = cards // model_parallel
            raise ScenarioError("dp", s.dp, f"at most {most:,} with {fixed} on {cards:,} cards (tp × pp × dp ≤ cards)")
    if s.ep is not None and s.ep > cards:
        raise ScenarioError("ep", s.ep, f"at most the {cards:,} cards")
    if s.attention_dp is not None and s.attention_dp > cards:
        raise ScenarioError("attention_dp", s.attention_dp, f"at most the {cards:,} cards")


def _divisor_near(cards: int, wanted: int) -> int:
    """Return the divisor of ``cards`` closest to ``wanted`` (the smaller on a tie)."""
    divisors = [d for d in range(1, min(cards, 4 * wanted) + 1) if cards % d == 0]
    return min(divisors, key=lambda d: (abs(d - wanted), d))


@functools.lru_cache(maxsize=512)
def _derived(params: float, overrides: tuple[tuple[str, Any], ...]) -> Architecture:
    return derive_architecture(params, **{name: value for name, value in overrides if value is not None})


_SHAPE_FIELDS: tuple[str, ...] = Shape._fields
"""The scenario fields that give or override a model's shape."""


@functools.lru_cache(maxsize=512)
def _overridden(base: Architecture, overrides: tuple[tuple[str, Any], ...]) -> Architecture:
    changes = dict(overrides)
    experts = changes.pop("experts", None)
    active = changes.pop("active_experts", None)
    arch = base.with_overrides(**changes)
    if experts is not None or active is not None:
        n = experts if experts is not None else max(arch.experts, 1)
        k = active if active is not None else (arch.active_experts or min(2, n))
        arch = arch.with_overrides(experts=n, active_experts=min(k, n), expert_ffn=arch.expert_ffn or arch.ffn)
    return arch


_shape_of = operator.attrgetter(*_SHAPE_FIELDS)


def _architecture(s: Scenario, catalog: Catalog) -> tuple[Architecture, str]:
    shape = _shape_of(s)
    overrides = tuple(zip(_SHAPE_FIELDS, shape, strict=True))
    has_overrides = shape.count(None) < len(shape)
    if s.params is not None or s.model is None:
        params, name = (float(s.params), f"custom {s.params / 1e9:g}B") if s.params else (0.0, "custom")
        if s.params is None:
            # Shapes alone (validation requires layers and hidden): derive the rest for the size they
            # imply, ~12 h^2 per layer (attention 4 h^2, a 4h-wide MLP 8 h^2) plus the embeddings.
            assert s.layers is not None
            assert s.hidden is not None
            body = 12.0 * s.layers * s.hidden**2
            vocab = s.vocab or default_vocab(body)
            params = body + 2 * vocab * s.hidden
            overrides = tuple((field, vocab if field == "vocab" else value) for field, value in overrides)
        try:
            arch = _derived(params, overrides)
        except ValueError as error:
            raise ScenarioError("params", s.params, str(error)) from error
        _check_shapes(arch)
        return arch, name
    preset: ModelPreset | None = catalog.models.get(s.model)
    if preset is None:
        raise ScenarioError("model", s.model, f"one of {', '.join(catalog.models)} (or give params)")
    if not has_overrides:
        return preset.architecture, preset.name
    base = preset.architecture
    if s.heads is not None and s.kv_heads is None and base.kv_heads == base.heads:
        # Multi-head attention keeps one KV head per query head when the head count changes.
        overrides = (*overrides, ("kv_heads", s.heads))
    arch = _overridden(base, overrides)
    _check_shapes(arch)
    return arch, f"{preset.name} (modified)"


def _check_shapes(arch: Architecture) -> None:
    """Refuse shape overrides that do not form a transformer."""
    if arch.kv_heads > arch.heads or arch.heads % arch.kv_heads:
        raise ScenarioError("kv_heads", arch.kv_heads, f"a divisor of heads ({arch.heads})")
    if not arch.head_dim and arch.hidden % arch.heads:
        raise ScenarioError("heads", arch.heads, f"a divisor of hidden ({arch.hidden})")


_LOOKED_UP: BoundedMemo[tuple[Scenario, Catalog], Resolved] = BoundedMemo(256)
"""Valid scenarios already looked up: a page reruns with the same scenario many times, and the
lookup is a pure function of the scenario's values and the catalog (compared by identity)."""


def resolve(s: Scenario, catalog: Catalog | None = None) -> Resolved:
    """Check ``s`` and look its ids up; fill in every default except the parallel layout.

    Raises:
        ScenarioError: a value is out of range or an id is unknown.
    """
    # Checked every time, before the memo: True equals 1 and 2.0 equals 2, so an equal scenario
    # that was valid says nothing about this one's types.
    _validate(s)
    cat = catalog or default_catalog()
    found = _LOOKED_UP.get((s, cat))
    if found is None:
        return _LOOKED_UP.put((s, cat), _look_up(s, cat))
    return found if found.scenario is s else found._replace(scenario=s)


def _look_up(s: Scenario, cat: Catalog) -> Resolved:
    arch, model_name = _architecture(s, cat)
    if arch.is_moe and s.ep is not None and s.tp is not None and s.dp is not None and (s.tp * s.dp) % s.ep:
        # Checked with the model: a dense model has no experts, so its ep is moot (the search ignores it).
        spread = s.tp * s.dp
        raise ScenarioError("ep", s.ep, f"a divisor of tp × dp ({spread:,}): expert parallelism spans those cards")
    if s.vp is not None and s.vp > arch.layers:
        raise ScenarioError("vp", s.vp, f"at most the model's {arch.layers:,} layers (a chunk holds a layer)")
    if s.pp is not None and s.pp * (s.vp or 1) > arch.layers:
        chunks = f"pp × vp ({s.pp:,} × {s.vp:,})" if s.vp else "pp"
        raise ScenarioError("pp", s.pp, f"{chunks} at most the model's {arch.layers:,} layers (a stage holds a layer)")
    gpu = cat.gpus.get(s.gpu)
    if gpu is None:
        raise ScenarioError("gpu", s.gpu, f"one of {', '.join(cat.gpus)}")
    platform = platform_of(cat, gpu)
    stack = stack_of(cat, implied_stack(cat, s.stack, s.precision, gpu))
    check_stack(stack, platform, gpu)
    scale_up = cat.interconnects.get(s.interconnect or gpu.scale_up)
    if scale_up is None:
        raise ScenarioError("interconnect", s.interconnect, f"one of {', '.join(cat.interconnects)}")
    network = cat.networks.get(s.network or gpu.network)
    if network is None:
        raise ScenarioError("network", s.network, f"one of {', '.join(cat.networks)}")
    seq_len = s.seq_len or min(4096, arch.max_context)
    if s.tokens is not None:
        tokens = float(s.tokens)
    elif s.finetune != "none":
        tokens = DEFAULT_FINETUNE_TOKENS
    else:
        tokens = CHINCHILLA_TOKENS_PER_PARAM * arch.stats.total_params
    kv_precision = s.kv_precision or default_kv_precision(s.precision, stack.kv_auto)
    if s.price_per_gpu_hour is not None:
        price = PriceQuote(s.price_per_gpu_hour, "given", "given")
    else:
        price = rental_price(gpu, market_rent_ratio())
    return Resolved(
        host=_host_memory(s, cat, gpu),
        scenario=s,
        arch=arch,
        model_name=model_name,
        gpu=gpu,
        scale_up=scale_up,
        network=network,
        gpus_per_node=max(1, min(s.gpus_per_node or gpu.gpus_per_node, s.cards)),
        precision=s.precision,
        kv_precision=kv_precision,
        tokens=tokens,
        seq_len=seq_len,
        recompute="full" if s.recompute_layers is not None else s.recompute,
        price_per_gpu_hour=price.usd_per_gpu_hour,
        price=price,
        stack=stack,
        platform=platform,
    )


def _host_memory(s: Scenario, cat: Catalog, gpu: Gpu) -> HostMemory | None:
    """Return the host memory the scenario's serving may offload to, or None (see :attr:`Resolved.host`)."""
    if s.host_memory_gb is None or s.offload == "none" or gpu.shares_host_memory:
        return None
    desk = cat.gpus.get(DEFAULT_HOST) or default_catalog().gpus[DEFAULT_HOST]
    bandwidth = s.host_bandwidth_gb_s * 1e9 if s.host_bandwidth_gb_s else desk.memory_bandwidth_bytes_per_s
    flops = desk.dense_flops_per_s.get("fp32") or max(desk.dense_flops_per_s.values())
    link = cat.interconnects.get(gpu.host_link) if gpu.host_link else None
    return HostMemory(float(s.host_memory_gb) * 1e9, bandwidth, flops, link)
