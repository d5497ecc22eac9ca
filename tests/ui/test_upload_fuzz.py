"""Hostile input on the Add page (issue 14), a CI sample: catalog YAML, Hugging Face config.json, the forms.

Each document goes through what the page calls, within a time and memory bound; a refusal names
the file and the field made bad, and changes nothing; an accepted row works on every page
(tests/fuzz_uploads.py, tests/fuzz_configs.py). ``python -m tests.fuzz_full`` runs 10,000 of each.
"""

import itertools

import pytest
import streamlit as st

from tests.fuzz_configs import check_config, check_form, config_cases, form_cases
from tests.fuzz_uploads import check_upload, upload_cases

UPLOADS, CONFIGS, FORMS, CHUNKS = 240, 600, 300, 4


@pytest.fixture(autouse=True)
def _a_fresh_visit_after():
    """The cases add rows to the bare-mode session; later tests must not see them (Compare counts every GPU)."""
    yield
    st.session_state.clear()


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_catalog_uploads_are_refused_naming_the_field_or_work_everywhere(chunk):
    cases = itertools.islice(upload_cases(UPLOADS), chunk, None, CHUNKS)
    failures = {n: found for n, (document, fields) in enumerate(cases) if (found := check_upload(document, fields))}
    assert failures == {}, failures


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_config_json_documents_are_refused_naming_the_key_or_work_everywhere(chunk):
    cases = itertools.islice(config_cases(CONFIGS), chunk, None, CHUNKS)
    failures = {n: found for n, (text, name, fields) in enumerate(cases) if (found := check_config(text, name, fields))}
    assert failures == {}, failures


def test_form_entries_are_refused_naming_the_box_or_work_everywhere():
    failures = {n: found for n, (kind, values) in enumerate(form_cases(FORMS)) if (found := check_form(kind, values))}
    assert failures == {}, failures


def test_the_cases_hold_every_hostile_shape():
    uploads = [document for document, _ in upload_cases(UPLOADS)]
    assert any(len(d) in (255_999, 256_000) for d in uploads) and any(len(d) > 256_000 for d in uploads)
    assert any(isinstance(d, bytes) for d in uploads) and any(".nan" in d for d in uploads if isinstance(d, str))
    configs = [text for text, _, _ in config_cases(CONFIGS)]
    assert any(isinstance(t, str) and t.count("[") > 1000 for t in configs)  # deep nesting
    assert any(isinstance(t, str) and "NaN" in t for t in configs)
    assert any(isinstance(t, bytes) for t in configs)
