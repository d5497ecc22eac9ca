"""The app's words in English and 中文: ``tr("Cards")`` returns the visit's language.

The English text is the key, so the English side cannot drift from the code and a page reads as
it renders. The Chinese side lives beside the code that shows it: a page's texts in its folder
(``app_pages/<page>/zh.yaml``), the shared modules' texts in ``ui/i18n/zh/*.yaml`` (one file per
area, English -> 中文), with the glossary of terms in ``ui/i18n/glossary.yaml``. A key with no translation falls back to
English; ``tests/ui/test_i18n.py`` fails on it, on a translation whose placeholders differ from
its key's, and on a translation nothing uses any more. No gettext: a dictionary lookup is all a
two-language app needs, and it keeps a missing string visible instead of silent.

Placeholders are ``str.format`` fields: ``tr("{n} cards", n=f"{cards:,}")``. Numbers keep the
same formatting rules in both languages (thousands separators, k/M/B/T suffixes; no 万/亿), so a
figure on a shared screen reads the same to both audiences.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator
from importlib import resources
from importlib.resources.abc import Traversable
from typing import Final

import yaml

from model.caches import once
from model.catalog import SAFE_LOADER

__all__ = [
    "DEFAULT_LANGUAGE",
    "LANGUAGES",
    "LANGUAGE_KEY",
    "catalogue",
    "current_language",
    "language_from_locale",
    "tr",
    "translatable",
    "translation_files",
    "use_language",
]

LANGUAGES: Final[dict[str, str]] = {"en": "English", "zh": "中文"}
"""Language codes the app speaks, with the name each shows in its own language."""
DEFAULT_LANGUAGE: Final = "en"
LANGUAGE_KEY: Final = "lang"
"""The session-state and URL key of the chosen language."""
_PAGES_PACKAGE: Final = "app_pages"
"""The package of page folders: each holds its own translations as ``<language>.yaml``."""
_FORCED: contextvars.ContextVar[str | None] = contextvars.ContextVar("forced_language", default=None)


@once
def catalogue(language: str) -> dict[str, str]:
    """Return every translation into ``language`` (English text -> translated text); {} for English.

    Raises:
        ValueError: a file is not a mapping of text to text.
    """
    if language == DEFAULT_LANGUAGE:
        return {}
    merged: dict[str, str] = {}
    for name, path in translation_files(language).items():
        rows = yaml.load(path.read_text(encoding="utf-8"), Loader=SAFE_LOADER) or {}
        if not isinstance(rows, dict):
            raise ValueError(f"{name}: expected a mapping of English text to its translation")
        for key, value in rows.items():
            if not isinstance(key, str) or not isinstance(value, str):
                raise ValueError(f"{name}: {key!r} must map text to text")
            merged.setdefault(key, value)  # the first file wins; tests/ui/test_i18n.py fails on a clash
    return merged


def translation_files(language: str) -> dict[str, Traversable]:
    """Return the project's own files of translations into ``language`` (never a path from a visitor).

    Keyed by their path in the project: the shared modules' files (``ui/i18n/<language>/*.yaml``)
    first, then each page folder's ``app_pages/<page>/<language>.yaml``, each group sorted by name.
    """
    shared = {
        f"ui/i18n/{language}/{item.name}": item
        for item in resources.files(__name__).joinpath(language).iterdir()
        if item.name.endswith(".yaml")
    }
    pages = {
        f"{_PAGES_PACKAGE}/{folder.name}/{language}.yaml": folder.joinpath(f"{language}.yaml")
        for folder in resources.files(_PAGES_PACKAGE).iterdir()
        if folder.is_dir() and folder.joinpath(f"{language}.yaml").is_file()
    }
    return dict(sorted(shared.items())) | dict(sorted(pages.items()))


def language_from_locale(locale: str | None) -> str:
    """Return the app language a browser locale asks for: 'zh' for any Chinese locale, else English."""
    return "zh" if (locale or "").lower().startswith("zh") else DEFAULT_LANGUAGE


def current_language() -> str:
    """Return the visit's language: a :func:`use_language` block's, else the session's, else English."""
    forced = _FORCED.get()
    if forced is not None:
        return forced
    try:
        import streamlit as st
        from streamlit.runtime.scriptrunner import get_script_run_ctx

        if get_script_run_ctx(suppress_warning=True) is None:
            return DEFAULT_LANGUAGE  # called outside a page run (unit tests, the CLI)
        language = st.session_state.get(LANGUAGE_KEY, DEFAULT_LANGUAGE)
    except Exception:  # no session at all: English
        return DEFAULT_LANGUAGE
    return language if language in LANGUAGES else DEFAULT_LANGUAGE


@contextlib.contextmanager
def use_language(language: str) -> Iterator[None]:
    """Render in ``language`` inside the block, whatever the session says (tests, exports)."""
    token = _FORCED.set(language)
    try:
        yield
    finally:
        _FORCED.reset(token)


def tr(text: str, /, **values: object) -> str:
    """Return ``text`` in the visit's language, its ``{fields}`` filled from ``values``.

    The key must be a literal string, or one marked with :func:`translatable` where it is defined
    (the catalogue test reads the literal arguments of both).
    """
    language = current_language()
    if language != DEFAULT_LANGUAGE:
        text = catalogue(language).get(text, text)
    return text.format(**values) if values else text


def translatable(text: str) -> str:
    """Mark ``text`` as a key that is translated later (a table built at import): returns it unchanged."""
    return text
