"""Weight formats: each sized as its published files are, tensor by tensor as its tool stores them."""

import pytest

from model import FORMATS, KV_PRECISIONS, PRECISIONS, Scenario, default_catalog, estimate, resolve
from model.architecture import Architecture
from model.inference import serving_context
from model.precision import (
    GGUF_PRECISIONS,
    UNTRAINABLE_PRECISIONS,
    bytes_per_element,
    compute_precision,
)
from model.precision.formats import GGML_BITS, gguf_tensor_types, weight_breakdown

CATALOG = default_catalog()
MODELS = CATALOG.models
LLAMA2_7B = MODELS["llama-2-7b"].architecture
LLAMA3_8B = MODELS["llama-3.1-8b"].architecture  # Llama 3 8B's shape: 32 layers, 4096 x 14336, 128,256 tokens
GIB = 2**30


def _gpt_oss(layers: int, experts: int) -> Architecture:
    # openai/gpt-oss-20b and -120b config.json: hidden 2880, 64 heads of 64, 8 KV heads, experts of 2880, top-4.
    return Architecture(
        layers=layers, hidden=2880, heads=64, kv_heads=8, head_dim=64, ffn=2880, vocab=201_088,
        experts=experts, active_experts=4, expert_ffn=2880, qkv_bias=True,
    )  # fmt: skip


def test_every_precision_is_a_format_and_every_cache_format_too():
    assert set(PRECISIONS) == set(FORMATS)
    assert set(KV_PRECISIONS) <= set(FORMATS)


@pytest.mark.parametrize(
    ("precision", "published_bytes"),
    [
        # TheBloke/Llama-2-7B-GGUF, "Provided files" (llama.cpp of September 2023): llama-2-7b.<TYPE>.gguf.
        ("q4_k_m", 4_081_004_224),
        ("q8_0", 7_161_089_728),
        ("q4_0", 3_825_806_016),
        ("q5_k_m", 4_783_156_928),
        ("q6_k", 5_529_194_688),
    ],
)
def test_llama_2_7b_gguf_weights_are_the_published_files_less_their_metadata(precision, published_bytes):
    # Within 0.1 % (the issue asks for 3 %): each file also holds ~0.74 MB of header and the 32,000-token vocabulary.
    weights = weight_breakdown(LLAMA2_7B, precision).total
    assert weights == pytest.approx(published_bytes, rel=1e-3)
    assert weights < published_bytes


@pytest.mark.parametrize(
    ("precision", "published_gib"),
    [
        ("q2_k", 2.96), ("q3_k_s", 3.41), ("q3_k_m", 3.74), ("q3_k_l", 4.03), ("q4_0", 4.34), ("q4_k_s", 4.37),
        ("q4_k_m", 4.58), ("q5_0", 5.21), ("q5_k_s", 5.21), ("q5_k_m", 5.33), ("q6_k", 6.14), ("q8_0", 7.96),
    ],
)  # fmt: skip
def test_every_llama_cpp_mix_sizes_llama_3_8b_as_llama_quantize_lists_it(precision, published_gib):
    # ggml-org/llama.cpp tools/quantize/quantize.cpp, QUANT_OPTIONS ("4.58G, +0.1754 ppl @ Llama-3-8B",
    # PR #8058, 2024-06): file sizes in GiB to two decimals. Within 0.5 %: the rounding (<= 0.2 %) and
    # the file's metadata with its 128,256-token vocabulary.
    assert weight_breakdown(LLAMA3_8B, precision).total / GIB == pytest.approx(published_gib, rel=5e-3)


def test_q2_k_of_september_2023_also_kept_ffn_gate_and_up_in_q3_k():
    # TheBloke's llama-2-7b.Q2_K.gguf is 2,825,940,672 bytes; llama.cpp's Q2_K then also stored ffn_gate
    # and ffn_up in Q3_K, a rule PR #4872 (2024-01-11, "restore intended k-quants mixes") removed. Today's
    # mix plus that rule is the file to 0.1 %; today's mix alone is 10 % smaller.
    today = weight_breakdown(LLAMA2_7B, "q2_k").total
    gate_up = sum(p for role, _, kind, p in gguf_tensor_types(LLAMA2_7B, "q2_k") if role in ("ffn_gate", "ffn_up"))
    assert all(
        kind == "q2_K" for role, _, kind, _ in gguf_tensor_types(LLAMA2_7B, "q2_k") if role in ("ffn_gate", "ffn_up")
    )
    then = today + gate_up * (GGML_BITS["q3_K"] - GGML_BITS["q2_K"]) / 8
    assert then == pytest.approx(2_825_940_672, rel=1e-3)
    assert today < 0.92 * 2_825_940_672


def test_q4_k_m_widens_half_of_attn_v_and_ffn_down_and_the_head_to_q6_k():
    # llama_tensor_get_type_impl: Q4_K_M gives Q6_K to attn_v and ffn_down where use_more_bits (the first
    # and last eighth of the layers and every third between: 16 of Llama 2's 32) and Q6_K to output.weight.
    types = gguf_tensor_types(LLAMA2_7B, "q4_k_m")
    for role in ("attn_v", "ffn_down"):
        kinds = [kind for r, _, kind, _ in types if r == role]
        assert kinds.count("q6_K") == 16 and kinds.count("q4_K") == 16
    assert {kind for r, _, kind, _ in types if r == "output"} == {"q6_K"}
    assert {kind for r, _, kind, _ in types if r in ("token_embd", "attn_q", "attn_k", "ffn_up")} == {"q4_K"}
    assert {kind for r, _, kind, _ in types if r == "f32"} == {"f32"}  # norms stay F32


def test_q8_0_keeps_its_head_in_q8_0_and_q4_0_widens_it_to_q6_k():
    assert {kind for r, _, kind, _ in gguf_tensor_types(LLAMA2_7B, "q8_0") if r == "output"} == {"q8_0"}
    assert {kind for r, _, kind, _ in gguf_tensor_types(LLAMA2_7B, "q4_0") if r == "output"} == {"q6_K"}


def test_eight_experts_keep_attn_k_and_attn_v_in_q8_0():
    # llama.cpp: "for the 8-expert model, bumping this to Q8_0 trades just ~128MB" (Mixtral 8x7B).
    types = gguf_tensor_types(MODELS["mixtral-8x7b"].architecture, "q4_k_m")
    assert {kind for r, _, kind, _ in types if r in ("attn_k", "attn_v")} == {"q8_0"}


def test_rows_that_are_not_a_multiple_of_256_fall_back_to_a_legacy_block():
    # gpt-oss's hidden size 2880 = 11.25 x 256: llama.cpp's tensor_type_fallback stores Q4_K rows as
    # Q5_0 and Q6_K ones as Q8_0 (ggml-org/gpt-oss-20b-GGUF's Q4_K_M shows the same).
    types = gguf_tensor_types(_gpt_oss(24, 32), "q4_k_m")
    assert {kind for r, _, kind, _ in types if r in ("attn_q", "ffn_up")} == {"q5_0"}
    assert {kind for r, _, kind, _ in types if r == "output"} == {"q8_0"}


def test_a_tied_head_is_held_once_and_read_every_step():
    tied = Architecture(layers=4, hidden=1024, heads=8, kv_heads=8, ffn=4096, vocab=32_000, tied_embeddings=True)
    for precision in ("bf16", "q4_k_m", "awq_int4"):
        weights = weight_breakdown(tied, precision)
        assert weights.head > 0 and weights.read_every_step > weights.head
        assert weights.total == pytest.approx(
            weights.embedding + weights.attention + weights.dense_mlp + weights.router + weights.norms
        )
    # A tied token_embd takes the output tensor's type in llama.cpp (Q6_K in Q4_K_M).
    assert {kind for r, _, kind, _ in gguf_tensor_types(tied, "q4_k_m") if r == "token_embd"} == {"q6_K"}


@pytest.mark.parametrize("model", sorted(MODELS))
@pytest.mark.parametrize("precision", ["bf16", "q4_k_m", "q3_k_m", "gptq_int4", "mxfp4"])
def test_the_tensors_counted_are_the_architectures_parameters(model, precision):
    arch = MODELS[model].architecture
    if precision in GGUF_PRECISIONS:
        assert sum(p for *_, p in gguf_tensor_types(arch, precision)) == pytest.approx(arch.stats.total_params)
    weights = weight_breakdown(arch, precision)
    bits = 8 * weights.total / arch.stats.total_params
    assert 2.0 < bits < 17.0
    if arch.is_moe:
        assert weights.routed_experts > 0 and weights.read_every_step < weights.total


def test_awq_and_gptq_carry_a_16_bit_scale_and_a_4_bit_zero_per_128_weights():
    # AutoAWQ / AutoGPTQ, group size 128: 4 + (16 + 4) / 128 bits; GPTQ adds one int32 g_idx per input channel.
    assert FORMATS["awq_int4"].bits == 4.0 + 20 / 128
    awq, gptq = weight_breakdown(LLAMA3_8B, "awq_int4"), weight_breakdown(LLAMA3_8B, "gptq_int4")
    matrices = LLAMA3_8B.stats.total_params - LLAMA3_8B.stats.embedding_and_head_params
    assert gptq.total - awq.total == pytest.approx(32 * 32 * (6 * 4096 + 14_336) / 8, rel=0.01)  # bytes
    assert awq.embedding == 2 * 128_256 * 4096 and awq.head == awq.embedding  # embedding and head in 16-bit
    assert awq.total == pytest.approx(matrices * (4 + 20 / 128) / 8 + 2 * 2 * 128_256 * 4096, rel=1e-3)


@pytest.mark.parametrize("precision", ["awq_int4", "gptq_int4"])
def test_llama_3_1_8b_in_awq_and_gptq_int4_is_the_published_checkpoint(precision):
    # hugging-quants/Meta-Llama-3.1-8B-Instruct-AWQ-INT4 and -GPTQ-INT4 (group size 128, lm_head in fp16):
    # their safetensors total about 5.73 GB. Within 2 %.
    assert weight_breakdown(LLAMA3_8B, precision).total == pytest.approx(5.73e9, rel=0.02)


def test_nf4_with_double_quantisation_takes_4_127_bits():
    # QLoRA (Dettmers et al. 2023) sec. 3: blocks of 64 with an 8-bit absmax, 256 of those per fp32 scale,
    # "0.127 bits per parameter" on top of the 4; bitsandbytes skips lm_head and the embedding is no Linear.
    assert FORMATS["nf4"].bits == pytest.approx(4.127, abs=5e-4)
    matrices = LLAMA2_7B.stats.total_params - LLAMA2_7B.stats.embedding_and_head_params
    outside = LLAMA2_7B.stats.embedding_and_head_params
    assert weight_breakdown(LLAMA2_7B, "nf4").total == pytest.approx(matrices * 4.127 / 8 + outside * 2, rel=1e-4)


def test_nvfp4_takes_one_fp8_scale_per_16_values_and_keeps_the_head_in_16_bit():
    # NVIDIA, "Introducing NVFP4" (2025): E2M1 values, one E4M3 scale per 16, one FP32 per tensor = 4.5 bits;
    # ModelOpt's NVFP4 checkpoints exclude lm_head.
    assert FORMATS["nvfp4"].bits == 4 + 8 / 16
    weights = weight_breakdown(LLAMA3_8B, "nvfp4")
    assert weights.head == 2 * 128_256 * 4096


@pytest.mark.parametrize(("layers", "experts", "published_gib"), [(24, 32, 12.8), (36, 128, 60.8)])
def test_gpt_oss_in_mxfp4_is_its_published_checkpoint(layers, experts, published_gib):
    # gpt-oss model card (arXiv:2508.10925), Table 1: checkpoint 12.8 GiB (20b) and 60.8 GiB (120b); the
    # MoE weights in MXFP4 (32 values per E8M0 scale, 4.25 bits), everything else in bf16. Within 1 %.
    arch = _gpt_oss(layers, experts)
    weights = weight_breakdown(arch, "mxfp4")
    assert weights.total / GIB == pytest.approx(published_gib, rel=0.01)
    assert weights.routed_experts == pytest.approx(
        arch.stats.moe_layers * experts * arch.stats.expert_params * 4.25 / 8
    )
    assert weights.attention == pytest.approx(2 * arch.stats.attention_params)


def test_llama_cpp_quantised_kv_caches_take_their_blocks_bytes():
    # ggml-common.h: block_q8_0 is 34 bytes and block_q4_0 18 bytes for 32 values.
    assert bytes_per_element("q8_0") == 34 / 32 and bytes_per_element("q4_0") == 18 / 32
    bf16 = resolve(Scenario(model="llama-3.1-8b", kv_precision="bf16"), CATALOG)
    q8 = resolve(Scenario(model="llama-3.1-8b", kv_precision="q8_0"), CATALOG)
    ratio = (
        serving_context(q8, tp=1, pp=1, compute_key="bf16").kv_bytes_mean
        / serving_context(bf16, tp=1, pp=1, compute_key="bf16").kv_bytes_mean
    )
    assert ratio == pytest.approx(34 / 32 / 2)


@pytest.mark.parametrize(
    ("precision", "kv"),
    [("q4_k_m", "fp16"), ("q8_0", "fp16"), ("awq_int4", "fp16"), ("gptq_int4", "fp16"), ("nf4", "bf16"),
     ("mxfp4", "bf16"), ("nvfp4", "fp8")],
)  # fmt: skip
def test_each_format_gets_its_runtimes_default_kv_cache(precision, kv):
    # llama.cpp's F16 cache; AWQ/GPTQ kernels run in fp16; bitsandbytes and gpt-oss in bf16; NVFP4 recipes fp8.
    assert resolve(Scenario(precision=precision), CATALOG).kv_precision == kv


@pytest.mark.parametrize(
    ("gpu", "precision", "key", "warns"),
    [
        ("b200", "nvfp4", "fp4", False),
        ("b200", "mxfp4", "fp4", False),
        ("h100-sxm", "mxfp4", "bf16", True),  # no FP4 tensor cores before Blackwell
        ("h100-sxm", "q4_k_m", "bf16", False),  # dequantised to 16-bit by design
        ("h100-sxm", "awq_int4", "bf16", False),
        ("b200", "nf4", "bf16", False),
    ],
)
def test_fp4_formats_run_on_fp4_tensor_cores_and_the_others_dequantise(gpu, precision, key, warns):
    chosen, note = compute_precision(CATALOG.gpus[gpu], precision)
    assert chosen == key and (note is not None) == warns


def test_no_new_format_trains_every_weight():
    assert set(PRECISIONS) - UNTRAINABLE_PRECISIONS == {"fp32", "bf16", "fp16", "fp8", "fp4"}


def test_a_decode_step_reads_the_formats_bytes():
    # Llama 2 7B: q4_k_m reads 4.08 GB less the 0.07 GB Q4_K embedding, which no step multiplies.
    scenario = resolve(Scenario(model="llama-2-7b", precision="q4_k_m"), CATALOG)
    context = serving_context(scenario, tp=1, pp=1, compute_key="bf16")
    weights = weight_breakdown(LLAMA2_7B, "q4_k_m")
    assert context.dense_weight_bytes == pytest.approx(weights.total - weights.embedding - weights.norms)
    assert (
        context.dense_weight_bytes
        < 0.6
        * serving_context(
            resolve(Scenario(model="llama-2-7b", precision="q8_0"), CATALOG), tp=1, pp=1, compute_key="bf16"
        ).dense_weight_bytes
    )


def test_an_8b_model_in_q4_k_m_serves_from_one_24_gb_card_with_its_file_size_of_weights():
    result = estimate(Scenario(model="llama-3.1-8b", gpu="rtx-4090", cards=1, precision="q4_k_m", batch=1), CATALOG)
    assert result.inference.fits and result.inference.tp == 1
    assert result.inference.memory_per_gpu.weights == pytest.approx(4.58 * GIB, rel=5e-3)
