"""A bare parameter count (and any shapes given with it) becomes a Llama-3-style decoder.

The catalog's presets carry their published shapes; this is the shape a user gets who types only
a size, or a size and some of its widths.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

from model.architecture import Architecture, MlpKind

__all__ = ["Shape", "default_vocab", "derive_architecture"]

# A bare parameter count becomes a Llama-3-style dense decoder (documented rule):
#   head_dim 128, heads = hidden / 128, kv_heads = gcd(heads, 8) (grouped-query attention),
#   SwiGLU ffn = 3.5 x hidden rounded to 256, vocab 32,000 (small models) or 128,256 (>= 2B),
#   aspect ratio hidden / layers ~ 128 (Llama 3: 4096/32, 8192/80, 16384/126; Kaplan et al.
#   2020 find loss flat in the aspect ratio over a wide range), then layers solved exactly.
_HEAD_DIM = 128
_ASPECT = 128.0
_FFN_RATIO = 3.5


def default_vocab(params: float) -> int:
    """Return the vocabulary a bare parameter count gets: Llama 2's 32,000 below 2B, Llama 3's 128,256 above."""
    return 128256 if params >= 2e9 else 32000


class Shape(NamedTuple):
    """The parts of a transformer's shape a user may give; None means: derive it."""

    layers: int | None = None
    hidden: int | None = None
    heads: int | None = None
    kv_heads: int | None = None
    head_dim: int | None = None
    ffn: int | None = None
    vocab: int | None = None
    experts: int | None = None
    active_experts: int | None = None
    mlp: MlpKind | None = None
    tied_embeddings: bool | None = None


def derive_architecture(params: float, **given: Any) -> Architecture:
    """Build a plausible dense (or MoE, if ``experts`` is given) architecture of ``params``.

    ``given`` holds :class:`Shape` fields. Every shape given is kept: the head width is hidden /
    heads unless ``head_dim`` is given. The others follow the rule above, and the layer count (or,
    when layers and hidden are both fixed, the MLP width) absorbs the rest so that the parameter
    count lands near ``params``. When the shape is complete (layers, hidden and ffn given) nothing
    can absorb it, so the MLP kind and the tied head, where not given, are the ones whose count is
    nearest ``params`` (a 4 x hidden GELU MLP with a tied head for GPT-3's 2.7B shape).

    Raises:
        ValueError: the shapes given cannot reach ``params`` (e.g. a tiny count with a huge vocab).
    """
    shape = Shape(**given)
    kinds: tuple[MlpKind, ...] = (shape.mlp,) if shape.mlp else ("gated", "plain")
    tyings = (shape.tied_embeddings,) if shape.tied_embeddings is not None else (False, True)
    if None in (shape.layers, shape.hidden, shape.ffn):
        return _derived_shape(params, shape._replace(mlp=kinds[0], tied_embeddings=tyings[0]))
    options = [
        _derived_shape(params, shape._replace(mlp=kind, tied_embeddings=tied)) for kind in kinds for tied in tyings
    ]
    return min(options, key=lambda arch: abs(arch.stats.total_params - params))


def _derived_shape(params: float, shape: Shape) -> Architecture:
    """Fill in one architecture of ``params`` around ``shape`` (its MLP kind and head tying set)."""
    vocab = shape.vocab or default_vocab(params)
    n_experts = shape.experts or 0
    mlp_copies = float(n_experts) if n_experts else 1.0
    matrices = 3 if shape.mlp == "gated" else 2
    ffn_ratio = _FFN_RATIO if shape.mlp == "gated" else 4.0  # SwiGLU ~3.5h (Llama 3); GELU 4h (GPT)

    def per_layer(h: int, f: int, q_heads: int, kv: int, width: int) -> float:
        attention = 2 * h * q_heads * width + 2 * h * kv * width
        return attention + mlp_copies * matrices * h * f + (h * n_experts) + 2 * h

    hidden = shape.hidden
    if hidden is None:
        # Solve params = L * c * h^2 + 2 V h with L = h / aspect for h (bisection on a monotone
        # function); c ~ 2.25 (GQA attention) + matrices x ffn ratio x copies (the MLP).
        c = 2.25 + matrices * ffn_ratio * mlp_copies
        low, high = 64.0, 131072.0
        for _ in range(60):
            mid = 0.5 * (low + high)
            depth = float(shape.layers) if shape.layers is not None else mid / _ASPECT
            if depth * c * mid * mid + 2 * vocab * mid < params:
                low = mid
            else:
                high = mid
        # Widths are multiples of 1,024 from 4,096 up (as in every Llama), of 256 below.
        step = 1024.0 if low >= 3584 else 256.0
        hidden = max(256, int(round(low / step) * step))
    if shape.heads:
        q_heads, width = shape.heads, shape.head_dim or hidden // shape.heads
    else:
        width = shape.head_dim or _HEAD_DIM
        q_heads = max(1, hidden // width)
    kv = shape.kv_heads or math.gcd(q_heads, 8)
    mlp_width = shape.ffn or max(256, round(ffn_ratio * hidden / 256.0) * 256)
    embeddings = (1 if shape.tied_embeddings else 2) * vocab * hidden
    layers = shape.layers
    if layers is None:
        layers = max(1, round((params - embeddings) / per_layer(hidden, mlp_width, q_heads, kv, width)))
    elif shape.ffn is None:
        # Layers and hidden both fixed: the MLP width takes up the remaining parameters.
        remaining = (params - embeddings) / layers - per_layer(hidden, 0, q_heads, kv, width)
        mlp_width = max(256, round(remaining / (matrices * hidden * mlp_copies) / 256.0) * 256)
    if params - embeddings <= 0:
        raise ValueError(f"{params:.3g} parameters cannot hold a vocabulary of {vocab} at width {hidden}")
    return Architecture(
        layers=layers,
        hidden=hidden,
        heads=q_heads,
        kv_heads=kv,
        head_dim=width if width != hidden // q_heads else 0,
        ffn=mlp_width,
        vocab=vocab,
        mlp=shape.mlp or "gated",
        tied_embeddings=bool(shape.tied_embeddings),
        experts=n_experts,
        active_experts=shape.active_experts or (min(2, n_experts) if n_experts else 0),
        expert_ffn=mlp_width if n_experts else 0,
        max_context=131072 if params >= 2e9 else 4096,
    )
