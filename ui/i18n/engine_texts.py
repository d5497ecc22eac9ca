"""The engine's English texts the interface translates: keys of ``tr()`` that are not literals in ui/.

The engine (``model/``) speaks English only (the CLI stays English); where it hands the interface
a fixed text or a template with fields, the page calls ``tr(text, **values)`` with it. Each
function here lists one area's texts, so ``tests/ui/test_i18n.py`` can check that every one has a
translation, as it does for the literal keys in the interface's code.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

__all__ = ["ENGINE_TEXTS", "engine_texts"]


def _method_texts() -> Iterable[str]:
    """The Method page's formulas and assumptions (names, explanations, templates), and the seed claims' topics.

    A seed claim's stated figures are listed when they have words ("34 days", "40 or 80 GB"), not when they are only
    figures and units ("32 GB, 125 TFLOPS"): those are shown as they are.
    """
    import re

    from model.explain import ASSUMPTION_TEXTS, FORMULA_GROUPS, FORMULAS
    from model.seeds import SEED_CLAIMS

    formulas = (text for formula in FORMULAS for text in (formula.name, formula.used_for_template))
    claimed = (claim.claimed for claim in SEED_CLAIMS if re.search(r"\b[a-z]{2,}\b", claim.claimed))
    return (*FORMULA_GROUPS, *formulas, *ASSUMPTION_TEXTS, *(claim.topic for claim in SEED_CLAIMS), *claimed)


def _note_texts() -> Iterable[str]:
    """The estimate's notes (warnings) and the price notes, as templates."""
    from model.pricing import QUOTE_TEMPLATES
    from model.results import NOTES

    return (*NOTES.values(), *QUOTE_TEMPLATES)


def _plan_texts() -> Iterable[str]:
    """Why the planner leaves a GPU out, as templates."""
    from model.analyses.exclusions import REASONS

    return REASONS.values()


def _anatomy_texts() -> Iterable[str]:
    """The GPU anatomy's level names, figure sources, notes and link roles, as templates; the seed rows' notes."""
    from model.analyses.anatomy import PHRASES
    from model.analyses.generations import SEED_GENERATIONS

    return (*PHRASES.values(), *(seed.note for seed in SEED_GENERATIONS.values()))


def _hub_texts() -> Iterable[str]:
    """Why a Hugging Face model could not be fetched, and the notes of a fetch, as templates."""
    from model.catalog.hf_hub import HF_ERRORS, HF_NOTES

    return (*HF_ERRORS.values(), *HF_NOTES.values())


def _catalog_texts() -> Iterable[str]:
    """The names of catalog rows that describe rather than name a product (vendor 'Generic'): 'Generic server CPU'."""
    from model import default_catalog
    from model.catalog import short_name

    return (short_name(gpu.name) for gpu in default_catalog().gpus.values() if gpu.vendor == "Generic")


ENGINE_TEXTS: tuple[Callable[[], Iterable[str]], ...] = (
    _method_texts,
    _note_texts,
    _plan_texts,
    _anatomy_texts,
    _catalog_texts,
    _hub_texts,
)


def engine_texts() -> set[str]:
    """Return every engine text the interface translates."""
    return {text for source in ENGINE_TEXTS for text in source()}
