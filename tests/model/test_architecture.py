import dataclasses

import pytest

from model import default_catalog
from model.architecture import Architecture, product_work
from model.catalog import derive_architecture
from model.inference import expected_experts_touched

PRESETS = list(default_catalog().models.values())


@pytest.mark.parametrize("preset", PRESETS, ids=lambda p: p.id)
def test_preset_parameter_count_is_within_two_percent_of_the_official_figure(preset):
    # Official counts: each row's params_source (Hugging Face safetensors counts, papers).
    counted = preset.architecture.stats.total_params
    assert counted == pytest.approx(preset.official_params, rel=0.02)


@pytest.mark.parametrize("preset", [p for p in PRESETS if p.official_active_params], ids=lambda p: p.id)
def test_moe_active_parameters_are_within_two_percent_of_the_official_figure(preset):
    # DeepSeek-V3 report: 37B activated; Qwen3: 22B; Mixtral: 12.9B (announcement).
    assert preset.architecture.stats.active_params == pytest.approx(preset.official_active_params, rel=0.02)


def _llama(**changes):
    shape = {"layers": 32, "hidden": 4096, "heads": 32, "kv_heads": 32, "ffn": 11008, "vocab": 32000}
    shape.update(changes)
    return Architecture(**shape)


def test_untied_lm_head_is_counted_and_tied_is_not():
    # llm-analysis counts Llama-2-7B as 6.57B by missing the untied head (docs/reference/peer_tools.md 1.1).
    untied, tied = _llama(), _llama(tied_embeddings=True)
    assert untied.stats.total_params - tied.stats.total_params == 32000 * 4096
    assert untied.stats.total_params == 6_738_415_616


def test_kv_cache_elements_count_both_k_and_v_for_every_kv_head():
    mha, gqa = _llama(), _llama(kv_heads=8)
    assert mha.stats.kv_elements_per_token == 2 * 32 * 32 * 128
    assert gqa.stats.kv_elements_per_token == mha.stats.kv_elements_per_token / 4


def test_latent_attention_caches_the_compressed_latent_not_full_heads():
    deepseek = default_catalog().models["deepseek-v3"].architecture
    # DeepSeek-V2 sec. 2.1: (d_c + d_h^R) per token and layer = 512 + 64.
    assert deepseek.stats.kv_elements_per_token == 61 * (512 + 64)
    assert deepseek.stats.kv_heads_for_sharding == 1


def test_moe_active_parameters_count_only_routed_experts_in_use():
    mixtral = default_catalog().models["mixtral-8x7b"].architecture
    stats = mixtral.stats
    assert stats.total_params - stats.active_params == pytest.approx(32 * 6 * stats.expert_params)


def test_experts_touched_is_k_for_one_token_and_approaches_all_for_many():
    assert expected_experts_touched(256, 8, 1) == 8
    assert expected_experts_touched(256, 8, 16) < 8 * 16
    assert expected_experts_touched(256, 8, 10_000) == pytest.approx(256, rel=1e-6)
    touched = [expected_experts_touched(64, 4, n) for n in (1, 2, 8, 64, 512)]
    assert touched == sorted(touched)


@pytest.mark.parametrize("params", [1e8, 5e8, 1.3e9, 7e9, 13e9, 34e9, 70e9, 175e9, 405e9, 1e12, 2e12])
def test_derived_architecture_lands_near_the_requested_count(params):
    arch = derive_architecture(params)
    assert arch.stats.total_params == pytest.approx(params, rel=0.06)
    assert arch.heads % arch.kv_heads == 0
    assert arch.hidden % arch.heads == 0


def test_derived_architecture_keeps_given_shapes_and_fills_the_rest():
    arch = derive_architecture(70e9, layers=40, hidden=8192)
    assert (arch.layers, arch.hidden) == (40, 8192)
    assert arch.stats.total_params == pytest.approx(70e9, rel=0.02)


def test_derived_kv_cache_and_activations_grow_with_the_parameter_count():
    small, large = derive_architecture(1e9), derive_architecture(70e9)
    assert large.stats.kv_elements_per_token > small.stats.kv_elements_per_token
    assert large.stats.activation_bytes_per_token_layer > small.stats.activation_bytes_per_token_layer


def test_a_count_too_small_for_its_vocabulary_is_refused():
    with pytest.raises(ValueError, match="vocabulary"):
        derive_architecture(2e6, vocab=200_000, hidden=4096)


def test_equal_shapes_hash_equal_and_a_changed_shape_does_not_compare_equal():
    base = default_catalog().models["llama-3.1-8b"].architecture
    same = dataclasses.replace(base, layers=base.layers)
    assert same == base and hash(same) == hash(base)
    changed = dataclasses.replace(base, layers=base.layers + 1)
    assert changed != base and hash(changed) != hash(base)


def test_each_routed_expert_keeps_its_own_copy_of_the_input_for_backward():
    # The dispatcher permutes each token into top-k copies and each expert's first product keeps
    # its copy for the weight gradient: one more active expert adds its input (2 bytes x hidden)
    # as well as its inner tensors (gate, up, product: 6 bytes x expert width) per MoE layer.
    base = default_catalog().models["qwen3-30b-a3b"].architecture
    wider = base.with_overrides(active_experts=base.active_experts + 1)
    share = base.stats.moe_layers / base.layers
    added = wider.stats.activation_bytes_per_token_layer - base.stats.activation_bytes_per_token_layer
    assert added == pytest.approx(share * (2.0 * base.hidden + 6.0 * base.expert_ffn))


def test_products_are_sized_as_frameworks_launch_them():
    # Megatron-Core: linear_qkv (Q, K and V in one) and linear_fc1 (gate and up in one, 2 x ffn).
    mha, gqa = _llama(), _llama(kv_heads=8)
    tokens, hidden, ffn = 4096.0, 4096, 11008
    attention, mlp, head = product_work(mha, tokens, tp=1)
    assert attention == 2 * tokens * hidden * 2 * hidden  # (3h + h) / 2 launches: twice one h x h product
    assert mlp == 2 * tokens * 1.5 * hidden * ffn  # (gate + up + down) / 2 launches
    assert head == 2 * tokens * hidden * 32000
    assert product_work(gqa, tokens, tp=1)[0] == 2 * tokens * hidden * (hidden + 1024)
    assert product_work(mha, tokens, tp=4) == pytest.approx((attention / 4, mlp / 4, head / 4))
    plain = _llama(mlp="plain")
    assert product_work(plain, tokens, tp=1)[1] == 2 * tokens * hidden * ffn  # up, then down: nothing fused


def test_a_routed_expert_product_is_one_expert_matrix_over_the_tokens_routed_to_it():
    moe = _llama(experts=8, active_experts=2, ffn=14336)
    tokens = 4096.0
    # Each of the 8 experts gets 2 / 8 of the tokens; with ep 4 a card's experts take 4 ranks' worth.
    assert product_work(moe, tokens, tp=1, ep=4)[1] == 2 * (tokens * 2 * 4 / 8) * 4096 * moe.expert_ffn
