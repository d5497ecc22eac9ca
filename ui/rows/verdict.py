"""A goal's verdict in words: fits or not, against what, and the changes that make it fit."""

from __future__ import annotations

from model.analyses.verdict import Fix, Verdict
from ui.format import bytes_gb

__all__ = ["GOAL_NOUNS", "fix_text", "verdict_headline", "verdict_reason"]

GOAL_NOUNS = {"serve": "Serving", "finetune": "Fine-tuning", "pretrain": "Pre-training"}
_FORMATS = {"fp8": "FP8 weights", "int4": "4-bit weights", "bf16": "BF16 (a training format)"}
_METHODS = {"lora": "LoRA instead of full fine-tuning", "qlora": "QLoRA (a 4-bit base)"}


def fix_text(fix: Fix) -> str:
    """Name one fix as a short phrase: '64 cards', '4-bit weights', 'a context of 2,048 tokens'."""
    if fix.knob == "cards":
        return f"{fix.value:,} cards"
    if fix.knob == "precision":
        return _FORMATS.get(str(fix.value), f"{fix.value} weights")
    if fix.knob == "finetune":
        return _METHODS.get(str(fix.value), str(fix.value))
    if fix.knob == "context":
        return f"a context of {fix.value:,} tokens"
    return f"training sequences of {fix.value:,} tokens"


def verdict_reason(verdict: Verdict, gpu_name: str, precision: str) -> str:
    """Say why the goal does not run, or '' when it does."""
    if verdict.runs:
        return ""
    if verdict.refusal == "untrainable_precision":
        return (
            f"{precision} is a serving format: no framework trains every weight in it. "
            "Pre-training and full fine-tuning use BF16, FP16 or FP8; QLoRA trains adapters on a 4-bit base"
        )
    return f"needs {bytes_gb(verdict.needed_bytes)} per card; {gpu_name} has {bytes_gb(verdict.capacity_bytes, 0)}"


def verdict_headline(verdict: Verdict, gpu_name: str, precision: str) -> str:
    """One Markdown sentence: '**Serving fits** ...' or '**Serving does not fit**: ... It fits with ...'."""
    noun = GOAL_NOUNS[verdict.goal]
    if verdict.runs:
        return f"**{noun} fits**: {bytes_gb(verdict.needed_bytes)} of {bytes_gb(verdict.capacity_bytes, 0)} per card."
    head = "is refused" if verdict.refusal else "does not fit"
    sentence = f"**{noun} {head}**: {verdict_reason(verdict, gpu_name, precision)}."
    if verdict.fixes:
        sentence += " It fits with " + " · or ".join(f"**{fix_text(fix)}**" for fix in verdict.fixes) + "."
    else:
        sentence += " No single change of cards, format or context makes it fit."
    return sentence
