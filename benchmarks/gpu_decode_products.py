"""Time the matrix products a served model runs per card, by rows (batch), on a GPU.

Not part of the test suite and not a runtime dependency: it needs PyTorch and a CUDA GPU, and
was run once on an H200 to measure what :mod:`model.inference` assumes about decode products at
large batches (``data/h200_decode_products.jsonl``). Each product is a dense layer of Llama 3.1
8B, 70B or 405B as tensor parallelism shards it (Q, K and V in one launch, gate and up in one;
columns split for those, rows for the output and down projections), multiplied by ``m`` rows
(the sequences decoding at once), in bf16 (torch.matmul) and fp8 e4m3 (torch._scaled_mm, one
scale per tensor, bf16 out: what TensorRT-LLM and vLLM run for FP8 weights and activations).

Weights are cycled over enough copies to overflow the 60 MB L2, so every product reads them from
HBM as a server does; the launches are captured in a CUDA graph, so host launch time is not
counted. Run: ``python3 -m benchmarks.gpu_decode_products > out.jsonl``.
"""

from __future__ import annotations

import json
import math
import sys

# (model, hidden, ffn, heads, kv_heads, head_dim, tensor-parallel sizes)
MODELS = (
    ("llama-3.1-8b", 4096, 14336, 32, 8, 128, (1, 2)),
    ("llama-3.1-70b", 8192, 28672, 64, 8, 128, (1, 2, 4, 8)),
    ("llama-3.1-405b", 16384, 53248, 128, 8, 128, (8,)),
)
ROWS = (1, 16, 32, 64, 128, 256, 384, 512, 768, 1024, 1536, 2048, 4096)
REPS = 30
L2_OVERFLOW_BYTES = 512 * 2**20


def products(hidden: int, ffn: int, heads: int, kv_heads: int, head_dim: int, tp: int) -> list[tuple[str, int, int]]:
    """Return (name, k, n) of one layer's products on one card of a tensor-parallel group of ``tp``."""
    qkv = (heads + 2 * kv_heads) * head_dim
    return [
        ("qkv", hidden, qkv // tp),
        ("o", heads * head_dim // tp, hidden),
        ("gate_up", hidden, 2 * ffn // tp),
        ("down", ffn // tp, hidden),
    ]


def main() -> None:
    import torch

    dev = torch.device("cuda")
    print(json.dumps({"kind": "env", "torch": torch.__version__, "name": torch.cuda.get_device_name(0)}), flush=True)
    one = torch.tensor(1.0, device=dev)

    def timed(run, reps: int) -> float:
        run()
        torch.cuda.synchronize()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            for i in range(reps):
                run(i)
        graph.replay()
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        best = math.inf
        for _ in range(3):
            start.record()
            graph.replay()
            end.record()
            torch.cuda.synchronize()
            best = min(best, start.elapsed_time(end) / 1e3 / reps)
        return best

    for model, hidden, ffn, heads, kv_heads, head_dim, tps in MODELS:
        for tp in tps:
            for name, k, n in products(hidden, ffn, heads, kv_heads, head_dim, tp):
                for prec in ("bf16", "fp8"):
                    size = 1 if prec == "fp8" else 2
                    weight_bytes = k * n * size
                    copies = max(2, math.ceil(L2_OVERFLOW_BYTES / weight_bytes))
                    if prec == "bf16":
                        ws = [torch.randn(k, n, device=dev, dtype=torch.bfloat16) for _ in range(copies)]
                    else:
                        ws = [
                            torch.randn(n, k, device=dev, dtype=torch.bfloat16).to(torch.float8_e4m3fn).t()
                            for _ in range(copies)
                        ]
                    for m in ROWS:
                        if prec == "fp8" and m % 16:
                            continue  # _scaled_mm needs rows in multiples of 16
                        x = torch.randn(m, k, device=dev, dtype=torch.bfloat16)
                        if prec == "bf16":

                            def run(i: int = 0, x=x, ws=ws) -> None:
                                torch.matmul(x, ws[i % len(ws)])
                        else:
                            x = x.to(torch.float8_e4m3fn)

                            def run(i: int = 0, x=x, ws=ws) -> None:
                                torch._scaled_mm(x, ws[i % len(ws)], scale_a=one, scale_b=one, out_dtype=torch.bfloat16)

                        seconds = timed(run, REPS)
                        flops = 2.0 * m * k * n
                        row = {
                            "kind": "decode_product", "prec": prec, "model": model, "tp": tp, "product": name,
                            "m": m, "k": k, "n": n, "weight_bytes": weight_bytes, "seconds": seconds,
                            "tflops": round(flops / seconds / 1e12, 1),
                            "weight_gbs": round(weight_bytes / seconds / 1e9, 1),
                        }  # fmt: skip
                        print(json.dumps(row), flush=True)
                    del ws
                    torch.cuda.empty_cache()
    sys.stdout.flush()


if __name__ == "__main__":
    main()
