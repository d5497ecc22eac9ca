"""Weight formats: the bits every tensor of a model takes in each precision, summed by what the engine reads.

A format is a bulk width (bits per weight of the layers' matrices, block scales included) plus a
rule for the tensors it keeps wider or narrower, and facts about running it: the tensor cores that
run it natively where a chip has them (else its weights are dequantised to 16-bit before each
product), whether every weight can be trained in it, whether low-rank adapters train on a frozen
base in it, and the KV-cache format its usual runtime defaults to. Four families:

- plain (fp32, bf16, fp16, fp8): every weight in the format (fp8 checkpoints such as DeepSeek-V3's
  quantise the layers; the engine counts the embedding and head in fp8 as well).
- weight-only (int8, int4, fp4, nvfp4, awq_int4, gptq_int4, nf4): the layers' matrices in the
  format, the embedding and LM head in 16-bit: bitsandbytes, AutoAWQ, GPTQ and NVIDIA ModelOpt
  quantise ``nn.Linear`` layers and skip ``lm_head`` (transformers' ``modules_to_not_convert``;
  ModelOpt's ``exclude_modules``). Norms and routers are counted at the bulk width (a 1e-4 share).
- experts (mxfp4): gpt-oss stores the routed experts' weights in MXFP4 and everything else in bf16
  (gpt-oss model card, arXiv:2508.10925, sec. 2: "MoE weights ... quantized to 4.25 bits per
  parameter"; llama.cpp's MXFP4_MOE mix likewise quantises only 3-D expert tensors). A dense model
  in MXFP4 keeps the weight-only rule.
- llama.cpp GGUF (q2_k ... q8_0): each tensor's ggml type is chosen by llama.cpp's
  ``llama_tensor_get_type_impl`` (ggml-org/llama.cpp src/llama-quant.cpp, read at commit
  007dbbf3fd17), transcribed in :func:`_gguf_type` for these mixes without an importance matrix;
  block sizes are ggml/src/ggml-common.h's ``block_*`` structs. 1-D tensors (norms, biases), the
  MoE router (``ffn_gate_inp``) and learned positions stay F32 (convert_hf_to_gguf.py,
  ``prepare_tensors``: "Some tensor types are always in float32").

Bits per weight of each format's bulk:

- ggml blocks (ggml-common.h): Q8_0 34 B / 32 weights = 8.5; Q6_K 210 B / 256 = 6.5625; Q5_K
  176 / 256 = 5.5; Q5_1 24 / 32 = 6; Q5_0 22 / 32 = 5.5; Q4_K 144 / 256 = 4.5; Q4_1 20 / 32 = 5;
  Q4_0 18 / 32 = 4.5; Q3_K 110 / 256 = 3.4375; Q2_K 84 / 256 = 2.625.
- int4: a generic 4-bit integer with one 16-bit scale per 32 weights (Q4_0's block): 4.5.
- int8: bitsandbytes LLM.int8() (Dettmers et al. 2022): int8 weights and one scale per output row,
  8 bits to within 1e-3; as ``bnb_int8`` it would be the same figure, so it is not a second id.
- fp4, nvfp4: NVFP4 keeps one FP8 (E4M3) scale per 16 FP4 values plus one FP32 per tensor: 4 +
  8 / 16 = 4.5 (NVIDIA, "Introducing NVFP4 for Efficient and Accurate Low-Precision Inference",
  2025). ``fp4`` is the engine's generic 4-bit float, trainable as before; ``nvfp4`` is the
  serving checkpoint ModelOpt exports, which is not trained in.
- mxfp4: 32 FP4 (E2M1) elements share one 8-bit E8M0 scale: 4 + 8 / 32 = 4.25 (OCP Microscaling
  Formats (MX) v1.0, sec. 5).
- awq_int4, gptq_int4: 4-bit weights with, per group of 128 input weights of each output channel,
  a 16-bit scale and a 4-bit zero point packed in int32: 4 + (16 + 4) / 128 = 4.15625 (AutoAWQ's
  GEMM ``WQLinear`` and AutoGPTQ's ``QuantLinear`` buffers ``qweight``, ``qzeros``, ``scales``; group
  size 128 is both tools' default and that of hugging-quants' *-AWQ-INT4 / *-GPTQ-INT4 repositories).
  GPTQ also stores ``g_idx``, one int32 per input channel of each matrix: 32 / rows more bits.
  The ids carry "int4" because GPTQ is also published at 3 and 8 bits, and so they read like the
  repositories that ship them and like int4/int8 beside them.
- nf4: bitsandbytes NF4 with QLoRA's double quantisation: 64 weights share an absmax quantised to
  8 bits, 256 of those share one fp32: 4 + 8 / 64 + 32 / (64 x 256) = 4.127 (Dettmers et al. 2023,
  "QLoRA", sec. 3, Double Quantization).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Final, Literal, NamedTuple

from model.architecture import Architecture

__all__ = [
    "FORMATS",
    "GGML_BITS",
    "GGUF_BASE_TYPES",
    "FormatFamily",
    "LayerWeights",
    "WeightBreakdown",
    "WeightFormat",
    "gguf_tensor_types",
    "layer_weights",
    "weight_breakdown",
]

FormatFamily = Literal["plain", "weight_only", "experts", "gguf"]

GGML_BITS: Final[dict[str, float]] = {
    "f32": 32.0,
    "f16": 16.0,
    "q8_0": 34 * 8 / 32,
    "q6_K": 210 * 8 / 256,
    "q5_1": 24 * 8 / 32,
    "q5_K": 176 * 8 / 256,
    "q5_0": 22 * 8 / 32,
    "q4_1": 20 * 8 / 32,
    "q4_K": 144 * 8 / 256,
    "q4_0": 18 * 8 / 32,
    "q3_K": 110 * 8 / 256,
    "q2_K": 84 * 8 / 256,
}
"""Bits per weight of each ggml type: the bytes of one block over the weights it holds (ggml-common.h)."""

_GGML_BLOCK: Final[dict[str, int]] = {
    "f32": 1, "f16": 1, "q8_0": 32, "q6_K": 256, "q5_1": 32, "q5_K": 256, "q5_0": 32,
    "q4_1": 32, "q4_K": 256, "q4_0": 32, "q3_K": 256, "q2_K": 256,
}  # fmt: skip
"""Weights per block (QK_K = 256 for the k-quants, 32 for the legacy ones): a row's length must divide by it."""

_GGML_FALLBACK: Final[dict[str, str]] = {"q2_K": "q4_0", "q3_K": "q4_0", "q4_K": "q5_0", "q5_K": "q5_1", "q6_K": "q8_0"}
"""The type a k-quant falls back to when a row's length is not a multiple of 256 (``tensor_type_fallback``)."""

GGUF_BASE_TYPES: Final[dict[str, str]] = {
    "q8_0": "q8_0",
    "q6_k": "q6_K",
    "q5_k_m": "q5_K",
    "q5_k_s": "q5_K",
    "q5_0": "q5_0",
    "q4_k_m": "q4_K",
    "q4_k_s": "q4_K",
    "q4_0": "q4_0",
    "q3_k_l": "q3_K",
    "q3_k_m": "q3_K",
    "q3_k_s": "q3_K",
    "q2_k": "q2_K",
}
"""Each llama.cpp file type's default tensor type (``llama_ftype_get_default_type``), by its llama-quantize name."""


@dataclass(frozen=True, slots=True)
class WeightFormat:
    """One precision as a format of stored weights: its widths and what runs it (see the module docstring)."""

    id: str
    family: FormatFamily
    bits: float
    """Bits per weight of the bulk: the layers' matrices (a GGUF mix's default type)."""
    native: str | None
    """Tensor cores that run it natively where a chip has them ('fp8', 'fp4'); None: 16-bit or wider products."""
    trainable: bool
    """Whether every weight can be trained in it (pre-training, full fine-tuning)."""
    adapter_base: bool
    """Whether LoRA adapters train on a frozen base stored in it (PEFT on bitsandbytes, GPTQ, AWQ)."""
    kv_default: str
    """The KV-cache format its usual runtime keeps by default."""


def _plain(format_id: str, bits: float, kv: str, native: str | None = None) -> WeightFormat:
    return WeightFormat(format_id, "plain", bits, native, trainable=True, adapter_base=False, kv_default=kv)


def _gguf(format_id: str) -> WeightFormat:
    # llama.cpp keeps an F16 KV cache unless told otherwise (common/common.h: cache_type_k = GGML_TYPE_F16);
    # transformers dequantises a GGUF file on load, so no trainer fine-tunes on a GGUF base.
    bits = GGML_BITS[GGUF_BASE_TYPES[format_id]]
    return WeightFormat(format_id, "gguf", bits, None, trainable=False, adapter_base=False, kv_default="fp16")


_AWQ_BITS = 4.0 + (16.0 + 4.0) / 128.0
_NF4_BITS = 4.0 + 8.0 / 64.0 + 32.0 / (64.0 * 256.0)

FORMATS: Final[dict[str, WeightFormat]] = {
    "fp32": _plain("fp32", 32.0, "fp32"),
    "bf16": _plain("bf16", 16.0, "bf16"),
    "fp16": _plain("fp16", 16.0, "fp16"),
    "fp8": _plain("fp8", 8.0, "fp8", native="fp8"),
    # Weight-only int8/int4 keep a 16-bit cache; fp8 and fp4 checkpoints an fp8 one (TensorRT-LLM and
    # vLLM FP8/NVFP4 recipes); fp4 trains (NVFP4 training recipes) and was a LoRA base before these formats.
    "int8": WeightFormat("int8", "weight_only", 8.0, None, trainable=False, adapter_base=True, kv_default="bf16"),
    "int4": WeightFormat("int4", "weight_only", 4.5, None, trainable=False, adapter_base=True, kv_default="bf16"),
    "fp4": WeightFormat("fp4", "weight_only", 4.5, "fp4", trainable=True, adapter_base=True, kv_default="fp8"),
    "nvfp4": WeightFormat("nvfp4", "weight_only", 4.5, "fp4", trainable=False, adapter_base=False, kv_default="fp8"),
    # gpt-oss is served with a bf16 cache (vLLM's "auto": the model's dtype); transformers dequantises
    # MXFP4 to bf16 to fine-tune it (Mxfp4Config(dequantize=True)), so it is no adapter base either.
    "mxfp4": WeightFormat("mxfp4", "experts", 4.25, "fp4", trainable=False, adapter_base=False, kv_default="bf16"),
    # AWQ and GPTQ kernels compute in fp16 (vLLM's AWQ supports float16 only), so the cache is fp16;
    # PEFT trains LoRA adapters on AWQ, GPTQ and bitsandbytes bases (PEFT docs, "Quantization").
    "awq_int4": WeightFormat(
        "awq_int4", "weight_only", _AWQ_BITS, None, trainable=False, adapter_base=True, kv_default="fp16"
    ),
    "gptq_int4": WeightFormat(
        "gptq_int4", "weight_only", _AWQ_BITS, None, trainable=False, adapter_base=True, kv_default="fp16"
    ),
    "nf4": WeightFormat("nf4", "weight_only", _NF4_BITS, None, trainable=False, adapter_base=True, kv_default="bf16"),
    **{format_id: _gguf(format_id) for format_id in GGUF_BASE_TYPES},
}
"""Every weight format, by precision id."""


class WeightBreakdown(NamedTuple):
    """The bytes of a model's weights in one format, by the parts the engine reads differently."""

    embedding: float
    """The input embedding and learned positions: looked up, never multiplied."""
    head: float
    """The LM head's matrix, read every decode step (the embedding's own bytes when the two are tied)."""
    attention: float
    dense_mlp: float
    """The MLPs of the layers that are not mixtures of experts."""
    shared_experts: float
    routed_experts: float
    """Every routed expert of every MoE layer: resident in full, read only where tokens go."""
    router: float
    norms: float
    tied: bool
    """Whether the head is the embedding's matrix (held once)."""

    @property
    def total(self) -> float:
        """Return the bytes held in memory: every part, the head once when it is tied to the embedding."""
        head = 0.0 if self.tied else self.head
        return (
            self.embedding + head + self.attention + self.dense_mlp + self.shared_experts
            + self.routed_experts + self.router + self.norms
        )  # fmt: skip

    @property
    def read_every_step(self) -> float:
        """Return the matrix bytes every decode step reads whatever the batch: all but the routed experts."""
        return self.attention + self.dense_mlp + self.shared_experts + self.router + self.head


class _Tensor(NamedTuple):
    """One stored tensor (or a layer's experts of one kind) as llama.cpp names and sizes it."""

    role: str
    """llama.cpp's tensor category: token_embd, output, attn_q, attn_k, attn_v, attn_output, ffn_gate,
    ffn_up, ffn_down, or 'other' (quantised at the default type), 'f32' (kept in F32)."""
    part: str
    """The :class:`WeightBreakdown` field it counts in."""
    params: float
    cols: int
    """Its rows' length (ggml's ne[0], the input dimension); 0 for a 1-D tensor."""
    copies: int = 1
    """Matrices stacked in it (a MoE layer's experts of one kind)."""
    layer: int = -1


def _layer_tensors(a: Architecture, layer: int) -> list[_Tensor]:
    """Return one layer's tensors; their parameters add up to ArchitectureStats' counts for the layer."""
    h = a.hidden
    out: list[_Tensor] = []
    if a.attention == "mla":
        qk_dim = a.qk_nope_head_dim + a.qk_rope_head_dim
        kv_b_width = a.qk_nope_head_dim + a.v_head_dim
        if a.q_lora_rank:
            out += [
                _Tensor("other", "attention", h * a.q_lora_rank, h),
                _Tensor("f32", "attention", a.q_lora_rank, 0),
                _Tensor("other", "attention", a.q_lora_rank * a.heads * qk_dim, a.q_lora_rank),
            ]
        else:
            out.append(_Tensor("attn_q", "attention", h * a.heads * qk_dim, h))
        out += [
            _Tensor("other", "attention", h * (a.kv_lora_rank + a.qk_rope_head_dim), h),
            _Tensor("f32", "attention", a.kv_lora_rank, 0),
            # attn_kv_b: llama.cpp counts it with attn_v (category_is_attn_v: ATTENTION_KV_B).
            _Tensor("attn_v", "attention", a.kv_lora_rank * a.heads * kv_b_width, a.kv_lora_rank),
            _Tensor("attn_output", "attention", a.heads * a.v_head_dim * h, a.heads * a.v_head_dim),
        ]
    else:
        q_width = a.heads * a.effective_head_dim
        kv_dim = a.kv_heads * a.effective_head_dim
        out += [
            _Tensor("attn_q", "attention", h * q_width, h),
            _Tensor("attn_k", "attention", h * kv_dim, h),
            _Tensor("attn_v", "attention", h * kv_dim, h),
            _Tensor("attn_output", "attention", q_width * h, q_width),
        ]
        if a.qkv_bias:
            out.append(_Tensor("f32", "attention", q_width + 2 * kv_dim, 0))
    norm_per_vector = 1 if a.norm == "rms" else 2
    out.append(_Tensor("f32", "norms", 2 * norm_per_vector * h, 0))
    if not (a.is_moe and layer >= a.dense_layers):  # the first dense_layers are dense (DeepSeek-V3)
        out += _mlp(a, a.ffn, 1, "dense_mlp")
        return out
    out.append(_Tensor("f32", "router", h * a.experts, h))
    out += _mlp(a, a.expert_ffn, a.experts, "routed_experts")
    if a.shared_experts:
        out += _mlp(a, a.expert_ffn, a.shared_experts, "shared_experts")
    return out


def _mlp(a: Architecture, width: int, copies: int, part: str) -> list[_Tensor]:
    """Return an MLP's matrices (gate, up, down; a plain MLP has no gate), ``copies`` of them stacked."""
    h = a.hidden
    matrices = [
        _Tensor("ffn_up", part, copies * h * width, h, copies),
        _Tensor("ffn_down", part, copies * width * h, width, copies),
    ]
    if a.mlp == "gated":
        matrices.insert(0, _Tensor("ffn_gate", part, copies * h * width, h, copies))
    return matrices


def _tensors(a: Architecture) -> list[_Tensor]:
    """Return every tensor of ``a``: embedding, layers, final norm, and the head when it is not tied."""
    h = a.hidden
    out = [_Tensor("token_embd", "embedding", a.vocab * h, h)]
    if a.position_embeddings:
        out.append(_Tensor("f32", "embedding", a.position_embeddings * h, 0))
    for layer in range(a.layers):
        out += [t._replace(layer=layer) for t in _layer_tensors(a, layer)]
    out.append(_Tensor("f32", "norms", (1 if a.norm == "rms" else 2) * h, 0))
    if not a.tied_embeddings:
        out.append(_Tensor("output", "head", a.vocab * h, h))
    return out


# --------------------------------------------------------------------------------------------------
# llama.cpp's mixes


def _use_more_bits(i: int, n: int) -> bool:
    """llama.cpp's ``use_more_bits``: the first and last eighth of the layers and every third between."""
    return i < n // 8 or i >= 7 * n // 8 or (i - n // 8) % 3 == 2


def _gguf_type(ftype: str, base: str, t: _Tensor, a: Architecture) -> str:
    """Return the ggml type llama.cpp gives tensor ``t`` in file type ``ftype`` (default type ``base``).

    A transcription of ``llama_tensor_get_type_impl`` (src/llama-quant.cpp) for the k-quant and legacy
    mixes without an importance matrix. Its counters of attn_v tensors and the ffn_down layer index are
    the layer index here (one attn_v per layer; a MoE's ffn_down tensors carry their layer). Falcon's
    own branches are left out (no Falcon in the catalog). llama.cpp names a dense 80-layer model with
    grouped-query attention "70B" (llama-model.cpp, ``load_hparams``: LLaMA and Qwen2), which widens attn_v.
    """
    n, i = a.layers, t.layer
    if t.role == "output" or (t.role == "token_embd" and a.tied_embeddings):
        if t.cols % _GGML_BLOCK[base]:
            return "q8_0"
        return base if base == "q8_0" else "q6_K"
    if t.role == "attn_v":
        new = base
        if ftype == "q2_k":
            new = "q4_K" if a.heads >= 4 * a.kv_heads else "q3_K"
        elif ftype == "q3_k_m":
            new = "q5_K" if i < 2 else "q4_K"
        elif ftype == "q3_k_l":
            new = "q5_K"
        elif ftype in ("q4_k_m", "q5_k_m") and _use_more_bits(i, n):
            new = "q6_K"
        elif ftype == "q4_k_s" and i < 4:
            new = "q5_K"
        if not a.is_moe and n == 80 and a.kv_heads < a.heads and new in ("q3_K", "q4_K"):
            new = "q5_K"
        return "q8_0" if a.experts == 8 else new
    if t.role == "attn_k":
        return "q8_0" if a.experts == 8 else base
    if t.role == "ffn_down":
        if ftype == "q2_k":
            return "q3_K"
        if ftype == "q3_k_m":
            return "q5_K" if i < n // 16 else "q4_K"
        if ftype == "q3_k_l":
            return "q5_K"
        if ftype in ("q4_k_m", "q5_k_m"):
            return "q6_K" if _use_more_bits(i, n) else base
        if ftype == "q4_k_s" and i < n // 8:
            return "q5_K"
        return base
    if t.role == "attn_output":
        if a.experts == 8:
            return "q5_K" if ftype in ("q2_k", "q3_k_s", "q3_k_m", "q4_k_s", "q4_k_m") else base
        return {"q2_k": "q3_K", "q3_k_m": "q4_K", "q3_k_l": "q5_K"}.get(ftype, base)
    return base


def _gguf_fallback(ggml_type: str, cols: int) -> str:
    """Return the type a row of ``cols`` weights can take: llama.cpp's ``tensor_type_fallback``."""
    if cols % _GGML_BLOCK[ggml_type]:
        ggml_type = _GGML_FALLBACK.get(ggml_type, ggml_type)
        if cols % _GGML_BLOCK[ggml_type]:
            ggml_type = "f16"
    return ggml_type


def _gguf_typed(a: Architecture, precision: str) -> list[tuple[_Tensor, str]]:
    """Return every tensor of ``a`` with the ggml type llama.cpp stores it in for file type ``precision``."""
    base = GGUF_BASE_TYPES[precision]

    def ggml_type(t: _Tensor) -> str:
        return "f32" if t.role == "f32" else _gguf_fallback(_gguf_type(precision, base, t, a), t.cols)

    return [(t, ggml_type(t)) for t in _tensors(a)]


def gguf_tensor_types(a: Architecture, precision: str) -> list[tuple[str, int, str, float]]:
    """Return (role, layer, ggml type, parameters) for every tensor of ``a`` in GGUF file type ``precision``.

    The layer is -1 outside the layers; a MoE layer's experts of one kind are one row, as GGUF stacks them.

    Raises:
        KeyError: ``precision`` is not a llama.cpp file type.
    """
    return [(t.role, t.layer, ggml_type, t.params) for t, ggml_type in _gguf_typed(a, precision)]


# --------------------------------------------------------------------------------------------------
# Bits per tensor, summed


def _bits(fmt: WeightFormat, t: _Tensor, a: Architecture) -> float:
    """Return the bits per weight of tensor ``t`` in a format that is not GGUF."""
    if fmt.family == "plain":
        return fmt.bits
    if t.part in ("embedding", "head"):
        return 16.0
    if fmt.family == "experts" and a.is_moe and t.part != "routed_experts":
        return 16.0
    if fmt.id == "gptq_int4" and t.cols:
        return fmt.bits + 32.0 * t.cols * t.copies / t.params  # g_idx: one int32 per input channel of each matrix
    return fmt.bits


def _sized(a: Architecture, precision: str) -> list[tuple[_Tensor, float]]:
    """Return every tensor of ``a`` with its bytes in ``precision``: parameters x bits / 8 (the module docstring)."""
    fmt = FORMATS[precision]
    typed = _gguf_typed(a, precision) if fmt.family == "gguf" else [(t, "") for t in _tensors(a)]
    return [(t, t.params * (GGML_BITS[ggml_type] if ggml_type else _bits(fmt, t, a)) / 8.0) for t, ggml_type in typed]


# Asked for every estimate; few distinct (architecture, precision) pairs, and the architecture hashes once.
@functools.lru_cache(maxsize=1024)
def weight_breakdown(a: Architecture, precision: str) -> WeightBreakdown:
    """Return the bytes of ``a``'s weights stored in ``precision``, by part.

    Bytes = sum over tensors of parameters x bits / 8, each tensor's bits set by its format's rule (the
    module docstring). A tied head is the embedding's matrix: read every step, held once.

    Raises:
        KeyError: ``precision`` is not a weight format.
    """
    parts = dict.fromkeys(WeightBreakdown._fields[:-1], 0.0)
    for t, size in _sized(a, precision):
        parts[t.part] += size
        if t.role == "token_embd" and a.tied_embeddings:
            parts["head"] = size
    return WeightBreakdown(tied=a.tied_embeddings, **parts)


class LayerWeights(NamedTuple):
    """A model's weights in one format layer by layer, as a runner that splits it by layer places them.

    llama.cpp's ``-ngl`` keeps whole layers on a device and ``--n-cpu-moe`` a layer's routed experts
    in host memory, so a split is counted in these units; a llama.cpp mix widens some layers (Q6_K
    ffn_down in the first and last eighth), which the per-layer bytes keep.
    """

    dense: tuple[float, ...]
    """Per layer, what every step reads: attention, the dense MLP or shared experts, router, norms."""
    experts: tuple[float, ...]
    """Per layer, its routed experts, all of them (0 in a dense layer)."""
    dense_params: tuple[float, ...]
    """Per layer, the parameters every token multiplies (less the routed experts)."""
    expert_params: tuple[float, ...]
    """Per layer, one routed expert's parameters times the experts a token is routed to (0: dense)."""
    embedding: float
    """The input embedding (and learned positions): looked up a row at a time, never multiplied."""
    output: float
    """The final norm and the LM head: the embedding's matrix again when they are tied, since llama.cpp
    keeps a copy of it on the output's device (``TENSOR_DUPLICATED``)."""
    head_params: float
    """The LM head's parameters, multiplied by every token."""


@functools.lru_cache(maxsize=256)
def layer_weights(a: Architecture, precision: str) -> LayerWeights:
    """Return ``a``'s weights in ``precision`` layer by layer (the same tensors :func:`weight_breakdown` sums).

    Raises:
        KeyError: ``precision`` is not a weight format.
    """
    dense, experts = [0.0] * a.layers, [0.0] * a.layers
    dense_params, expert_params = [0.0] * a.layers, [0.0] * a.layers
    embedding = output = head_params = 0.0
    for t, size in _sized(a, precision):
        if t.layer >= 0 and t.part == "routed_experts":
            experts[t.layer] += size
            expert_params[t.layer] += t.params * a.active_experts / max(a.experts, 1)
        elif t.layer >= 0:
            dense[t.layer] += size
            dense_params[t.layer] += t.params
        elif t.part == "embedding":
            embedding += size
            if t.role == "token_embd" and a.tied_embeddings:
                output += size
                head_params = t.params
        else:
            output += size
            if t.part == "head":
                head_params = t.params
    return LayerWeights(
        tuple(dense), tuple(experts), tuple(dense_params), tuple(expert_params), embedding, output, head_params
    )
