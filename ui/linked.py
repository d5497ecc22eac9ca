"""What a shared link carries besides the controls: the rows added on the Add page, and saved scenarios.

Each travels as one query value: the document (YAML rows, JSON scenarios) compressed with zlib and
written in URL-safe base64, so a row costs about as many characters as its YAML. On the way in the
value is size-capped before and after decompression (a link cannot smuggle a zip bomb) and the
rows go through exactly the checks an upload does; what fails is dropped with a warning, and the
rest of the link still opens.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import zlib
from collections.abc import Mapping, MutableMapping
from typing import Any

from model import Scenario, ScenarioError, resolve
from model.catalog import MAX_USER_CATALOG_BYTES
from ui.i18n import tr

__all__ = [
    "LINKED_KEYS",
    "LONG_LINK_CHARS",
    "MAX_PACKED_CHARS",
    "ROWS_KEY",
    "SAVED_LINK_KEY",
    "linked_values",
    "pack",
    "unpack",
]

ROWS_KEY, SAVED_LINK_KEY = "rows", "saved"
LINKED_KEYS = frozenset({ROWS_KEY, SAVED_LINK_KEY})
MAX_PACKED_CHARS = 6000
"""The longest packed value accepted (about 20 rows); longer ones are refused before decoding."""
LONG_LINK_CHARS = 2000
"""Links longer than this are cut by some chat apps and mail clients: the share dialog says so."""
_PACKED = re.compile(r"[A-Za-z0-9_-]+")


def pack(text: str) -> str:
    """Return ``text`` compressed and written in URL-safe base64 without padding."""
    return base64.urlsafe_b64encode(zlib.compress(text.encode("utf-8"), 9)).decode("ascii").rstrip("=")


def unpack(token: str) -> str:
    """Return the text :func:`pack` wrote.

    Raises:
        ValueError: the value is too long, not base64, not zlib, too large once inflated, or not UTF-8.
    """
    if len(token) > MAX_PACKED_CHARS:
        raise ValueError(
            tr("{length} characters is longer than {limit}", length=f"{len(token):,}", limit=f"{MAX_PACKED_CHARS:,}")
        )
    if not _PACKED.fullmatch(token):
        raise ValueError(tr("not a packed value (letters, digits, - and _ only)"))
    try:
        data = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        inflater = zlib.decompressobj()
        text = inflater.decompress(data, MAX_USER_CATALOG_BYTES + 1)
    except (binascii.Error, zlib.error):
        raise ValueError(tr("the value is damaged")) from None
    if len(text) > MAX_USER_CATALOG_BYTES or inflater.unconsumed_tail:
        raise ValueError(tr("it inflates past {limit} bytes", limit=f"{MAX_USER_CATALOG_BYTES:,}"))
    try:
        return text.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(tr("the value is not text")) from None


def linked_values(rows_yaml: str | None, saved: list[Mapping[str, Any]]) -> dict[str, str]:
    """Return the query values that carry the added rows and the saved scenarios (none when empty)."""
    values = {}
    if rows_yaml:
        values[ROWS_KEY] = pack(rows_yaml)
    if saved:
        entries = [{"label": entry["label"], "scenario": entry["scenario"]} for entry in saved]
        values[SAVED_LINK_KEY] = pack(json.dumps(entries, separators=(",", ":")))
    return values


def saved_from_link(text: str, catalog: Any, limit: int) -> tuple[list[dict[str, Any]], list[str]]:
    """Return the saved scenarios a link's JSON holds, each checked as a scenario, and what was dropped."""
    try:
        entries = json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: a hostile link nests thousands of lists
        return [], [tr("saved scenarios: not JSON")]
    if not isinstance(entries, list):
        return [], [tr("saved scenarios: expected a list")]
    kept, warnings = [], []
    for index, entry in enumerate(entries[:limit]):
        try:
            label = str(entry["label"])[:120]
            scenario = Scenario(**entry["scenario"])
            resolve(scenario, catalog)
        except (KeyError, TypeError, ScenarioError) as error:
            warnings.append(tr("saved scenario {number} dropped ({why})", number=f"{index + 1}", why=str(error)[:80]))
            continue
        kept.append({"id": index + 1, "label": label, "scenario": scenario.to_dict()})
    return kept, warnings


def take_linked(query: MutableMapping[str, list[str]]) -> dict[str, str]:
    """Remove the linked values from ``query`` and return the last one given for each key."""
    return {key: query.pop(key)[-1] for key in list(query) if key in LINKED_KEYS and query[key]}
