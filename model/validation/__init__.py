"""The engine against published measurements: the measurements, their scenarios, the scores, the fit.

:mod:`~model.validation.reference` loads the measurements and the scenario each maps to,
:mod:`~model.validation.validate` scores the engine on them, :mod:`~model.validation.calibrate`
fits the few free efficiency factors on all of them at once.
"""

from model.validation.reference import KINDS, Reference, load_references
from model.validation.report import error_band, nearest
from model.validation.validate import ValidationReport, ValidationRow, validate

__all__ = [
    "KINDS",
    "Reference",
    "ValidationReport",
    "ValidationRow",
    "error_band",
    "load_references",
    "nearest",
    "validate",
]
