import pytest

from model import Scenario, default_catalog, estimate
from model.inference import ServingLoad, inference_memory, kv_bytes_per_sequence
from model.memory import LOGIT_BYTES, Layout, training_activations, training_memory, training_regime, training_states
from model.precision.formats import weight_breakdown

MODELS = default_catalog().models
LLAMA2_7B = MODELS["llama-2-7b"].architecture
LLAMA3_8B = MODELS["llama-3.1-8b"].architecture


def test_llama2_7b_fp16_inference_weights_are_about_13_5_gb():
    # Check 4 (issue 2): 6.74e9 params x 2 bytes = 13.48 GB; the 12.55 GiB llama.cpp reports
    # (published_measurements.yaml) is the same size in binary units.
    weights = estimate(Scenario(model="llama-2-7b", precision="fp16", cards=1)).inference.memory_per_gpu.weights
    assert weights == pytest.approx(13.5e9, rel=0.01)
    assert weights / 2**30 == pytest.approx(12.55, rel=0.01)


def test_kv_cache_grows_linearly_with_context():
    sizes = [kv_bytes_per_sequence(LLAMA3_8B, ctx, "bf16", 1, 1) for ctx in (1000, 2000, 4000)]
    assert sizes[1] == pytest.approx(2 * sizes[0])
    assert sizes[2] == pytest.approx(4 * sizes[0])
    # Llama 3.1 8B: 2 (K,V) x 32 layers x 8 KV heads x 128 x 2 bytes = 131,072 bytes per token.
    assert sizes[0] == pytest.approx(1000 * 131_072)


def test_kv_cache_splits_over_tensor_parallel_down_to_one_head_per_card():
    one = kv_bytes_per_sequence(LLAMA3_8B, 1000, "bf16", 1, 1)
    assert kv_bytes_per_sequence(LLAMA3_8B, 1000, "bf16", 8, 1) == pytest.approx(one / 8)
    # 8 KV heads cannot split 16 ways: heads are replicated past 8.
    assert kv_bytes_per_sequence(LLAMA3_8B, 1000, "bf16", 16, 1) == pytest.approx(one / 8)


def test_sliding_window_caps_the_cached_context():
    mistral = MODELS["mistral-7b"].architecture  # 4,096-token window (Mistral 7B paper Table 1)
    assert kv_bytes_per_sequence(mistral, 16_000, "bf16", 1, 1) == kv_bytes_per_sequence(mistral, 4096, "bf16", 1, 1)


def test_fp8_kv_cache_is_half_of_bf16():
    assert kv_bytes_per_sequence(LLAMA3_8B, 1000, "fp8", 1, 1) == pytest.approx(
        kv_bytes_per_sequence(LLAMA3_8B, 1000, "bf16", 1, 1) / 2
    )


def test_int4_weights_keep_a_16_bit_embedding_and_head():
    load = ServingLoad(precision="int4", kv_precision="bf16", context=1, prompt_len=1)
    memory = inference_memory(LLAMA2_7B, load, batch=1, tp=1, pp=1)
    embed_and_head = 2 * 32000 * 4096
    body = LLAMA2_7B.stats.total_params - embed_and_head
    assert memory.weights == pytest.approx(body * 4.5 / 8 + embed_and_head * 2)


def _train(layout, recompute="selective", optimizer="adamw", precision="bf16", finetune="none", flash=True):
    regime = training_regime(LLAMA3_8B, precision, optimizer, finetune, 16, True)
    return training_memory(
        LLAMA3_8B,
        regime,
        layout,
        seq_len=4096,
        micro_batch=1,
        microbatches=8,
        recompute=recompute,
        flash_attention=flash,
    )


def test_mixed_precision_adamw_takes_16_bytes_per_parameter_unsharded():
    # ZeRO paper sec. 3.1: 2 (fp16 weights) + 2 (grads) + 12 (fp32 master, momentum, variance).
    memory = _train(Layout(1, 1, 1, 1, 0))
    states = memory.weights + memory.gradients + memory.optimizer
    assert states == pytest.approx(16 * LLAMA3_8B.stats.total_params)


@pytest.mark.parametrize(("stage", "sharded"), [(1, "optimizer"), (2, "gradients"), (3, "weights")])
def test_each_zero_stage_shards_one_more_state_over_data_parallel(stage, sharded):
    before, after = _train(Layout(1, 1, 8, 1, stage - 1)), _train(Layout(1, 1, 8, 1, stage))
    assert getattr(after, sharded) == pytest.approx(getattr(before, sharded) / 8)
    assert after.total < before.total


def test_recomputation_trades_activation_memory():
    none, selective, full = (_train(Layout(1, 1, 1, 1, 0), mode) for mode in ("none", "selective", "full"))
    assert full.activations < selective.activations < none.activations


def test_selective_with_flash_attention_keeps_the_layer_input_attention_output_and_every_second_product():
    # torchtitan's op policy on a Llama 3 8B layer, per token at 2 bytes: input 2h, attention
    # output 2h, and half of the products' outputs (q 2h, k and v 2 x 2 x 1,024, o 2h, gate and up
    # 2 x 2f, down 2h), against 12h + 4 x 1,024 + 6f with nothing recomputed.
    h, f, kv = 4096, 14336, 1024
    kept = 2 * h + 2 * h + 0.5 * (2 * h + 4 * kv + 2 * h + 4 * f + 2 * h)
    assert LLAMA3_8B.stats.op_checkpoint_bytes_per_token_layer == pytest.approx(kept)
    assert kept / LLAMA3_8B.stats.activation_bytes_per_token_layer == pytest.approx(0.43, abs=0.01)


def test_selective_without_flash_attention_drops_only_the_attention_scores():
    # Korthikanti et al. 2022: recomputing the attention core frees its s x s scores and nothing else.
    none, selective = (_train(Layout(1, 1, 1, 1, 0), mode, flash=False) for mode in ("none", "selective"))
    with_flash = _train(Layout(1, 1, 1, 1, 0), "none")
    assert selective.activations == pytest.approx(with_flash.activations)
    assert selective.activations < none.activations


def test_tensor_parallel_with_sequence_parallel_divides_activations():
    one, four = _train(Layout(1, 1, 1, 1, 0)), _train(Layout(4, 1, 1, 1, 0))
    assert four.activations == pytest.approx(one.activations / 4)
    assert four.weights == pytest.approx(one.weights / 4)


def test_optimizers_differ_in_state_size():
    sizes = {
        opt: _train(Layout(1, 1, 1, 1, 0), optimizer=opt).optimizer
        for opt in ("adamw", "adamw-8bit", "sgd", "adafactor")
    }
    assert sizes["adafactor"] < sizes["adamw-8bit"] < sizes["sgd"] < sizes["adamw"]


def test_lora_and_qlora_need_far_less_than_full_finetuning():
    full = _train(Layout(1, 1, 1, 1, 0), finetune="full")
    lora = _train(Layout(1, 1, 1, 1, 0), finetune="lora")
    qlora = _train(Layout(1, 1, 1, 1, 0), finetune="qlora")
    # LoRA keeps the full 16-bit base plus small adapters; QLoRA stores the base in 4 bits.
    assert qlora.weights < full.weights / 2  # 4.13-bit NF4 body, 16-bit embedding and head
    assert lora.weights == pytest.approx(full.weights, rel=0.02)
    assert lora.optimizer < full.optimizer / 50
    assert qlora.total < lora.total < full.total / 2


def test_qlora_holds_its_base_in_nf4_and_lora_its_base_in_the_format_peft_keeps():
    # QLoRA quantises the base to NF4 with double quantisation (Dettmers et al. 2023, sec. 3); LoRA trains on
    # a GPTQ/AWQ/bitsandbytes base as stored (PEFT), and on a GGUF one dequantised to 16-bit (transformers).
    def base(precision, finetune):
        regime = training_regime(LLAMA3_8B, precision, "adamw", finetune, 16, True)
        return (regime.weight_bytes - regime.adapter_bytes) * LLAMA3_8B.stats.total_params

    assert base("bf16", "qlora") == pytest.approx(weight_breakdown(LLAMA3_8B, "nf4").total)
    assert base("q4_k_m", "qlora") == pytest.approx(weight_breakdown(LLAMA3_8B, "nf4").total)
    assert base("awq_int4", "lora") == pytest.approx(weight_breakdown(LLAMA3_8B, "awq_int4").total)
    assert base("int8", "lora") == pytest.approx(weight_breakdown(LLAMA3_8B, "int8").total)
    assert base("q4_k_m", "lora") == pytest.approx(2 * LLAMA3_8B.stats.total_params)
    assert base("bf16", "lora") == pytest.approx(2 * LLAMA3_8B.stats.total_params)


def test_the_full_load_fills_the_servers_budget_and_a_batch_past_the_card_does_not_fit():
    # A server budgets 90 % of the card (vLLM's gpu_memory_utilization): the full load fills that;
    # a batch that needs more than the whole card does not fit.
    result = estimate(Scenario(model="llama-3.1-8b", gpu="h100-sxm", cards=1, batch="max"))
    most = result.inference.max_batch
    assert result.inference.batch == most and result.inference.fits
    capacity = result.resolved.gpu.capacity_bytes
    held = result.inference.memory_per_gpu.total
    next_one = estimate(Scenario(model="llama-3.1-8b", gpu="h100-sxm", cards=1, batch=most + 1)).inference
    assert 0.89 * capacity < held <= 0.9 * capacity < next_one.memory_per_gpu.total
    over = estimate(Scenario(model="llama-3.1-8b", gpu="h100-sxm", cards=1, batch=int(most * 1.2)))
    assert not over.inference.fits
    assert any("does not fit" in w for w in over.warnings)


def test_does_not_fit_is_a_result_with_a_plain_warning():
    result = estimate(Scenario(model="llama-3.1-405b", gpu="rtx-4090", cards=1))
    assert not result.training.fits and not result.inference.fits
    # An RTX 4090's "24 GB" are 24 GiB: the driver reports 24,564 MiB, CUDA can allocate ~25.2 GB.
    assert any(w.startswith("training does not fit: needs") and "per card, has 25.2 GB" in w for w in result.warnings)


def test_zero3_gathers_only_the_experts_an_expert_parallel_rank_holds():
    # A ZeRO-3 card gathers one layer at a time (double-buffered); under expert parallelism the
    # layer's routed experts live on ep ranks, so the buffer holds 1/ep of them.
    arch = MODELS["qwen3-30b-a3b"].architecture
    regime = training_regime(arch, "bf16", "adamw", "none", 8, True)
    wide, none = (training_states(arch, regime, Layout(1, 1, 8, ep, 3)).gather_buffers for ep in (8, 1))
    stats = arch.stats
    experts = stats.moe_layers * arch.experts * stats.expert_params / arch.layers
    dense = (stats.total_params - stats.embedding_and_head_params) / arch.layers - experts
    assert none == pytest.approx(2 * 2 * (dense + experts))
    assert wide == pytest.approx(2 * 2 * max(dense + experts / 8, stats.head_params))
    assert wide < none / 2


@pytest.mark.parametrize("recompute", ["full", "selective"])
def test_the_last_pipeline_stage_recomputes_too(recompute):
    # 1F1B's last stage keeps one micro-batch in flight and the logits; recomputation there keeps
    # what it keeps on every stage, not every layer's activations.
    regime = training_regime(LLAMA3_8B, "bf16", "adamw", "none", 16, True)
    shape = {"tp": 1, "pp": 4, "seq_len": 8192, "micro_batch": 1, "flash_attention": True}
    one_in_flight = training_activations(LLAMA3_8B, regime, in_flight=1, recompute=recompute, **shape)
    every_layer = training_activations(LLAMA3_8B, regime, in_flight=1, recompute="none", **shape)
    logits = 8192 * LLAMA3_8B.vocab * LOGIT_BYTES
    assert one_in_flight < every_layer
    assert one_in_flight - logits < 0.6 * (every_layer - logits)  # 8 layers a stage: 0.55 selective, 0.14 full
