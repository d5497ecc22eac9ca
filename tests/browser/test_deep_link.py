"""A shared link opened as the first request to a freshly started server shows its page and scenario.

This module has its own server (module-scoped fixture), so the deep link really is the first
request. With page scripts in a legacy pages/ folder this fails (reproduced on Streamlit 1.67; README, "The app").
"""

import re

from playwright.sync_api import expect

from tests.browser.conftest import open_app, screenshot, selected, wait_for_app_run


def test_deep_link_to_a_page_on_a_fresh_server_shows_that_page_and_scenario(page, app_url):
    open_app(page, f"{app_url}/vram?model=llama-3.1-70b&cards=64&gpu=h200")
    expect(page.get_by_test_id("stException")).to_have_count(0)
    expect(page.get_by_test_id("stTopNav").get_by_role("link", name="VRAM")).to_have_attribute("aria-current", "page")
    assert selected(page, "model").startswith("Llama 3.1 70B")
    assert "H200" in selected(page, "gpu")
    expect(page).to_have_url(re.compile(r"/vram\?.*cards=64"))
    screenshot(page, "deep-link-vram")


def test_a_bad_link_value_falls_back_with_one_short_notice_above_the_page(page, app_url):
    open_app(page, f"{app_url}/?cards=zero&gpu=h1000")
    expect(page.get_by_test_id("stException")).to_have_count(0)
    main = page.get_by_test_id("stMain")
    expect(main.get_by_test_id("stAlert").first).to_contain_text("2 of its settings could not be used")
    expect(main).to_contain_text("'h1000' is not allowed (did you mean h100-sxm?)")
    expect(page.get_by_test_id("stSidebar").get_by_test_id("stAlert")).to_have_count(0)
    wait_for_app_run(page)
    expect(page).not_to_have_url(re.compile(r"h9000"))
