"""The software stack and platform a scenario runs on, applied to the engine: efficiencies, layouts, knobs.

A scenario names its stack (``Scenario.stack``: "typical" when the user does not say) and runs on
its GPU vendor's platform (CUDA, ROCm, ...). Each is a profile of documented mechanisms
(data/stacks.yaml, read by :mod:`model.catalog.stacks`), and this module is the one place the
engine reads them:

- :func:`serving_efficiencies` and :func:`training_efficiencies`: the stack's constants (the share of
  bandwidth its quantised mat-vec kernels reach, a kernel's least time, a row split's
  synchronisation) and, where it does not replay decode as CUDA graphs, the host's launch pace,
  then the platform's (its kernels' least time and the share of the peaks they reach, relative
  to CUDA's), applied to an efficiency set before its range is moved from it;
- :func:`serving_policy`: how the stack spreads one model over the cards (the engine's layout
  search, or one instance split by layers or tensors over all of them, the fewest that hold it,
  or one card when it fits);
- :func:`training_resolved`: the layout knobs the stack sets in training where the user leaves
  them free (FSDP without tensor parallelism, activation checkpointing on, ...).

A stack that does not serve (Megatron-LM) serves as typical; one that does not train (llama.cpp)
trains as typical. "typical" is the engine as calibrated over every measurement, unchanged.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping
from types import MappingProxyType
from typing import NamedTuple

from model.catalog import Catalog, Gpu, Platform, Stack, StackId, default_catalog
from model.catalog.stacks import MultiCard, Split, with_families
from model.efficiency import Efficiencies, RangeMoves, moved
from model.limits import ScenarioError
from model.precision import default_kv_precision
from model.precision.formats import FORMATS

__all__ = [
    "CUDA",
    "SEARCH",
    "TYPICAL",
    "ServingPolicy",
    "auto_kv_precision",
    "check_stack",
    "implied_stack",
    "platform_constants",
    "platform_of",
    "runs_on",
    "serving_efficiencies",
    "serving_policy",
    "serving_stack",
    "stack_of",
    "stack_there",
    "stacks_for",
    "training_efficiencies",
    "training_knobs",
    "training_stack",
    "with_constants",
]

TYPICAL = Stack(
    id="typical",
    name="typical (not said)",
    serves=True,
    trains=True,
    platforms=(),
    multi_card="search",
    split="tensor",
    cuda_graphs=True,
    measured_as=(),
    source="the engine as calibrated over every measurement (data/stacks.yaml, row 'typical')",
)
"""The profile of a catalog without stacks, and of the part of a scenario its stack does not run."""
CUDA = Platform(id="cuda", name="CUDA", vendors=("NVIDIA",), source="the reference platform")
"""The identity platform: a GPU whose vendor no platform lists runs at CUDA's constants."""


def stack_of(catalog: Catalog, ident: str) -> Stack:
    """Return the catalog's profile of stack ``ident`` (typical's when the catalog has no stacks)."""
    return catalog.stacks.get(ident, TYPICAL) if catalog.stacks else TYPICAL


DESK_RUNNER = "llamacpp"
"""The stack a GGUF file or a Mac implies when the user does not say (:func:`implied_stack`)."""
TPU_SERVER = "jetstream"
"""The stack a TPU implies for serving when the user does not say (:func:`implied_stack`)."""


def implied_stack(catalog: Catalog, ident: str, precision: str, gpu: Gpu) -> str:
    """Return the stack that runs the scenario: the one named, or for "typical" the one its inputs imply.

    A GGUF file (q4_k_m, q8_0, ...) is llama.cpp's own format: llama.cpp runs it, or Ollama and LM
    Studio on llama.cpp's engine (vLLM's GGUF loader is experimental and unoptimised, its docs say), so
    "typical" for one is llama.cpp's profile. On Apple silicon (the Metal platform) no data-centre
    server runs; llama.cpp's Metal build is what Ollama and LM Studio run by default. On a TPU no CUDA
    server runs either: JetStream, Google's TPU serving engine, serves there (it does not train, so
    training stays typical's). Anything else, and a platform the implied stack does not run on, stays
    typical: the engine as calibrated over every measurement.
    """
    if ident != TYPICAL.id:
        return ident
    platform = platform_of(catalog, gpu)
    desk, tpu = catalog.stacks.get(DESK_RUNNER), catalog.stacks.get(TPU_SERVER)
    if desk is not None and (is_gguf(precision) or platform.id == "metal") and runs_on(desk, platform, gpu):
        return DESK_RUNNER
    if tpu is not None and platform.id == "xla" and runs_on(tpu, platform, gpu):
        return TPU_SERVER
    return ident


def platform_of(catalog: Catalog, gpu: Gpu) -> Platform:
    """Return the platform ``gpu`` runs: the one whose vendors list the GPU's vendor, else CUDA's constants."""
    vendor = gpu.vendor.lower()
    for platform in catalog.platforms.values():
        if any(vendor == name.lower() for name in platform.vendors):
            return platform
    return CUDA


def runs_on(stack: Stack, platform: Platform, gpu: Gpu) -> bool:
    """Whether ``stack`` runs on the GPU's platform; a GPU of a vendor no platform lists (a user's own row) runs any."""
    return (
        not stack.platforms or (platform is CUDA and gpu.vendor.lower() != "nvidia") or platform.id in stack.platforms
    )


def auto_kv_precision(precision: str, stack_id: str, gpu_id: str, catalog: Catalog | None = None) -> str:
    """Return the KV cache format "auto" means for these weights, software and GPU, as resolve applies it.

    The stack is the one the inputs imply when the user names none (:func:`implied_stack`: a GGUF file
    or a Mac run as llama.cpp runs them); a GPU the catalog does not hold leaves the named one.
    """
    cat = catalog or default_catalog()
    gpu = cat.gpus.get(gpu_id)
    ident = implied_stack(cat, stack_id, precision, gpu) if gpu is not None else stack_id
    return default_kv_precision(precision, stack_of(cat, ident).kv_auto)


def stacks_for(catalog: Catalog, gpu_id: str, goal: str) -> tuple[str, ...]:
    """Return the ids of the stacks that run on GPU ``gpu_id`` and do ``goal`` ('serve' or a training goal).

    Typical first, then the catalog's order: what a picker offers for this GPU and goal.
    """
    gpu = catalog.gpus[gpu_id]
    platform = platform_of(catalog, gpu)
    serving = goal == "serve"
    found = [
        ident
        for ident, stack in catalog.stacks.items()
        if (stack.serves if serving else stack.trains) and runs_on(stack, platform, gpu)
    ]
    return (TYPICAL.id, *(ident for ident in found if ident != TYPICAL.id))


def stack_there(catalog: Catalog, ident: StackId, gpu_id: str) -> StackId:
    """Return ``ident`` if that stack runs on GPU ``gpu_id``, else typical.

    The same model on another device (the seeds' laptop and CPU beside the scenario's cards) runs what runs there.
    """
    gpu = catalog.gpus[gpu_id]
    return ident if runs_on(stack_of(catalog, ident), platform_of(catalog, gpu), gpu) else "typical"


def check_stack(stack: Stack, platform: Platform, gpu: Gpu) -> None:
    """Refuse a stack that does not run on the GPU's platform (TensorRT-LLM on an AMD card, MLX off a Mac).

    A GPU of a vendor no platform lists (a user's own row) may run any stack.

    Raises:
        ScenarioError: naming the stack, the GPU and the platforms the stack runs on.
    """
    if runs_on(stack, platform, gpu):
        return
    runs = ", ".join(stack.platforms)
    raise ScenarioError(
        "stack", stack.id, f"{stack.name} runs on {runs}, not on {gpu.name} ({platform.name}): pick another stack"
    )


def serving_stack(stack: Stack) -> Stack:
    """Return the profile that serves: the stack's own, or typical's for a stack that only trains."""
    return stack if stack.serves else TYPICAL


def training_stack(stack: Stack) -> Stack:
    """Return the profile that trains: the stack's own, or typical's for a stack that only serves."""
    return stack if stack.trains else TYPICAL


def platform_constants(stack: Stack, platform: Platform) -> Mapping[str, float]:
    """Return the platform constants a stack runs with: its own build's on the platform, else the platform's."""
    return stack.on_platforms.get(platform.id, platform.constants)


def with_constants(
    catalog: Catalog,
    stacks: Mapping[str, Mapping[str, float]],
    platforms: Mapping[str, Mapping[str, float]],
    builds: Mapping[tuple[str, str], Mapping[str, float]] | None = None,
    families: Mapping[str, Mapping[str, float]] | None = None,
) -> Catalog:
    """Return ``catalog`` with these constants in place of its own (the calibration's trials).

    ``stacks`` by stack id, ``platforms`` by platform id, ``builds`` by (stack, platform): a stack's
    own build's constants on a platform, ``families`` by family id. A stack that runs another's
    kernels (``constants_of``: Ollama runs llama.cpp's) takes that one's.
    """
    table = {
        ident: stack.with_constants(stacks[ident]) if ident in stacks else stack
        for ident, stack in catalog.stacks.items()
    }
    for (ident, platform), constants in (builds or {}).items():
        table[ident] = table[ident].with_platform_constants(platform, constants)
    groups = {
        ident: family.with_constants(families[ident]) if families and ident in families else family
        for ident, family in catalog.families.items()
    }
    table = with_families(table, groups)
    kinds = {
        ident: platform.with_constants(platforms[ident]) if ident in platforms else platform
        for ident, platform in catalog.platforms.items()
    }
    return dataclasses.replace(
        catalog, stacks=MappingProxyType(table), platforms=MappingProxyType(kinds), families=MappingProxyType(groups)
    )


@functools.lru_cache(maxsize=1024)
def _applied(eff: Efficiencies, stack: Stack, platform: Platform, serving: bool) -> Efficiencies:
    changes: dict[str, float] = {}
    constants = stack.effective_constants
    if serving:
        if "quantized_read_share" in constants:
            changes["dequant_bandwidth"] = constants["quantized_read_share"]
        floor = constants.get("kernel_floor_s")
        if floor is None and not stack.cuda_graphs:
            # Without CUDA graphs each kernel waits for the host to launch it (SGLang PR #1401: 29-44 us a
            # kernel eagerly against a few with graphs): the host's pace is the floor.
            floor = max(eff.kernel_floor_s, eff.eager_kernel_s)
        if floor is not None:
            changes["kernel_floor_s"] = floor
        if "split_sync_s" in constants:
            changes["split_sync_s"] = constants["split_sync_s"]
        if "sequence_host_s" in constants:
            changes["sequence_host_s"] = constants["sequence_host_s"]
    build = platform_constants(stack, platform)
    scale = build.get("kernel_floor_scale", 1.0)
    if scale != 1.0:
        changes["kernel_floor_s"] = changes.get("kernel_floor_s", eff.kernel_floor_s) * scale
        changes["eager_kernel_s"] = eff.eager_kernel_s * scale
    found = dataclasses.replace(eff, **changes) if changes else eff  # type: ignore[arg-type]  # float fields only
    throughput = build.get("throughput_scale", 1.0)
    if throughput != 1.0:
        found = moved(found, RangeMoves(compute=throughput, memory=throughput, links=1.0, overhead=1.0, overlap=1.0))
    return found


def serving_efficiencies(stack: Stack, platform: Platform, eff: Efficiencies) -> Efficiencies:
    """Return ``eff`` as the stack serves on the platform: its constants, then the platform's.

    The range's ends are then moved from this set (:func:`model.efficiency.efficiency_variants`).
    """
    return _applied(eff, serving_stack(stack), platform, True)


def training_efficiencies(stack: Stack, platform: Platform, eff: Efficiencies) -> Efficiencies:
    """Return ``eff`` as the stack trains on the platform (the platform's constants; no stack fits training ones)."""
    return _applied(eff, training_stack(stack), platform, False)


def is_gguf(precision: str) -> bool:
    """Whether ``precision`` is one of llama.cpp's GGUF weight formats."""
    found = FORMATS.get(precision)
    return found is not None and found.family == "gguf"


class ServingPolicy(NamedTuple):
    """How a stack spreads one model over the scenario's cards."""

    multi_card: MultiCard
    split: Split

    @property
    def one_instance(self) -> bool:
        """Whether the stack runs one instance of the model (a desk runner), not replicas over the cards."""
        return self.multi_card != "search"


SEARCH = ServingPolicy("search", "tensor")


def serving_policy(stack: Stack) -> ServingPolicy:
    """Return how the serving stack spreads a model over cards (data/stacks.yaml's multi_card and split)."""
    serving = serving_stack(stack)
    return ServingPolicy(serving.multi_card, serving.split)


def training_knobs(stack: Stack, cards: int) -> dict[str, object]:
    """Return the training knobs the stack sets where the user leaves them free.

    ZeRO (FSDP) only on more than one card: one card has nothing to shard over.
    """
    knobs = dict(training_stack(stack).training)
    if cards <= 1:
        knobs.pop("zero", None)
    return knobs
