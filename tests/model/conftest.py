"""Fixtures of the engine's tests: a stand-in for the Hugging Face Hub."""

from collections.abc import Iterator

import pytest

from model.catalog.hf_hub import clear_hf_cache
from tests.hf_server import Hub, serve_hub


@pytest.fixture(scope="session")
def _running_hub() -> Iterator[Hub]:
    with serve_hub() as running:
        yield running


@pytest.fixture
def hub(_running_hub: Hub, monkeypatch: pytest.MonkeyPatch) -> Iterator[Hub]:
    """Serve tests/data/hf on 127.0.0.1 as HF_ENDPOINT, with no token, no proxy and nothing remembered."""
    clear_hf_cache()
    _running_hub.requests.clear()
    for name in ("HF_TOKEN", "HF_HUB_DOWNLOAD_TIMEOUT"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("HF_ENDPOINT", _running_hub.url)
    yield _running_hub
    clear_hf_cache()
