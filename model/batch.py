"""The global batch a practitioner would run when none is given: grows with the model and the cluster.

Published runs at scale choose their batch by size (GPT-3's table), by cluster (a few thousand
tokens per GPU, so every pipeline has micro-batches to fill it) and stay under the critical batch
(Kaplan et al. 2020), past which more tokens per step stop saving optimizer steps.
"""

from __future__ import annotations

from model.architecture import Architecture

__all__ = [
    "BATCH_AT_70B_TOKENS",
    "BATCH_SIZE_EXPONENT",
    "TOKENS_PER_GPU_FLOOR",
    "critical_batch_tokens",
    "default_global_batch",
]

BATCH_AT_70B_TOKENS = 4 * 2**20
"""Tokens per step of a 70B model: Llama 1 and 2 trained 7B-70B at 4M (Touvron et al. 2023, sec. 2.2)."""
BATCH_SIZE_EXPONENT = 1.0 / 3.0
"""How the batch grows with the model: GPT-3 went from 0.5M tokens at 125M to 3.2M at 175B
(Brown et al. 2020, Table 2.1), a slope of about 1/3 on log-log axes."""
TOKENS_PER_GPU_FLOOR = 2048
"""Tokens each GPU sees per step in published runs at scale: Llama 3 405B 16M on 8,192 H100s
(Dubey et al. 2024, Table 4), Llama 2 70B 4M on 2,048 A100s, Megatron's 1T 6.3M on 3,072 A100s
(Narayanan et al. 2021, Table 1): 2,048. Fewer would leave a pipeline one micro-batch per step."""


def critical_batch_tokens(non_embedding_params: float, tokens: float) -> float:
    """Return the critical batch (tokens) past which a larger batch stops saving optimizer steps.

    Kaplan et al. 2020: B_crit = B* / L^(1/alpha_B) (eq. 5.3, B* = 2e8 tokens, alpha_B = 0.21) at
    the loss L(N, D) = ((N_c / N)^(alpha_N / alpha_D) + D_c / D)^alpha_D (eq. 1.5, N_c = 8.8e13,
    D_c = 5.4e13, alpha_N = 0.076, alpha_D = 0.095). Published runs stay below it.
    """
    loss = ((8.8e13 / non_embedding_params) ** (0.076 / 0.095) + 5.4e13 / tokens) ** 0.095
    return float(2e8 / loss ** (1.0 / 0.21))


def default_global_batch(arch: Architecture, tokens: float, cards: int, seq_len: int) -> int:
    """Return the sequences per optimizer step a practitioner would run.

    The batch grows with the model (4M tokens at 70B, as the cube root of the size: GPT-3's
    table) and with the cluster (at least 2,048 tokens per GPU, as every published run at scale
    does), but never past the critical batch of the run's size and data (Kaplan et al. 2020),
    which also keeps fine-tuning batches small. At least one sequence.
    """
    stats = arch.stats
    by_size = BATCH_AT_70B_TOKENS * (stats.total_params / 70e9) ** BATCH_SIZE_EXPONENT
    wanted = max(by_size, cards * TOKENS_PER_GPU_FLOOR)
    ceiling = critical_batch_tokens(max(stats.total_params - stats.embedding_params, 1.0), tokens)
    return max(1, int(min(wanted, ceiling) / seq_len + 0.5))
