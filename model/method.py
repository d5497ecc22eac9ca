"""The method in one place: every formula the engine uses, with its source.

:data:`FORMULAS` lists each formula as the code computes it (the ``code`` field names the
function), where it is used and where it comes from; constants are read from the modules that
use them, so the text cannot drift from the code. The model-size and memory formulas, the
:class:`Formula` record and :data:`FORMULA_GROUPS` are in :mod:`model.formulas`; the time ones
are here. What a given scenario assumes is :func:`model.assumptions.assumptions`.
"""

from __future__ import annotations

from model.efficiency import EXPECTED
from model.formulas import FORMULA_GROUPS, SIZE_AND_MEMORY_FORMULAS, Formula
from model.scenario import CHINCHILLA_TOKENS_PER_PARAM, DEFAULT_FINETUNE_TOKENS, DEFAULT_GLOBAL_BATCH_TOKENS
from model.units import format_count

__all__ = ["FORMULAS", "FORMULA_GROUPS", "Formula"]


def _scientific(value: float) -> str:
    """Write a number as LaTeX scientific notation (1.2e10 becomes 1.2 times 10 to the 10)."""
    mantissa, exponent = f"{value:.1e}".split("e")
    return rf"{float(mantissa):g} \times 10^{{{int(exponent)}}}"


_BATCH_TEX = f"{DEFAULT_GLOBAL_BATCH_TOKENS:,}".replace(",", "{,}")  # KaTeX spaces a bare comma
_TRAINING, _COMMS, _SERVING, _HARDWARE = FORMULA_GROUPS[2:]

FORMULAS: tuple[Formula, ...] = (
    *SIZE_AND_MEMORY_FORMULAS,
    # --- Training time ---
    Formula(
        "Tokens and steps",
        _TRAINING,
        rf"D = {CHINCHILLA_TOKENS_PER_PARAM:g}\,N \text{{ unless given}},\quad "
        rf"\text{{steps}} = D / B,\quad B = 2^{{22}} = {_BATCH_TEX}\text{{ tokens}}",
        "Pre-training budget when none is given; fine-tuning defaults to "
        f"{format_count(DEFAULT_FINETUNE_TOKENS)} tokens",
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
        rf"\quad c_{{bf16}} = {EXPECTED.matmul_ceiling['bf16']:g},"
        rf"\ W_{{0,bf16}} = {_scientific(EXPECTED.matmul_half_work_flops['bf16'])},"
        rf"\ c_{{fp8}} = {EXPECTED.matmul_ceiling['fp8']:g},"
        rf"\ W_{{0,fp8}} = {_scientific(EXPECTED.matmul_half_work_flops['fp8'])}",
        f"W: FLOPs of one product per GPU; c: measured ceiling / peak where the catalog has one; training "
        f"products run at {EXPECTED.training_matmul_vs_ceiling:g} of that",
        "H200 microbench 8192^3 (ceiling) and 4096^3 (W0) rows; stas00/ml-engineering MAMF; training "
        "factor calibrated on the published training-throughput set",
        "model.efficiency.matmul_efficiency",
    ),
    Formula(
        "Compute time of a step",
        _TRAINING,
        rf"T_c = \sum_i \frac{{F_i}}{{P\,\eta(W_i)\,r}}"
        rf" + \frac{{F_{{att}}}}{{P_{{16}}\,c\,{EXPECTED.attention_vs_matmul:g}\,r}}"
        rf" + \frac{{{EXPECTED.elementwise_traffic_factor:g}\,A}}{{B_{{ach}}}},"
        rf"\quad r = {EXPECTED.training_matmul_vs_ceiling:g}",
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
        rf"T_{{opt}} = N_{{card}} \cdot {EXPECTED.optimizer_bytes_per_param:g}\,\text{{B}} / B_{{ach}}",
        "AdamW reads fp32 weight, m, v and the gradient, writes weight, m, v and the 16-bit copy",
        "Derived: 4+4+4+2 bytes read, 4+4+4+2 written per parameter",
        "model.training.step_time",
    ),
    Formula(
        "Step and wall time",
        _TRAINING,
        r"T_{step} = T_c + T_{bubble} + T_{tp} + T_{dp} + T_{ep} + T_{pp} + T_{opt},"
        r"\quad T_{wall} = \text{steps}\cdot T_{step}\,(1 + \lambda\, n_{gpu}\, t_{lost})",
        f"Interruptions: λ = {EXPECTED.failure_rate_per_gpu_hour:.3g} per GPU-hour, each losing "
        f"{EXPECTED.hours_lost_per_failure:g} h (restart and recomputation since the last checkpoint)",
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
        f"B: link per direction × its measured efficiency, else {EXPECTED.collective_bandwidth:g} (scale-up) or "
        f"{EXPECTED.network_bandwidth:g} (network); a group across nodes gets min(B_up, k B_nic) and "
        "α_up + α_net log2(nodes)",
        "Thakur et al. 2005; NCCL performance docs; Calculon; nccl-tests efficiencies in data/interconnects.yaml",
        "model.communication.group_path",
    ),
    Formula(
        "Tensor-parallel all-reduces",
        _COMMS,
        r"T_{tp} = (1 - o_{tp}) \cdot 4 \left\lceil L/p \right\rceil m \cdot T_{AR}(2bsh),"
        rf"\quad o_{{tp}} = {EXPECTED.tp_overlap:g}",
        "Four per layer per micro-batch in training (six with full recomputation); two per layer per decode "
        "step in serving",
        "Megatron-LM, Shoeybi et al. 2019, sec. 3",
        "model.training.step_time",
    ),
    Formula(
        "Data-parallel gradients",
        _COMMS,
        r"T_{dp} = \max\left(0,\ T_{AR}\!\left(\tfrac{2N}{t\,p}\right) - o_{dp}\cdot \tfrac{2}{3}\tfrac{T_c}{m}\right),"
        rf"\quad o_{{dp}} = {EXPECTED.dp_overlap:g}",
        "Gradients reduced during the last backward pass; ZeRO-3 instead gathers weights twice and "
        "reduce-scatters gradients every micro-batch, hidden behind all compute",
        "PyTorch DDP bucketing, Li et al. 2020; ZeRO, Rajbhandari et al. 2020, sec. 7",
        "model.training.step_time",
    ),
    Formula(
        "Expert-parallel all-to-alls",
        _COMMS,
        rf"T_{{ep}} = (1 - {EXPECTED.ep_overlap:g}) \cdot 4 L_{{moe}} m \cdot T_{{A2A}}(2bskh/t)",
        "Dispatch and combine, forward and backward, per MoE layer and micro-batch",
        "GShard, Lepikhin et al. 2020; DeepSpeed-MoE, Rajbhandari et al. 2022",
        "model.training.step_time",
    ),
    Formula(
        "Overlap is not free",
        _COMMS,
        rf"T_c \mathrel{{+}}= {EXPECTED.overlap_interference:g} \times T_{{hidden}}",
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
        f"B_ach: measured or {EXPECTED.memory_bandwidth:g} × peak; weight-only int8/int4/fp4 stream at "
        f"{EXPECTED.dequant_bandwidth:g} of that; τ = {EXPECTED.decode_layer_overhead_s * 1e6:g} µs per layer "
        "(launches, "
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
        rf"B_{{ach}} = B_{{measured}} \text{{ if known, else }} {EXPECTED.memory_bandwidth:g}\, B_{{peak}}",
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
