"""Typed, validated access to the rows of a catalog YAML file (private to the catalog package).

:class:`Row` wraps one parsed row; every getter checks the field's type and range and raises
:class:`CatalogError` naming the file, the row and the field. :func:`rows_of`, :func:`unique_by_id`
check a whole document. Used by :mod:`model.catalog.schema` and :mod:`model.catalog`, which
exports :class:`CatalogError`.
"""

from __future__ import annotations

import math
from typing import Any, TypeVar

from model.units import TERA

__all__ = ["CatalogError", "Row", "kind_of", "quoted", "rows_of", "unique_by_id"]

_MAX_ROWS = 500
_FLOP_KEYS = ("fp32", "tf32", "bf16", "fp16", "fp8", "int8", "fp4")


NAME_PUNCTUATION = " -.,;()/+&'%:·×"
"""The characters besides letters and digits a catalog name may hold."""


def quoted(value: Any, limit: int = 40) -> str:
    """Return ``repr(value)`` cut to ``limit`` characters: messages quote what was given, briefly."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


Choice = TypeVar("Choice", bound=str)


class CatalogError(ValueError):
    """A catalog row is missing a field or holds a value out of range."""


class Row:
    """Typed access to one YAML row; every failure names file, row and field."""

    def __init__(self, raw: Any, file: str, index: int) -> None:
        if not isinstance(raw, dict):
            raise CatalogError(f"{file}, row {index + 1}: expected a mapping of fields, got {kind_of(raw)}")
        self.raw = raw
        self.file = file
        ident = raw.get("id")
        self.label = f"row {quoted(ident)}" if isinstance(ident, str) and ident else f"row {index + 1}"

    def fail(self, name: str, message: str) -> CatalogError:
        """Return the error for field ``name``, naming the file, the row and the field."""
        return CatalogError(f"{self.file}, {self.label}, field {quoted(name)}: {message}")

    def text(self, name: str, *, required: bool = True, default: str = "") -> str:
        """Return the field as stripped text (``default`` when it is absent and not required)."""
        value = self.raw.get(name)
        if value is None:
            if required:
                raise self.fail(name, "is required (text)")
            return default
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            raise self.fail(name, f"must be text, got {kind_of(value)}")
        text = str(value).strip()
        if required and not text:
            raise self.fail(name, "must not be empty")
        if len(text) > 2000:
            raise self.fail(name, "is longer than 2,000 characters")
        return text

    def display_name(self, name: str = "name") -> str:
        """Return the field as a display name: up to 120 letters, digits, spaces and -.,;()/+&'%:·×.

        Names are shown in page titles and sentences; refusing markup characters (brackets,
        backticks, $, <, >, *, _ and backslashes) means nothing a user uploads can become a link, an image or
        formatting there.
        """
        text = self.text(name)
        if len(text) > 120 or not all(c.isalnum() or c in NAME_PUNCTUATION for c in text):
            raise self.fail(name, f"must be up to 120 letters, digits, spaces and {NAME_PUNCTUATION.strip()}")
        return text

    def identifier(self, name: str = "id") -> str:
        """Return the field as an id: 1-64 letters, digits, '-', '_' or '.'."""
        text = self.text(name)
        if len(text) > 64 or not all(c.isalnum() or c in "-_." for c in text):
            raise self.fail(name, "must be 1-64 letters, digits, '-', '_' or '.'")
        return text

    def number(
        self,
        name: str,
        *,
        required: bool = True,
        minimum: float = 0.0,
        maximum: float = 1e18,
        strictly_positive: bool = True,
    ) -> float | None:
        """Return the field as a finite number within its bounds (``None`` when absent and not required)."""
        value = self.raw.get(name)
        if value is None:
            if required:
                raise self.fail(name, f"is required (a number greater than {minimum:g})")
            return None
        return self._check_number(name, value, minimum, maximum, strictly_positive)

    def _check_number(self, name: str, value: Any, minimum: float, maximum: float, strictly_positive: bool) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.fail(name, f"must be a number, got {kind_of(value)}{_number_hint(value)}")
        try:
            number = float(value)
        except OverflowError:  # an integer past 1e308: YAML reads 10**400 exactly
            number = math.inf
        if not math.isfinite(number):
            raise self.fail(name, f"must be a finite number, got {quoted(value)}")
        if number < minimum or (strictly_positive and number <= minimum) or number > maximum:
            bound = f"greater than {minimum:g}" if strictly_positive else f"at least {minimum:g}"
            raise self.fail(name, f"must be {bound} and at most {maximum:g}, got {quoted(value)}")
        return number

    def integer(self, name: str, *, required: bool = True, minimum: int = 1, maximum: int = 10**7) -> int:
        """Return the field as a whole number within its bounds (0 when absent and not required)."""
        value = self.raw.get(name)
        if value is None:
            if required:
                raise self.fail(name, f"is required (a whole number from {minimum} to {maximum})")
            return 0
        if isinstance(value, bool) or not isinstance(value, int) or not minimum <= value <= maximum:
            raise self.fail(name, f"must be a whole number from {minimum} to {maximum}, got {quoted(value)}")
        return value

    def numbers(self, name: str, *, maximum: float = 1e18, most: int = 32) -> tuple[float, ...]:
        """Return the field as a list of up to ``most`` positive numbers (empty when absent)."""
        value = self.raw.get(name)
        if value is None:
            return ()
        if not isinstance(value, list) or len(value) > most:
            raise self.fail(name, f"must be a list of at most {most} numbers, got {kind_of(value)}")
        return tuple(self._check_number(f"{name}[{i}]", item, 0.0, maximum, True) for i, item in enumerate(value))

    def flag(self, name: str, default: bool = False) -> bool:
        """Return the field as true or false (``default`` when absent)."""
        value = self.raw.get(name, default)
        if value is None:
            return default
        if not isinstance(value, bool):
            raise self.fail(name, f"must be true or false, got {quoted(value)}")
        return value

    def choice(self, name: str, allowed: tuple[Choice, ...], default: Choice) -> Choice:
        """Return the field as one of ``allowed`` (``default`` when absent)."""
        value = self.raw.get(name, default)
        if value is None:
            return default
        for option in allowed:
            if value == option:
                return option
        raise self.fail(name, f"must be one of {', '.join(allowed)}, got {quoted(value)}")

    def flops_table(self, name: str, *, required: bool) -> dict[str, float]:
        """Return a mapping of precision to TFLOPS as FLOP/s; ``*acc`` keys and empty values are skipped."""
        value = self.raw.get(name)
        if value is None:
            if required:
                raise self.fail(name, "is required (a mapping like {bf16: 989.4, fp8: 1978.9} in TFLOPS)")
            return {}
        if not isinstance(value, dict):
            raise self.fail(name, f"must be a mapping of precision to TFLOPS, got {kind_of(value)}")
        table: dict[str, float] = {}
        for key, tflops in value.items():
            if key not in _FLOP_KEYS and not (isinstance(key, str) and key.endswith("acc")):
                raise self.fail(name, f"unknown precision {quoted(key)} (allowed: {', '.join(_FLOP_KEYS)})")
            if tflops is None or key not in _FLOP_KEYS:
                continue
            table[key] = self._check_number(f"{name}.{key}", tflops, 0.0, 1e7, True) * TERA
        if required and not any(k in table for k in ("fp32", "bf16", "fp16")):
            raise self.fail(name, "needs at least one of fp32, bf16 or fp16")
        return table

    def mapping(self, name: str) -> Row | None:
        """Return a nested mapping field as a row of its own (``None`` when absent)."""
        value = self.raw.get(name)
        if value is None:
            return None
        if not isinstance(value, dict):
            raise self.fail(name, f"must be a mapping, got {kind_of(value)}")
        sub = Row(value, self.file, 0)
        sub.label = f"{self.label}, {name}"
        return sub


def kind_of(value: Any) -> str:
    """Describe a YAML value's type for an error message."""
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, (int, float)):
        return f"the number {quoted(value)}"
    if not isinstance(value, str):  # YAML's other types: a date (2024-01-31), a set (!!set), bytes (!!binary)
        return f"{_YAML_TYPES.get(type(value).__name__, 'a value')} {quoted(str(value))}"
    return f"the text {value[:40]!r}"


_YAML_TYPES = {"date": "the date", "datetime": "the date and time", "set": "a set", "bytes": "binary data"}


def _number_hint(value: Any) -> str:
    """Say why a number reads as text: YAML 1.1 wants a decimal point in 7.0e2 (7e2 is text), and no quotes."""
    if not isinstance(value, str):
        return ""
    try:
        float(value)
    except ValueError:
        return ""
    return " (YAML reads it as text: write it without quotes, and 7e2 as 7.0e2)"


def rows_of(document: Any, key: str, file: str, *, required: bool = True) -> list[Row]:
    """Return the rows of the list under ``key`` (at most 500), each wrapped as a :class:`Row`."""
    if not isinstance(document, dict):
        raise CatalogError(f"{file}: expected a mapping with a {key!r} list at the top, got {kind_of(document)}")
    items = document.get(key)
    if items is None:
        if required:
            raise CatalogError(f"{file}: no {key!r} list at the top level")
        return []
    if not isinstance(items, list):
        raise CatalogError(f"{file}, {key!r}: expected a list of rows, got {kind_of(items)}")
    if len(items) > _MAX_ROWS:
        raise CatalogError(f"{file}, {key!r}: {len(items)} rows is more than the {_MAX_ROWS} allowed")
    return [Row(item, file, index) for index, item in enumerate(items)]


def unique_by_id(items: list[Any], file: str) -> dict[str, Any]:
    """Return ``items`` keyed by their id; an id that appears twice is an error."""
    table: dict[str, Any] = {}
    for item in items:
        if item.id in table:
            raise CatalogError(f"{file}, row {quoted(item.id)}, field 'id': appears twice")
        table[item.id] = item
    return table
