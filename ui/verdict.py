"""A goal's verdict in words: fits or not, against what, and the changes that make it fit."""

from __future__ import annotations

from model.analyses.verdict import Fix, Verdict
from ui.format import bytes_gb, percent
from ui.i18n import tr, translatable

__all__ = ["GOAL_NOUNS", "fix_text", "fix_with_memory", "verdict_headline", "verdict_reason"]

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
    """Name one fix as a short phrase: '64 cards', '4-bit weights', 'a context of 2,048 tokens'.

    :func:`fix_with_memory` adds what the engine checked: the memory per card the fix gives.
    """
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


def fix_with_memory(fix: Fix) -> str:
    """Name one fix in Markdown with the memory per card the engine checked: '**128 cards** (78.3 GB per card)'."""
    return tr("**{fix}** ({memory} per card)", fix=fix_text(fix), memory=bytes_gb(fix.needed_bytes))


def _needed_and_budget(needed: float, budget: float) -> tuple[str, str]:
    """Format two sizes so that unequal ones never read alike ('22.73 GB' against '22.68 GB', not '22.7 GB' twice)."""
    for digits in (1, 2, 3):
        pair = bytes_gb(needed, digits), bytes_gb(budget, digits)
        if pair[0] != pair[1] or needed == budget:
            return pair
    return pair


def _reserve(verdict: Verdict) -> str:
    """Say what the stack keeps back: "of a card's 102.0 GB (10% kept in reserve)"; a desk runner's margin in GB."""
    budget = verdict.serving_budget
    kept = (
        percent(1.0 - budget.fraction)
        if budget.reserve_bytes == 0 and not budget.of_free
        else bytes_gb(verdict.capacity_bytes - verdict.budget_bytes)
    )
    return tr(
        "of a card's {capacity} ({reserve} kept in reserve)", capacity=bytes_gb(verdict.capacity_bytes), reserve=kept
    )


def verdict_reason(verdict: Verdict, gpu_name: str, precision: str) -> str:
    """Say why the goal does not run, or '' when it does."""
    if verdict.runs:
        return ""
    if verdict.goal == "serve" and verdict.offload is not None and verdict.offload.host_budget_bytes > 0:
        # With host memory it does not run even split: what it needs against the cards' budget and the host.
        split = verdict.offload
        return tr(
            "needs {needed}, has {has} with host memory ({host} of it for the model)",
            needed=bytes_gb(split.needed_bytes),
            has=bytes_gb(split.has_bytes),
            host=bytes_gb(split.host_budget_bytes),
        )
    if verdict.goal == "serve":
        needed, budget = _needed_and_budget(verdict.needed_bytes, verdict.budget_bytes)
        return tr(
            "needs {needed} per card for one sequence; the serving software uses {budget} {reserve}",
            needed=needed,
            budget=budget,
            reserve=_reserve(verdict),
        )
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


_FITS = translatable("**{noun} fits**: {needed} of {capacity} usable per card ({spare} to spare).")
_FITS_FILLED = translatable(
    "**{noun} fits**: {needed} of {capacity} usable per card ({spare} to spare): the fastest setting fills the "
    "card; recomputing every layer would need {lightest}."
)
TIGHT_SHARE = 0.1
"""Less room to spare than this share of the card, and the verdict says what the lightest setting needs."""
_FITS_ONE_SEQUENCE = translatable(
    "**{noun} fits**: {needed} per card for one sequence, within the {budget} the serving software uses {reserve}."
)
"""The serving verdict sizes one sequence (can the model be served at all) against the serving
budget (model.inference.serving_capacity); the batch's own memory is the VRAM page's serving section."""


def _offloaded(noun: str, verdict: Verdict) -> str:
    """Say a serving split: '41 of 80 layers on the card, 21.6 GB in host memory, 3.0 tokens/s per user'."""
    split = verdict.offload
    assert split is not None
    rate = f"{verdict.tokens_per_s:,.1f}" if verdict.tokens_per_s is not None else "—"
    if split.mode == "experts":
        return tr(
            "**{noun} fits with offload**: the routed experts of the first {moe} of {layers} layers in host memory "
            "({host}), {rate} tokens/s per user.",
            noun=noun, moe=f"{split.cpu_moe_layers:,}", layers=f"{split.layers:,}", host=bytes_gb(split.host_bytes),
            rate=rate,
        )  # fmt: skip
    return tr(
        "**{noun} fits with offload**: {on_card} of {layers} layers on the card, {host} in host memory, {rate} "
        "tokens/s per user.",
        noun=noun, on_card=f"{split.layers_on_card:,}", layers=f"{split.layers:,}", host=bytes_gb(split.host_bytes),
        rate=rate,
    )  # fmt: skip


def verdict_headline(verdict: Verdict, gpu_name: str, precision: str) -> str:
    """One Markdown sentence: '**Serving fits** ...' or '**Serving does not fit**: ... It fits with ...'.

    Only the fixes the engine returned are named, each with the memory per card it gives; none
    is an answer too ("no single change ... makes it fit").
    """
    noun = tr(GOAL_NOUNS[verdict.goal])
    if verdict.runs and verdict.code == "fits_with_offload" and verdict.offload is not None:
        return _offloaded(noun, verdict)
    if verdict.runs and verdict.goal == "serve":
        needed, budget = _needed_and_budget(verdict.needed_bytes, verdict.budget_bytes)
        return tr(_FITS_ONE_SEQUENCE, noun=noun, needed=needed, budget=budget, reserve=_reserve(verdict))
    if verdict.runs:
        spare = verdict.capacity_bytes - verdict.needed_bytes
        fields = {
            "noun": noun,
            "needed": bytes_gb(verdict.needed_bytes),
            "capacity": bytes_gb(verdict.capacity_bytes),
            "spare": bytes_gb(spare),
        }
        lightest = verdict.lightest_bytes
        if lightest is not None and spare < TIGHT_SHARE * verdict.capacity_bytes and lightest < verdict.needed_bytes:
            # Not a knife edge: the layout search spends the room on speed (less recomputation).
            return tr(_FITS_FILLED, lightest=bytes_gb(lightest), **fields)
        return tr(_FITS, **fields)
    reason = verdict_reason(verdict, gpu_name, precision)
    if verdict.refusal:
        sentence = tr("**{noun} is refused**: {reason}.", noun=noun, reason=reason)
    else:
        sentence = tr("**{noun} does not fit**: {reason}.", noun=noun, reason=reason)
    if verdict.fixes:
        fixes = tr(" · or ").join(fix_with_memory(fix) for fix in verdict.fixes)
        sentence += tr(" It fits with {fixes}.", fixes=fixes)
    else:
        sentence += tr(" No single change of cards, format or context makes it fit.")
    return sentence
