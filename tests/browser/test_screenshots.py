"""Every page renders in a real browser without an exception; a screenshot of each is kept."""

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import open_app, screenshot

PAGES = ["", "costs", "vram", "tokens", "compare", "plan", "anatomy", "method", "validation", "add"]


@pytest.mark.parametrize("path", PAGES)
def test_every_page_renders_and_is_captured(page, app_url, path):
    open_app(page, f"{app_url}/{path}?model=llama-3.1-70b&cards=64")
    expect(page.get_by_test_id("stException")).to_have_count(0)
    expect(page.locator("h1").first).to_be_visible()
    shot = screenshot(page, path or "overview")
    assert shot.stat().st_size > 10_000
