"""The method in one place: every formula the engine uses, with its source, and what is in force.

:data:`FORMULAS` lists each formula as the code computes it (the ``code`` field names the
function), where it is used and where it comes from; constants are read from the modules that
use them, so the text cannot drift from the code. :func:`assumptions` says, for one scenario,
which precision, peaks, efficiencies, layouts and prices the estimate actually used.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import NamedTuple

from model.catalog import Catalog, default_catalog
from model.efficiency import EXPECTED, OPTIMISTIC, PESSIMISTIC, Efficiencies
from model.estimate import estimate
from model.hardware import achievable_bandwidth, compute_precision, matmul_ceiling_share, peak_flops
from model.memory import FRAGMENTATION, LOGIT_BYTES, PREFILL_CHUNK_TOKENS, RUNTIME_BYTES, training_regime
from model.scenario import CHINCHILLA_TOKENS_PER_PARAM, DEFAULT_FINETUNE_TOKENS, DEFAULT_GLOBAL_BATCH_TOKENS, Scenario
from model.units import GB, TERA

__all__ = ["FORMULAS", "FORMULA_GROUPS", "Assumption", "Formula", "assumptions", "range_multipliers"]

E = EXPECTED


def _scientific(value: float) -> str:
    """Write a number as LaTeX scientific notation (1.2e10 becomes 1.2 times 10 to the 10)."""
    mantissa, exponent = f"{value:.1e}".split("e")
    return rf"{float(mantissa):g} \times 10^{{{int(exponent)}}}"


def _count(value: float) -> str:
    for scale, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M")):
        if value >= scale:
            return f"{value / scale:,.3g}{suffix}"
    return f"{value:,.0f}"


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


class Assumption(NamedTuple):
    """One assumption in force for a scenario: a name, the value used, and why or whence."""

    name: str
    value: str
    note: str
    kind: str = "scenario"
    """"scenario" (chosen or looked up for this scenario), "efficiency" (the expected set, the same
    for every scenario) or "range" (how the low-high ranges are made)."""


FORMULA_GROUPS: tuple[str, ...] = ("Model size", "Memory", "Training time", "Communication", "Serving", "Hardware")

_SIZE, _MEMORY, _TRAINING, _COMMS, _SERVING, _HARDWARE = FORMULA_GROUPS

FORMULAS: tuple[Formula, ...] = (
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
    # --- Training time ---
    Formula(
        "Tokens and steps",
        _TRAINING,
        rf"D = {CHINCHILLA_TOKENS_PER_PARAM:g}\,N \text{{ unless given}},\quad "
        rf"\text{{steps}} = D / B,\quad B = {DEFAULT_GLOBAL_BATCH_TOKENS / 1e6:g}\text{{M tokens}}",
        f"Pre-training budget when none is given; fine-tuning defaults to {_count(DEFAULT_FINETUNE_TOKENS)} tokens",
        "Chinchilla, Hoffmann et al. 2022, Table 3 (20 tokens per parameter); Llama 2 trained every size "
        "with 4M-token batches",
        "model.scenario.resolve",
    ),
    Formula(
        "Training FLOPs",
        _TRAINING,
        r"C = D\left(6 N_{mm} + 6 L\, n_q d\, s\right),\quad \text{MFU} = \frac{C}{T \cdot n_{gpu} \cdot P}",
        "N_mm: weights multiplied per token (active experts and LM head, not the embedding); causal "
        "attention over s/2 keys on average; recomputation FLOPs are not in the MFU numerator",
        "Kaplan et al. 2020, sec. 2.1 (6ND); PaLM, Chowdhery et al. 2022, App. B (attention 12LHQT, "
        "halved for causal masking) and its MFU definition",
        "model.training.training_work",
    ),
    Formula(
        "Matrix-product efficiency",
        _TRAINING,
        r"\eta(W) = c \cdot \frac{W}{W + W_0},"
        rf"\quad c_{{bf16}} = {E.matmul_ceiling['bf16']:g},"
        rf"\ W_{{0,bf16}} = {_scientific(E.matmul_half_work_flops['bf16'])},"
        rf"\ c_{{fp8}} = {E.matmul_ceiling['fp8']:g},\ W_{{0,fp8}} = {_scientific(E.matmul_half_work_flops['fp8'])}",
        f"W: FLOPs of one product per GPU; c: measured ceiling / peak where the catalog has one; training "
        f"products run at {E.training_matmul_vs_ceiling:g} of that",
        "H200 microbench 8192^3 (ceiling) and 4096^3 (W0) rows; stas00/ml-engineering MAMF; training "
        "factor calibrated on the published training-throughput set",
        "model.efficiency.matmul_efficiency",
    ),
    Formula(
        "Compute time of a step",
        _TRAINING,
        rf"T_c = \sum_i \frac{{F_i}}{{P\,\eta(W_i)\,r}}"
        rf" + \frac{{F_{{att}}}}{{P_{{16}}\,c\,{E.attention_vs_matmul:g}\,r}}"
        rf" + \frac{{{E.elementwise_traffic_factor:g}\,A}}{{B_{{ach}}}},\quad r = {E.training_matmul_vs_ceiling:g}",
        "Attention projections, MLP and LM head each at their own shape; flash-attention cores in 16-bit; "
        "element-wise work (norms, activations) streams A activation bytes",
        "FlashAttention-2, Dao 2023 (50-73 % of A100 peak); element-wise traffic factor: derived from "
        "unfused kernels reading and writing each tensor",
        "model.training.step_time",
    ),
    Formula(
        "Pipeline bubble",
        _TRAINING,
        r"T_{bubble} = \frac{p - 1}{m}\, T_c",
        "p pipeline stages, m micro-batches per step (1F1B schedule)",
        "Narayanan et al. 2021, 'Efficient Large-Scale Language Model Training', eq. 1",
        "model.training.step_time",
    ),
    Formula(
        "Optimizer update",
        _TRAINING,
        rf"T_{{opt}} = N_{{card}} \cdot {E.optimizer_bytes_per_param:g}\,\text{{B}} / B_{{ach}}",
        "AdamW reads fp32 weight, m, v and the gradient, writes weight, m, v and the 16-bit copy",
        "Derived: 4+4+4+2 bytes read, 4+4+4+2 written per parameter",
        "model.training.step_time",
    ),
    Formula(
        "Step and wall time",
        _TRAINING,
        r"T_{step} = T_c + T_{bubble} + T_{tp} + T_{dp} + T_{ep} + T_{pp} + T_{opt},"
        r"\quad T_{wall} = \text{steps}\cdot T_{step}\,(1 + \lambda\, n_{gpu}\, t_{lost})",
        f"Interruptions: λ = {E.failure_rate_per_gpu_hour:.3g} per GPU-hour, each losing "
        f"{E.hours_lost_per_failure:g} h (restart and recomputation since the last checkpoint)",
        "Llama 3 paper, Dubey et al. 2024, sec. 3.3.4: 419 interruptions in 54 days on 16,384 H100s, "
        "'higher than 90 % effective training time'",
        "model.training.wall_time",
    ),
    Formula(
        "Cost and energy",
        _TRAINING,
        r"\text{GPU-h} = T_{wall}\, n_{cards}/3600,\quad \$ = \text{GPU-h} \times \text{price},"
        r"\quad \text{kWh} = \text{GPU-h} \times \text{TDP} / 1000",
        "Every card of the scenario is billed, idle ones included; energy at board TDP (no host, no cooling)",
        "Derived definitions; prices and TDP from data/gpus.yaml (dated, sourced per row)",
        "model.estimate.estimate",
    ),
    # --- Communication ---
    Formula(
        "Collectives (alpha-beta model)",
        _COMMS,
        r"T_{AR} = \alpha + \frac{2(n-1)}{n}\frac{M}{B},\quad T_{AG} = T_{A2A} = \alpha + \frac{n-1}{n}\frac{M}{B},"
        r"\quad T_{p2p} = \alpha + \frac{M}{B}",
        f"B: link per direction × its measured efficiency, else {E.collective_bandwidth:g} (scale-up) or "
        f"{E.network_bandwidth:g} (network); a group across nodes gets min(B_up, k B_nic) and "
        "α_up + α_net log2(nodes)",
        "Thakur et al. 2005; NCCL performance docs; Calculon; nccl-tests efficiencies in data/interconnects.yaml",
        "model.communication.group_path",
    ),
    Formula(
        "Tensor-parallel all-reduces",
        _COMMS,
        r"T_{tp} = (1 - o_{tp}) \cdot 4 \left\lceil L/p \right\rceil m \cdot T_{AR}(2bsh),"
        rf"\quad o_{{tp}} = {E.tp_overlap:g}",
        "Four per layer per micro-batch in training (six with full recomputation); two per layer per decode "
        "step in serving",
        "Megatron-LM, Shoeybi et al. 2019, sec. 3",
        "model.training.step_time",
    ),
    Formula(
        "Data-parallel gradients",
        _COMMS,
        r"T_{dp} = \max\left(0,\ T_{AR}\!\left(\tfrac{2N}{t\,p}\right) - o_{dp}\cdot \tfrac{2}{3}\tfrac{T_c}{m}\right),"
        rf"\quad o_{{dp}} = {E.dp_overlap:g}",
        "Gradients reduced during the last backward pass; ZeRO-3 instead gathers weights twice and "
        "reduce-scatters gradients every micro-batch, hidden behind all compute",
        "PyTorch DDP bucketing, Li et al. 2020; ZeRO, Rajbhandari et al. 2020, sec. 7",
        "model.training.step_time",
    ),
    Formula(
        "Expert-parallel all-to-alls",
        _COMMS,
        rf"T_{{ep}} = (1 - {E.ep_overlap:g}) \cdot 4 L_{{moe}} m \cdot T_{{A2A}}(2bskh/t)",
        "Dispatch and combine, forward and backward, per MoE layer and micro-batch",
        "GShard, Lepikhin et al. 2020; DeepSpeed-MoE, Rajbhandari et al. 2022",
        "model.training.step_time",
    ),
    Formula(
        "Overlap is not free",
        _COMMS,
        rf"T_c \mathrel{{+}}= {E.overlap_interference:g} \times T_{{hidden}}",
        "Communication hidden behind compute still takes SMs and memory bandwidth from the products",
        "Published characterisations of all-reduce overlapped with GEMM: overlapped GEMMs run 10-30 % slower",
        "model.training.step_time",
    ),
    # --- Serving ---
    Formula(
        "Decode roofline (the ideal)",
        _SERVING,
        r"t_{ideal} = p \cdot \max\left(\frac{W_{read}/(t p) + b_\mu M_{kv}}{B_{peak}},"
        r"\ \frac{2 N_{mm} b_\mu}{t\,p\,P}\right),\quad b_\mu = b/p",
        "At batch 1 this is the seeds' rule: time per token ≈ bytes of weights read / memory bandwidth",
        "Roofline, Williams et al. 2009; seed article ai-infra-gpu-centric.zh.txt, 1.2",
        "model.inference.ideal_decode_step",
    ),
    Formula(
        "Decode step (expected)",
        _SERVING,
        r"t = p\left[\max\left(\frac{W_{read}}{B_w} + \frac{b_\mu M_{kv}}{B_{ach}},\ "
        r"\frac{2N_{mm}b_\mu}{t\,p\,P\,c}\right) + \frac{L}{p}\left(\tau + 2T_{AR}\right)\right] + (p-1)T_{p2p}",
        f"B_ach: measured or {E.memory_bandwidth:g} × peak; weight-only int8/int4/fp4 stream at "
        f"{E.dequant_bandwidth:g} of that; τ = {E.decode_layer_overhead_s * 1e6:g} µs per layer (launches, "
        "norms, sampling)",
        "H200 microbench weight streaming 0.84-0.88 of 4.8 TB/s; gpt-fast on A100 (~1700 of 2039 GB/s; "
        "int8 155.6 vs 104.9 tok/s)",
        "model.inference.decode_step",
    ),
    Formula(
        "Prefill and time to first token",
        _SERVING,
        r"T_{pre} = \max\left(\sum_i \frac{2 N_i T}{t\,p\,P\,c}\left(1 + \frac{W_0}{W_i}\right) + "
        r"\frac{F_{att}}{P_{16}c'},\ \frac{W_{read}}{B_w}\right) + \frac{L}{p}\tau \quad \text{per stage}",
        "T prompt tokens; one prompt passes p stages in turn, many fill the pipeline in 2p - 1 stage times; "
        "under load the first token also waits half a decode step",
        "Roofline with the matrix-product efficiency above; Sarathi-Serve, Agrawal et al. 2024",
        "model.inference.prefill_time",
    ),
    Formula(
        "Throughput under continuous batching",
        _SERVING,
        r"R = \frac{d \cdot b \cdot n_{out}}{T_{pre}(b) + n_{out}\, t},"
        r"\quad t_{user} = t + \frac{T_{pre}(b)\,(b-1)}{b\, n_{out}}",
        "A loaded server also prefills arriving requests: output tokens over prefill plus decode time, all d replicas",
        "Sarathi-Serve, Agrawal et al. 2024, sec. 2; DESIGN.md modelling principle 6",
        "model.estimate.estimate",
    ),
    Formula(
        "Price per million output tokens",
        _SERVING,
        r"\$/\text{M} = \frac{\text{price} \cdot n_{cards} / 3600}{R \cdot u} \times 10^6",
        "u: utilisation, the share of time the server is busy",
        "Derived definition",
        "model.estimate.estimate",
    ),
    # --- Hardware ---
    Formula(
        "Precision the products run in",
        _HARDWARE,
        r"\text{key} = \begin{cases} \text{fp8/fp4} & \text{if the chip has them} \\"
        r" \text{nearest 16-bit} & \text{otherwise, or for weight-only int8/int4} \end{cases}",
        "FP8 before Hopper/Ada, FP4 before Blackwell and BF16 on Volta fall back, with a warning",
        "Vendor datasheets (dense, not 2:4 sparse); GPTQ/AWQ/bitsandbytes dequantise to 16-bit",
        "model.hardware.compute_precision",
    ),
    Formula(
        "Achievable memory bandwidth",
        _HARDWARE,
        rf"B_{{ach}} = B_{{measured}} \text{{ if known, else }} {E.memory_bandwidth:g}\, B_{{peak}}",
        "Every memory-bound time: decode, element-wise work, optimizer update",
        "H200 microbench device copy 4254/4800 = 0.886; gpt-fast on A100 ~0.83",
        "model.hardware.achievable_bandwidth",
    ),
    Formula(
        "Choosing the layout",
        _HARDWARE,
        r"\min_{t \cdot p}\ \text{fits},\quad t \le \text{GPUs per node first},"
        r"\quad \text{ZeRO} \in \{1, 2, 3\} \text{ lowest that fits}",
        "Training: smallest tensor × pipeline group that fits, selective before full recomputation; "
        "serving: smallest replica holding weights and the batch",
        "Narayanan et al. 2021, sec. 3.3 ('tensor model parallelism ... up to degree g for g-GPU servers')",
        "model.parallelism.choose_training_layout",
    ),
    Formula(
        "Low-high ranges",
        _HARDWARE,
        r"[\text{low}, \text{high}] = \text{the figure under the optimistic and pessimistic efficiency sets}",
        "Compute, memory, link, overhead and overlap factors moved together (see the assumptions table)",
        "The spread of software stacks on the same hardware (model/efficiency.py)",
        "model.efficiency.OPTIMISTIC",
    ),
)


def range_multipliers(variant: Efficiencies) -> dict[str, float]:
    """Return how ``variant`` moves each family of efficiencies relative to the expected set."""
    return {
        "compute": variant.matmul_ceiling["bf16"] / E.matmul_ceiling["bf16"],
        "memory": variant.memory_bandwidth / E.memory_bandwidth,
        "links": variant.collective_bandwidth / E.collective_bandwidth,
        "overheads": variant.decode_layer_overhead_s / E.decode_layer_overhead_s,
        "overlap": variant.tp_overlap / E.tp_overlap,
    }


_EFFICIENCY_NOTES: dict[str, tuple[str, str]] = {
    "matmul_ceiling": (
        "Product ceiling by precision",
        "Share of dense peak a large product reaches where the GPU has no measured ceiling (H200 microbench 8192^3)",
    ),
    "matmul_half_work_flops": ("Product size at half ceiling (FLOPs)", "W0 of the efficiency curve (H200 4096^3 rows)"),
    "training_matmul_vs_ceiling": ("Training products vs ceiling", "Calibrated once on published training throughput"),
    "attention_vs_matmul": ("Flash attention vs products", "FlashAttention-2 paper: 50-73 % of A100 peak"),
    "memory_bandwidth": (
        "Memory bandwidth share",
        "Of peak HBM bandwidth where the GPU has no measured figure (H200 microbench 0.84-0.89)",
    ),
    "dequant_bandwidth": (
        "Weight-only quantised streaming",
        "int8/int4/fp4 weights stream slower than 16-bit (gpt-fast)",
    ),
    "decode_layer_overhead_s": ("Overhead per layer per step", "Kernel launches, norms, rotary, sampling"),
    "collective_bandwidth": (
        "Scale-up collective share",
        "Of a link's per-direction bandwidth without a measured figure (nccl-tests NVLink 0.78-0.83)",
    ),
    "network_bandwidth": ("Network collective share", "Of a NIC's line rate (AWS EFA: 340 of 400 Gb/s)"),
    "tp_overlap": ("Tensor-parallel overlap", "Share of TP all-reduce time hidden behind compute"),
    "dp_overlap": ("Data-parallel overlap", "Share of the backward window that hides gradient traffic"),
    "ep_overlap": ("Expert-parallel overlap", "Share of all-to-all time hidden behind compute"),
    "overlap_interference": ("Overlap interference", "Compute slowdown per second of hidden communication"),
    "elementwise_traffic_factor": (
        "Element-wise traffic factor",
        "Memory traffic of non-matrix work per stored activation byte",
    ),
    "failure_rate_per_gpu_hour": (
        "Interruptions per GPU-hour",
        "Llama 3 paper sec. 3.3.4: 419 in 54 days on 16,384 GPUs",
    ),
    "hours_lost_per_failure": ("Hours lost per interruption", "Keeps Llama 3's >90 % effective training time"),
    "optimizer_bytes_per_param": ("Optimizer bytes per parameter", "HBM traffic of one AdamW update"),
}


def _factor(name: str, value: float | Mapping[str, float]) -> str:
    if isinstance(value, Mapping):
        return ", ".join(f"{key} {number:g}" for key, number in value.items())
    if name.endswith("_s"):
        return f"{value * 1e6:g} µs"
    return f"{value:g}"


def _efficiency_rows() -> list[Assumption]:
    return [
        Assumption(label, _factor(field.name, getattr(E, field.name)), note, "efficiency")
        for field in fields(Efficiencies)
        for label, note in (_EFFICIENCY_NOTES.get(field.name, (field.name, "model/efficiency.py")),)
    ]


def _multipliers(variant: Efficiencies) -> str:
    return ", ".join(f"{name} ×{value:.3g}" for name, value in range_multipliers(variant).items())


def assumptions(scenario: Scenario, catalog: Catalog | None = None) -> tuple[Assumption, ...]:
    """Return what the estimate of ``scenario`` assumes: precision, peaks, efficiencies, layouts, prices.

    Raises:
        ScenarioError: the scenario is invalid.
    """
    catalog = catalog or default_catalog()
    result = estimate(scenario, catalog)
    r, s, training, serving = result.resolved, scenario, result.training, result.inference
    gpu = r.gpu
    key, fallback = compute_precision(gpu, r.precision)
    peak = peak_flops(gpu, key)
    share = matmul_ceiling_share(gpu, key)
    achievable = achievable_bandwidth(gpu, E)
    layout = training.parallelism
    lora = s.finetune in ("lora", "qlora")
    trained_in = "bf16" if r.precision in ("int8", "int4") and not lora else r.precision  # as the estimate does
    regime = training_regime(r.arch, trained_in, s.optimizer, s.finetune, s.lora_rank, s.master_weights)
    state_bytes = regime.weight_bytes + regime.grad_bytes + regime.optimizer_bytes
    if s.tokens is not None:
        tokens_note = "given"
    elif s.finetune != "none":
        tokens_note = "fine-tuning default"
    else:
        tokens_note = f"defaulted to {CHINCHILLA_TOKENS_PER_PARAM:g} per parameter (Chinchilla, Hoffmann et al. 2022)"
    price = r.price_per_gpu_hour
    if s.price_per_gpu_hour is not None:
        price_value, price_note = f"${price:,.2f} per GPU-hour", "given"
    elif price is not None:
        high = f"; high ${gpu.cloud_usd_per_gpu_hour_high:,.2f}" if gpu.cloud_usd_per_gpu_hour_high else ""
        price_value = f"${price:,.2f} per GPU-hour"
        dated = gpu.cloud_price_source
        if gpu.cloud_price_date not in dated:
            dated += f" ({gpu.cloud_price_date})"
        price_note = f"{dated}{high}"
    else:
        price_value, price_note = "none known", f"no dated cloud price for {gpu.name}: costs are not computed"
    up, net = r.scale_up, r.network
    rows = [
        Assumption(
            "Compute precision",
            f"{r.precision} → products in {key}" if key != r.precision else key,
            fallback
            or (
                f"Weight-only {r.precision}: weights are dequantised to {key} before each product"
                if key != r.precision
                else f"{gpu.name} runs {key} natively"
            ),
        ),
        Assumption(
            "Dense peak",
            f"{peak / TERA:,.1f} TFLOPS ({key})",
            f"Datasheet dense figure, no 2:4 sparsity; data/gpus.yaml row {gpu.id}",
        ),
        Assumption(
            "Matrix-product ceiling",
            f"{share:.0%} of peak (measured)" if share else f"{E.matmul_ceiling.get(key, 0.7):.0%} of peak (default)",
            f"Measured largest-product rate in the catalog for {key}"
            if share
            else f"No measured ceiling for {gpu.name} in {key}: the H200-measured share",
        ),
        Assumption(
            "Memory bandwidth",
            f"{achievable / GB:,.0f} of {gpu.memory_bandwidth_bytes_per_s / GB:,.0f} GB/s",
            "Measured in the catalog"
            if gpu.measured_bandwidth_bytes_per_s
            else f"No measurement: {E.memory_bandwidth:.0%} of the datasheet peak",
        ),
        Assumption(
            "Scale-up link",
            f"{up.name}: {up.bandwidth_bytes_per_s / GB:,.0f} GB/s per direction, {up.latency_s * 1e6:g} µs",
            f"{r.gpus_per_node} GPUs per node; collectives reach "
            + (
                f"{up.measured_efficiency:.0%} (measured)"
                if up.measured_efficiency
                else f"{E.collective_bandwidth:.0%}"
            ),
        ),
        Assumption(
            "Network",
            f"{net.name}: {net.bandwidth_bytes_per_s / GB:,.1f} GB/s per GPU, {net.latency_s * 1e6:g} µs",
            "Collectives reach "
            + (
                f"{net.measured_efficiency:.0%} (measured)" if net.measured_efficiency else f"{E.network_bandwidth:.0%}"
            ),
        ),
        Assumption(
            "Training layout",
            f"tp {layout.tp} × pp {layout.pp} × dp {layout.dp}"
            + (f" × ep {layout.ep}" if layout.ep > 1 else "")
            + f", ZeRO {layout.zero}, {training.recompute} recomputation",
            ("Fits" if training.fits else "Does not fit")
            + f": {training.microbatches} micro-batches of {training.micro_batch} × {training.seq_len:,} tokens per "
            "replica per step"
            + ("" if s.tp or s.pp or s.zero is not None else "; the smallest layout that fits, chosen automatically"),
        ),
        Assumption(
            "Training regime",
            f"{regime.label}, {s.optimizer}: {state_bytes:g} bytes per trained parameter",
            "Weights + gradients + optimizer state (with the fp32 master copy when there is one)",
        ),
        Assumption("Tokens trained", _count(r.tokens), tokens_note),
        Assumption(
            "Global batch",
            f"{training.global_batch:,} sequences ({training.global_batch * training.seq_len / 1e6:,.1f}M tokens)",
            "Given" if s.global_batch else f"Default {DEFAULT_GLOBAL_BATCH_TOKENS / 1e6:g}M tokens (Llama 2)",
        ),
        Assumption(
            "Serving replica",
            f"tp {serving.tp} × pp {serving.pp}, {serving.dp:,} replicas",
            ("Fits" if serving.fits else "Does not fit")
            + f"; full load: {serving.max_batch:,} sequences of {s.prompt_len:,} + {s.output_len:,} tokens per replica",
        ),
        Assumption(
            "KV-cache precision",
            r.kv_precision,
            "Given"
            if s.kv_precision
            else f"Default for {r.precision} weights: fp8/fp4 checkpoints keep an fp8 cache, int8/int4 a 16-bit one",
        ),
        Assumption(
            "Decode context",
            f"{s.prompt_len + s.output_len / 2:,.0f} tokens (mean)",
            "KV traffic at the mean context (prompt + output / 2); memory at the final context",
        ),
        Assumption("GPU price", price_value, price_note),
        Assumption("Utilisation", f"{s.utilization:.0%}", "Share of time a server is busy; divides the $ per token"),
        Assumption(
            "Power",
            f"{gpu.tdp_w:g} W per card" if gpu.tdp_w else "unknown",
            "Board TDP from the catalog; energy = GPU-hours × TDP",
        ),
        *_efficiency_rows(),
        Assumption(
            "Optimistic set", _multipliers(OPTIMISTIC), "Low end of every time, high end of every rate", "range"
        ),
        Assumption(
            "Pessimistic set", _multipliers(PESSIMISTIC), "High end of every time, low end of every rate", "range"
        ),
    ]
    return tuple(rows)
