"""Every formula the engine uses, with its source: the one table the Method page shows.

Each :class:`~model.explain.Formula` names the function that computes it (its ``code`` field),
where it is used and where it comes from; constants are read from the modules that use them, so
the text cannot drift from the code. What a given scenario assumes is :func:`model.explain.assumptions`.
"""

from __future__ import annotations

from model.batch import BATCH_AT_70B_TOKENS, TOKENS_PER_GPU_FLOOR
from model.communication import RING_STEP_LATENCY_S
from model.efficiency import EXPECTED
from model.explain._formula import Formula, figured, filed, scientific
from model.explain._serving import SERVING
from model.inference import SERVING_MEMORY_FRACTION
from model.memory import FRAGMENTATION, LOGIT_BYTES, PREFILL_CHUNK_TOKENS, RUNTIME_BYTES
from model.scenario import CHINCHILLA_TOKENS_PER_PARAM, DEFAULT_FINETUNE_TOKENS
from model.units import GB, format_count

__all__ = ["FORMULAS"]


_BATCH_TEX = f"{BATCH_AT_70B_TOKENS / 2**20:g}\\text{{M}}"

_TABLE: tuple[str | Formula, ...] = (
    "Model size",
    Formula(
        "Parameters of a dense decoder",
        r"\begin{gathered} N = \underbrace{Vh}_{\text{embedding}} + \underbrace{[\text{untied}]\,Vh}_{\text{LM head}}"
        r" + L\left(2h\,n_q d + 2h\,n_{kv} d + 2h\right) + L\,m\,h\,f \\ m = 3\ \text{(SwiGLU)},\ 2\ \text{(GELU)}"
        r" \end{gathered}",
        "Weights, optimizer states, FLOPs; grouped-query attention shares n_kv key/value heads across n_q queries",
        "Layer shapes of the Hugging Face LlamaForCausalLM / GPT implementations; an untied LM head is "
        "counted (the mistake llm-analysis makes, docs/reference/peer_tools.md 1.1); GQA: Ainslie et al. 2023",
        "model.architecture.Architecture",
    ),
    Formula(
        "Multi-head latent attention (MLA)",
        r"\begin{gathered} N_{att} = h r_q + r_q n (d_{nope}+d_{rope}) + h (r_{kv}+d_{rope})"
        r" + r_{kv} n (d_{nope}+d_v) + n d_v h \\ \text{cached per token and layer: } r_{kv} + d_{rope} \end{gathered}",
        "DeepSeek-V3/R1 attention weights and their small KV cache (one latent, replicated on TP ranks)",
        "DeepSeek-V2, arXiv:2405.04434 sec. 2.1, eq. 9-10; DeepSeek-V3 config.json",
        "model.architecture.Architecture",
    ),
    Formula(
        "Mixture of experts: total, active and touched experts",
        r"N_{tot} \mathrel{+}= L_{moe}(E+S)\,m\,h\,f_e + L_{moe} h E,\quad N_{act}: E \to k,"
        r"\quad \mathbb{E}[\text{touched}] = E\left(1-(1-k/E)^{T}\right)",
        "Resident weights use all experts; FLOPs the k active; decode reads the experts T tokens route to",
        "Mixtral / DeepSeek-V3 Hugging Face configs; touched experts: derived for uniform routing (inference-sim #559)",
        "model.inference.expected_experts_touched",
    ),
    Formula(
        "A model given only by its size",
        r"d = 128,\ n_q = h/128,\ n_{kv} = \gcd(n_q, 8),\ f \approx 3.5h,\ h/L \approx 128,"
        r"\ V = 128{,}256\ (\ge 2\text{B}) \text{ or } 32{,}000",
        "The custom-size slider: a Llama-3-style dense model whose layer count absorbs the rest",
        "Llama 3 shapes (4096/32, 8192/80, 16384/126); Kaplan et al. 2020: loss flat in the aspect ratio",
        "model.catalog.derived.derive_architecture",
    ),
    "Memory",
    Formula(
        "Weights in memory",
        r"M_w = N b_w;\quad \text{int8/int4/fp4: } (N - N_{emb} - N_{head})\,b_q + 2(N_{emb}+N_{head})",
        "Bytes per element: fp32 4, bf16/fp16 2, fp8/int8 1, int4/fp4 0.5625 (4.5 bits with block scales)",
        "Format definitions; llama.cpp Q4_0 (32 weights in 18 bytes), NVFP4 (one FP8 scale per 16 values); "
        "bitsandbytes/GPTQ/AWQ keep the LM head in 16-bit",
        "model.inference.inference_weight_bytes",
    ),
    Formula(
        "KV cache per sequence, per card",
        r"\begin{gathered} M_{kv} = c \cdot 2 L\, n_{kv} d \cdot b_{kv} \,/\, (\min(t, n_{kv})\,p);"
        r"\quad \text{MLA: } c\,L\,(r_{kv}+d_{rope})\,b_{kv}/p \\ c = \min(\text{context}, \text{window})"
        r" \end{gathered}",
        "Serving memory at the final context (prompt + output); decode traffic at prompt + output / 2",
        "K and V both cached per layer (Vaswani et al. 2017); GQA (Ainslie et al. 2023); MLA latent "
        "(DeepSeek-V2 eq. 9-10); docs/reference/peer_tools.md: tools that forget V or GQA",
        "model.inference.kv_bytes_per_sequence",
    ),
    Formula(
        "Training states and ZeRO",
        r"M = \frac{N}{t\,p}\left(\frac{2}{z_3} + \frac{2}{z_2} + \frac{12}{z_1}\right),"
        r"\quad z_k = d \text{ if ZeRO stage} \ge k \text{ else } 1",
        "16 bytes per parameter for mixed-precision AdamW: bf16 weights 2, gradients 2, fp32 master 4, "
        "momentum 4, variance 4; 8-bit Adam 2+4, SGD 4+4, Adafactor ~0+4; experts also split over EP",
        "ZeRO, Rajbhandari et al. 2020, sec. 3.1, 5; 8-bit Adam, Dettmers et al. 2022; Shazeer & Stern 2018",
        "model.memory.training_memory",
    ),
    Formula(
        "LoRA and QLoRA",
        r"N_{adapter} = r \sum_{\text{matrices}} (d_{in} + d_{out});"
        r"\quad \text{base frozen at 2 bytes (LoRA) or 4.5 bits (QLoRA)}",
        "Fine-tuning: gradients and optimizer states for the adapters only; FLOPs 4N + 6 N_adapter per token",
        "LoRA, Hu et al. 2021; QLoRA, Dettmers et al. 2023, sec. 4 (all linear layers adapted)",
        "model.memory.lora_params",
    ),
    Formula(
        "Activations stored for backward",
        r"M_{act} = a\, b\, s \left\lceil L/p \right\rceil \min(p, m) / t + 4\, b\, s\, V / t,"
        r"\quad a = 4h + (2h + 2w_{qkv} + 2w_o) + (2h + 6f)",
        "Per token and layer at 16 bits with flash attention (a = 32h for GPT-3's shape); a mixture-of-experts "
        "MLP keeps 2h + 4E for the router and 2h + 6f_e for each of its k routed copies (each expert keeps its "
        "own permuted input); without flash attention add 2 n_q s; 1F1B keeps min(p, m) micro-batches in "
        "flight, interleaving 1 + (p-1)/(pv) times more; "
        "full recomputation of k of a stage's layers keeps only those layers' inputs (2h)",
        "Korthikanti et al. 2022, sec. 4 (34h less 2h of dropout masks), 4.2.2 (sequence parallel), 4.2.3; "
        "routed copies: Megatron-Core's grouped experts take permuted_local_hidden_states [tokens x k, h]",
        "model.memory.training_memory",
    ),
    Formula(
        "Activation recomputation",
        r"\begin{gathered} \text{selective: } +F_{att}^{fwd} \text{ (no flash), or keep } 4h + \tfrac{1}{2} a_{mm},"
        r"\ +N_{layers} \text{ (flash)} \\ \text{full: keep } 2h \text{ per token and layer},\ +2N_{mm} + F_{att}^{fwd}"
        r" \end{gathered}",
        "Without flash attention selective recomputation reruns the attention core; with it (whose kernel "
        "already does) it keeps the layer input, the attention output and every second product's output "
        "(a_mm: the products' outputs) and reruns the rest. The layout search weighs both; full also repeats "
        "2 TP all-reduces per layer",
        "Korthikanti et al. 2022, sec. 5; torchtitan's op-level activation checkpointing policy",
        "model.layouts.training.search_training_layout",
    ),
    figured(
        "Runtime and buffers",
        rf"M_{{other}} = {RUNTIME_BYTES / GB:g}\,\text{{GB}} + {FRAGMENTATION * 100:g}\% \times M_{{states}}"
        r" + 2 \times \text{largest gathered unit (ZeRO-3)}",
        "Serving adds one prefill chunk of {chunk} tokens' activations and {logit}-byte logits per sequence",
        "PyTorch's CUDA context 0.3-0.8 GB, vLLM profiles ~1 GB non-torch memory on H100; chunk = vLLM "
        "max_num_batched_tokens; fragmentation: derived assumption",
        "model.inference.inference_memory",
        chunk=f"{PREFILL_CHUNK_TOKENS:,}",
        logit=f"{LOGIT_BYTES:g}",
    ),
    figured(
        "Most concurrent sequences",
        r"b_{max} = \left\lfloor \frac{f C - M_w/(t p) - M_{runtime} - M_{chunk}}{M_{kv} + 4V/t} \right\rfloor",
        "Full load: the batch that fills the share f = {fraction} of the card's memory C a serving engine "
        "budgets; C is what the driver reports less what it keeps. A replica the engine chooses must also "
        "hold the asked batch within f C while any does: one that needs more does not start with the "
        "server's defaults",
        "vLLM gpu_memory_utilization and TensorRT-LLM free_gpu_memory_fraction (both 0.9 by default); "
        "C: nvidia-smi totals in data/gpus.yaml",
        "model.inference.max_batch_that_fits",
        fraction=f"{SERVING_MEMORY_FRACTION:g}",
    ),
    "Training time",
    figured(
        "Tokens and steps",
        rf"D = {CHINCHILLA_TOKENS_PER_PARAM:g}\,N,\ \text{{steps}} = \frac{{D}}{{B}},\ B = \min\left(\max\left("
        rf"{_BATCH_TEX}\left(\tfrac{{N}}{{70\text{{B}}}}\right)^{{1/3}},\ {TOKENS_PER_GPU_FLOOR}\,n_{{gpu}}\right),"
        r"\ B_{crit}(N, D)\right)",
        "Tokens when none are given (fine-tuning: {tokens}); tokens per step when no batch is given: grows with "
        "the model and the cluster, capped at the critical batch",
        "Chinchilla Table 3; GPT-3 Table 2.1 (0.5M to 3.2M tokens), Llama 1-2 (4M), Llama 3 405B (16M on 8,192 "
        "GPUs, Table 4), DeepSeek-V3 (3,072 rising to 15,360 sequences of 4K), Megatron-LM (1T: 3,072 sequences of "
        "2K on 3,072 GPUs, Narayanan et al. 2021 Table 1), MegaScale (6,144 sequences on 12,288 GPUs); "
        "B_crit: Kaplan et al. 2020, eq. 5.3 and 1.5",
        "model.batch.default_global_batch",
        tokens=format_count(DEFAULT_FINETUNE_TOKENS),
    ),
    Formula(
        "Training FLOPs",
        r"C = D\left(6 N_{mm} + 6 L\, n_q d\, s\right),\quad \text{MFU} = \frac{C}{T \cdot n_{gpu} \cdot P}",
        "N_mm: weights multiplied per token (active experts and LM head, not the embedding); causal "
        "attention over s/2 keys on average; full recomputation of k of a stage's L/p layers adds k p / L of a "
        "forward pass, which is not in the MFU numerator",
        "Kaplan et al. 2020, sec. 2.1 (6ND); PaLM, Chowdhery et al. 2022, App. B (12LHQT, halved: causal) and MFU",
        "model.training.training_work",
    ),
    figured(
        "Matrix-product efficiency",
        r"\eta(W) = c \cdot \frac{W}{W + W_0},"
        rf"\quad c_{{bf16}} = {EXPECTED.matmul_ceiling['bf16']:g},"
        rf"\ W_{{0,bf16}} = {scientific(EXPECTED.matmul_half_work_flops['bf16'])},"
        rf"\ c_{{fp8}} = {EXPECTED.matmul_ceiling['fp8']:g},"
        rf"\ W_{{0,fp8}} = {scientific(EXPECTED.matmul_half_work_flops['fp8'])}",
        "W: FLOPs of one product per GPU as frameworks launch it (Q, K and V in one; a gated MLP's gate and up "
        "in one); c: measured ceiling / peak where the catalog has one; training products run at {share} of that",
        "H200 microbench 8192^3 (ceiling) and 4096^3 (W0) rows; stas00/ml-engineering MAMF; Megatron-Core "
        "linear_qkv and linear_fc1 (2 x ffn with gated units), vLLM QKVParallelLinear and MergedColumnParallelLinear; "
        "training factor calibrated on the published training-throughput set",
        "model.efficiency.matmul_efficiency",
        share=f"{EXPECTED.training_matmul_vs_ceiling:g}",
    ),
    Formula(
        "Compute time of a step",
        rf"T_c = \sum_i \frac{{F_i}}{{P\,\eta(W_i)\,r}}"
        rf" + \frac{{F_{{att}}}}{{P_{{16}}\,c\,{EXPECTED.attention_vs_matmul:g}\,r}}"
        rf" + \frac{{{EXPECTED.elementwise_traffic_factor:g}\,A}}{{B_{{ach}}}},"
        rf"\quad r = {EXPECTED.training_matmul_vs_ceiling:g}",
        "Attention projections, MLP and LM head each at the size of the products launched; flash-attention cores in "
        "16-bit; element-wise work (norms, activations) streams A activation bytes",
        "FlashAttention-2, Dao 2023 (50-73 % of A100 peak); element-wise: unfused kernels read and write each tensor",
        "model.training.step_time",
    ),
    Formula(
        "Pipeline bubble",
        r"T_{bubble} = \frac{p - 1}{v\, m}\, T_c,\quad T_{pp} \times v \times "
        r"\min\left(1, \frac{2(p - 1) + (v - 1)\,p}{v\, m}\right)",
        "p pipeline stages, m micro-batches per step, v model chunks per stage (interleaved 1F1B); with v > 1 the "
        "sends overlap other chunks' compute except in the first stage's warm-up and flush",
        "Narayanan et al. 2021, eq. 1 and sec. 2.2.2 (interleaving sends v times the messages); Megatron-Core "
        "overlap_p2p_comm, which Megatron Bridge turns on when v > 1, and its interleaved schedule's warm-up count",
        "model.training.interleaved",
    ),
    Formula(
        "Host wait of mixture-of-experts layers",
        rf"T_{{host}} = (2 + \rho)\, \frac{{L_{{moe}}}}{{p}}\, m\, \tau_{{moe}},"
        rf"\quad \tau_{{moe}} = {EXPECTED.moe_layer_host_s * 1e3:g}\ \text{{ms}}",
        "Each MoE layer's forward, backward and recomputed forward (share ρ) of each of the m micro-batches: "
        "dropless routing needs its token counts on the host, which drains the GPU's queue; "
        "a part of the step of its own",
        "Megatron-Core MoE report, arXiv 2603.07685, sec. 4.3.6-4.3.7 (host overhead; sync-free kernels before "
        "CUDA graphs); τ fitted on the MoE training runs",
        "model.training.step_time",
    ),
    Formula(
        "Optimizer update",
        rf"T_{{opt}} = N_{{card}} \cdot {EXPECTED.optimizer_bytes_per_param:g}\,\text{{B}} / B_{{ach}}",
        "AdamW reads fp32 weight, m, v and the gradient, writes weight, m, v and the 16-bit copy",
        "Derived: 4+4+4+2 bytes read, 4+4+4+2 written per parameter",
        "model.training.step_time",
    ),
    figured(
        "Step and wall time",
        r"T_{step} = T_c + T_{bubble} + T_{tp} + T_{dp} + T_{ep} + T_{pp} + T_{opt},"
        r"\quad T_{wall} = \text{steps}\cdot T_{step}\,(1 + \lambda\, n_{gpu}\, t_{lost})",
        "Interruptions: λ = {rate} per GPU-hour, each losing {hours} h (restart and recomputation since the "
        "last checkpoint)",
        "Llama 3 paper, Dubey et al. 2024, sec. 3.3.4: 419 interruptions in 54 days on 16,384 H100s, >90 % effective",
        "model.training.wall_time",
        rate=f"{EXPECTED.failure_rate_per_gpu_hour:.3g}",
        hours=f"{EXPECTED.hours_lost_per_failure:g}",
    ),
    Formula(
        "Cost and energy",
        r"\text{GPU-h} = T_{wall}\, n_{cards}/3600,\quad \$ = \text{GPU-h} \times \text{price},"
        r"\quad \text{kWh} = \text{GPU-h} \times \text{TDP} / 1000",
        "Every card of the scenario is billed, idle ones included; energy at board TDP (no host, no cooling)",
        "Derived definitions; prices and TDP from data/gpus.yaml (dated, sourced per row)",
        "model.estimate.estimate",
    ),
    "Communication",
    figured(
        "Collectives (alpha-beta model)",
        r"T_{AR} = \alpha + \frac{2(n-1)}{n}\frac{M}{B},\quad T_{AG} = T_{A2A} = \alpha + \frac{n-1}{n}\frac{M}{B},"
        r"\quad T_{p2p} = \alpha + \frac{M}{B}",
        "B: link per direction × its measured efficiency, else {up} (scale-up) or {net} (network); a group across "
        "nodes gets min(B_up, k B_nic); all-reduces (trees) pay α_up + α_net log2(nodes), ring all-gathers and "
        "reduce-scatters α_up + (n − nodes) {up_step} µs + (nodes − 1) {net_step} µs; serving all-reduces a "
        "message past {own} MiB through NCCL or RCCL, at the library's measured α where the link has one",
        "Thakur et al. 2005; NCCL's tuning model (src/graph/tuning.cc); Calculon; nccl-tests efficiencies and "
        "latencies in data/interconnects.yaml; vLLM's custom all-reduce size limit",
        "model.communication.group_path",
        up=f"{EXPECTED.collective_bandwidth:g}",
        net=f"{EXPECTED.network_bandwidth:g}",
        up_step=f"{RING_STEP_LATENCY_S['scale-up'] * 1e6:g}",
        net_step=f"{RING_STEP_LATENCY_S['network'] * 1e6:g}",
        own=f"{EXPECTED.own_all_reduce_bytes / 2**20:g}",
    ),
    Formula(
        "Tensor-parallel all-reduces",
        r"T_{tp} = (1 - o_{tp}) \cdot 4 \left\lceil L/p \right\rceil m \cdot T_{AR}(2bsh),"
        rf"\quad o_{{tp}} = {EXPECTED.tp_overlap:g}",
        "Four per layer per micro-batch in training (six with full recomputation), o_tp of them hidden; "
        "a server pays two per layer per pass in full (vLLM's RowParallelLinear all-reduces after its product)",
        "Megatron-LM, Shoeybi et al. 2019, sec. 3",
        "model.training.step_time",
    ),
    Formula(
        "Data-parallel gradients",
        r"T_{dp} = \max\left(0,\ T_{AR}\!\left(\tfrac{2N}{t\,p}\right) - o_{dp}\cdot \tfrac{2}{3}\tfrac{T_c}{m}\right),"
        rf"\quad o_{{dp}} = {EXPECTED.dp_overlap:g}",
        "Gradients reduced during the last backward pass; ZeRO-3 instead gathers each layer's weights twice and "
        "reduce-scatters its gradients every micro-batch (three rings per layer), hidden behind all compute. "
        "Under expert parallelism the routed experts sync over their own group, d / e cards e x t apart: "
        "with e = 8 on 8-GPU nodes each copy crosses the network on one NIC",
        "PyTorch DDP bucketing, Li et al. 2020; ZeRO, Rajbhandari et al. 2020, sec. 7; expert-data-parallel "
        "group: Megatron-Core MoE (parallel_state, expert_data_parallel)",
        "model.training.step_time",
    ),
    Formula(
        "Expert-parallel all-to-alls",
        rf"T_{{ep}} = (1 - {EXPECTED.ep_overlap:g}) \cdot 4 L_{{moe}} m \cdot T_{{A2A}}(2bskh/t)",
        "Dispatch and combine, forward and backward, per MoE layer and micro-batch",
        "GShard, Lepikhin et al. 2020; DeepSpeed-MoE, Rajbhandari et al. 2022",
        "model.training.step_time",
    ),
    Formula(
        "Overlap is not free",
        rf"T_c \mathrel{{+}}= {EXPECTED.overlap_interference:g} \times T_{{hidden}}",
        "Communication hidden behind compute still takes SMs and memory bandwidth from the products",
        "Published characterisations of all-reduce overlapped with GEMM: overlapped GEMMs run 10-30 % slower",
        "model.training.step_time",
    ),
    *SERVING,
    "Hardware",
    Formula(
        "Precision the products run in",
        r"\text{key} = \begin{cases} \text{fp8/fp4} & \text{if the chip has them} \\"
        r" \text{nearest 16-bit} & \text{otherwise, or for weight-only int8/int4} \end{cases}",
        "FP8 before Hopper/Ada, FP4 before Blackwell and BF16 on Volta fall back, with a warning",
        "Vendor datasheets (dense, not 2:4 sparse); GPTQ/AWQ/bitsandbytes dequantise to 16-bit",
        "model.precision.compute_precision",
    ),
    Formula(
        "Achievable memory bandwidth",
        rf"B_{{ach}} = B_{{measured}} \text{{ if known, else }} {EXPECTED.memory_bandwidth:g}\, B_{{peak}}",
        "Every memory-bound time: decode, element-wise work, optimizer update",
        "H200 microbench device copy 4254/4800 = 0.886; gpt-fast on A100 ~0.83",
        "model.efficiency.achievable_bandwidth",
    ),
    Formula(
        "Choosing the layout",
        r"\min_{t, p, e, z, r, b, v}\ T_{train}\ \text{ s.t. fits},\quad t \le \text{GPUs per node}",
        "The fastest training layout that fits over TP, PP, EP, ZeRO, recomputation (full recomputation of the "
        "fewest layers that fit), micro-batch and interleaving (ties: fewer model-parallel cards)",
        "Narayanan et al. 2021, sec. 3.3 ('tensor model parallelism ... up to degree g for g-GPU servers')",
        "model.layouts.training.search_training_layout",
    ),
    Formula(
        "Serving replica",
        r"\text{one user: } \min_{t, p} t_{user};\quad \text{load: } \max_{t, p}\ \frac{R}{n_{cards}}"
        r"\ \text{ s.t. } t_{user} \le t_{target}",
        "TP inside a node, then PP stages of a full node or TP over two nodes (the network's latency on every "
        "all-reduce); only replicas that hold the weights and the batch, or with a concurrency over all the cards "
        "each replica's share of it (so replicas are weighed at the same load)",
        "Latency- and throughput-oriented deployments (TensorRT-LLM and vLLM tuning guides: TP for latency, "
        "the fewest cards per replica for throughput)",
        "model.layouts.serving.choose_serving_layout",
    ),
    Formula(
        "Low-high ranges",
        r"[\text{low}, \text{high}] = \text{the figure under the optimistic and pessimistic efficiency sets}",
        "Compute, memory, link, overhead and overlap factors moved together (see the assumptions table)",
        "The spread of software stacks on the same hardware (model/efficiency.py)",
        "model.efficiency.OPTIMISTIC",
    ),
)
FORMULAS: tuple[Formula, ...] = filed(_TABLE)
