"""The degrees a layout search walks: powers of two, tensor x pipeline pairs, expert-parallel widths."""

from __future__ import annotations

import functools

from model.architecture import Architecture

__all__ = ["expert_degrees", "model_parallel_pairs", "powers_of_two"]


def powers_of_two(limit: int) -> list[int]:
    """Return 1, 2, 4, ... up to ``limit``."""
    values, value = [], 1
    while value <= limit:
        values.append(value)
        value *= 2
    return values


@functools.lru_cache(maxsize=1024)
def model_parallel_pairs(
    heads: int, layers: int, cards: int, gpus_per_node: int, tp: int | None, pp: int | None
) -> tuple[tuple[int, int], ...]:
    """List (tp, pp) pairs, smallest tp x pp first: tp inside a node and dividing the heads."""
    tp_options = [tp] if tp else [t for t in powers_of_two(min(gpus_per_node, cards)) if heads % t == 0]
    pp_options = [pp] if pp else powers_of_two(min(layers, cards))
    pairs = [(t, p) for t in tp_options for p in pp_options if t * p <= cards]
    pairs.sort(key=lambda pair: (pair[0] * pair[1], -pair[0]))
    return tuple(pairs) or ((tp or 1, pp or 1),)


def expert_degrees(arch: Architecture, dp: int, tp: int, gpus_per_node: int, ep: int | None) -> list[int]:
    """Return the expert-parallel degrees to try: none, one node's worth, and as wide as the experts allow.

    Expert parallelism is carved out of data parallelism (Megatron-Core MoE; DeepSeek-V3 runs EP 64
    over 8 nodes, Liu et al. 2024 sec. 3.2): powers of two dividing dp, at most the experts. Wider
    groups need less memory and pay more all-to-all traffic; the three ends of that trade are tried.
    """
    if ep:
        return [ep]
    if not arch.is_moe:
        return [1]
    degrees = [value for value in powers_of_two(min(arch.experts, dp)) if dp % value == 0]
    in_node = [value for value in degrees if value * tp <= gpus_per_node]
    return sorted({degrees[0], in_node[-1] if in_node else degrees[0], degrees[-1]})
