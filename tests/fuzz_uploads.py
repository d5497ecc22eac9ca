"""Hostile uploads on the Add page: catalog YAML and Hugging Face config.json (issue 14).

:func:`upload_cases` and :func:`config_cases` are seeded generators; :func:`check_upload` and
:func:`check_config` put one document through what the Add page calls (``ui.forms.add_document``;
for a config.json the page's ``add_from_hf_config`` steps) in Streamlit's bare mode and return the
problems seen (none: it passed):

- nothing raises, and no case takes longer than :data:`CASE_SECONDS` or grows the process by more
  than :data:`CASE_BYTES`;
- a refused document gets a one-line message that names the file, and, when a row's field was
  made bad, that field; it changes nothing the visit had added before;
- an accepted one adds rows every page can use: the engine estimates with them (or refuses with a
  ScenarioError), the Add page lists them, and the visit's rows still load from its shared link.
"""

from __future__ import annotations

import contextlib
import json
import random
import re
import resource
import signal
import traceback
from collections.abc import Iterator
from typing import Any

import streamlit as st
import yaml

from model import Scenario, ScenarioError, estimate
from model.catalog import MAX_USER_CATALOG_BYTES
from tests.fuzz_links import quiet
from tests.fuzzing import _BAD_SCALARS, _GOOD_GPU, _GOOD_MODEL, _garbage, malformed_catalogs
from ui.catalog import USER_CATALOG_KEY, session_catalog
from ui.forms import add_document, added_rows

__all__ = ["CASE_BYTES", "CASE_SECONDS", "check_upload", "upload_cases"]

CASE_SECONDS = 3.0
"""The longest one upload may take (the slowest legitimate one, a full 256 kB catalog, takes ~0.5 s)."""
CASE_BYTES = 300 * 2**20
"""The most one upload may grow the process's peak memory."""
_PRIOR = yaml.safe_dump({"gpus": [{**_GOOD_GPU, "id": "prior-gpu", "name": "Prior GPU"}]}, sort_keys=False)
"""A row the visit added before each case: a refused upload must leave it as it was."""
_YAML_ODDITIES = [
    ".nan", ".inf", "-.inf", "1e400", "0x1F", "0o17", "1_000", "190:20:30", "yes", "off", "~", "2001-12-14",
    "2001-12-14t21:59:43.10-05:00", "!!binary aGk=", "!!float 1", "!!str 5", "!!int '3'", "'08'", "08", "+12",
    "-0", "1e-400", "9" * 400, "[]", "{}", "[1, [2, [3]]]", "{a: {b: {c: {d: 1}}}}", "'<b>x</b>'", "'🦙'",
    "\"\\u202e\"", "'a\\x00b'", "&a 1", "!!python/none ''", "!<tag:yaml.org,2002:str> 5",
]  # fmt: skip
"""Scalars as YAML text: the YAML 1.1 surprises (sexagesimal, yes/no, dates, tags, octal)."""


class _TooSlowError(Exception):
    pass


def _alarm(signum: int, frame: Any) -> None:
    raise _TooSlowError


def _bounded(run: Any, limit_s: float = CASE_SECONDS) -> tuple[Any, list[str]]:
    """Run ``run()`` within ``limit_s`` seconds and :data:`CASE_BYTES`; return its value and what went wrong."""
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, limit_s)
    try:
        value, problems = run(), []
    except _TooSlowError:
        value, problems = None, [f"took longer than {limit_s:g} s"]
    except Exception as error:
        value, problems = None, [f"raised {type(error).__name__}: {error}"[:300], traceback.format_exc(limit=-3)]
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - before
    if grown > CASE_BYTES:
        problems.append(f"grew the process by {grown / 2**20:,.0f} MB")
    return value, problems


def _single_row(rng: random.Random) -> tuple[str, frozenset[str]]:
    """Return one good row with one to three fields made odd, as YAML text, and the fields touched."""
    kind, good = ("gpus", _GOOD_GPU) if rng.random() < 0.5 else ("models", _GOOD_MODEL)
    row: dict[str, Any] = json.loads(json.dumps(good))
    touched = set()
    for field in rng.sample([*good, "kv_heads", "moe", "mla", "head_dim", "tdp_w", "max_context"], rng.randint(1, 3)):
        touched.add(field)
        row[field] = rng.choice(_BAD_SCALARS) if rng.random() < 0.5 else "@" + rng.choice(_YAML_ODDITIES)
    if kind == "gpus" and rng.random() < 0.2:
        key = rng.choice(["bf16", "fp8", "fp3", "fp16acc", "", "BF16"])
        row["dense_tflops"] = {key: rng.choice(_BAD_SCALARS[:12])}
        touched.add("dense_tflops")
    lines = [f"{kind}:", f"  - id: {row.pop('id')!r}"]
    for field, value in row.items():
        text = value[1:] if isinstance(value, str) and value.startswith("@") else json.dumps(value, default=str)
        if text == "NaN" or "Infinity" in text:
            text = {"NaN": ".nan", "Infinity": ".inf", "-Infinity": "-.inf"}.get(text, text)
        lines.append(f"    {field}: {text}")
    touched |= {f"{name}.{key}" for name in touched for key in ("bf16", "fp8", "fp16", "fp32")}
    return "\n".join(lines) + "\n", frozenset(touched | {"id", "name"})


def _near_the_cap(rng: random.Random) -> str | bytes:
    """Return a document of about the upload cap: good rows padded, just under, at or over it."""
    row = "  - {{id: g{i}, name: G {i}, memory_gb: 1, memory_bandwidth_gb_per_s: 1, dense_tflops: {{bf16: 1}}, "
    row += "source: s}}\n"
    document = "gpus:\n" + "".join(row.format(i=i) for i in range(rng.choice([1, 100, 500, 501])))
    target = rng.choice([MAX_USER_CATALOG_BYTES - 1, MAX_USER_CATALOG_BYTES, MAX_USER_CATALOG_BYTES + 1, 2**20 - 1])
    filler = rng.choice(["#", " ", "\n", "é"])
    document += "#" + filler * max(0, (target - len(document.encode()) - 2) // len(filler.encode())) + "\n"
    return document.encode() if rng.random() < 0.5 else document


def upload_cases(count: int, seed: int = 14) -> Iterator[tuple[str | bytes, frozenset[str]]]:
    """Yield ``count`` uploads and, for a row made bad, the fields a refusal may name (empty: any)."""
    rng = random.Random(seed)
    hostile = malformed_catalogs(max(count // 3, 1), seed)
    for index in range(count):
        roll = rng.random()
        if index < len(hostile) and roll < 0.34:
            yield hostile[index], frozenset()
        elif roll < 0.9:
            yield _single_row(rng)
        elif roll < 0.95:
            yield _near_the_cap(rng), frozenset()
        else:
            junk = rng.choice([_garbage(rng) * rng.randint(1, 200), "\ufeff" + _single_row(rng)[0]])
            yield junk.encode("utf-16") if rng.random() < 0.3 else junk, frozenset()


def _named(message: str, fields: frozenset[str]) -> bool:
    """Whether a refusal names one of ``fields``: as its field (nested: "moe, field 'experts'"), or in its reason.

    A rule across fields names the other one in its reason: "field 'kv_heads': must divide heads (31)".
    """
    found = re.search(r"(?:, (\w+))?, field '([^']*)': (.*)", message)
    if not fields or found is None or {found.group(1), found.group(2)} & fields:
        return True
    return any(re.search(rf"\b{re.escape(field)}\b", found.group(3)) for field in fields)


def _usable(catalog: Any) -> None:
    """Use the visit's own rows as the pages do: estimate with each, list them, and label them."""
    for gpu in (gpu for gpu in catalog.gpus.values() if gpu.user_supplied):
        for goal in ({}, {"batch": "max"}, {"finetune": "qlora"}):
            with contextlib.suppress(ScenarioError):
                estimate(Scenario(gpu=gpu.id, **goal), catalog)
    for model in (model for model in catalog.models.values() if model.user_supplied):
        for goal in ({}, {"batch": "max", "cards": 64}, {"finetune": "lora"}):
            with contextlib.suppress(ScenarioError):
                estimate(Scenario(model=model.id, **goal), catalog)
    added_rows(catalog)


def _add(document: str | bytes, name: str) -> tuple[bool, str]:
    quiet()
    st.session_state.clear()
    st.session_state[USER_CATALOG_KEY] = _PRIOR
    return add_document(document, name)


def _not_one_line(message: object, *, empty_allowed: bool = False) -> list[str]:
    """The problem when ``message`` is not one short line (an accepted form may say nothing)."""
    if isinstance(message, str) and (message or empty_allowed) and "\n" not in message.strip() and len(message) <= 400:
        return []
    return [f"the message is not one short line: {message!r}"[:300]]


def _rows_changed(what: str) -> list[str]:
    """The problem when a refused ``what`` changed the visit's rows."""
    return [f"a refused {what} changed the visit's rows"] if st.session_state.get(USER_CATALOG_KEY) != _PRIOR else []


def check_upload(document: str | bytes, fields: frozenset[str] = frozenset(), name: str = "upload.yaml") -> list[str]:
    """Return the problems adding ``document`` on the Add page shows (none: it passed)."""
    added, problems = _bounded(lambda: _add(document, name))
    if problems:
        return problems
    accepted, message = added
    if unreadable := _not_one_line(message):
        return unreadable
    if not accepted:
        if not message.startswith(name):
            problems.append(f"the refusal does not name the file: {message[:200]}")
        if not _named(message, fields):
            problems.append(f"the refusal names another field than {sorted(fields)[:6]}: {message[:200]}")
        return problems + _rows_changed("upload")
    rows = st.session_state[USER_CATALOG_KEY]
    _, problems = _bounded(lambda: _usable(session_catalog()))
    st.session_state.clear()
    again, relinked = _bounded(lambda: add_document(rows, "the link's rows"))
    if relinked or not again[0]:
        problems.append(f"the visit's rows do not load again from its link: {relinked or again[1]}"[:300])
    return problems
