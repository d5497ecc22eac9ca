"""The formula record, its groups, and the formulas for a model's size and memory.

:data:`model.method.FORMULAS` lists every formula the engine uses, these first; the time ones
(training, communication, serving, hardware) are in :mod:`model.method`, which re-exports
:class:`Formula` and :data:`FORMULA_GROUPS`. Each formula names the function that computes it
(its ``code`` field) and where it comes from; constants are read from the modules that use them.
"""

from __future__ import annotations

from dataclasses import dataclass

from model.memory import FRAGMENTATION, LOGIT_BYTES, PREFILL_CHUNK_TOKENS, RUNTIME_BYTES
from model.units import GB

__all__ = ["FORMULA_GROUPS", "SIZE_AND_MEMORY_FORMULAS", "Formula"]


@dataclass(frozen=True, slots=True)
class Formula:
    """One formula: its name, the equation (LaTeX), what it feeds, its source and its code."""

    name: str
    group: str
    latex: str
    used_for: str
    source: str
    code: str
    """Dotted path of the function (or module) that computes it."""


FORMULA_GROUPS: tuple[str, ...] = ("Model size", "Memory", "Training time", "Communication", "Serving", "Hardware")

_SIZE, _MEMORY = FORMULA_GROUPS[:2]

SIZE_AND_MEMORY_FORMULAS: tuple[Formula, ...] = (
    # --- Model size ---
    Formula(
        "Parameters of a dense decoder",
        _SIZE,
        r"N = \underbrace{Vh}_{\text{embedding}} + \underbrace{[\text{untied}]\,Vh}_{\text{LM head}}"
        r" + L\left(2h\,n_q d + 2h\,n_{kv} d + 2h\right) + L\,m\,h\,f, \quad m = 3\ \text{(SwiGLU)},\ 2\ \text{(GELU)}",
        "Weights, optimizer states, FLOPs; grouped-query attention shares n_kv key/value heads across n_q queries",
        "Layer shapes of the Hugging Face LlamaForCausalLM / GPT implementations; an untied LM head is "
        "counted (the mistake llm-analysis makes, reference/peer_tools.md 1.1); GQA: Ainslie et al. 2023",
        "model.architecture.Architecture",
    ),
    Formula(
        "Multi-head latent attention (MLA)",
        _SIZE,
        r"\begin{gathered} N_{att} = h r_q + r_q n (d_{nope}+d_{rope}) + h (r_{kv}+d_{rope})"
        r" + r_{kv} n (d_{nope}+d_v) + n d_v h \\ \text{cached per token and layer: } r_{kv} + d_{rope}"
        r" \end{gathered}",
        "DeepSeek-V3/R1 attention weights and their small KV cache (one latent, replicated on TP ranks)",
        "DeepSeek-V2, arXiv:2405.04434 sec. 2.1, eq. 9-10; DeepSeek-V3 config.json",
        "model.architecture.Architecture",
    ),
    Formula(
        "Mixture of experts: total, active and touched experts",
        _SIZE,
        r"N_{tot} \mathrel{+}= L_{moe}(E+S)\,m\,h\,f_e + L_{moe} h E,\quad N_{act}: E \to k,"
        r"\quad \mathbb{E}[\text{touched}] = E\left(1-(1-k/E)^{T}\right)",
        "Resident weights use all experts; FLOPs use the k active; decode reads the experts a batch of T "
        "tokens routes to",
        "Mixtral / DeepSeek-V3 Hugging Face configs; touched experts: derived for uniform routing "
        "(inference-sim #559 shows the cost of forgetting it)",
        "model.architecture.expected_experts_touched",
    ),
    Formula(
        "A model given only by its size",
        _SIZE,
        r"d = 128,\ n_q = h/128,\ n_{kv} = \gcd(n_q, 8),\ f \approx 3.5h,\ h/L \approx 128,"
        r"\ V = 128{,}256\ (\ge 2\text{B}) \text{ or } 32{,}000",
        "The custom-size slider: a Llama-3-style dense model whose layer count absorbs the rest",
        "Documented rule from the Llama 3 shapes (4096/32, 8192/80, 16384/126); Kaplan et al. 2020 find the "
        "loss flat in the aspect ratio",
        "model.architecture.derive_architecture",
    ),
    # --- Memory ---
    Formula(
        "Weights in memory",
        _MEMORY,
        r"M_w = N b_w;\quad \text{int8/int4/fp4: } (N - N_{emb} - N_{head})\,b_q + 2(N_{emb}+N_{head})",
        "Bytes per element: fp32 4, bf16/fp16 2, fp8/int8 1, int4/fp4 0.5625 (4.5 bits with block scales)",
        "Format definitions; llama.cpp Q4_0 (32 weights in 18 bytes), NVFP4 (one FP8 scale per 16 values); "
        "bitsandbytes/GPTQ/AWQ keep the LM head in 16-bit",
        "model.memory.inference_weight_bytes",
    ),
    Formula(
        "KV cache per sequence, per card",
        _MEMORY,
        r"M_{kv} = c \cdot 2 L\, n_{kv} d \cdot b_{kv} \,/\, (\min(t, n_{kv})\,p);"
        r"\quad \text{MLA: } c\,L\,(r_{kv}+d_{rope})\,b_{kv}/p;\quad c = \min(\text{context}, \text{window})",
        "Serving memory at the final context (prompt + output); decode traffic at the mean context "
        "(prompt + output / 2)",
        "K and V both cached per layer (Vaswani et al. 2017); GQA (Ainslie et al. 2023); MLA latent "
        "(DeepSeek-V2 eq. 9-10); peer_tools.md lists the tools that forget V or GQA",
        "model.memory.kv_bytes_per_sequence",
    ),
    Formula(
        "Training states and ZeRO",
        _MEMORY,
        r"M = \frac{N}{t\,p}\left(\frac{2}{z_3} + \frac{2}{z_2} + \frac{12}{z_1}\right),"
        r"\quad z_k = d \text{ if ZeRO stage} \ge k \text{ else } 1",
        "16 bytes per parameter for mixed-precision AdamW: bf16 weights 2, gradients 2, fp32 master 4, "
        "momentum 4, variance 4; 8-bit Adam 2+4, SGD 4+4, Adafactor ~0+4; experts also split over EP",
        "ZeRO, Rajbhandari et al. 2020, sec. 3.1 and 5; 8-bit optimizers, Dettmers et al. 2022; "
        "Adafactor, Shazeer & Stern 2018",
        "model.memory.training_memory",
    ),
    Formula(
        "LoRA and QLoRA",
        _MEMORY,
        r"N_{adapter} = r \sum_{\text{matrices}} (d_{in} + d_{out});"
        r"\quad \text{base frozen at 2 bytes (LoRA) or 4.5 bits (QLoRA)}",
        "Fine-tuning: gradients and optimizer states for the adapters only; FLOPs 4N + 6 N_adapter per token",
        "LoRA, Hu et al. 2021; QLoRA, Dettmers et al. 2023, sec. 4 (all linear layers adapted)",
        "model.memory.lora_params",
    ),
    Formula(
        "Activations stored for backward",
        _MEMORY,
        r"M_{act} = a\, b\, s \left\lceil L/p \right\rceil \min(p, m) / t + 4\, b\, s\, V / t,"
        r"\quad a = 4h + (2h + 2w_{qkv} + 2w_o) + (2h + 6f)",
        "Per token and layer at 16 bits with flash attention (a = 32h for GPT-3's shape); without flash "
        "attention add 2 n_q s; 1F1B keeps min(p, m) micro-batches in flight; logits in fp32",
        "Korthikanti et al. 2022, 'Reducing Activation Recomputation', sec. 4 (34h less 2h of dropout "
        "masks), sequence parallelism sec. 4.2.2",
        "model.memory.training_memory",
    ),
    Formula(
        "Activation recomputation",
        _MEMORY,
        r"\text{selective: } +F_{att}^{fwd};\quad \text{full: keep } 2h \text{ per token and layer},"
        r"\ +2N_{mm} + F_{att}^{fwd} \text{ per token}",
        "Chosen automatically: selective if anything fits, else full; full also repeats 2 TP all-reduces per layer",
        "Korthikanti et al. 2022, sec. 5",
        "model.parallelism.choose_training_layout",
    ),
    Formula(
        "Runtime and buffers",
        _MEMORY,
        rf"M_{{other}} = {RUNTIME_BYTES / GB:g}\,\text{{GB}} + {FRAGMENTATION * 100:g}\% \times M_{{states}}"
        r" + 2 \times \text{largest gathered unit (ZeRO-3)}",
        f"Serving adds one prefill chunk of {PREFILL_CHUNK_TOKENS:,} tokens' activations and "
        f"{LOGIT_BYTES:g}-byte logits per sequence",
        "PyTorch's CUDA context 0.3-0.8 GB, vLLM profiles ~1 GB non-torch memory on H100; chunk = vLLM "
        "max_num_batched_tokens; fragmentation: derived assumption",
        "model.memory.inference_memory",
    ),
    Formula(
        "Most concurrent sequences",
        _MEMORY,
        r"b_{max} = \left\lfloor \frac{C - M_w/(t p) - M_{runtime} - M_{chunk}}{M_{kv} + 4V/t} \right\rfloor",
        "Full load: the batch that fills the card's memory C",
        "Derived definition",
        "model.memory.max_batch_that_fits",
    ),
)
