"""Transformer architectures: parameter counts, KV-cache and attention sizes, derived once.

Parameter counting follows the layer shapes of the Hugging Face implementations (LlamaForCausalLM,
MixtralForCausalLM, DeepseekV3ForCausalLM, GPT/BLOOM): attention projections, MLP (gated SwiGLU
has three matrices, a plain GELU MLP two), norms, embeddings and an LM head that is counted only
when it is not tied to the input embedding (the mistake llm-analysis makes, docs/reference/peer_tools.md 1.1).
DeepSeek's multi-head latent attention (MLA) follows arXiv:2405.04434 sec. 2.1 and the V3 config.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Any, Literal

__all__ = [
    "OP_CHECKPOINT_SHARE",
    "Architecture",
    "ArchitectureStats",
    "AttentionKind",
    "MlpKind",
    "NormKind",
    "product_work",
]

MlpKind = Literal["gated", "plain"]
NormKind = Literal["rms", "layer"]
AttentionKind = Literal["standard", "mla"]


@dataclass(frozen=True, slots=True)
class ArchitectureStats:
    """Sizes derived from an architecture, computed once when it is built.

    Counts are numbers of parameters or elements, not bytes.
    """

    total_params: float
    active_params: float
    embedding_params: float
    """Input embedding and learned positions: looked up, never multiplied."""
    head_params: float
    """The LM head's matrix (vocab x hidden), tied or not: it is multiplied on every token."""
    embedding_and_head_params: float
    """The embedding plus the LM head when it is untied: the weights outside the layers, which
    weight-only quantisation keeps in 16-bit and ZeRO-3 gathers as units of their own."""
    matmul_params_active: float
    """Weights in matrix products per token: every linear layer, active experts and the head."""
    dense_matmul_params: float
    """Matrix weights read on every decode step whatever the batch: attention, dense MLPs,
    shared experts, routers and the LM head."""
    attention_params: float
    """Attention projection weights over all layers (the narrower products of a layer)."""
    expert_params: float
    """Weights of one routed expert in one layer."""
    attention_launch_params: float
    """Weights of one attention product as frameworks launch it (the products' size sets their
    efficiency): Q, K and V in one product, then the output projection (Megatron-Core's
    ``linear_qkv`` and ``linear_proj``; vLLM's ``QKVParallelLinear``); MLA's down- and
    up-projections of the query and of the latent, and the output, each on its own."""
    mlp_launch_params: float
    """Weights of one MLP product as launched: a gated MLP's gate and up projections in one product,
    then the down projection (Megatron-Core's ``linear_fc1`` of 2 x ffn with gated linear units;
    vLLM's ``MergedColumnParallelLinear``). Routed experts run grouped, every expert of a card in
    one launch, so their unit stays one expert's single matrix (hidden x expert ffn), the size the
    MoE constants were fitted with: with gate and up counted as one, MoE training scores worse over
    all measurements (training throughput 9.3 against 8.9 %, overall 11.6 against 11.3 %)."""
    moe_layers: int
    kv_elements_per_token: float
    """Cached elements per token across all layers (K and V, or MLA's latent and rope key)."""
    kv_heads_for_sharding: int
    """How many ways the KV cache splits under tensor parallelism (1 for MLA: the latent is
    replicated on every rank)."""
    attention_flops_per_token_per_key: float
    """Forward FLOPs of QK^T and AV for one query attending to one key, over all layers."""
    activation_bytes_per_token_layer: float
    """Bytes one training token stores per layer for backward with flash attention, 16-bit
    activations and no dropout (Korthikanti et al. 2022, sec. 4, re-derived per tensor)."""
    attention_score_bytes_per_token_per_key: float
    """Extra bytes per token and per key when attention scores are materialised (no flash)."""
    layer_input_bytes_per_token: float
    """Bytes of one layer's input per token: what full recomputation keeps (2 x hidden)."""
    op_checkpoint_bytes_per_token_layer: float
    """Bytes per token and layer that per-op selective checkpointing keeps (torchtitan's policy,
    :data:`OP_CHECKPOINT_SHARE`): the layer input, the attention output and every second matrix
    product's output."""


@dataclass(frozen=True, slots=True)
class Architecture:
    """The shape of a decoder-only transformer, enough to size weights, KV cache and FLOPs."""

    layers: int
    hidden: int
    heads: int
    kv_heads: int
    ffn: int
    vocab: int
    head_dim: int = 0
    """Per-head width; 0 means hidden // heads."""
    tied_embeddings: bool = False
    mlp: MlpKind = "gated"
    norm: NormKind = "rms"
    attention: AttentionKind = "standard"
    qkv_bias: bool = False
    position_embeddings: int = 0
    sliding_window: int | None = None
    max_context: int = 4096
    experts: int = 0
    active_experts: int = 0
    shared_experts: int = 0
    expert_ffn: int = 0
    dense_layers: int = 0
    q_lora_rank: int = 0
    kv_lora_rank: int = 0
    qk_nope_head_dim: int = 0
    qk_rope_head_dim: int = 0
    v_head_dim: int = 0
    stats: ArchitectureStats = field(init=False, repr=False, compare=False)
    is_moe: bool = field(init=False, repr=False, compare=False)
    """Whether the MLPs are mixtures of experts (a field, not a property: the hot paths read it)."""
    _hash: int = field(init=False, repr=False, compare=False)
    """The shape's hash, worked out once: every estimate's layout caches are keyed by it."""

    def __post_init__(self) -> None:
        """Derive the sizes once; the dataclass is frozen, so set the cached fields directly."""
        object.__setattr__(self, "is_moe", self.experts > 0)
        object.__setattr__(self, "stats", _compute_stats(self))
        object.__setattr__(self, "_hash", hash(tuple(getattr(self, name) for name in _COMPARED)))

    def __hash__(self) -> int:
        return self._hash

    @property
    def effective_head_dim(self) -> int:
        """Per-head width, defaulting to hidden / heads."""
        return self.head_dim or self.hidden // self.heads

    def with_overrides(self, **changes: Any) -> Architecture:
        """Return a copy with some shape fields replaced (None values are ignored)."""
        given: dict[str, Any] = {k: v for k, v in changes.items() if v is not None}
        return replace(self, **given) if given else self


OP_CHECKPOINT_SHARE = 0.5
"""Of a layer's matrix products, the share whose outputs per-op selective checkpointing keeps (and
so the share whose forward it does not run again). torchtitan's op policy saves each block's
attention output and every second ``aten.mm`` output and recomputes the rest
(torchtitan/distributed/activation_checkpoint.py, its op policy: an ``mm`` whose count is even is
recomputed); by
count that is half of them, which the engine takes for their bytes and FLOPs too."""

_COMPARED: tuple[str, ...] = tuple(f.name for f in fields(Architecture) if f.compare)
"""The fields equality compares, and so the hash covers."""


def _compute_stats(a: Architecture) -> ArchitectureStats:
    """Count parameters and per-token sizes of ``a`` (see the module docstring for sources)."""
    h = a.hidden
    head_dim = a.effective_head_dim
    mlp_matrices = 3 if a.mlp == "gated" else 2
    norm_per_vector = 1 if a.norm == "rms" else 2  # LayerNorm has a bias as well as a weight

    if a.attention == "mla":
        qk_dim = a.qk_nope_head_dim + a.qk_rope_head_dim
        if a.q_lora_rank:
            q_params = h * a.q_lora_rank + a.q_lora_rank + a.q_lora_rank * a.heads * qk_dim
        else:
            q_params = h * a.heads * qk_dim
        kv_params = (
            h * (a.kv_lora_rank + a.qk_rope_head_dim)
            + a.kv_lora_rank
            + a.kv_lora_rank * a.heads * (a.qk_nope_head_dim + a.v_head_dim)
        )
        attention_params = q_params + kv_params + a.heads * a.v_head_dim * h
        attention_launches = 5 if a.q_lora_rank else 4
        # Cached per token and layer: the compressed latent and the shared rope key
        # (DeepSeek-V2 eq. 9-10), whatever the head count.
        kv_per_layer = a.kv_lora_rank + a.qk_rope_head_dim
        kv_shards = 1
        flops_per_key_layer = 2.0 * a.heads * (qk_dim + a.v_head_dim)
        q_width = a.heads * qk_dim
        kv_width = a.heads * (qk_dim + a.v_head_dim)  # K and V after up-projection
        out_width = a.heads * a.v_head_dim
        latent_bytes = 2.0 * (a.q_lora_rank + a.kv_lora_rank + a.qk_rope_head_dim)
    else:
        q_width = a.heads * head_dim
        kv_dim = a.kv_heads * head_dim
        attention_params = 2 * h * q_width + 2 * h * kv_dim
        attention_launches = 2
        if a.qkv_bias:
            attention_params += q_width + 2 * kv_dim
        kv_per_layer = 2 * kv_dim
        kv_shards = a.kv_heads
        flops_per_key_layer = 4.0 * a.heads * head_dim
        kv_width = 2 * kv_dim
        out_width = q_width
        latent_bytes = 0.0

    norms_per_layer = 2 * norm_per_vector * h
    dense_mlp_params = mlp_matrices * h * a.ffn
    moe_layers = max(a.layers - a.dense_layers, 0) if a.is_moe else 0
    dense_layers = a.layers - moe_layers
    expert_params = float(mlp_matrices * h * a.expert_ffn) if a.is_moe else 0.0
    router_params = h * a.experts if a.is_moe else 0
    shared_params = a.shared_experts * expert_params

    embedding = float(a.vocab * h + a.position_embeddings * h)
    head = float(a.vocab * h)
    final_norm = norm_per_vector * h
    per_layer_common = attention_params + norms_per_layer
    total = (
        embedding
        + (0.0 if a.tied_embeddings else head)
        + a.layers * per_layer_common
        + dense_layers * dense_mlp_params
        + moe_layers * (a.experts * expert_params + shared_params + router_params)
        + final_norm
    )
    active_moe = moe_layers * (a.active_experts * expert_params + shared_params + router_params)
    active = (
        embedding
        + (0.0 if a.tied_embeddings else head)
        + a.layers * per_layer_common
        + dense_layers * dense_mlp_params
        + active_moe
        + final_norm
    )
    dense_matmul = (
        a.layers * attention_params
        + dense_layers * dense_mlp_params
        + moe_layers * (shared_params + router_params)
        + head
    )
    matmul_active = dense_matmul + moe_layers * a.active_experts * expert_params

    # Activations stored for backward, bytes per token per layer at 2 bytes per element:
    # two norm inputs, the attention input, Q/K/V kept by flash attention, the attention output,
    # the MLP input and its inner tensors (gate, up and their product for SwiGLU; GELU in and
    # out for a plain MLP). GPT-3's shape gives 32h, Korthikanti's 34h less the 2h of dropout masks.
    attention_bytes = 2.0 * h + 2.0 * (q_width + kv_width) + 2.0 * out_width + latent_bytes
    inner_per_expert = 6.0 if a.mlp == "gated" else 4.0
    if a.is_moe:
        # The router's input and fp32 logits; each routed copy's own input, which the dispatcher
        # permutes into a new [tokens x top-k, hidden] tensor and its expert's first product keeps
        # for the weight gradient (Megatron-Core's grouped experts take permuted_local_hidden_states);
        # every active expert's inner tensors. A shared expert reads the layer's input in place.
        routed_inputs = a.active_experts * 2.0 * h
        inner = (a.active_experts + a.shared_experts) * inner_per_expert * a.expert_ffn
        moe_bytes = 2.0 * h + 4.0 * a.experts + routed_inputs + inner
        dense_bytes = 2.0 * h + inner_per_expert * a.ffn
        mlp_bytes = (moe_layers * moe_bytes + dense_layers * dense_bytes) / a.layers
    else:
        mlp_bytes = 2.0 * h + inner_per_expert * a.ffn
    activation_bytes = 4.0 * h + attention_bytes + mlp_bytes
    # Per-op checkpointing keeps the outputs of every second product of the layer (q, k, v or
    # MLA's projections, the output projection, the MLP's or each routed expert's products).
    per_expert_products = 2.0 * ((2.0 if a.mlp == "gated" else 1.0) * a.expert_ffn + h)
    dense_products = 2.0 * ((2.0 if a.mlp == "gated" else 1.0) * a.ffn + h)
    moe_products = (a.active_experts + a.shared_experts) * per_expert_products + 2.0 * a.experts
    products = 2.0 * (q_width + kv_width) + 2.0 * h + latent_bytes
    products += (moe_layers * moe_products + dense_layers * dense_products) / a.layers
    op_checkpoint_bytes = 2.0 * h + 2.0 * out_width + OP_CHECKPOINT_SHARE * products

    return ArchitectureStats(
        total_params=total,
        active_params=active,
        embedding_params=embedding,
        head_params=head,
        embedding_and_head_params=embedding + (0.0 if a.tied_embeddings else head),
        matmul_params_active=matmul_active,
        dense_matmul_params=dense_matmul,
        attention_params=float(a.layers * attention_params),
        expert_params=expert_params,
        attention_launch_params=attention_params / attention_launches,
        mlp_launch_params=expert_params / mlp_matrices if a.is_moe else dense_mlp_params / 2.0,
        moe_layers=moe_layers,
        kv_elements_per_token=float(a.layers * kv_per_layer),
        kv_heads_for_sharding=kv_shards,
        attention_flops_per_token_per_key=a.layers * flops_per_key_layer,
        activation_bytes_per_token_layer=activation_bytes,
        attention_score_bytes_per_token_per_key=2.0 * a.heads,
        layer_input_bytes_per_token=2.0 * h,
        op_checkpoint_bytes_per_token_layer=op_checkpoint_bytes,
    )


def product_work(
    arch: Architecture, tokens: float, tp: int, ep: int = 1, *, routed: bool = True
) -> tuple[float, float, float]:
    """Return the FLOPs of one attention, one MLP (or one routed expert's) and the LM head's product on a card.

    For ``tokens`` tokens, each product as frameworks launch it (Q, K and V in one; a gated MLP's gate and
    up in one: :attr:`ArchitectureStats.attention_launch_params` and ``mlp_launch_params``), split ``tp``
    ways. A routed expert multiplies the tokens routed to it, ``ep`` ranks' worth; with ``routed`` False
    the expert-sized product takes every token (a MoE model's dense layers and shared experts). Each
    launch pays the efficiency curve's W0 once, so fusing two products into one raises both their
    efficiencies.
    """
    stats = arch.stats
    expert_tokens = tokens * arch.active_experts * ep / arch.experts if arch.is_moe and routed else tokens
    return (
        2.0 * tokens * stats.attention_launch_params / tp,
        2.0 * expert_tokens * stats.mlp_launch_params / tp,
        2.0 * tokens * stats.head_params / tp,
    )
