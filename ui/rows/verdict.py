"""A goal's verdict in words: fits or not, against what, and the changes that make it fit."""

from __future__ import annotations

from model.analyses.verdict import Fix, Verdict
from ui.format import bytes_gb
from ui.i18n import tr, translatable

__all__ = ["GOAL_NOUNS", "fix_text", "verdict_headline", "verdict_reason"]

GOAL_NOUNS = {
    "serve": translatable("Serving"),
    "finetune": translatable("Fine-tuning"),
    "pretrain": translatable("Pre-training"),
}
"""Each goal's name as a heading, in English: show it through ``tr``."""
_FORMATS = {
    "fp8": translatable("FP8 weights"),
    "int4": translatable("4-bit weights"),
    "bf16": translatable("BF16 (a training format)"),
}
_METHODS = {"lora": translatable("LoRA instead of full fine-tuning"), "qlora": translatable("QLoRA (a 4-bit base)")}


def fix_text(fix: Fix) -> str:
    """Name one fix as a short phrase: '64 cards', '4-bit weights', 'a context of 2,048 tokens'."""
    if fix.knob == "cards":
        return tr("{n} cards", n=f"{fix.value:,}")
    if fix.knob == "precision":
        known = _FORMATS.get(str(fix.value))
        return tr(known) if known else tr("{precision} weights", precision=fix.value)
    if fix.knob == "finetune":
        known = _METHODS.get(str(fix.value))
        return tr(known) if known else str(fix.value)
    if fix.knob == "context":
        return tr("a context of {n} tokens", n=f"{fix.value:,}")
    return tr("training sequences of {n} tokens", n=f"{fix.value:,}")


def verdict_reason(verdict: Verdict, gpu_name: str, precision: str) -> str:
    """Say why the goal does not run, or '' when it does."""
    if verdict.runs:
        return ""
    if verdict.refusal == "untrainable_precision":
        return tr(
            "{precision} is a serving format: no framework trains every weight in it. "
            "Pre-training and full fine-tuning use BF16, FP16 or FP8; QLoRA trains adapters on a 4-bit base",
            precision=precision,
        )
    return tr(
        "needs {needed} per card; {gpu} has {capacity} usable",
        needed=bytes_gb(verdict.needed_bytes),
        gpu=gpu_name,
        capacity=bytes_gb(verdict.capacity_bytes),
    )


_FITS = translatable("**{noun} fits**: {needed} of {capacity} usable per card.")
_FITS_ONE_SEQUENCE = translatable("**{noun} fits**: {needed} of {capacity} usable per card for one sequence.")
"""The serving verdict sizes one sequence (can the model be served at all); the batch's own memory
is the VRAM page's serving section."""


def verdict_headline(verdict: Verdict, gpu_name: str, precision: str) -> str:
    """One Markdown sentence: '**Serving fits** ...' or '**Serving does not fit**: ... It fits with ...'."""
    noun = tr(GOAL_NOUNS[verdict.goal])
    if verdict.runs:
        return tr(
            _FITS_ONE_SEQUENCE if verdict.goal == "serve" else _FITS,
            noun=noun,
            needed=bytes_gb(verdict.needed_bytes),
            capacity=bytes_gb(verdict.capacity_bytes),
        )
    reason = verdict_reason(verdict, gpu_name, precision)
    if verdict.refusal:
        sentence = tr("**{noun} is refused**: {reason}.", noun=noun, reason=reason)
    else:
        sentence = tr("**{noun} does not fit**: {reason}.", noun=noun, reason=reason)
    if verdict.fixes:
        fixes = tr(" · or ").join(f"**{fix_text(fix)}**" for fix in verdict.fixes)
        sentence += tr(" It fits with {fixes}.", fixes=fixes)
    else:
        sentence += tr(" No single change of cards, format or context makes it fit.")
    return sentence
