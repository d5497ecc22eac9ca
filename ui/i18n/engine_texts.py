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
    """The Method page's formulas and assumptions (names, explanations, templates)."""
    return ()


def _note_texts() -> Iterable[str]:
    """The estimate's notes (warnings) and the price notes, as templates."""
    return ()


ENGINE_TEXTS: tuple[Callable[[], Iterable[str]], ...] = (_method_texts, _note_texts)


def engine_texts() -> set[str]:
    """Return every engine text the interface translates."""
    return {text for source in ENGINE_TEXTS for text in source()}
