import dataclasses
import math

import pytest

from model import Scenario, default_catalog, estimate
from model.analyses.fit import pinned_serving
from model.efficiency import EXPECTED, OPTIMISTIC, PESSIMISTIC
from model.inference import (
    busiest_rank_prompts,
    decode_step,
    eager_iteration_share,
    elementwise_bytes_per_token,
    loaded_serving,
    prefill_time,
    queue_wait,
    serving_context,
    serving_rates,
)
from model.inference.context import kernels_per_pass

CATALOG = default_catalog()


def _serve(**kw):
    return estimate(Scenario(**kw))


def test_seed_rule_deepseek_r1_fp8_on_one_h20_is_about_9_ms_per_token():
    # Seed article (ai-infra-gpu-centric): 37B active params x 1 byte / 4.0 TB/s ~ 9 ms/token.
    # The engine reads 36.6 GB (the input embedding is looked up, not read whole); tolerance 5 %.
    result = _serve(model="deepseek-r1", precision="fp8", gpu="h20", cards=1, batch=1)
    assert result.inference.tpot_roofline_s == pytest.approx(37e9 / 4.0e12, rel=0.05)
    assert result.inference.tpot_s > result.inference.tpot_roofline_s  # expected is slower than ideal


def test_seed_rule_deepseek_r1_fp8_on_a_64_gb_per_second_cpu_is_about_578_ms_per_token():
    # Seed article: 37B x 1 byte / 64 GB/s ~ 578 ms/token; tolerance 5 %.
    result = _serve(model="deepseek-r1", precision="fp8", gpu="cpu-server", cards=1, batch=1)
    assert result.inference.tpot_roofline_s == pytest.approx(0.578, rel=0.05)


def test_deepseek_r1_fp8_does_not_fit_one_h20_and_fits_eight():
    # Seed article: 96 GB per H20, 8 cards = 768 GB hold the 671B FP8 model.
    one = _serve(model="deepseek-r1", precision="fp8", gpu="h20", cards=1, batch=1)
    eight = _serve(model="deepseek-r1", precision="fp8", gpu="h20", cards=8, batch=1)
    assert not one.inference.fits
    assert eight.inference.fits and eight.inference.tp == 8


def test_batch_one_decode_is_memory_bound_and_a_large_batch_of_short_contexts_compute_bound():
    # Roofline knee for 16-bit weights: peak FLOP/s / bandwidth ~ 989e12 / 3.35e12 ~ 300 tokens.
    small = _serve(model="llama-3.1-8b", gpu="h100-sxm", cards=1, batch=1, prompt_len=32, output_len=32)
    large = _serve(model="llama-3.1-8b", gpu="h100-sxm", cards=1, batch=1024, prompt_len=32, output_len=32)
    assert small.inference.bound == "memory"
    assert large.inference.bound == "compute"


def test_long_contexts_keep_a_large_batch_memory_bound_by_kv_reads():
    long = _serve(model="llama-3.1-8b", gpu="h100-sxm", cards=1, batch=256, prompt_len=4000, output_len=500)
    assert long.inference.bound == "memory"
    assert long.inference.decode.memory_time > 2 * long.inference.decode.compute_time


def test_total_throughput_rises_with_batch_while_per_user_speed_falls():
    rates = [_serve(model="llama-3.1-8b", gpu="h100-sxm", cards=1, batch=b).inference for b in (1, 8, 64)]
    totals = [r.decode_tokens_per_s for r in rates]
    users = [r.decode_tokens_per_s_per_user for r in rates]
    assert totals == sorted(totals)
    assert users == sorted(users, reverse=True)


def test_loaded_throughput_counts_the_prefill_of_arriving_requests():
    # Sarathi-Serve sec. 2: output tokens over prefill plus decode time, not the steady decode rate.
    result = _serve(model="llama-3.1-8b", gpu="h100-sxm", cards=1, batch=64, prompt_len=4000, output_len=200)
    steady = 64 / result.inference.decode_step_s
    assert result.inference.decode_tokens_per_s < 0.9 * steady


def test_decode_reads_the_kv_cache_at_the_mean_context_not_the_final_one():
    # The cache grows from the prompt to prompt + output during generation.
    short = _serve(model="llama-2-7b", gpu="a100-sxm-80gb", cards=1, batch=32, prompt_len=100, output_len=2000)
    final = _serve(model="llama-2-7b", gpu="a100-sxm-80gb", cards=1, batch=32, prompt_len=2100, output_len=1)
    assert short.inference.decode.memory_time < final.inference.decode.memory_time


def test_more_replicas_multiply_total_throughput_not_per_user_speed():
    one = _serve(model="llama-3.1-8b", gpu="h100-sxm", cards=1, batch=16).inference
    eight = _serve(model="llama-3.1-8b", gpu="h100-sxm", cards=8, batch=16).inference
    assert eight.dp == 8 and eight.tp == 1
    assert eight.decode_tokens_per_s == pytest.approx(8 * one.decode_tokens_per_s)
    assert eight.decode_tokens_per_s_per_user == pytest.approx(one.decode_tokens_per_s_per_user)


def test_a_model_too_big_for_one_card_is_split_with_tensor_parallelism():
    result = _serve(model="llama-3.1-70b", gpu="h100-sxm", cards=8, batch=1)
    assert result.inference.tp * result.inference.pp >= 2 and result.inference.fits
    assert result.inference.tp * result.inference.pp * result.inference.dp == 8


def test_one_user_gets_the_replica_with_the_lowest_time_per_token():
    # 70B in bf16 needs two H100s; spreading one user's model over all eight reads the weights faster.
    chosen = _serve(model="llama-3.1-70b", gpu="h100-sxm", cards=8, batch=1).inference
    for tp in (2, 4, 8):
        pinned = _serve(model="llama-3.1-70b", gpu="h100-sxm", cards=8, batch=1, tp=tp, pp=1).inference
        assert chosen.tpot_s <= pinned.tpot_s * (1 + 1e-9)
    assert chosen.layout_candidates[0].tpot_s == pytest.approx(chosen.tpot_s)


def test_under_load_the_replica_with_the_most_tokens_per_card_within_the_target_serves():
    loaded = _serve(model="llama-3.1-70b", gpu="h100-sxm", cards=8, batch="max").inference
    for tp in (2, 4, 8):
        pinned = _serve(model="llama-3.1-70b", gpu="h100-sxm", cards=8, batch="max", tp=tp, pp=1).inference
        assert loaded.decode_tokens_per_s >= pinned.decode_tokens_per_s * (1 - 1e-9)
    strict = _serve(model="llama-3.1-70b", gpu="h100-sxm", cards=8, batch="max", target_tpot_s=0.03).inference
    if any(c.tpot_s <= 0.03 for c in loaded.layout_candidates):
        assert strict.tpot_s <= 0.03


def test_every_replica_fits_within_the_servers_budget_whether_chosen_or_pinned():
    # DeepSeek-V3 in FP8 on four B200s is 168 GB of weights per card: within the card, not within the
    # 90 % a server budgets by default (vLLM's gpu_memory_utilization). One rule for every replica.
    base = {"model": "deepseek-v3", "gpu": "b200", "cards": 8, "precision": "fp8", "batch": 100}
    budget = 0.9 * CATALOG.gpus["b200"].capacity_bytes
    chosen = _serve(**base).inference
    assert chosen.fits and chosen.memory_per_gpu.total <= budget
    assert all(c.memory_per_gpu <= budget for c in chosen.layout_candidates)
    pinned = _serve(**base, tp=4, pp=1)
    assert not pinned.inference.fits and pinned.inference.memory_per_gpu.total > budget
    assert 0 < pinned.inference.max_batch < 100  # the same budget sets the largest batch
    assert pinned.to_dict()["inference"]["cost_per_million_output_tokens_usd"] is None
    no_dp = _serve(**base, attention_dp=1).inference
    assert no_dp.ep == 1 and no_dp.fits and no_dp.memory_per_gpu.total <= budget
    four = _serve(**{**base, "cards": 4}).inference
    assert not four.fits and four.max_batch == pinned.inference.max_batch  # the same replica, the same answer


def test_cost_per_million_tokens_falls_with_utilisation_and_batch():
    base = _serve(model="llama-3.1-8b", gpu="h100-sxm", cards=1, batch=32, utilization=0.5).inference
    busy = _serve(model="llama-3.1-8b", gpu="h100-sxm", cards=1, batch=32, utilization=1.0).inference
    big = _serve(model="llama-3.1-8b", gpu="h100-sxm", cards=1, batch=128, utilization=0.5).inference
    assert busy.cost_per_million_output_tokens_usd == pytest.approx(base.cost_per_million_output_tokens_usd / 2)
    assert big.cost_per_million_output_tokens_usd < base.cost_per_million_output_tokens_usd


def test_cost_uses_the_price_the_user_gives():
    result = _serve(model="llama-3.1-8b", gpu="h100-sxm", cards=1, batch=8, price_per_gpu_hour=3.6, utilization=1.0)
    rate = result.inference.decode_tokens_per_s
    assert result.inference.cost_per_million_output_tokens_usd == pytest.approx(3.6 / 3600 / rate * 1e6)


def test_moe_decode_reads_more_experts_as_the_batch_grows():
    one = _serve(model="mixtral-8x7b", gpu="h100-sxm", cards=2, batch=1).inference
    many = _serve(model="mixtral-8x7b", gpu="h100-sxm", cards=2, batch=16).inference
    # At batch 16 nearly every expert is read: the step's weight traffic approaches all 46.7B.
    assert many.decode.memory_time > 2.5 * one.decode.memory_time


def test_a_gpu_without_fp8_runs_fp8_weights_in_16_bit_and_says_so():
    result = _serve(model="llama-3.1-8b", gpu="a100-sxm-80gb", precision="fp8", cards=1)
    assert result.inference.compute_precision == "bf16"
    assert any("no fp8 tensor cores" in w for w in result.warnings)


def test_serving_ranges_run_from_the_optimistic_to_the_pessimistic_efficiencies():
    scenario = Scenario(model="llama-3.1-70b", gpu="h100-sxm", cards=8, batch=32)
    result = estimate(scenario, CATALOG)
    pinned = pinned_serving(scenario, CATALOG)  # the range keeps the expected set's replica
    fast = estimate(pinned, CATALOG, efficiencies=OPTIMISTIC).inference
    slow = estimate(pinned, CATALOG, efficiencies=PESSIMISTIC).inference
    for name in ("ttft_s", "tpot_s", "cost_per_million_output_tokens_usd"):
        assert result.ranges[name] == (pytest.approx(getattr(fast, name)), pytest.approx(getattr(slow, name)))
    assert result.ranges["decode_tokens_per_s"] == (
        pytest.approx(slow.decode_tokens_per_s),
        pytest.approx(fast.decode_tokens_per_s),
    )
    assert fast.tpot_s < result.inference.tpot_s < slow.tpot_s


def test_more_memory_bandwidth_never_decodes_slower():
    gpu = CATALOG.gpus["h100-sxm"]
    faster = dataclasses.replace(
        gpu, id="h100-fast", memory_bandwidth_bytes_per_s=gpu.memory_bandwidth_bytes_per_s * 1.5
    )
    catalog = CATALOG.merged(dataclasses.replace(CATALOG, gpus={"h100-fast": faster}))
    base = estimate(Scenario(gpu="h100-sxm", cards=1), catalog).inference
    quick = estimate(Scenario(gpu="h100-fast", cards=1), catalog).inference
    assert quick.tpot_s < base.tpot_s


def _replica(scenario):
    full = estimate(scenario, CATALOG)
    r, inference = full.resolved, full.inference
    key = inference.compute_precision
    ctx = serving_context(r, tp=inference.tp, pp=inference.pp, compute_key=key, ep=inference.ep)
    return r, ctx, serving_rates(r, ctx, EXPECTED)


def test_elementwise_traffic_counts_each_tensor_once_per_read_or_write():
    # Llama 2 7B (hidden 4,096, 32 heads of 128, ffn 11,008, gated MLP), 16-bit activations:
    # two fused add+RMSNorms 8 x 4,096; rotary rewrites q and k 2 x (32 + 32) x 128; SwiGLU
    # reads gate and up and writes one: 3 x 11,008. The MLP and rotary split across TP ranks.
    arch = CATALOG.models["llama-2-7b"].architecture
    assert elementwise_bytes_per_token(arch, 1) == 2 * (8 * 4096 + 2 * 64 * 128 + 3 * 11008)
    assert elementwise_bytes_per_token(arch, 4) == 2 * (8 * 4096 + (2 * 64 * 128 + 3 * 11008) / 4)


def test_the_kv_read_adds_to_the_products_rather_than_hiding_under_them():
    # Attention is its own kernel: at a compute-bound batch the step is the products' time plus
    # the KV stream, not the larger of the two.
    scenario = Scenario(
        model="llama-3.1-8b", gpu="h100-sxm", cards=1, precision="fp8", prompt_len=1000, output_len=1000
    )
    r, ctx, rates = _replica(scenario)
    step = decode_step(r, ctx, 256, rates)
    kv = 256 * ctx.kv_bytes_mean / rates.kv_bandwidth
    weights = step.memory_time - kv
    assert step.total == pytest.approx(max(weights, step.compute_time) + kv + step.overhead, rel=1e-9)


@pytest.mark.parametrize(
    "settings",
    [
        {"model": "llama-3.1-8b", "gpu": "h100-sxm", "cards": 1, "batch": 1},
        {"model": "llama-3.1-70b", "gpu": "h100-sxm", "cards": 8, "batch": 64, "tp": 4, "pp": 2},
        {"model": "deepseek-r1", "gpu": "h200", "cards": 8, "precision": "fp8", "batch": 16, "draft_tokens": 2},
    ],
)
def test_the_decode_breakdown_adds_up_to_the_step(settings):
    step = estimate(Scenario(**settings), CATALOG).inference.decode
    assert sum(seconds for _, seconds in step.parts) == pytest.approx(step.total, rel=1e-12)
    assert all(seconds >= 0 for _, seconds in step.parts)


def test_speculative_decoding_is_off_by_default_and_pays_off_only_when_drafts_are_accepted():
    base = {"model": "deepseek-r1", "gpu": "h200", "cards": 8, "precision": "fp8", "batch": 1}
    stock = estimate(Scenario(**base), CATALOG).inference
    assert stock.decode.tokens_per_step == 1.0 and stock.decode.drafting == 0.0
    good = estimate(Scenario(**base, draft_tokens=2, draft_acceptance=0.9), CATALOG).inference
    bad = estimate(Scenario(**base, draft_tokens=2, draft_acceptance=0.01), CATALOG).inference
    # Leviathan et al. 2023, eq. 1: (1 - a^(n+1)) / (1 - a) tokens per step.
    assert good.decode.tokens_per_step == pytest.approx((1 - 0.9**3) / (1 - 0.9))
    assert good.tpot_s < stock.tpot_s < bad.tpot_s
    assert good.decode.drafting > 0 and good.decode.total > stock.decode.total


def test_one_users_time_per_token_grows_with_the_layer_count_at_the_same_bytes():
    # Issue 10: the per-layer kernel floor, not the weight stream alone, sets batch-1 speed.
    shallow = estimate(Scenario(model=None, params=8e9, layers=24, gpu="h100-sxm", cards=1), CATALOG)
    deep = estimate(Scenario(model=None, params=8e9, layers=96, gpu="h100-sxm", cards=1), CATALOG)
    # Both read 8B parameters (a narrower model's head is smaller: a few % apart)...
    assert deep.inference.decode.weights == pytest.approx(shallow.inference.decode.weights, rel=0.06)
    # ...yet the deeper one is slower by more than that difference: four times the kernels.
    extra_reads = deep.inference.decode.weights - shallow.inference.decode.weights
    assert deep.inference.tpot_s - shallow.inference.tpot_s > 2 * extra_reads
    assert deep.inference.decode.layers == pytest.approx(4 * shallow.inference.decode.layers, rel=0.05)


def test_more_experts_touched_never_make_a_step_faster():
    base = {"model": "qwen3-235b-a22b", "gpu": "h200", "cards": 8, "precision": "fp8", "tp": 8}
    steps = [estimate(Scenario(**base, batch=b), CATALOG).inference.decode.total for b in (1, 2, 4, 8, 16, 64, 256)]
    assert steps == sorted(steps)
    few = estimate(Scenario(**base, batch=8, active_experts=4), CATALOG).inference.decode.total
    many = estimate(Scenario(**base, batch=8, active_experts=16), CATALOG).inference.decode.total
    assert few < many


def test_tensor_parallelism_across_nodes_is_slower_per_token_than_inside_one():
    inside = estimate(Scenario(model="llama-3.1-70b", gpu="h100-sxm", cards=8, tp=8), CATALOG).inference
    across = estimate(Scenario(model="llama-3.1-70b", gpu="h100-sxm", cards=8, tp=8, gpus_per_node=4), CATALOG)
    assert across.inference.tpot_s > inside.tpot_s
    assert across.inference.decode.communication > inside.decode.communication


def test_moe_layers_and_latent_attention_launch_more_kernels_than_a_dense_layer():
    dense = CATALOG.models["llama-3.1-70b"].architecture
    moe = CATALOG.models["qwen3-235b-a22b"].architecture
    mla = CATALOG.models["deepseek-v3"].architecture
    per_layer = [kernels_per_pass(arch) / arch.layers for arch in (dense, moe, mla)]
    assert per_layer == sorted(per_layer) and per_layer[0] < per_layer[1] < per_layer[2]


def test_attention_data_parallelism_holds_many_more_latent_caches_and_is_chosen_under_load_not_for_one_user():
    # MLA's latent cache is replicated on every tensor-parallel rank; attention DP keeps each
    # sequence on one card (DeepSeek-V3 sec. 3.4), so a node holds several times the sequences.
    base = {"model": "deepseek-r1", "gpu": "h200", "cards": 8, "precision": "fp8"}
    tp8 = estimate(Scenario(**base, tp=8, batch="max"), CATALOG).inference
    dp8 = estimate(Scenario(**base, attention_dp=8, batch="max"), CATALOG).inference
    assert dp8.ep == 8 and dp8.max_batch > 3 * tp8.max_batch
    assert estimate(Scenario(**base, batch="max"), CATALOG).inference.ep == 8
    assert estimate(Scenario(**base, batch=1), CATALOG).inference.ep == 1
    never = estimate(Scenario(**base, attention_dp=1, batch="max"), CATALOG).inference
    assert never.ep == 1
    # The all-to-alls are paid: the step carries communication even with no tensor parallelism.
    assert dp8.decode.communication > 0


@pytest.mark.parametrize("per_rank", [0.0, 0.05, 0.19, 0.5, 1.0, 1.4, 3.7])
def test_the_busiest_rank_prefills_at_least_its_share_and_at_most_one_prompt_more(per_rank):
    one = busiest_rank_prompts(per_rank, 1)
    busiest = [busiest_rank_prompts(per_rank, ranks) for ranks in (1, 2, 8, 64)]
    assert one == per_rank  # one rank waits for no one
    assert busiest == sorted(busiest)  # more ranks: a busier slowest one
    assert per_rank <= busiest[-1] <= math.floor(per_rank) + 1


def test_attention_dp_ranks_wait_for_each_others_prefills_so_a_cycle_pays_more_than_its_share():
    # TensorRT-LLM tech blog 10: an iteration lasts as long as its busiest rank, so prompts landing
    # on different ranks in different iterations stall all the others in turn.
    lengths = {"prompt_len": 1024, "output_len": 2048}
    base = {"model": "deepseek-r1", "gpu": "b200", "cards": 8, "precision": "fp4", **lengths}
    for settings, batch, waits in (({"attention_dp": 8}, 3072, True), ({"attention_dp": 1, "tp": 8}, 256, False)):
        r, ctx, rates = _replica(Scenario(**base, **settings, batch=batch))
        assert ctx.ep == (8 if waits else 1)
        served = loaded_serving(r, ctx, rates, batch, 1)
        together = batch * 2048 / (prefill_time(r, ctx, batch, rates) + 2048 * served.step.per_token)
        if waits:
            assert served.tokens_per_s < 0.9 * together
        else:  # no ranks to wait for: the cycle is the prefill plus the decode
            assert served.tokens_per_s == pytest.approx(together, rel=1e-12)


@pytest.mark.parametrize("per_rank", [0.0, 0.01, 0.07, 0.5, 1.0, 2.5])
def test_the_share_of_iterations_with_a_prefill_somewhere_grows_with_the_ranks_up_to_all(per_rank):
    shares = [eager_iteration_share(per_rank, ranks) for ranks in (1, 2, 8, 64)]
    assert shares[0] == pytest.approx(min(1.0, per_rank))
    assert shares == sorted(shares) and all(0.0 <= share <= 1.0 for share in shares)
    assert (per_rank >= 1.0) == (shares[0] == 1.0)


def test_attention_dp_ranks_decode_without_cuda_graphs_while_one_prefills_so_short_answers_pay_more():
    # SGLang and TensorRT-LLM replay a rank's CUDA graph only when no rank prefills: DeepSeek's
    # many small kernels then run at the host's pace, most often when answers are short.
    base = {"model": "deepseek-r1", "gpu": "h200", "cards": 8, "precision": "fp8", "prompt_len": 300}
    per_token = {}
    for output in (150, 4000):
        r, ctx, rates = _replica(Scenario(**base, output_len=output, attention_dp=8, batch=64))
        served = loaded_serving(r, ctx, rates, 64, 1)
        launched = ctx.kernels * rates.eff.eager_kernel_s
        assert served.step.total < launched  # a 64-sequence step outruns the host launching it
        assert 0.0 < served.eager_s < launched - served.step.total
        per_token[output] = served.eager_s
    assert per_token[150] > 5 * per_token[4000]
    r, ctx, rates = _replica(Scenario(**base, output_len=150, tp=8, batch=64))
    assert ctx.ep == 1 and loaded_serving(r, ctx, rates, 64, 1).eager_s == 0.0  # TP ranks prefill together


@pytest.mark.parametrize("model", ["llama-3.1-8b", "mixtral-8x7b"])
def test_pipeline_stages_never_make_one_users_token_faster(model):
    # One sequence cannot be split into micro-batches: its token passes every stage in turn.
    times = [_serve(model=model, gpu="h100-sxm", cards=8, tp=1, pp=pp, batch=1).inference.tpot_s for pp in (1, 2, 4, 8)]
    assert times == sorted(times)


@pytest.mark.parametrize(
    "settings",
    [
        # Found by the invariant suite (issue 29): the roofline counted one token per step with drafts,
        # and every sequence's KV cache on one card under attention data parallelism.
        {"model": "llama-3.1-8b", "gpu": "h100-sxm", "cards": 1, "draft_tokens": 1},
        {"model": "llama-3.1-8b", "gpu": "h100-sxm", "cards": 1, "draft_tokens": 3, "batch": 64},
        {"model": "qwen3-30b-a3b", "gpu": "h100-sxm", "cards": 8, "batch": "max"},
    ],
)
def test_the_expected_time_per_token_is_never_below_the_roofline_of_the_same_work(settings):
    inference = _serve(**settings).inference
    assert inference.tpot_roofline_s <= inference.tpot_s
    assert inference.tpot_roofline_s > 0.1 * inference.tpot_s  # a bound of the same order, not a token of another


def test_a_queue_waits_by_littles_law_and_nothing_waits_without_one():
    # 38 waiting while sequences of 256 tokens leave at 700 tokens/s (2.73 a second): 13.9 s each.
    assert queue_wait(38, 700.0, 256) == pytest.approx(38 / (700.0 / 256))
    assert queue_wait(76, 700.0, 256) == pytest.approx(2 * queue_wait(38, 700.0, 256))
    assert queue_wait(0, 700.0, 256) == 0.0
    assert queue_wait(38, 0.0, 256) == 0.0  # a replica that serves nothing has no queue to speak of
