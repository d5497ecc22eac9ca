"""The string catalogue: every key the code uses has a Chinese translation with the same fields."""

from __future__ import annotations

import ast
import string
from pathlib import Path

import yaml

from ui.i18n import catalogue, tr, translation_files, use_language
from ui.i18n.engine_texts import engine_texts

ROOT = Path(__file__).resolve().parents[2]
APP_CODE = [ROOT / "app.py", *sorted((ROOT / "app_pages").rglob("*.py")), *sorted((ROOT / "ui").rglob("*.py"))]
MARKERS = {"tr", "translatable"}


def used_keys() -> dict[str, str]:
    """Return every key the interface translates, with where it is: tr()/translatable() literals, engine texts."""
    keys: dict[str, str] = {}
    for path in APP_CODE:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in MARKERS:
                first = node.args[0] if node.args else None
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    keys.setdefault(first.value, f"{path.relative_to(ROOT)}:{node.lineno}")
    for text in engine_texts():
        keys.setdefault(text, "model/ (ui/i18n/engine_texts.py)")
    return keys


def fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


def test_every_key_the_code_uses_has_a_chinese_translation():
    missing = {key: where for key, where in used_keys().items() if key not in catalogue("zh")}
    assert not missing, "no 中文 for:\n" + "\n".join(f"  {where}: {key!r}" for key, where in sorted(missing.items()))


def test_no_translation_is_left_over_from_text_the_code_no_longer_uses():
    stale = sorted(set(catalogue("zh")) - set(used_keys()))
    assert not stale, f"translations nothing uses: {stale[:20]}"


def test_each_translation_fills_the_same_fields_as_its_english():
    wrong = {key: value for key, value in catalogue("zh").items() if fields(key) != fields(value)}
    assert not wrong, wrong


def test_a_key_without_a_translation_falls_back_to_english():
    with use_language("zh"):
        assert tr("a sentence nobody translated, {n} times", n=3) == "a sentence nobody translated, 3 times"
        assert tr("Cards") == "卡数"
    assert tr("Cards") == "Cards"


def test_the_glossary_terms_are_the_ones_the_translations_use():
    glossary = yaml.safe_load((ROOT / "ui" / "i18n" / "glossary.yaml").read_text(encoding="utf-8"))
    translations = " ".join(catalogue("zh").values())
    unused = [term["zh"] for term in glossary["terms"] if term["zh"].split(" ")[0] not in translations]
    assert not unused, f"glossary terms no translation uses: {unused}"


def test_no_key_is_translated_two_ways_in_two_files():
    seen: dict[str, tuple[str, str]] = {}
    clashes = []
    for name, path in translation_files("zh").items():
        for key, value in (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).items():
            if key in seen and seen[key][1] != value:
                clashes.append(f"{key!r}: {seen[key][0]} says {seen[key][1]!r}, {name} says {value!r}")
            seen.setdefault(key, (name, value))
    assert not clashes, "\n".join(clashes)
