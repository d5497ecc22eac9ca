"""The 中文 view in a real browser: every page from a fresh server, no exception, Chinese on screen.

``/?lang=zh`` is what a shared Chinese link carries. Screenshots (zh-<page>.png, at the projector's
1280 x 720 and full height) go to test-results/screenshots/ with the English ones; CI installs
Debian's fonts-noto-cjk so they are readable.
"""

import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import open_app, screenshot

PAGES = ["", "costs", "vram", "tokens", "compare", "plan", "anatomy", "method", "validation", "add"]
CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.mark.parametrize("path", PAGES)
def test_every_page_renders_in_chinese(page, app_url, path):
    page.set_viewport_size({"width": 1280, "height": 720})
    open_app(page, f"{app_url}/{path}?lang=zh&model=llama-3.1-70b&cards=64")
    expect(page.get_by_test_id("stException")).to_have_count(0)
    heading = page.locator("h1").first
    expect(heading).to_be_visible()
    sidebar = page.get_by_test_id("stSidebar").inner_text()
    assert CJK.search(sidebar), "the sidebar is not in Chinese"
    assert "lang=zh" in page.url, "the address lost the language"
    shot = screenshot(page, f"zh-{path or 'overview'}")
    assert shot.stat().st_size > 10_000


def test_the_language_switch_keeps_the_page_and_the_scenario(page, app_url):
    open_app(page, f"{app_url}/vram?model=llama-3.1-70b&cards=64")
    page.locator(".st-key-lang").get_by_role("radio", name="中文").click()
    page.wait_for_url(re.compile(r"lang=zh"))
    expect(page.get_by_test_id("stException")).to_have_count(0)
    assert "/vram" in page.url and "cards=64" in page.url and "model=llama-3.1-70b" in page.url
    expect(page.locator("h1").first).to_contain_text(re.compile(CJK.pattern))
