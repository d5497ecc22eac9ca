"""AppTest helpers: run the real app from its entry point, then switch to a page."""

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from ui.navigation import page_files

APP = Path(__file__).resolve().parents[2] / "app.py"
PAGES = page_files()


def open_page(page: str = "overview", **query: str) -> AppTest:
    """Start the app (with these query parameters, as a shared link would) and open ``page``."""
    at = AppTest.from_file(str(APP), default_timeout=60)
    for key, value in query.items():
        at.query_params[key] = value
    at.run()
    if page != "overview":
        at.switch_page(PAGES[page]).run()
    assert not at.exception, at.exception
    return at


def sidebar_moves(model: str, gpu: str = "a100-sxm-80gb") -> list[tuple[str, str, object]]:
    """One move of each sidebar control, as (AppTest element kind, key, new value).

    ``model`` and ``gpu`` must differ from the scenario the test opens; the other moves differ
    from the defaults (bf16, 8 cards, the GPU's own links).
    """
    return [
        ("selectbox", "model", model),
        ("selectbox", "precision", "fp8"),
        ("selectbox", "gpu", gpu),
        ("select_slider", "cards", 256),
        ("selectbox", "link", "pcie-gen5"),
        ("selectbox", "net", "ethernet-100g"),
    ]


def metric_values(at: AppTest) -> dict[str, str]:
    """Return every metric on the page as label -> displayed value."""
    return {m.label: m.value for m in at.metric}


@pytest.fixture
def app() -> AppTest:
    return open_page()
