import dataclasses

import pytest

from model import Scenario, default_catalog, estimate
from model.analyses.fit import pinned_training
from model.efficiency import EXPECTED, OPTIMISTIC, PESSIMISTIC
from model.training import StepTime, interleaved
from model.units import DAY_S

CATALOG = default_catalog()


def _train(**kw):
    return estimate(Scenario(**kw)).training


def test_gpt3_175b_on_300b_tokens_on_1024_a100_takes_between_todays_stack_and_the_seeds_34_days():
    # Check 2 (issue 2); the seed article says 34 days: Narayanan et al. 2021's 140 TFLOP/s per A100
    # with full recomputation. Megatron-LM with sequence parallelism and selective recomputation
    # reached 51.4 % MFU on this model (Korthikanti et al. 2022; Megatron-LM README), which is
    # 3.15e23 FLOPs / (1,024 x 312 TFLOP/s x 0.514) = 23 days of steps. Default efficiencies.
    result = estimate(Scenario(model="gpt-3-175b", gpu="a100-sxm-80gb", cards=1024, tokens=300e9))
    assert 20 <= result.training.time_s / DAY_S <= 40
    low, high = result.ranges["time_s"]
    assert low / DAY_S <= 34 <= high / DAY_S * 1.15  # the seed's figure within the likely range


@pytest.mark.parametrize("cards", [256, 512, 2048])
def test_llama2_7b_gpu_hours_are_within_20_percent_of_metas_figure(cards):
    # Check 3 (issue 2): Llama 2 model card, 184,320 A100-80GB GPU-hours for 7B on 2T tokens.
    # The card does not give the cluster size; the estimate must hold across plausible ones.
    result = _train(model="llama-2-7b", gpu="a100-sxm-80gb", cards=cards, tokens=2e12)
    assert result.gpu_hours == pytest.approx(184_320, rel=0.20)


def test_training_flops_are_six_n_d_plus_attention():
    # Kaplan et al. 2020: 6ND for the products; causal attention adds 6 x layers x 2 x d_attn x s/2
    # per token (forward 2 x 2 x d_attn per key over s/2 keys, backward twice that).
    result = _train(model="llama-2-7b", tokens=1e12, recompute="none", seq_len=4096)
    arch = CATALOG.models["llama-2-7b"].architecture
    matmul = 2 * arch.stats.matmul_params_active
    attention = 32 * 4 * 32 * 128 * 4096 / 2
    assert result.total_flops == pytest.approx((3 * matmul + 3 * attention) * 1e12)
    # Llama 2 7B: embeddings are looked up, not multiplied, so N excludes 32000 x 4096.
    assert arch.stats.matmul_params_active == pytest.approx(6.738e9 - 32000 * 4096, rel=1e-3)


def test_full_recomputation_adds_a_forward_pass_of_flops_not_model_flops():
    none = _train(model="llama-3.1-8b", recompute="none", cards=64)
    full = _train(model="llama-3.1-8b", recompute="full", cards=64)
    assert full.total_flops / none.total_flops == pytest.approx(4 / 3, rel=0.02)
    assert full.time_s > none.time_s
    assert full.mfu < none.mfu


def test_lora_needs_about_two_thirds_of_the_flops_of_full_finetuning():
    full = _train(model="llama-3.1-8b", finetune="full", tokens=1e8, recompute="none", cards=1, gpu="h200")
    lora = _train(model="llama-3.1-8b", finetune="lora", tokens=1e8, recompute="none", cards=1, gpu="h200")
    assert lora.total_flops / full.total_flops == pytest.approx(2 / 3, rel=0.05)
    assert lora.memory_per_gpu.total < full.memory_per_gpu.total


def test_the_smallest_layout_that_fits_is_chosen_and_tensor_parallel_stays_in_a_node():
    small = _train(model="llama-3.1-8b", gpu="h100-sxm", cards=8)
    assert (small.parallelism.tp, small.parallelism.pp) == (1, 1) and small.fits
    big = _train(model="llama-3.1-405b", gpu="h100-sxm", cards=1024)
    assert big.fits
    assert big.parallelism.tp <= 8
    assert big.parallelism.tp * big.parallelism.pp * big.parallelism.dp == 1024


def test_a_fixed_layout_is_kept_as_given():
    result = _train(model="llama-3.1-70b", gpu="h100-sxm", cards=64, tp=8, pp=2, zero=1, recompute="full")
    layout = result.parallelism
    assert (layout.tp, layout.pp, layout.dp, layout.zero) == (8, 2, 4, 1)
    assert result.recompute == "full"


def test_time_falls_and_gpu_hours_rise_as_cards_are_added():
    runs = [_train(model="llama-3.1-70b", gpu="h100-sxm", cards=c, tokens=1e12) for c in (64, 256, 1024)]
    times = [r.time_s for r in runs]
    hours = [r.gpu_hours for r in runs]
    assert times == sorted(times, reverse=True)
    assert hours == sorted(hours)


def test_a_slow_network_makes_data_parallel_training_slower():
    fast = _train(model="llama-3.1-70b", gpu="h100-sxm", cards=256, network="ib-ndr")
    slow = _train(model="llama-3.1-70b", gpu="h100-sxm", cards=256, network="ethernet-100g")
    assert slow.time_s > fast.time_s
    assert slow.step.data_parallel >= fast.step.data_parallel


def test_pcie_instead_of_nvlink_slows_tensor_parallel_training():
    nvlink = _train(model="llama-3.1-70b", gpu="h100-sxm", cards=64, tp=8, interconnect="nvlink4")
    pcie = _train(model="llama-3.1-70b", gpu="h100-sxm", cards=64, tp=8, interconnect="pcie-gen5")
    assert pcie.step.tensor_parallel > 5 * nvlink.step.tensor_parallel
    assert pcie.time_s > nvlink.time_s


def test_pipeline_parallel_training_pays_a_bubble():
    result = _train(model="llama-3.1-70b", gpu="h100-sxm", cards=64, tp=8, pp=4, global_batch=32, micro_batch=1, vp=1)
    # 1F1B bubble (p - 1) / m of the compute: m = 32 / 2 replicas = 16 micro-batches.
    assert result.microbatches == 16
    assert result.step.bubble == pytest.approx(3 / 16 * result.step.compute, rel=1e-6)


def test_cost_energy_and_gpu_hours_follow_from_time():
    result = _train(model="llama-3.1-8b", gpu="h100-sxm", cards=8, price_per_gpu_hour=2.0)
    assert result.gpu_hours == pytest.approx(result.time_s * 8 / 3600)
    assert result.cost_usd == pytest.approx(result.gpu_hours * 2.0)
    assert result.energy_kwh == pytest.approx(result.gpu_hours * 700 / 1000)


def test_a_fixed_mfu_sets_the_step_time_and_the_run_adds_its_losses():
    result = _train(model="llama-3.1-8b", gpu="h100-sxm", cards=8, mfu=0.5, tokens=1e11)
    assert result.mfu == pytest.approx(0.5, rel=1e-9)
    # Wall time = steps x (1 + run overhead + failures/h x hours lost), the expected set's values.
    model_flops = result.tokens * 6 * 8.03e9  # within the attention term: checked loosely
    steps_s = result.tokens / (result.tokens_per_s_per_gpu * 8)
    losses = EXPECTED.run_overhead + EXPECTED.failure_rate_per_gpu_hour * 8 * EXPECTED.hours_lost_per_failure
    assert result.time_s == pytest.approx(steps_s * (1 + losses), rel=1e-9)
    assert steps_s == pytest.approx(model_flops / (8 * 989.4e12 * 0.5), rel=0.1)


def test_the_training_time_range_runs_from_the_optimistic_to_the_pessimistic_efficiencies():
    scenario = Scenario(model="llama-3.1-70b", gpu="h100-sxm", cards=256)
    expected = estimate(scenario)
    low, high = expected.ranges["time_s"]
    pinned = pinned_training(scenario, CATALOG)  # the range keeps the expected set's layout
    assert low == pytest.approx(estimate(pinned, efficiencies=OPTIMISTIC).training.time_s)
    assert high == pytest.approx(estimate(pinned, efficiencies=PESSIMISTIC).training.time_s)
    assert low < expected.training.time_s < high


def test_fp8_training_is_faster_than_bf16_on_hopper_but_not_twice():
    bf16 = _train(model="llama-3.1-8b", gpu="h100-sxm", cards=8, precision="bf16")
    fp8 = _train(model="llama-3.1-8b", gpu="h100-sxm", cards=8, precision="fp8")
    assert 1.1 < bf16.time_s / fp8.time_s < 2.0


def test_a_gpu_with_more_flops_trains_faster():
    gpu = CATALOG.gpus["h100-sxm"]
    faster = dataclasses.replace(
        gpu, id="h100-x2", dense_flops_per_s={k: 2 * v for k, v in gpu.dense_flops_per_s.items()}
    )
    catalog = CATALOG.merged(dataclasses.replace(CATALOG, gpus={"h100-x2": faster}))
    base = estimate(Scenario(gpu="h100-sxm"), catalog).training
    quick = estimate(Scenario(gpu="h100-x2"), catalog).training
    assert quick.time_s < base.time_s


def test_the_default_batch_of_a_70b_model_is_llama_2s_four_million_tokens():
    training = estimate(Scenario(model="llama-2-70b", gpu="a100-sxm-80gb", cards=64, seq_len=4096), CATALOG).training
    assert training.global_batch * 4096 == pytest.approx(4 * 2**20, rel=0.02)
    small = estimate(Scenario(model="llama-2-7b", gpu="a100-sxm-80gb", cards=64, seq_len=4096), CATALOG).training
    assert small.global_batch < training.global_batch  # GPT-3's batches grew with the model (Table 2.1)


def test_throughput_and_mfu_describe_the_steps_and_wall_time_adds_the_runs_losses():
    training = estimate(Scenario(model="llama-2-7b", gpu="a100-sxm-80gb", cards=64, tokens=1e11), CATALOG).training
    step_seconds = training.tokens / (training.tokens_per_s_per_gpu * 64)
    failures = EXPECTED.failure_rate_per_gpu_hour * 64 * EXPECTED.hours_lost_per_failure
    assert training.time_s == pytest.approx(step_seconds * (1 + EXPECTED.run_overhead + failures), rel=1e-9)


def test_the_runs_losses_grow_with_the_cluster():
    # Interruptions arrive per GPU-hour (Llama 3 sec. 3.3.4): more cards, more of the wall time lost.
    def lost(cards):
        training = _train(model="llama-2-7b", gpu="a100-sxm-80gb", cards=cards, tokens=1e11, mfu=0.4)
        return training.time_s / (training.tokens / (training.tokens_per_s_per_gpu * cards))

    assert 1.0 < lost(64) < lost(4096) < lost(65536)


def test_moe_layers_wait_on_the_host_once_per_pass_and_micro_batch_and_dense_ones_never():
    # Dropless MoE syncs on its token counts each MoE layer pass (Megatron-Core MoE report,
    # sec. 4.3.6-4.3.7): the wait grows with the micro-batches, not with their size.
    base = {"model": "qwen3-30b-a3b", "gpu": "b200", "cards": 8, "seq_len": 4096, "global_batch": 512}
    steps = [_train(**base, micro_batch=mb, tp=1, pp=1, ep=8, recompute="none").step for mb in (1, 4)]
    moe_layers = CATALOG.models["qwen3-30b-a3b"].architecture.stats.moe_layers
    for step, microbatches in zip(steps, (64, 16), strict=True):
        assert step.moe_host == pytest.approx(2 * moe_layers * microbatches * EXPECTED.moe_layer_host_s)
        parts = step.compute + step.moe_host + step.bubble + step.tensor_parallel + step.data_parallel
        parts += step.expert_parallel + step.pipeline_transfer + step.optimizer
        assert parts == pytest.approx(step.total, rel=1e-12)
    assert _train(model="llama-3.1-8b", gpu="b200", cards=8).step.moe_host == 0.0


def test_expert_copies_sync_over_their_own_group_one_nic_per_card_on_8_gpu_nodes():
    # Megatron-Core's expert-data-parallel group holds the ranks with the same experts, ep x tp
    # apart: with ep 8 on 8-GPU nodes it has one member per node, so every gathered expert byte
    # crosses the network on that card's own NIC; a 72-GPU NVLink domain keeps nine per domain.
    layout = {"tp": 1, "pp": 1, "ep": 8, "zero": 3, "recompute": "full", "micro_batch": 4, "global_batch": 3072}
    base = {"model": "deepseek-v3", "gpu": "b200", "cards": 256, "precision": "fp8", "seq_len": 4096, **layout}
    eight, rack = (_train(**base, gpus_per_node=gpn).step for gpn in (8, 72))
    assert eight.data_parallel > eight.compute  # ~1 TB per card per step at one NIC's 50 GB/s
    assert rack.data_parallel < 0.1 * rack.compute
    # One copy per expert (ep = dp) leaves nothing for the experts' group to sync.
    wide = _train(**{**base, "ep": 256, "cards": 256}, gpus_per_node=8).step
    assert wide.data_parallel < eight.data_parallel


def test_selective_recomputation_costs_half_the_layers_products_with_flash_attention_and_the_core_without():
    # Per-op checkpointing runs half of each layer's products again (torchtitan's op policy);
    # without flash attention selective recomputation reruns the attention core (Korthikanti et al.).
    base = {"model": "llama-3.1-8b", "gpu": "h100-sxm", "cards": 8, "tokens": 1e9, "seq_len": 8192}
    base |= {"tp": 1, "pp": 1, "zero": 3, "micro_batch": 1}
    arch = CATALOG.models["llama-3.1-8b"].architecture
    stats = arch.stats
    none = _train(**base, recompute="none")
    op = _train(**base, recompute="selective")
    core = _train(**base, recompute="selective", flash_attention=False)
    full = _train(**base, recompute="full")
    per_token = {name: t.total_flops / t.tokens for name, t in (("none", none), ("op", op), ("core", core))}
    layers_products = 2.0 * (stats.matmul_params_active - stats.head_params)
    assert per_token["op"] - per_token["none"] == pytest.approx(0.5 * layers_products)
    attention_forward = stats.attention_flops_per_token_per_key * 8192 / 2
    assert per_token["core"] - per_token["none"] == pytest.approx(attention_forward)
    assert none.time_s < op.time_s < full.time_s
    assert full.memory_per_gpu.activations < op.memory_per_gpu.activations < none.memory_per_gpu.activations


def test_interleaved_sends_stay_exposed_only_in_the_warm_up_and_flush():
    # Megatron-Core overlaps the interleaved schedule's sends with the other chunks' compute
    # (overlap_p2p_comm, on whenever v > 1); the first stage's 2 (p - 1) + (v - 1) p warm-up
    # passes of its v m are the exposed share.
    step = StepTime(10.0, 1.2, 0.0, 0.0, 0.0, 0.4, 0.1, 0.0, 11.7)
    assert interleaved(step, 1, 4, 8) == step
    few = interleaved(step, 2, 4, 8)  # (6 + 4) / 16 of 2 x the sends
    assert few.pipeline_transfer == pytest.approx(0.4 * 2 * 10 / 16)
    assert few.bubble == pytest.approx(0.6)
    assert few.total == pytest.approx(10.0 + 0.6 + few.pipeline_transfer + 0.1)
    many = interleaved(step, 2, 4, 64)
    assert many.pipeline_transfer == pytest.approx(0.4 * 2 * 10 / 128)
    assert interleaved(step, 4, 8, 2).pipeline_transfer == pytest.approx(0.4 * 4)  # all warm-up: all exposed


def test_fp32_training_attends_in_fp32_so_its_mfu_stays_below_one():
    # Found by the invariant suite (issue 29): attention ran at the BF16 peak while MFU divided by FP32's (1.13).
    long = Scenario(model="llama-3.1-8b", gpu="h100-sxm", cards=8, precision="fp32", seq_len=131_072)
    training = estimate(long, CATALOG).training
    assert 0 < training.mfu < 1
