"""What each scenario field allows: whole-number and fraction ranges, choices, and the error that names them.

A bad value never becomes a traceback: :class:`ScenarioError` names the field, the value and what
is allowed, and the CLI and the pages show exactly that.
"""

from __future__ import annotations

import math

__all__ = ["FLOAT_LIMITS", "INT_LIMITS", "ScenarioError", "check_choice", "check_float", "check_int", "check_ranges"]


class ScenarioError(ValueError):
    """A scenario value is invalid; ``field`` names it (the CLI flag is --field-with-dashes)."""

    def __init__(self, field: str, value: object, allowed: str) -> None:
        self.field = field
        self.value = value
        self.allowed = allowed
        # Text is quoted as typed unless it holds control characters (a NUL, a line separator):
        # those are escaped, so the message stays one readable line.
        shown = value if isinstance(value, str) and value.isprintable() else repr(value)
        super().__init__(f"{field}: {shown[:80]} is not allowed; {allowed}")


INT_LIMITS: dict[str, tuple[int, int]] = {
    "layers": (1, 2048),
    "hidden": (64, 1_000_000),
    "heads": (1, 4096),
    "kv_heads": (1, 4096),
    "head_dim": (1, 65_536),
    "ffn": (1, 10_000_000),
    "vocab": (1, 10_000_000),
    "experts": (1, 100_000),
    "active_experts": (1, 100_000),
    "cards": (1, 1_000_000),
    "gpus_per_node": (1, 100_000),
    "seq_len": (1, 100_000_000),
    "global_batch": (1, 100_000_000),
    "micro_batch": (1, 1_000_000),
    "tp": (1, 4096),
    "pp": (1, 4096),
    "dp": (1, 1_000_000),
    "ep": (1, 100_000),
    "lora_rank": (1, 65_536),
    "vp": (1, 1024),
    "recompute_layers": (1, 2048),
    "draft_tokens": (0, 16),
    "attention_dp": (1, 4096),
    "concurrency": (1, 10_000_000),
    "requests": (1, 1_000_000_000),
    "prompt_len": (1, 100_000_000),
    "output_len": (1, 100_000_000),
}
FLOAT_LIMITS: dict[str, tuple[float, float, str]] = {
    "params": (1e6, 1e14, "a parameter count from 1M to 100T (e.g. 7B, 70e9)"),
    "tokens": (1.0, 1e16, "a token count from 1 to 1e16 (e.g. 2T, 300e9)"),
    "mfu": (1e-4, 1.0, "a fraction between 0 and 1 (e.g. 0.4)"),
    "utilization": (1e-4, 1.0, "a fraction between 0 and 1 (e.g. 0.7)"),
    "draft_acceptance": (1e-4, 0.9999, "a fraction between 0 and 1 (e.g. 0.8)"),
    "target_tpot_s": (1e-5, 1e3, "seconds per output token from 0.00001 to 1,000 (e.g. 0.05)"),
    "price_per_gpu_hour": (0.0, 1e4, "a price in dollars from 0 to 10,000"),
    "host_memory_gb": (1.0, 1e5, "a host memory size in GB from 1 to 100,000 (e.g. 64)"),
    "host_bandwidth_gb_s": (
        1.0,
        1e5,
        "a host memory bandwidth in GB/s from 1 to 100,000 (e.g. 89.6: two channels of DDR5-5600)",
    ),
}


def check_int(name: str, value: object) -> None:
    """Refuse ``value`` unless it is a whole number in the field's range."""
    low, high = INT_LIMITS[name]
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ScenarioError(name, value, f"a whole number from {low:,} to {high:,}")


def check_float(name: str, value: object) -> None:
    """Refuse ``value`` unless it is a finite number in the field's range (positive, but for a price)."""
    low, high, allowed = FLOAT_LIMITS[name]
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ScenarioError(name, value, allowed)
    number = float(value)
    if not math.isfinite(number) or not low <= number <= high or (name != "price_per_gpu_hour" and number <= 0):
        raise ScenarioError(name, value, allowed)


def check_choice(name: str, value: object, options: tuple[str, ...]) -> None:
    """Refuse ``value`` unless it is one of ``options``."""
    if value not in options:
        raise ScenarioError(name, value, f"one of {', '.join(options)}")


def check_ranges(values: object) -> None:
    """Check every ranged field ``values`` has (a Scenario) that is set; raise ScenarioError on the first bad one."""
    # Every estimate passes here, so an accepted value costs one comparison; check_int and
    # check_float only see the ones that need a message (or a closer look).
    for name, (low, high) in INT_LIMITS.items():
        value = getattr(values, name)
        if value is not None and not (type(value) is int and low <= value <= high):
            check_int(name, value)
    for name, (least, most, _) in FLOAT_LIMITS.items():
        value = getattr(values, name)
        if value is not None and not (type(value) is float and 0.0 < value <= most and value >= least):
            check_float(name, value)
