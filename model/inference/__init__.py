"""Serving speed: prefill (time to first token), decode (time per output token), loaded throughput.

Decode step (per pipeline stage), a sum over the kernels a step runs, each at its own roofline
(Williams et al. 2009): the matrix products read every weight matrix once (all experts a batch
routes to, E x (1 - (1 - k/E)^tokens)) or do their FLOPs, whichever takes longer; the attention
kernel then streams each sequence's KV cache at its mean context (the cache grows from the prompt
to prompt + output) — a separate kernel, so its time adds rather than hiding under the products';
the element-wise kernels (norms, residual adds, rotary, the MLP's activation) read and write the
activations; plus per-layer launch overhead and two tensor-parallel all-reduces per layer
(Megatron). The seeds' "time per token = bytes of weights / memory bandwidth" is the batch-1 ideal.
Prefill: 2 N FLOPs per prompt token plus causal attention, at the products' efficiency.
Under continuous batching a replica also prefills arriving requests, so its output rate is
output tokens over prefill plus decode time (Sarathi-Serve, Agrawal et al. 2024, sec. 2).

Rooms: ``memory`` (what a card holds), ``context`` (what a replica reads and the rates it
reaches), ``decode``, ``prefill``, ``load`` (continuous batching), ``offload`` (part of the model in
the host's memory, llama.cpp's way). Import these names from ``model.inference``.
"""

from model.inference.context import (
    ServingContext,
    ServingRates,
    elementwise_bytes_per_token,
    expected_experts_touched,
    serving_context,
    serving_rates,
)
from model.inference.decode import DecodeStep, decode_step, ideal_decode_step
from model.inference.load import (
    JobWaves,
    LoadedServing,
    busiest_rank_prompts,
    eager_iteration_share,
    job_waves,
    loaded_serving,
    queue_wait,
)
from model.inference.memory import (
    SERVING_MEMORY_FRACTION,
    InferenceMemory,
    ServingLoad,
    admitted,
    held_bytes,
    inference_memory,
    inference_weight_bytes,
    kv_bytes_per_sequence,
    max_batch_that_fits,
    serving_capacity,
    serving_fits,
)
from model.inference.offload import (
    SERVING_VERDICTS,
    Offload,
    host_budget,
    largest_offloaded_batch,
    offload_needs,
    offload_roofline,
    place_offload,
    serving_verdict,
)
from model.inference.prefill import prefill_time

__all__ = [
    "SERVING_MEMORY_FRACTION",
    "SERVING_VERDICTS",
    "DecodeStep",
    "InferenceMemory",
    "JobWaves",
    "LoadedServing",
    "Offload",
    "ServingContext",
    "ServingLoad",
    "ServingRates",
    "admitted",
    "busiest_rank_prompts",
    "decode_step",
    "eager_iteration_share",
    "elementwise_bytes_per_token",
    "expected_experts_touched",
    "held_bytes",
    "host_budget",
    "ideal_decode_step",
    "inference_memory",
    "inference_weight_bytes",
    "job_waves",
    "kv_bytes_per_sequence",
    "largest_offloaded_batch",
    "loaded_serving",
    "max_batch_that_fits",
    "offload_needs",
    "offload_roofline",
    "place_offload",
    "prefill_time",
    "queue_wait",
    "serving_capacity",
    "serving_context",
    "serving_fits",
    "serving_rates",
    "serving_verdict",
]
