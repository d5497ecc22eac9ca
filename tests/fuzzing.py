"""Seeded generators of hostile input: shared links and uploaded catalogs (issue 5).

Deterministic (a fixed seed per case) so a failure names a case that reproduces; varied enough
to reach every parser: valid values, mutated values, unknown keys, repeats, very long and
binary text, markup, numbers at and past every limit.
"""

from __future__ import annotations

import random
import string
from typing import Any

import yaml

from ui.controls import CONTROLS, VALIDATION_KINDS
from ui.navigation import PAGES as NAVIGATION

PAGES = tuple(spec.path for spec in NAVIGATION[1:])
"""Every page but the default one, which the app opens first anyway."""

_VALID: dict[str, list[str]] = {
    "model": ["llama-3.1-8b", "llama-3.1-405b", "deepseek-r1", "mixtral-8x7b", "custom", "tinyllama-1.1b"],
    "params": ["0.1B", "7B", "70B", "2T", "405B"],
    "precision": ["fp32", "bf16", "fp8", "int4", "fp4"],
    "gpu": ["h100-sxm", "a100-sxm-80gb", "rtx-4090", "cpu-server", "tpu-v5e", "b200", "t4"],
    "cards": ["1", "8", "64", "1024", "100000"],
    "link": ["auto", "pcie-gen4", "nvlink5"],
    "net": ["auto", "ethernet-100g", "ib-xdr"],
    "prompt": ["1", "1024", "32768"],
    "output": ["1", "256", "4096"],
    "batch": ["1", "32", "4096"],
    "tokens": ["0", "1T", "15T"],
    "util": ["0.01", "0.7", "1"],
    "traffic": ["1e3", "1e9", "1e12"],
    "months": ["1", "24", "120"],
    "zero": ["auto", "0", "3"],
    "tp": ["auto", "1", "8"],
    "recompute": ["auto", "none", "full"],
    "micro": ["1", "4"],
    "seq": ["128", "4096", "131072"],
    "target": ["1", "50", "10000"],
    "method_view": ["assumptions", "formulas", "claims"],
    "anatomy_view": ["hierarchy", "links", "generations"],
    "val_kind": list(VALIDATION_KINDS),
}
_HOSTILE: list[str] = [
    "",
    " ",
    "0",
    "-1",
    "-0",
    "1e309",
    "-1e309",
    "1e-400",
    "nan",
    "NaN",
    "inf",
    "-inf",
    "Infinity",
    "0x10",
    "1_000",
    "８",
    "٣",
    "1e",
    "e5",
    "3.5",
    "99999999999999999999999999",
    "2T",
    "1.5k",
    "7B7B",
    "true",
    "null",
    "None",
    "[]",
    "{}",
    "h9000",
    "gpt-9",
    "<script>alert(1)</script>",
    "![x](http://example.invalid/x.png)",
    "[click](javascript:alert(1))",
    "$\\frac{1}{0}$",
    ":red[alert] :material/warning:",
    "../../etc/passwd",
    "/etc/passwd",
    "%00",
    "\x00",
    "\u202eevil",
    "🦙" * 20,
    "a" * 101,
    "9" * 5000,
    "x" * 20000,
    "'; DROP TABLE gpus; --",
    "{{7*7}}",
    "${jndi:ldap://x}",
]


def _garbage(rng: random.Random) -> str:
    alphabet = string.printable + "éßΩ漢字🦙\u0000\u202e"
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 60)))


def _value(rng: random.Random, key: str) -> str:
    roll = rng.random()
    if roll < 0.35 and key in _VALID:
        return rng.choice(_VALID[key])
    if roll < 0.8:
        return rng.choice(_HOSTILE)
    return _garbage(rng)


def shared_link(seed: int) -> dict[str, Any]:
    """Return one query dict (values are a string or, for a repeated key, a list of strings)."""
    rng = random.Random(seed)
    keys = list(CONTROLS)
    query: dict[str, Any] = {}
    for key in rng.sample(keys, rng.randint(0, len(keys))):
        query[key] = _value(rng, key)
        if rng.random() < 0.1:
            query[key] = [_value(rng, key) for _ in range(rng.randint(2, 4))]
    if rng.random() < 0.2:  # the packed values a link carries: garbage, or a packed hostile document
        from ui.linked import pack

        hostile = rng.choice([_garbage(rng), pack(_garbage(rng)), pack(rng.choice(_HOSTILE)), pack("[" * 5000)])
        query[rng.choice(["rows", "saved"])] = hostile
    for _ in range(rng.choice((0, 0, 0, 1, 3))):
        unknown = rng.choice(["page", "utm_source", "embed", "x" * 200, _garbage(rng) or "k", "Cards", "gpu "])
        query[unknown] = _value(rng, "cards")
    return query


def page_for(seed: int) -> str | None:
    """Return the page one link in four opens after the first run (None: stay on the Overview)."""
    rng = random.Random(seed * 7919 + 1)
    return rng.choice(PAGES) if rng.random() < 0.25 else None


_GOOD_GPU: dict[str, Any] = {
    "id": "fuzz-gpu",
    "name": "Fuzz GPU 64GB",
    "memory_gb": 64,
    "memory_bandwidth_gb_per_s": 2000,
    "dense_tflops": {"bf16": 400, "fp8": 800},
    "source": "a datasheet",
}
_GOOD_MODEL: dict[str, Any] = {
    "id": "fuzz-model",
    "name": "Fuzz model",
    "layers": 24,
    "hidden": 2048,
    "heads": 16,
    "kv_heads": 8,
    "ffn": 5632,
    "vocab": 32000,
    "source": "a paper",
}
_BAD_SCALARS: list[Any] = [
    None,
    True,
    False,
    -1,
    0,
    -1e9,
    1e308,
    10**400,
    float("nan"),
    float("inf"),
    float("-inf"),
    "",
    "lots",
    "1e999",
    "7B",
    [],
    [1, 2],
    {},
    {"a": 1},
    "x" * 3000,
    "![x](http://example.invalid)",
    "<b>bold</b>",
    "a\u0000b",
]


def _mutated_row(rng: random.Random, good: dict[str, Any]) -> Any:
    row = dict(good)
    for field in rng.sample(list(row), rng.randint(1, 3)):
        action = rng.random()
        if action < 0.3:
            del row[field]
        elif action < 0.9:
            row[field] = rng.choice(_BAD_SCALARS)
        else:
            row[_garbage(rng) or "extra"] = rng.choice(_BAD_SCALARS)
    if rng.random() < 0.05:
        return rng.choice(_BAD_SCALARS)
    return row


def _dump(document: Any) -> str:
    return yaml.safe_dump(document, allow_unicode=True, sort_keys=False)


def _alias_bomb(levels: int, width: int) -> str:
    lines = [f"a0: &a0 [{', '.join(['lol'] * width)}]"]
    for level in range(1, levels):
        refs = ", ".join([f"*a{level - 1}"] * width)
        lines.append(f"a{level}: &a{level} [{refs}]")
    lines.append(f"gpus: [*a{levels - 1}]")
    return "\n".join(lines)


def _deep(levels: int, style: str) -> str:
    if style == "flow":
        return "gpus: " + "[" * levels + "]" * levels
    return "gpus:\n" + "".join("  " * depth + "- \n" for depth in range(1, min(levels, 400)))


_RAW_DOCUMENTS: list[str | bytes] = [
    "",
    "---",
    "~",
    "null",
    "42",
    "just text",
    "[1, 2, 3]",
    "gpus: 5",
    "gpus: {id: x}",
    "gpus: []\nmodels: []",
    "gpus: [1, 2, 3]",
    "gpus: [[], {}]",
    "schema_version: 1",
    "secrets: [1]\ngpus: []",
    "--- \ngpus: []\n---\nmodels: []\n",
    "gpus:\n  - !!python/object/apply:os.system ['echo hi']\n",
    "gpus: !!python/name:os.system\n",
    "gpus: !!binary aGVsbG8=\n",
    "gpus: !!set {a, b}\n",
    "gpus:\n  - id: t\n    name: !!timestamp 2001-12-14\n",
    "? [a, b]\n: c\n",
    "? {a: 1}\n: c\n",
    "{1: 2, 3: 4}",
    "gpus: [{id: x, id: y}]",
    "gpus: &x [*x]",
    "gpus: [&a {id: a}, *a]",
    "base: &b {memory_gb: 80}\ngpus: [{<<: *b, id: m}]",
    "gpus: [\n",
    "gpus: '\n",
    "gpus:\t- id: x",
    ": : :",
    "%YAML 1.1\n%TAG ! tag:evil.com,2000:\n---\ngpus: !x []",
    "\ufeffgpus: []",
    b"\xff\xfe\x00\x00garbage",
    b"\x00" * 100,
    b"gpus: [\x80\x81\x82]",
    bytes(range(256)),
    "gpus:\n"
    + "".join(
        f"  - {{id: g{i}, name: G {i}, memory_gb: 1, memory_bandwidth_gb_per_s: 1, dense_tflops: {{bf16: 1}}, "
        "source: s}\n"
        for i in range(600)
    ),
    "x" * 300_000,
    "gpus: [" + "1, " * 100_000 + "1]",
]


def malformed_catalogs(count: int, seed: int = 2026) -> list[str | bytes]:
    """Return ``count`` malformed (or merely odd) catalog documents, the fixed ones first."""
    rng = random.Random(seed)
    documents: list[str | bytes] = list(_RAW_DOCUMENTS)
    documents += [_alias_bomb(levels, width) for levels, width in ((9, 9), (20, 2), (3, 1000))]
    documents += [_deep(levels, style) for levels in (9, 50, 1000, 100_000) for style in ("flow", "block")]
    while len(documents) < count:
        roll = rng.random()
        if roll < 0.4:
            document: Any = {"gpus": [_mutated_row(rng, _GOOD_GPU) for _ in range(rng.randint(1, 3))]}
        elif roll < 0.8:
            document = {"models": [_mutated_row(rng, _GOOD_MODEL) for _ in range(rng.randint(1, 3))]}
        elif roll < 0.9:
            document = {
                "gpus": [_mutated_row(rng, _GOOD_GPU)],
                "models": [_mutated_row(rng, _GOOD_MODEL)],
                rng.choice(["schema_version", "extra", "gpus"]): rng.choice(_BAD_SCALARS),
            }
        else:
            raw = bytes(rng.randrange(256) for _ in range(rng.randint(1, 400)))
            documents.append(raw if rng.random() < 0.5 else raw.decode("latin-1"))
            continue
        try:
            text = _dump(document)
        except (ValueError, OverflowError, yaml.YAMLError):
            text = repr(document)
        documents.append(text)
    return documents[:count] if len(documents) > count else documents
