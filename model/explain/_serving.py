"""The serving rows of the formula table (model.explain.formulas joins them in, in order)."""

from __future__ import annotations

from model.efficiency import EXPECTED
from model.explain._formula import Formula, figured
from model.inference.context import GROUPED_TILE_ROWS

__all__ = ["SERVING"]

SERVING: tuple[str | Formula, ...] = (
    "Serving",
    Formula(
        "Decode roofline (the ideal)",
        r"t_{ideal} = p \cdot \max\left(\frac{W_{read}/(t p) + b_\mu M_{kv}}{B_{peak}},"
        r"\ \frac{2 N_{mm} b_\mu}{t\,p\,P}\right),\quad b_\mu = \max(b/p,\ 1)",
        "At batch 1 this is the seeds' rule: time per token ≈ bytes of weights read / memory bandwidth",
        "Roofline, Williams et al. 2009; seed article docs/seeds/ai-infra-gpu-centric.zh.txt, 1.2",
        "model.inference.ideal_decode_step",
    ),
    figured(
        "Decode step (expected)",
        r"\begin{gathered} t = p\left[\max\left(\frac{W_{dense}}{B_w} + \frac{W_{exp}}{B_w \frac{S}{S + S_0}},\ "
        r"\frac{F_{mm}}{P c}\right) + \max\left(\frac{b_\mu M_{kv}}{B_{ach}}, \frac{F_{att}}{P_{16}c'}\right)"
        r" + K\tau + 2L\,T_{AR}\right] \\ + (p-1)T_{p2p} \end{gathered}",
        "B_ach: measured or {bandwidth} × peak; weight-only int8/int4/fp4 stream at {dequant} of that; routed "
        "experts stream at S / (S + S0) of it, S one expert's bytes on a card, S0 = {half} MB; expert FLOPs count "
        "each expert's rows padded to tiles of {tile}; K kernels a pass, each at least τ = {floor} µs (CUDA graphs "
        "assumed); MLA scores the 512-wide latent",
        "H200 microbench weight streaming 0.84-0.88 of 4.8 TB/s; kernel counts from vLLM's llama, fused_moe and "
        "deepseek_v2 forwards; moe_align_block_size; DeepSeek-V2 sec. 2.1.2; τ and S0 fitted on 47 serving runs",
        "model.inference.decode_step",
        bandwidth=f"{EXPECTED.memory_bandwidth:g}",
        dequant=f"{EXPECTED.dequant_bandwidth:g}",
        half=f"{EXPECTED.expert_read_half_bytes / 1e6:g}",
        tile=f"{GROUPED_TILE_ROWS}",
        floor=f"{EXPECTED.kernel_floor_s * 1e6:g}",
    ),
    Formula(
        "Attention data parallelism",
        r"b_{card} = \lceil b / e \rceil,\ W_{card} = W_{dense} + W_{exp}/e,\ "
        r"T_{ep} = 2 L_{moe} T_{A2A}(b_{card} k h \cdot 2)",
        "A mixture of experts whose cache TP cannot split (MLA, few KV heads) may run attention data-parallel "
        "over e cards, experts split over them: each card keeps its own sequences' cache",
        "DeepSeek-V3 sec. 3.4 (deployment); SGLang and TensorRT-LLM attention DP",
        "model.inference.context.serving_context",
    ),
    Formula(
        "Speculative decoding",
        r"\bar n = \frac{1 - a^{n+1}}{1 - a},\quad t_{token} = \frac{t(b, n+1) + n\,t(b,1)/L}{\bar n}",
        "n drafted tokens verified in one pass, each accepted with probability a; drafts cost one layer each "
        "(multi-token prediction); off by default (a stock server)",
        "Leviathan et al. 2023, eq. 1; DeepSeek-V3 sec. 2.2 (MTP module), 5.4.3 (acceptance 85-90 %)",
        "model.inference.decode_step",
    ),
    Formula(
        "Prefill and time to first token",
        r"T_{pre} = \max\left(\sum_i \frac{2 N_i T}{t\,p\,P\,c}\left(1 + \frac{W_0}{W_i}\right) + "
        r"\frac{F_{att}}{P_{16}c'},\ \frac{W_{read}}{B_w}\right) + \frac{L}{p}\tau \quad \text{per stage}",
        "T prompt tokens; one prompt passes p stages in turn, many fill the pipeline in 2p - 1 stage times; "
        "under load the first token also waits half a decode step",
        "Roofline with the matrix-product efficiency above; Sarathi-Serve, Agrawal et al. 2024",
        "model.inference.prefill_time",
    ),
    Formula(
        "Throughput under continuous batching",
        r"R = \frac{d \cdot b \cdot n_{out}}{T_{pre}(b) + n_{out}\, t},"
        r"\quad t_{user} = t + \frac{T_{pre}(b)\,(b-1)}{b\, n_{out}}",
        "A loaded server also prefills arriving requests: output tokens over prefill plus decode time, all d replicas",
        "Sarathi-Serve, Agrawal et al. 2024, sec. 2 (prefill of arriving requests stalls decode)",
        "model.inference.loaded_serving",
    ),
    Formula(
        "Prefill under attention data parallelism",
        r"\lambda = \frac{b}{e\, n_{out}},\quad \bar k = \lfloor\lambda\rfloor + 1 - (1 - \{\lambda\})^{e},"
        r"\quad T_{pre}(b) \to T_{pre}(b)\, \frac{n_{out}\, \bar k}{b / e}",
        "Each of the e ranks starts λ new requests an iteration and prefills them alone while the others wait: "
        "an iteration lasts as long as its busiest rank (k̄ prompts on average), so prefills do not run in parallel",
        "TensorRT-LLM tech blog 10, ADP Balance Strategy (DeepSeek-V3, 8 GB200, attention DP 8: balance ratio "
        "54 %, 1.33x once prompts are scheduled together)",
        "model.inference.busiest_rank_prompts",
    ),
    figured(
        "Decoding without CUDA graphs under attention data parallelism",
        r"f = 1 - (1 - \min(1, \lambda))^{e},\quad t \to t + f \max(0,\ K\, h - t)",
        "In the share f of iterations where some rank prefills, no rank replays its CUDA graph: the others "
        "decode eagerly, and a step lasts at least its K kernels' host launch time, h = {eager} µs each",
        "SGLang prepare_mlp_sync_batch_raw (the ranks' minimum can_cuda_graph); TensorRT-LLM cuda_graph_runner "
        "(graphs only when every rank is generation-only); h from SGLang PR #1401 (decode with and without "
        "graphs: Llama 3 8B 7.1 → 8.2-9.3 ms, DeepSeek-Coder-V2-Lite 6.2 ms → 4x)",
        "model.inference.eager_iteration_share",
        eager=f"{EXPECTED.eager_kernel_s * 1e6:g}",
    ),
    Formula(
        "Price per million output tokens",
        r"\$/\text{M} = \frac{\text{price} \cdot n_{cards} / 3600}{R \cdot u} \times 10^6",
        "u: utilisation, the share of time the server is busy",
        "Derived definition",
        "model.estimate.estimate",
    ),
)
