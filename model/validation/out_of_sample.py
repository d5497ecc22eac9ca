"""The engine's error on measurements it was not fitted on: leave one source out, read from a shipped file.

``python -m model.validation.calibrate --write`` fits the free efficiency factors once on every
measurement (the in-sample fit) and once per source without that source's rows, predicts the
held-out rows with the constants fitted without them, and writes the medians to
data/validation_out_of_sample.json. Refitting takes minutes (every setting of the grid scores every
measurement), so pages read the file: :func:`load_out_of_sample` parses it once per process.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from model.caches import once
from model.catalog import DATA_DIR, CatalogError

__all__ = [
    "OUT_OF_SAMPLE_FILE",
    "GeneralisationScore",
    "HeldOutRow",
    "OutOfSample",
    "from_dict",
    "load_out_of_sample",
]

OUT_OF_SAMPLE_FILE: Path = DATA_DIR / "validation_out_of_sample.json"
"""Where ``python -m model.validation.calibrate --write`` puts the leave-one-source-out fit."""


@dataclass(frozen=True, slots=True)
class GeneralisationScore:
    """One group of measurements (a kind, a class, a stack, or all) scored in sample and out of sample."""

    group: str
    entries: int
    in_sample: float
    """Median |predicted / measured - 1| with the constants fitted on every measurement."""
    out_of_sample: float
    """The same median, each measurement predicted by constants fitted without its own source."""
    sources: int = 0
    """How many sources the group's measurements come from."""


@dataclass(frozen=True, slots=True)
class HeldOutRow:
    """One measurement's error in sample and with its source held out of the fit."""

    id: str
    kind: str
    source: str
    stack: str
    classes: tuple[str, ...]
    in_sample_error: float
    """Signed: predicted / measured - 1, constants fitted on every measurement."""
    out_of_sample_error: float
    """Signed, constants fitted without this measurement's source."""


@dataclass(frozen=True, slots=True)
class OutOfSample:
    """The leave-one-source-out fit: per kind, class, stack and overall, and per measurement."""

    kinds: tuple[GeneralisationScore, ...]
    overall: GeneralisationScore
    classes: tuple[GeneralisationScore, ...]
    stacks: tuple[GeneralisationScore, ...]
    rows: tuple[HeldOutRow, ...]
    settings_scored: int
    """How many settings of the grid each fit chose among."""
    in_sample_setting: Mapping[str, float]
    """The grid's best setting on every measurement."""
    seconds: float
    """How long the grid took to score (the refits themselves take a fraction of it)."""
    in_sample_groups: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    """Each stack's and platform's constants fitted over all of its measurements ('stack:llamacpp': {...};
    an empty mapping: its prior, typical's). data/stacks.yaml ships them."""
    shipped_groups: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    """The same fits at the global setting the engine ships (model/efficiency.py), which data/stacks.yaml ships."""
    group_seconds: float = 0.0
    """How long the stacks' and platforms' fits and the held-out refits took."""

    @property
    def measurement_ids(self) -> frozenset[str]:
        """The measurements the fit scored: a shipped file is stale when they differ from the report's."""
        return frozenset(row.id for row in self.rows)

    def covers(self, ids: Iterable[str]) -> bool:
        """Whether the file scored exactly these measurements (the validation report's rows)."""
        return self.measurement_ids == frozenset(ids)

    def to_dict(self) -> dict[str, Any]:
        """Return the fit as plain data (the shipped file's content)."""

        def scores(group: Iterable[GeneralisationScore]) -> list[dict[str, Any]]:
            return [_score_dict(score) for score in group]

        return {
            "generated_by": "python -m model.validation.calibrate --write (do not edit by hand)",
            "settings_scored": self.settings_scored,
            "seconds": round(self.seconds, 1),
            "in_sample_setting": dict(self.in_sample_setting),
            "in_sample_groups": {key: dict(values) for key, values in self.in_sample_groups.items()},
            "shipped_groups": {key: dict(values) for key, values in self.shipped_groups.items()},
            "group_seconds": round(self.group_seconds, 1),
            "overall": _score_dict(self.overall),
            "kinds": scores(self.kinds),
            "classes": scores(self.classes),
            "stacks": scores(self.stacks),
            "rows": [
                {
                    "id": row.id,
                    "kind": row.kind,
                    "source": row.source,
                    "stack": row.stack,
                    "classes": list(row.classes),
                    "in_sample_error": round(row.in_sample_error, 6),
                    "out_of_sample_error": round(row.out_of_sample_error, 6),
                }
                for row in self.rows
            ],
        }


def _score_dict(score: GeneralisationScore) -> dict[str, Any]:
    return {
        "group": score.group,
        "entries": score.entries,
        "sources": score.sources,
        "in_sample": round(score.in_sample, 6),
        "out_of_sample": round(score.out_of_sample, 6),
    }


def _score(data: Mapping[str, Any]) -> GeneralisationScore:
    return GeneralisationScore(
        group=str(data["group"]),
        entries=int(data["entries"]),
        in_sample=float(data["in_sample"]),
        out_of_sample=float(data["out_of_sample"]),
        sources=int(data.get("sources", 0)),
    )


def from_dict(data: Mapping[str, Any]) -> OutOfSample:
    """Rebuild the fit from its plain-data form.

    Raises:
        CatalogError: a field is missing or of the wrong type.
    """
    try:
        return OutOfSample(
            kinds=tuple(_score(score) for score in data["kinds"]),
            overall=_score(data["overall"]),
            classes=tuple(_score(score) for score in data["classes"]),
            stacks=tuple(_score(score) for score in data["stacks"]),
            rows=tuple(
                HeldOutRow(
                    id=str(row["id"]),
                    kind=str(row["kind"]),
                    source=str(row["source"]),
                    stack=str(row["stack"]),
                    classes=tuple(str(name) for name in row["classes"]),
                    in_sample_error=float(row["in_sample_error"]),
                    out_of_sample_error=float(row["out_of_sample_error"]),
                )
                for row in data["rows"]
            ),
            settings_scored=int(data["settings_scored"]),
            in_sample_setting={str(name): float(value) for name, value in data["in_sample_setting"].items()},
            seconds=float(data["seconds"]),
            in_sample_groups={
                str(key): {str(name): float(value) for name, value in values.items()}
                for key, values in data.get("in_sample_groups", {}).items()
            },
            shipped_groups={
                str(key): {str(name): float(value) for name, value in values.items()}
                for key, values in data.get("shipped_groups", {}).items()
            },
            group_seconds=float(data.get("group_seconds", 0.0)),
        )
    except (KeyError, TypeError, ValueError) as error:
        rerun = "rerun python -m model.validation.calibrate --write"
        raise CatalogError(f"{OUT_OF_SAMPLE_FILE.name}: malformed ({error!r}); {rerun}") from error


@once
def load_out_of_sample() -> OutOfSample | None:
    """Read the shipped leave-one-source-out fit once per process (None when the file is absent).

    Raises:
        CatalogError: the file is not the calibration's output.
    """
    if not OUT_OF_SAMPLE_FILE.exists():
        return None
    with OUT_OF_SAMPLE_FILE.open(encoding="utf-8") as handle:
        return from_dict(json.load(handle))
