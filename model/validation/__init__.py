"""The engine against published measurements: the measurements, their scenarios, the scores, the fit.

:mod:`~model.validation.reference` loads the measurements and the scenario each maps to,
:mod:`~model.validation.validate` scores the engine on them, :mod:`~model.validation.calibrate`
fits the few free efficiency factors on all of them at once and once per source held out, and
:mod:`~model.validation.out_of_sample` reads that held-out fit back from the file it writes.
"""

from model.validation.out_of_sample import GeneralisationScore, OutOfSample, load_out_of_sample
from model.validation.reference import CLASSES, KINDS, Reference, load_references
from model.validation.report import error_band, nearest
from model.validation.validate import ValidationReport, ValidationRow, validate

__all__ = [
    "CLASSES",
    "KINDS",
    "GeneralisationScore",
    "OutOfSample",
    "Reference",
    "ValidationReport",
    "ValidationRow",
    "error_band",
    "load_out_of_sample",
    "load_references",
    "nearest",
    "validate",
]
