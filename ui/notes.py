"""The estimate's warnings in the visit's language: the engine gives codes and values, this says them."""

from __future__ import annotations

from model import Estimate
from ui.i18n import tr

__all__ = ["FIT_NOTES", "note_lines"]

FIT_NOTES = frozenset({"training_does_not_fit", "inference_does_not_fit_none", "inference_does_not_fit_some"})
"""Notes that say a mode does not fit: the verdict already says so, with what would fit."""


def note_lines(result: Estimate, leave_out: frozenset[str] = frozenset()) -> list[str]:
    """Return each of ``result``'s notes as a sentence, except those whose code is in ``leave_out``."""
    return [tr(note.template, **note.fields) for note in result.notes if note.code not in leave_out]
