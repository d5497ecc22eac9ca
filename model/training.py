"""Training time, cost and energy: FLOPs over efficient compute, plus exposed communication.

FLOPs: 6 N D for the matrix products (Kaplan et al. 2020; forward 2ND, backward 4ND) with N the
weights multiplied per token (active experts and the LM head included, embeddings excluded),
plus causal attention 3 x 2 x 2 x layers x heads x head_dim x s/2 per token (forward QK^T and
AV over s/2 keys on average, backward twice the forward). Recomputation adds a forward pass
(full), the attention core's forward (selective without flash attention; Korthikanti et al.
2022), or half of the layers' products (selective with flash attention: per-op checkpointing, as
torchtitan runs it). LoRA skips the frozen weights' gradients: 4 N D plus 6 N_adapter D.

Step time (per optimizer step, per GPU): matrix products at the shape-dependent efficiency,
attention at flash-attention efficiency, non-matrix work at memory bandwidth, a fixed host
wait per MoE layer pass (dropless routing syncs on its token counts), the pipeline
bubble (p - 1)/m of the compute (1F1B, Narayanan et al. 2021 eq. 1), tensor-parallel
all-reduces (4 per layer per micro-batch, Shoeybi et al. 2019) partly overlapped, expert
all-to-alls, data-parallel gradient reduction overlapped with the last backward pass (or
ZeRO-3 gathers with all compute), and the optimizer update at memory bandwidth. Wall time
adds the interruptions a cluster of that size suffers (Llama 3 paper sec. 3.3.4).
"""

from __future__ import annotations

import math
from typing import NamedTuple

from model.architecture import OP_CHECKPOINT_SHARE, product_work
from model.communication import (
    all_reduce_time,
    all_to_all_time,
    data_parallel_sync_time,
    group_path,
    p2p_time,
)
from model.efficiency import Efficiencies, achievable_bandwidth, matmul_efficiency
from model.memory import Layout, TrainingRegime, card_params
from model.scenario import Recompute, Resolved, trains_adapters

__all__ = [
    "StepTime",
    "TrainingWork",
    "attention_core_rate",
    "elementwise_bytes",
    "interleaved",
    "matmul_passes",
    "selective_products_redone",
    "step_time",
    "training_work",
    "wall_time",
]


class TrainingWork(NamedTuple):
    """What one optimizer step asks of each GPU, independent of efficiencies."""

    model_flops_per_token: float
    """FLOPs the model needs per trained token (no recomputation): the MFU numerator."""
    hardware_flops_per_token: float
    matmul_flops_attention: float
    """Per GPU per step: attention projection products."""
    matmul_flops_mlp: float
    """Per GPU per step: MLP and expert products."""
    matmul_flops_head: float
    """Per GPU per step: the LM head (vocab x hidden), a wide product of its own."""
    attention_core_flops: float
    elementwise_bytes: float
    optimizer_params: float
    tokens_per_step: float
    steps: float
    attention_gemm_work: float
    """FLOPs of one attention product as launched (sets its efficiency; :func:`product_work`)."""
    mlp_gemm_work: float
    """FLOPs of one MLP product as launched, or one routed expert's."""
    head_gemm_work: float
    tp_message_bytes: float
    tp_collectives: float
    """All-reduces per GPU per step (per layer, per micro-batch, forward and backward)."""
    grad_bytes: float
    """Per GPU: the gradients reduced over the data-parallel group (experts' apart, below)."""
    gather_bytes: float
    expert_grad_bytes: float
    """Per GPU: the routed experts' gradients, reduced over the expert-data-parallel group."""
    expert_gather_bytes: float
    ep_message_bytes: float
    ep_collectives: float
    moe_layer_passes: float
    """MoE layers' passes (forward, backward, recomputed forward) per GPU per step, micro-batches counted."""
    pp_message_bytes: float
    layers_per_stage: int


class StepTime(NamedTuple):
    """Seconds per optimizer step on each GPU, by where the time goes."""

    compute: float
    bubble: float
    tensor_parallel: float
    data_parallel: float
    expert_parallel: float
    pipeline_transfer: float
    optimizer: float
    moe_host: float
    """Dropless MoE layers waiting on the host for their token counts (Efficiencies.moe_layer_host_s)."""
    total: float


def training_work(
    r: Resolved,
    regime: TrainingRegime,
    layout: Layout,
    *,
    micro_batch: int,
    global_batch: int,
    microbatches: int,
    recompute: Recompute,
    recomputed_layers: int | None = None,
) -> TrainingWork:
    """Count the FLOPs, bytes and messages of one step for ``layout`` (``micro_batch`` sequences per micro-batch).

    Full recomputation re-runs the forward of ``recomputed_layers`` of each stage's layers (None: all).
    """
    arch, stats, s = r.arch, r.arch.stats, r.scenario
    seq = r.seq_len
    lora = trains_adapters(s.finetune)
    cards_used = layout.tp * layout.pp * layout.dp
    # Causal attention: each query sees seq/2 keys on average.
    attention_forward = stats.attention_flops_per_token_per_key * seq / 2.0
    matmul_forward = 2.0 * stats.matmul_params_active
    adapters = 6.0 * regime.trainable_params if lora else 0.0
    passes = matmul_passes(lora, 0.0)  # LoRA computes no weight gradients for the frozen base
    model_flops = passes * matmul_forward + 3.0 * attention_forward + adapters
    layers_per_stage = -(-arch.layers // layout.pp)
    redone = 0.0  # share of the layers whose forward runs twice
    if recompute == "full":
        redone = 1.0 if recomputed_layers is None else min(recomputed_layers, layers_per_stage) / layers_per_stage
    extra = redone * (matmul_forward + attention_forward)
    # Selective: without flash attention the attention core runs again (Korthikanti et al. 2022);
    # with it, per-op checkpointing keeps the attention output and runs the layers' other products again.
    products_redone = 0.0  # share of the layers' matrix products (not the LM head's) run twice
    core_redone = redone
    if recompute == "selective" and s.flash_attention:
        products_redone = selective_products_redone(flash_attention=True)
        extra = products_redone * (matmul_forward - 2.0 * stats.head_params)
    elif recompute == "selective":
        extra, core_redone = attention_forward, 1.0
    hardware_flops = model_flops + extra
    matmul_share = matmul_passes(lora, redone + products_redone) / cards_used
    tokens_per_step = float(global_batch * seq)
    attention_matmul = 2.0 * stats.attention_params * matmul_share * tokens_per_step
    head_matmul = 2.0 * stats.head_params * matmul_passes(lora, redone) / cards_used * tokens_per_step
    mlp_matmul = (matmul_forward - 2.0 * (stats.attention_params + stats.head_params)) * matmul_share * tokens_per_step
    mlp_matmul += adapters * tokens_per_step / cards_used
    attention_passes = 3.0 + core_redone
    tokens_mb = float(micro_batch * seq)
    attention_work, mlp_work, head_work = product_work(arch, tokens_mb, layout.tp, layout.ep)
    activation_bytes = stats.activation_bytes_per_token_layer * regime.activation_scale
    element_size = 2.0 * regime.activation_scale
    tp_collectives = 0.0
    if layout.tp > 1:
        tp_collectives = (4.0 + 2.0 * redone) * layers_per_stage * microbatches
    # A card holds its share of the dense weights and 1/ep of the routed experts (card_params).
    # Under expert parallelism the experts' copies live on the expert-data-parallel group, not
    # the data-parallel one, so their bytes are kept apart (see step_time).
    dense, routed = card_params(arch, layout)
    if layout.ep <= 1:
        dense, routed = dense + routed, 0.0
    grad_reduce_bytes = 4.0 if r.precision == "fp32" else 2.0
    trained_share = regime.trainable_params / stats.total_params
    ep_collectives = 0.0
    moe_layer_passes = 0.0
    if arch.is_moe:
        moe_layers_per_stage = stats.moe_layers / layout.pp
        moe_layer_passes = (2.0 + redone) * moe_layers_per_stage * microbatches
        if layout.ep > 1:
            ep_collectives = 4.0 * moe_layers_per_stage * microbatches
    return TrainingWork(
        model_flops_per_token=model_flops,
        hardware_flops_per_token=hardware_flops,
        matmul_flops_attention=attention_matmul,
        matmul_flops_mlp=mlp_matmul,
        matmul_flops_head=head_matmul,
        attention_core_flops=attention_passes * attention_forward * tokens_per_step / cards_used,
        elementwise_bytes=elementwise_bytes(activation_bytes, arch.layers, tokens_per_step, cards_used),
        optimizer_params=regime.trainable_params / (cards_used if layout.zero >= 1 else layout.tp * layout.pp),
        tokens_per_step=tokens_per_step,
        steps=r.tokens / tokens_per_step,
        attention_gemm_work=attention_work,
        mlp_gemm_work=mlp_work,
        head_gemm_work=head_work,
        tp_message_bytes=tokens_mb * arch.hidden * element_size,
        tp_collectives=tp_collectives,
        grad_bytes=dense * trained_share * grad_reduce_bytes,
        gather_bytes=dense * regime.weight_bytes,
        expert_grad_bytes=routed * trained_share * grad_reduce_bytes,
        expert_gather_bytes=routed * regime.weight_bytes,
        ep_message_bytes=tokens_mb * arch.active_experts * arch.hidden * element_size / layout.tp,
        ep_collectives=ep_collectives,
        moe_layer_passes=moe_layer_passes,
        pp_message_bytes=tokens_mb * arch.hidden * element_size / layout.tp,
        layers_per_stage=layers_per_stage,
    )


def elementwise_bytes(activation_bytes: float, layers: int, tokens: float, cards: int) -> float:
    """Bytes of non-matrix traffic per GPU per step (the factor is applied with efficiencies)."""
    return activation_bytes * layers * tokens / cards


def step_time(
    r: Resolved,
    work: TrainingWork,
    layout: Layout,
    *,
    microbatches: int,
    compute_key: str,
    peak: float,
    ceiling_share: float | None,
    eff: Efficiencies,
    lora: bool,
    vp: int = 1,
) -> StepTime:
    """Return the seconds of one optimizer step on each GPU under efficiency set ``eff``.

    ``vp`` model chunks per pipeline stage (interleaved 1F1B) are applied by :func:`interleaved`.
    """
    gpu = r.gpu
    realised = eff.training_matmul_vs_ceiling
    attention_eff = matmul_efficiency(eff, compute_key, work.attention_gemm_work, ceiling_share) * realised
    mlp_eff = matmul_efficiency(eff, compute_key, work.mlp_gemm_work, ceiling_share) * realised
    head_eff = matmul_efficiency(eff, compute_key, work.head_gemm_work, ceiling_share) * realised
    bandwidth = achievable_bandwidth(gpu, eff)
    compute = (
        work.matmul_flops_attention / (peak * attention_eff)
        + work.matmul_flops_mlp / (peak * mlp_eff)
        + work.matmul_flops_head / (peak * head_eff)
        + work.attention_core_flops / attention_core_rate(r, compute_key, peak, eff)
        + work.elementwise_bytes * eff.elementwise_traffic_factor / bandwidth
    )
    # Dropless MoE layers wait on the host for their token counts (Efficiencies.moe_layer_host_s).
    moe_host = work.moe_layer_passes * eff.moe_layer_host_s
    gpn = r.gpus_per_node
    tensor = 0.0
    hidden = 0.0  # communication overlapped with compute: it still slows the products down
    if work.tp_collectives:
        tp_path = group_path(layout.tp, 1, gpn, r.scale_up, r.network, eff)
        traffic = work.tp_collectives * all_reduce_time(work.tp_message_bytes, layout.tp, tp_path)
        tensor = traffic * (1.0 - eff.tp_overlap)
        hidden += traffic - tensor
    data = 0.0
    if layout.dp > 1:
        backward_share = 0.5 if lora else 2.0 / 3.0
        # The compute the traffic can hide behind: all of it (ZeRO-3 gathers ahead of each layer),
        # every backward (ZeRO-2), or only the last micro-batch's backward (ZeRO 0-1).
        window = compute if layout.zero >= 3 else compute * backward_share
        window /= microbatches if layout.zero < 2 else 1
        dp_path = group_path(layout.dp, layout.tp, gpn, r.scale_up, r.network, eff)
        sync = (layout.zero, microbatches, work.layers_per_stage)
        traffic = data_parallel_sync_time(work.grad_bytes, work.gather_bytes, layout.dp, dp_path, *sync)
        if work.expert_grad_bytes:
            # Megatron-Core's expert-data-parallel group: the ranks holding the same experts, ep x tp
            # apart in rank order, so with ep 8 a node of 8 holds one member of each group and every
            # expert copy crosses the network on that card's own NIC.
            expert_dp = max(1, layout.dp // layout.ep)
            path = group_path(expert_dp, layout.tp * layout.ep, gpn, r.scale_up, r.network, eff)
            traffic += data_parallel_sync_time(work.expert_grad_bytes, work.expert_gather_bytes, expert_dp, path, *sync)
        data = max(0.0, traffic - eff.dp_overlap * window)
        hidden += traffic - data
    expert = 0.0
    if work.ep_collectives:
        ep_path = group_path(layout.ep, layout.tp, gpn, r.scale_up, r.network, eff)
        traffic = work.ep_collectives * all_to_all_time(work.ep_message_bytes, layout.ep, ep_path)
        expert = traffic * (1.0 - eff.ep_overlap)
        hidden += traffic - expert
    transfer = 0.0
    if layout.pp > 1:
        pp_path = group_path(layout.pp, layout.tp * layout.dp, gpn, r.scale_up, r.network, eff)
        transfer = 2.0 * microbatches * p2p_time(work.pp_message_bytes, pp_path)
    optimizer = work.optimizer_params * eff.optimizer_bytes_per_param / bandwidth
    compute += hidden * eff.overlap_interference
    # 1F1B bubble: (p - 1) / m of a stage's time per micro-batch (Narayanan et al. 2021, eq. 1),
    # the host waits included: a stage waiting on its host is as busy as one computing.
    bubble = (layout.pp - 1) / microbatches * (compute + moe_host)
    total = compute + moe_host + bubble + tensor + data + expert + transfer + optimizer
    step = StepTime(compute, bubble, tensor, data, expert, transfer, optimizer, moe_host, total)
    return interleaved(step, vp, layout.pp, microbatches)


def attention_core_rate(r: Resolved, compute_key: str, peak: float, eff: Efficiencies) -> float:
    """Return the FLOP/s a card's attention cores run at in training.

    They run in 16-bit when the products run in FP8 or FP4 (Transformer Engine keeps attention in
    BF16), in the products' own format otherwise (flash attention has no FP32 kernel, so FP32
    training attends in FP32), at flash attention's share of the largest products' rate.
    """
    narrow = compute_key in ("fp8", "fp4")
    core_key = "bf16" if narrow and "bf16" in r.gpu.dense_flops_per_s else compute_key
    core_peak = r.gpu.dense_flops_per_s.get(core_key, peak)
    realised = eff.training_matmul_vs_ceiling
    return core_peak * matmul_efficiency(eff, core_key, math.inf, None) * eff.attention_vs_matmul * realised


def selective_products_redone(*, flash_attention: bool) -> float:
    """Return the share of the layers' matrix products selective recomputation runs again.

    With flash attention it is per-op checkpointing (every product not kept runs again); without,
    Korthikanti's, which reruns only the attention core.
    """
    return 1.0 - OP_CHECKPOINT_SHARE if flash_attention else 0.0


def matmul_passes(lora: bool, redone: float) -> float:
    """Return how many times a trained token's matrix products run.

    Forward, backward for the inputs and (unless only adapters train) for the weights, plus the
    share of layers ``redone`` (recomputed in full).
    """
    return (2.0 if lora else 3.0) + redone


def interleaved(step: StepTime, vp: int, pp: int, microbatches: int) -> StepTime:
    """Return a 1F1B step run with ``vp`` model chunks per pipeline stage instead of one.

    The interleaved schedule shrinks the bubble to (p - 1) / (v m) of the compute and sends v times
    as many activations and gradients between stages (Narayanan et al. 2021, sec. 2.2.2). Those
    sends overlap the other chunks' compute (Megatron-Core's ``overlap_p2p_comm``, which Megatron
    Bridge turns on whenever v > 1) except in the warm-up and flush, where the first stage runs
    2 (p - 1) + (v - 1) p of its v m chunk passes one way only (Megatron-Core's interleaved
    schedule): only that share of the transfers stays exposed.
    """
    if vp == 1:
        return step
    warmup = 2 * (pp - 1) + (vp - 1) * pp
    exposed = min(1.0, warmup / (vp * microbatches))
    bubble, transfer = step.bubble / vp, step.pipeline_transfer * vp * exposed
    total = step.total - step.bubble - step.pipeline_transfer + bubble + transfer
    return step._replace(bubble=bubble, pipeline_transfer=transfer, total=total)


def wall_time(step_seconds: float, steps: float, cards: int, eff: Efficiencies) -> float:
    """Return the training run's wall time: steps x step time, plus what a real run loses.

    Interruptions arrive at rate (failures per GPU-hour x cards) and each costs a fixed number
    of hours; checkpoints, evaluation and data stalls add a fixed share of the step time. The
    run stretches by 1 + run overhead + rate x hours lost (Llama 3 paper sec. 3.3.4: >90 %
    effective training time on 16,384 GPUs).
    """
    failures_per_hour = eff.failure_rate_per_gpu_hour * cards
    return step_seconds * steps * (1.0 + eff.run_overhead + failures_per_hour * eff.hours_lost_per_failure)
