"""The software stacks and platforms of data/stacks.yaml: profiles of documented mechanisms and a few constants.

A :class:`Stack` is what runs the model (vLLM, llama.cpp, Megatron-LM, ...): how it spreads a model
over cards, whether it replays decode as CUDA graphs, the layout knobs it sets in training, and
the constants :mod:`model.stacks` applies to the efficiency set. A :class:`Platform` is the
vendor's software under it (CUDA, ROCm, ...), found from the GPU's vendor. Every row carries its
source; the constants are fitted by ``python -m model.validation.calibrate`` over all the
measurements of that stack or platform together. The engine's use of them is :mod:`model.stacks`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, Final, Literal, NamedTuple, get_args

from model.catalog._rows import CatalogError, Row, quoted, rows_of, unique_by_id

__all__ = [
    "MULTI_CARD",
    "PLATFORM_CONSTANTS",
    "PLATFORM_IDS",
    "SERVING_MEMORY_FRACTION",
    "SPLITS",
    "STACK_CONSTANTS",
    "STACK_IDS",
    "TRAINING_KNOBS",
    "Family",
    "MultiCard",
    "Platform",
    "ServingBudget",
    "Split",
    "Stack",
    "StackId",
    "read_stacks",
    "with_families",
]

StackId = Literal[
    "typical",
    "vllm",
    "sglang",
    "trtllm",
    "tgi",
    "jetstream",
    "llamacpp",
    "ollama",
    "exllamav2",
    "mlc",
    "mlx",
    "peft",
    "unsloth",
    "megatron",
    "torchtitan",
    "deepspeed",
    "torchtune",
]
STACK_IDS: Final[tuple[StackId, ...]] = get_args(StackId)
"""Every stack a scenario may name (data/stacks.yaml has one row for each)."""
PLATFORM_IDS: Final[tuple[str, ...]] = ("cuda", "rocm", "synapseai", "xla", "cann", "metal", "cpu")
SERVING_MEMORY_FRACTION = 0.9
"""Share of memory a serving engine lets itself use: vLLM's gpu_memory_utilization (of the whole
card, for weights, activations and KV cache) and TensorRT-LLM's KvCacheConfig.free_gpu_memory_fraction
(of what is free once the engine is loaded, for the KV cache) both default to 0.9 (SGLang sizes its
mem_fraction_static near 0.88 on large cards). The rest is the server's reserve (CUDA graphs, the
allocator's fragmentation, other processes). It is typical's serving budget; a stack that allocates
only what it needs, or sizes its cache from the free memory, says so (:class:`ServingBudget`)."""


class ServingBudget(NamedTuple):
    """What a serving stack lets itself use of each card: a share of it, less a fixed reserve.

    A data-centre server takes a share of the card up front (vLLM's gpu_memory_utilization 0.9);
    TensorRT-LLM loads its engine first and gives the KV cache a share of what is then free
    (``of_free``: KvCacheConfig.free_gpu_memory_fraction, 0.9 of the free memory, so a model that
    fills most of the card keeps most of the rest for its cache); a desk runner allocates exactly its
    weights, cache and buffers and leaves only a margin (llama.cpp's --fit keeps 1 GiB free per device).
    """

    fraction: float = SERVING_MEMORY_FRACTION
    reserve_bytes: float = 0.0
    of_free: bool = False
    """The share is of the memory left once the weights and the runtime are loaded."""

    def of(self, capacity_bytes: float, held_bytes: float = 0.0) -> float:
        """Return the bytes of a card of ``capacity_bytes`` this budget lets the stack use.

        ``held_bytes`` is what is on the card before the cache is sized (the weights and the
        runtime, which do not change with the batch, so neither does the budget); it matters only to
        a budget ``of_free``, whose use is then held plus its share of the rest. Without it such a
        budget reads as a share of the whole card (the least it gives).
        """
        if self.of_free:
            held = min(max(held_bytes, 0.0), capacity_bytes)
            return held + (capacity_bytes - held) * self.fraction - self.reserve_bytes
        return capacity_bytes * self.fraction - self.reserve_bytes


KvAuto = Literal["format", "activations"]
KV_AUTO: Final[tuple[KvAuto, ...]] = get_args(KvAuto)
"""What a stack's KV cache format is when the user leaves it to the software: the weights format's
(an FP8 or FP4 checkpoint keeps an FP8 cache: TensorRT-LLM's quantized checkpoints and trtllm-bench,
which forces the FP8 cache with FP8 or NVFP4 weights) or the model's 16-bit activations (vLLM's and
SGLang's --kv-cache-dtype auto, "use the model data type")."""

MultiCard = Literal["search", "all", "fill", "fit_one"]
MULTI_CARD: Final[tuple[MultiCard, ...]] = get_args(MultiCard)
Split = Literal["tensor", "layer"]
SPLITS: Final[tuple[Split, ...]] = get_args(Split)
STACK_CONSTANTS: Final[tuple[str, ...]] = ("quantized_read_share", "kernel_floor_s", "split_sync_s", "sequence_host_s")
"""The constants a stack may set (each left out is typical's): see data/stacks.yaml's header."""
PLATFORM_CONSTANTS: Final[tuple[str, ...]] = ("kernel_floor_scale", "throughput_scale")
TRAINING_KNOBS: Final[tuple[str, ...]] = ("tp", "pp", "zero", "recompute")
"""The training layout knobs a stack may set where the user leaves them free."""
_RECOMPUTE = ("none", "selective", "full")
_FILE = "data/stacks.yaml"


@dataclass(frozen=True, slots=True, eq=False)
class Platform:
    """The vendor software a GPU runs (CUDA, ROCm, ...), with its constants relative to CUDA's."""

    id: str
    name: str
    vendors: tuple[str, ...]
    source: str
    constants: Mapping[str, float] = field(default_factory=lambda: MappingProxyType({}))
    fitted: tuple[str, ...] = ()
    """The constants the calibration fits over every measurement on this platform."""

    def with_constants(self, constants: Mapping[str, float]) -> Platform:
        """Return this platform with ``constants`` in place of its own (the calibration's trials)."""
        return replace(self, constants=MappingProxyType(dict(constants)))


@dataclass(frozen=True, slots=True, eq=False)
class Family:
    """Stacks alike in how they run a model (the desk runners; the data-centre servers), with the constants they share.

    A member's constants fall back on its family's, fitted over every run of every member: the prior
    of a stack measured little or not at all (MLC, measured by one source; MLX, by none).
    """

    id: str
    name: str
    source: str
    constants: Mapping[str, float] = field(default_factory=lambda: MappingProxyType({}))
    fitted: tuple[str, ...] = ()

    def with_constants(self, constants: Mapping[str, float]) -> Family:
        """Return this family with ``constants`` in place of its own (the calibration's trials)."""
        return replace(self, constants=MappingProxyType(dict(constants)))


@dataclass(frozen=True, slots=True, eq=False)
class Stack:
    """One software stack as a profile of the mechanisms it documents."""

    id: str
    name: str
    serves: bool
    """Whether it serves models (else a scenario's serving runs on typical's profile)."""
    trains: bool
    """Whether it trains them (else a scenario's training runs on typical's profile)."""
    platforms: tuple[str, ...]
    multi_card: MultiCard
    split: Split
    cuda_graphs: bool
    """Whether its decode steps are replayed as CUDA graphs (else each kernel waits for the host)."""
    measured_as: tuple[str, ...]
    """The names data/published_measurements.yaml gives this stack (``stack.name``)."""
    source: str
    constants: Mapping[str, float] = field(default_factory=lambda: MappingProxyType({}))
    fitted: tuple[str, ...] = ()
    """The constants the calibration fits over every measurement of this stack."""
    constants_of: str = ""
    """Another stack whose kernels (and so constants) this one runs (Ollama runs llama.cpp's)."""
    training: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    """The training knobs it sets where the user leaves them free (:data:`TRAINING_KNOBS`)."""
    on_platforms: Mapping[str, Mapping[str, float]] = field(default_factory=lambda: MappingProxyType({}))
    """Its own build's constants on a platform (:data:`PLATFORM_CONSTANTS`), in place of the platform's:
    a platform's maturity is each stack's kernels for it (SGLang's ROCm build is not AMD's vLLM)."""
    platform_fitted: Mapping[str, tuple[str, ...]] = field(default_factory=lambda: MappingProxyType({}))
    """The constants of :attr:`on_platforms` the calibration fits over this stack's runs on that platform."""
    family: str = ""
    """The :class:`Family` it belongs to ("" for none)."""
    family_constants: Mapping[str, float] = field(default_factory=lambda: MappingProxyType({}))
    """Its family's constants, which its own override (filled from the family when the file is read)."""
    serving_budget: ServingBudget = field(default_factory=ServingBudget)
    """What it lets itself use of each card when it serves (``memory_fraction``, ``memory_reserve_gib``)."""
    kv_auto: KvAuto = "format"
    """Its KV cache format when the user names none (:data:`KV_AUTO`)."""
    slots: int | None = None
    """The most sequences its server runs at once unless told (llama-server's four slots); None: as many
    as the memory holds (a data-centre server's scheduler). It caps the batches the engine chooses (full
    load, a queue's running batch), not one the user fixes, which is the user's own slot count."""

    @property
    def effective_constants(self) -> Mapping[str, float]:
        """Its constants as the engine applies them: its family's, overridden by its own."""
        return {**self.family_constants, **self.constants} if self.family_constants else self.constants

    def with_constants(self, constants: Mapping[str, float]) -> Stack:
        """Return this stack with ``constants`` in place of its own (the calibration's trials)."""
        return replace(self, constants=MappingProxyType(dict(constants)))

    def with_platform_constants(self, platform: str, constants: Mapping[str, float]) -> Stack:
        """Return this stack with ``constants`` as its build's on ``platform`` (the calibration's trials)."""
        table = {**self.on_platforms, platform: MappingProxyType(dict(constants))}
        return replace(self, on_platforms=MappingProxyType(table))


def _ids(row: Row, name: str, allowed: tuple[str, ...] | None) -> tuple[str, ...]:
    value = row.raw.get(name, [])
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise row.fail(name, "must be a list of names")
    if allowed is not None:
        for item in value:
            if item not in allowed:
                raise row.fail(name, f"unknown {quoted(item)} (allowed: {', '.join(allowed)})")
    return tuple(value)


def _constants(row: Row, allowed: tuple[str, ...]) -> tuple[Mapping[str, float], tuple[str, ...]]:
    table = row.mapping("constants")
    values: dict[str, float] = {}
    if table is not None:
        for name in table.raw:
            if name not in allowed:
                raise row.fail("constants", f"unknown constant {quoted(name)} (allowed: {', '.join(allowed)})")
            number = table.number(name, minimum=0.0, maximum=100.0, strictly_positive=False)
            assert number is not None  # present: the loop reads the mapping's own keys
            values[name] = number
    fitted = _ids(row, "fitted", allowed)
    return MappingProxyType(values), fitted


def _platform(row: Row) -> Platform:
    ident = row.identifier()
    if ident not in PLATFORM_IDS:
        raise row.fail("id", f"unknown platform (allowed: {', '.join(PLATFORM_IDS)})")
    constants, fitted = _constants(row, PLATFORM_CONSTANTS)
    return Platform(ident, row.display_name(), _ids(row, "vendors", None), row.text("source"), constants, fitted)


def _training(row: Row) -> Mapping[str, Any]:
    table = row.mapping("training")
    if table is None:
        return MappingProxyType({})
    knobs: dict[str, Any] = {}
    for name in table.raw:
        if name not in TRAINING_KNOBS:
            raise row.fail("training", f"unknown knob {quoted(name)} (allowed: {', '.join(TRAINING_KNOBS)})")
        if name == "recompute":
            knobs[name] = table.choice(name, _RECOMPUTE, "none")
        elif name == "zero":
            knobs[name] = table.integer(name, minimum=0, maximum=3)
        else:
            knobs[name] = table.integer(name, minimum=1, maximum=1)
    return MappingProxyType(knobs)


def _on_platforms(row: Row) -> tuple[Mapping[str, Mapping[str, float]], Mapping[str, tuple[str, ...]]]:
    table = row.mapping("on_platforms")
    constants: dict[str, Mapping[str, float]] = {}
    fitted: dict[str, tuple[str, ...]] = {}
    if table is not None:
        for platform in table.raw:
            if platform not in PLATFORM_IDS:
                raise row.fail(
                    "on_platforms", f"unknown platform {quoted(platform)} (allowed: {', '.join(PLATFORM_IDS)})"
                )
            entry = table.mapping(platform)
            assert entry is not None  # the loop reads the mapping's own keys
            constants[platform], fitted[platform] = _constants(entry, PLATFORM_CONSTANTS)
    return MappingProxyType(constants), MappingProxyType(fitted)


def _stack(row: Row) -> Stack:
    ident = row.identifier()
    if ident not in STACK_IDS:
        raise row.fail("id", f"unknown stack (allowed: {', '.join(STACK_IDS)})")
    constants, fitted = _constants(row, STACK_CONSTANTS)
    on_platforms, platform_fitted = _on_platforms(row)
    return Stack(
        id=ident,
        name=row.display_name(),
        serves=row.flag("serves"),
        trains=row.flag("trains"),
        platforms=_ids(row, "platforms", PLATFORM_IDS),
        multi_card=row.choice("multi_card", MULTI_CARD, "search"),
        split=row.choice("split", SPLITS, "tensor"),
        cuda_graphs=row.flag("cuda_graphs", default=True),
        measured_as=_ids(row, "measured_as", None),
        source=row.text("source"),
        constants=constants,
        fitted=fitted,
        constants_of=row.text("constants_of", required=False),
        training=_training(row),
        on_platforms=on_platforms,
        platform_fitted=platform_fitted,
        family=row.text("family", required=False),
        serving_budget=_budget(row),
        kv_auto=row.choice("kv_auto", KV_AUTO, "format"),
        slots=row.integer("slots", required=False, maximum=10_000_000) or None,
    )


def _budget(row: Row) -> ServingBudget:
    """Read a stack's serving budget: its share of each card or of the free memory (0.9 unless said), less GiB kept."""
    fraction = row.raw.get("memory_fraction", SERVING_MEMORY_FRACTION)
    of_free = row.raw.get("memory_of_free", False)
    if not isinstance(of_free, bool):
        raise row.fail("memory_of_free", "true or false")
    reserve = row.raw.get("memory_reserve_gib", 0.0)
    if not isinstance(fraction, (int, float)) or not 0.5 <= fraction <= 1.0:
        raise row.fail("memory_fraction", "a share of the card from 0.5 to 1")
    if not isinstance(reserve, (int, float)) or not 0.0 <= reserve <= 16.0:
        raise row.fail("memory_reserve_gib", "GiB from 0 to 16")
    return ServingBudget(float(fraction), float(reserve) * 2.0**30, of_free)


def _family(row: Row) -> Family:
    constants, fitted = _constants(row, STACK_CONSTANTS)
    return Family(row.identifier(), row.display_name(), row.text("source"), constants, fitted)


def with_families(stacks: Mapping[str, Stack], families: Mapping[str, Family]) -> dict[str, Stack]:
    """Return ``stacks`` each with its family's constants filled in (and a stack running another's kernels, those)."""
    table = {
        ident: replace(stack, family_constants=families[stack.family].constants) if stack.family else stack
        for ident, stack in stacks.items()
    }
    for ident, stack in table.items():
        if stack.constants_of:
            owner = table[stack.constants_of]
            table[ident] = replace(
                stack,
                constants=owner.constants,
                on_platforms=owner.on_platforms,
                family_constants=owner.family_constants,
            )
    return table


def read_stacks(document: Any) -> tuple[Mapping[str, Stack], Mapping[str, Platform], Mapping[str, Family]]:
    """Read data/stacks.yaml's ``stacks``, ``platforms`` and ``families`` (each stack of :data:`STACK_IDS` is there).

    Raises:
        CatalogError: a row is invalid, a stack is missing or names an unknown one.
    """
    families = unique_by_id([_family(row) for row in rows_of(document, "families", _FILE, required=False)], _FILE)
    platforms = unique_by_id([_platform(row) for row in rows_of(document, "platforms", _FILE)], _FILE)
    stacks = unique_by_id([_stack(row) for row in rows_of(document, "stacks", _FILE)], _FILE)
    missing = [ident for ident in STACK_IDS if ident not in stacks]
    if missing:
        raise CatalogError(f"{_FILE}: no row for the stack(s) {', '.join(missing)}")
    for ident, stack in stacks.items():
        if stack.family and stack.family not in families:
            raise CatalogError(f"{_FILE}, row {ident!r}, field 'family': unknown family {stack.family!r}")
        if not stack.constants_of:
            continue
        owner = stacks.get(stack.constants_of)
        if owner is None or owner.constants_of:
            raise CatalogError(
                f"{_FILE}, row {ident!r}, field 'constants_of': {stack.constants_of!r} is not a stack of its own"
            )
    stacks = with_families(stacks, families)
    names = [name for stack in stacks.values() for name in stack.measured_as]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise CatalogError(f"{_FILE}: the measured name(s) {', '.join(twice)} belong to more than one stack")
    return MappingProxyType(stacks), MappingProxyType(platforms), MappingProxyType(families)
