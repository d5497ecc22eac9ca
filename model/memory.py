"""Memory per card for training and for inference, by component.

Training (mixed precision AdamW): 2 bytes of 16-bit weights, 2 of gradients and 12 of optimizer
state (fp32 master copy, momentum and variance) per parameter: the 16 bytes of the ZeRO paper
(Rajbhandari et al. 2020, sec. 3.1), which ZeRO stages 1-3 divide by the data-parallel degree.
Activations follow Korthikanti et al. 2022 ("Reducing Activation Recomputation", sec. 4) with
sequence parallelism, 1F1B pipeline in-flight micro-batches and recomputation modes.
Serving memory is model.inference.memory.
"""

from __future__ import annotations

import functools
import math
from typing import NamedTuple

from model.architecture import Architecture
from model.precision import ADAPTER_BASE_PRECISIONS
from model.precision.formats import weight_breakdown
from model.scenario import ADAPTER_NAMES, Finetune, Optimizer, Recompute, trains_adapters

__all__ = [
    "Layout",
    "TrainingMemory",
    "TrainingRegime",
    "TrainingStates",
    "adapter_base_format",
    "card_params",
    "combined_memory",
    "runtime_bytes",
    "training_activations",
    "training_fits",
    "training_memory",
    "training_regime",
    "training_states",
]

RUNTIME_BYTES = 1.0e9
"""CUDA context, cuBLAS workspaces and NCCL buffers per GPU (PyTorch's context alone is
0.3-0.8 GB; vLLM profiles ~1 GB of non-torch memory on H100)."""
FRAGMENTATION = 0.05
"""Share of training memory lost to the caching allocator's fragmentation."""
PREFILL_CHUNK_TOKENS = 8192
"""Serving engines prefill in chunks (vLLM's max_num_batched_tokens); transient activations
are sized for one chunk."""
LOGIT_BYTES = 4.0
"""Logits are upcast to fp32 for the softmax/loss."""

_OPTIMIZER_STATE_BYTES: dict[Optimizer, float] = {"adamw": 8.0, "adamw-8bit": 2.0, "sgd": 4.0, "adafactor": 0.0}
"""Per trainable parameter, without the master copy: AdamW keeps fp32 momentum and variance
(8 B); 8-bit Adam quantises both (2 B, Dettmers et al. 2022); SGD keeps fp32 momentum (4 B);
Adafactor keeps only factored row/column second moments and no momentum by default (~0 B,
Shazeer & Stern 2018)."""


class Layout(NamedTuple):
    """How the cards are split: tensor, pipeline, data and expert parallel degrees, ZeRO stage."""

    tp: int
    pp: int
    dp: int
    ep: int
    zero: int


class TrainingRegime(NamedTuple):
    """Bytes per parameter of each training state, fixed by precision, optimizer and finetuning."""

    weight_bytes: float
    """Working copy of every parameter on the GPU (frozen base included)."""
    grad_bytes: float
    optimizer_bytes: float
    """Per trainable parameter: optimizer state plus the fp32 master copy when there is one."""
    trainable_params: float
    activation_scale: float
    """Activation bytes relative to 16-bit activations (2 for fp32 training)."""
    label: str
    adapter_bytes: float = 0.0
    """The part of ``weight_bytes`` that is LoRA adapters (16-bit), per parameter of the model."""


class TrainingMemory(NamedTuple):
    """Training memory per card, in bytes."""

    weights: float
    gradients: float
    optimizer: float
    activations: float
    other: float
    total: float
    adapters: float = 0.0
    """Of ``weights``, the LoRA adapters (a detail, not a part: the JSON contract lists the parts)."""

    @property
    def frozen_weights(self) -> float:
        """The weights that are not adapters: the frozen base when LoRA or QLoRA trains."""
        return self.weights - self.adapters


def lora_params(arch: Architecture, rank: int) -> float:
    """Count adapter parameters: rank x (d_in + d_out) on every attention and MLP matrix.

    The QLoRA paper (Dettmers et al. 2023, sec. 4) adapts all linear layers; routed experts are
    left frozen.
    """
    h = arch.hidden
    if arch.attention == "mla":
        attention_dims = h + arch.heads * (arch.qk_nope_head_dim + arch.qk_rope_head_dim)
        attention_dims += 2 * h + arch.heads * arch.v_head_dim
    else:
        q = arch.heads * arch.effective_head_dim
        kv = arch.kv_heads * arch.effective_head_dim
        attention_dims = (h + q) * 2 + (h + kv) * 2
    matrices = 3 if arch.mlp == "gated" else 2
    dense_layers = arch.layers - arch.stats.moe_layers
    mlp_dims = matrices * (h + arch.ffn) * dense_layers
    mlp_dims += matrices * (h + arch.expert_ffn) * arch.shared_experts * arch.stats.moe_layers
    return float(rank * (attention_dims * arch.layers + mlp_dims))


def adapter_base_format(precision: str, finetune: Finetune) -> str | None:
    """Return the format adapters' frozen base is held in, or None for a 16-bit (or fp32) base.

    A base already in a weight-only format LoRA trains on (bitsandbytes int8/NF4, GPTQ, AWQ; PEFT's
    quantisation guide) stays in it; otherwise QLoRA quantises the base to NF4 with double
    quantisation (Dettmers et al. 2023, sec. 3), the embedding and head in 16-bit; and LoRA on a GGUF,
    MXFP4 or NVFP4 checkpoint trains on it dequantised to 16-bit (transformers dequantises GGUF files
    on load, and MXFP4 with ``Mxfp4Config(dequantize=True)``, to fine-tune them).
    """
    if not trains_adapters(finetune):
        return None
    if precision in ADAPTER_BASE_PRECISIONS:
        return precision
    return "nf4" if finetune == "qlora" else None


# Every estimate asks, with few distinct answers; the regime is immutable and the architecture hashes once.
@functools.lru_cache(maxsize=512)
def training_regime(
    arch: Architecture,
    precision: str,
    optimizer: Optimizer,
    finetune: Finetune,
    lora_rank: int,
    master_weights: bool,
) -> TrainingRegime:
    """Return the bytes per parameter each training state takes under these choices."""
    total = arch.stats.total_params
    states = _OPTIMIZER_STATE_BYTES[optimizer]
    if precision == "fp32":
        weight, grad, master, activation_scale, label = 4.0, 4.0, 0.0, 2.0, "fp32"
    else:
        weight, grad = 2.0, 2.0
        master = 4.0 if master_weights else 0.0
        activation_scale = 1.0
        label = "mixed precision with fp32 master weights" if master_weights else "pure 16-bit"
    if trains_adapters(finetune):
        adapters = lora_params(arch, lora_rank)
        base_format = adapter_base_format(precision, finetune)
        base = weight_breakdown(arch, base_format).total if base_format is not None else total * weight
        per_param_weight = (base + adapters * 2.0) / total
        return TrainingRegime(
            weight_bytes=per_param_weight,
            grad_bytes=2.0,
            optimizer_bytes=states + 4.0,
            trainable_params=adapters,
            activation_scale=activation_scale,
            label=f"{ADAPTER_NAMES[finetune]} rank {lora_rank}",
            adapter_bytes=adapters * 2.0 / total,
        )
    return TrainingRegime(
        weight_bytes=weight,
        grad_bytes=grad,
        optimizer_bytes=states + master,
        trainable_params=total,
        activation_scale=activation_scale,
        label=label,
    )


class TrainingStates(NamedTuple):
    """What a card holds for its share of the model, independent of the batch (bytes)."""

    weights: float
    gradients: float
    optimizer: float
    gather_buffers: float
    """ZeRO-3 / FSDP gathers the current and the prefetched unit in full."""
    adapters: float = 0.0
    """The LoRA adapters among ``weights``."""


def card_params(arch: Architecture, layout: Layout) -> tuple[float, float]:
    """Return the dense and the routed-expert parameters one card holds a copy of, before ZeRO shards them.

    Tensor and pipeline parallelism split every weight; expert parallelism also splits the routed
    experts, ep ways.
    """
    stats = arch.stats
    experts = stats.moe_layers * arch.experts * stats.expert_params
    model_parallel = layout.tp * layout.pp
    return (stats.total_params - experts) / model_parallel, experts / (model_parallel * layout.ep)


def training_states(arch: Architecture, regime: TrainingRegime, layout: Layout) -> TrainingStates:
    """Return the weights, gradients, optimizer state and ZeRO-3 buffers one card holds.

    ZeRO stages 1, 2 and 3 shard the optimizer state, then the gradients, then the weights over
    the data-parallel group (Rajbhandari et al. 2020, sec. 5); routed experts are also split over
    the expert-parallel group.
    """
    stats = arch.stats
    total = stats.total_params
    model_parallel = layout.tp * layout.pp
    replicated_params = sum(card_params(arch, layout))
    sharded_params = total / (model_parallel * layout.dp)
    trainable_share = regime.trainable_params / total
    weights_params = sharded_params if layout.zero >= 3 else replicated_params
    grads_params = sharded_params if layout.zero >= 2 else replicated_params
    optimizer_params = sharded_params if layout.zero >= 1 else replicated_params
    gather_buffers = 0.0
    if layout.zero >= 3 and layout.dp > 1:
        # A unit is a layer, or the embedding / LM head when that is larger: the layer's share
        # this card gathers, its routed experts only 1/ep of them (the rest live on other ranks).
        layer = (replicated_params - stats.embedding_and_head_params / model_parallel) / arch.layers
        gather_buffers = 2.0 * max(layer, stats.head_params / layout.tp) * regime.weight_bytes
    return TrainingStates(
        weights_params * regime.weight_bytes,
        grads_params * trainable_share * regime.grad_bytes,
        optimizer_params * trainable_share * regime.optimizer_bytes,
        gather_buffers,
        weights_params * regime.adapter_bytes,
    )


def training_activations(
    arch: Architecture,
    regime: TrainingRegime,
    *,
    tp: int,
    pp: int,
    seq_len: int,
    micro_batch: int,
    in_flight: int,
    recompute: Recompute,
    flash_attention: bool,
    vp: int = 1,
    recomputed_layers: int | None = None,
) -> float:
    """Return the activations the busiest pipeline stage keeps for backward, per card (bytes).

    Korthikanti et al. 2022 sec. 4, with sequence parallelism splitting every stored tensor over
    the tensor-parallel group; 1F1B keeps ``in_flight`` = min(pp, micro-batches) micro-batches on
    the first stage, and the interleaved schedule (``vp`` chunks per stage) (1 + (p - 1) / (p v))
    times as much (sec. 4.2.3). The last stage also holds the fp32 logits. Full recomputation keeps
    only the inputs of ``recomputed_layers`` of a stage's layers (None: all; Megatron-LM's block method).
    Selective recomputation without flash attention is Korthikanti's (the attention scores are not
    stored); with it, whose kernel already recomputes them, it is per-op checkpointing
    (:data:`model.architecture.OP_CHECKPOINT_SHARE`). Either way the layer being recomputed holds
    its activations again while its backward runs.
    """
    stats = arch.stats
    per_token_layer = stats.activation_bytes_per_token_layer
    if not flash_attention and recompute == "none":
        per_token_layer += stats.attention_score_bytes_per_token_per_key * seq_len
    per_token_layer *= regime.activation_scale
    tokens = micro_batch * seq_len
    layers_per_stage = math.ceil(arch.layers / pp)
    # What a stage keeps per micro-batch in flight, and the one layer being recomputed, whose
    # activations are held again while its backward runs.
    if recompute == "full":
        redone = layers_per_stage if recomputed_layers is None else min(recomputed_layers, layers_per_stage)
        kept = stats.layer_input_bytes_per_token * regime.activation_scale
        stored = (kept * redone + per_token_layer * (layers_per_stage - redone)) * tokens
        transient = per_token_layer * tokens if redone else 0.0
    elif recompute == "selective" and flash_attention:
        stored = stats.op_checkpoint_bytes_per_token_layer * regime.activation_scale * tokens * layers_per_stage
        transient = per_token_layer * tokens
    else:
        stored, transient = per_token_layer * tokens * layers_per_stage, 0.0
    stage = stored * in_flight + transient
    if vp > 1 and pp > 1:
        stage *= 1.0 + (pp - 1) / (pp * vp)
    first_stage = stage / tp
    logits = tokens * arch.vocab * LOGIT_BYTES / tp
    if pp == 1:
        return first_stage + logits
    # The last stage keeps one micro-batch in flight, recomputed by the same rule, and the logits.
    return max(first_stage, (stored + transient) / tp + logits)


def combined_memory(states: TrainingStates, activations: float, runtime_bytes: float) -> TrainingMemory:
    """Return training memory per card from its two halves, with the runtime and fragmentation."""
    held = states.weights + states.gradients + states.optimizer + activations
    other = runtime_bytes + states.gather_buffers + FRAGMENTATION * held
    return TrainingMemory(
        states.weights,
        states.gradients,
        states.optimizer,
        activations,
        other,
        held + other,
        states.adapters,
    )


def runtime_bytes(host_link: str | None) -> float:
    """Return the CUDA context and library workspaces a card reserves: none on a chip without a host link."""
    return RUNTIME_BYTES if host_link else 0.0


def training_fits(memory: TrainingMemory, capacity_bytes: float) -> bool:
    """Return whether training's busiest card fits the whole card: the one rule the search and the sweeps use."""
    return memory.total <= capacity_bytes


def training_memory(
    arch: Architecture,
    regime: TrainingRegime,
    layout: Layout,
    *,
    seq_len: int,
    micro_batch: int,
    microbatches: int,
    recompute: Recompute,
    flash_attention: bool,
    runtime: float = RUNTIME_BYTES,
    vp: int = 1,
    recomputed_layers: int | None = None,
) -> TrainingMemory:
    """Return training memory per card (the busiest pipeline stage) for ``layout``.

    The composition the layout search sizes every candidate with (it caches the two halves apart).
    """
    activations = training_activations(
        arch, regime, tp=layout.tp, pp=layout.pp, seq_len=seq_len, micro_batch=micro_batch,
        in_flight=min(layout.pp, microbatches), recompute=recompute, flash_attention=flash_attention, vp=vp,
        recomputed_layers=recomputed_layers,
    )  # fmt: skip
    return combined_memory(training_states(arch, regime, layout), activations, runtime)
