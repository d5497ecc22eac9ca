"""The Plan page in a real browser: it opens from a link and loads an option into the sidebar."""

import re

from playwright.sync_api import expect

from tests.browser.conftest import open_app, screenshot, wait_for_app_run


def test_a_plan_link_opens_and_loads_an_option_into_the_sidebar(page, app_url):
    open_app(page, f"{app_url}/plan?model=llama-3.1-70b&plan_tps=5000&plan_tpot=50")
    expect(page.get_by_test_id("stException")).to_have_count(0)
    expect(page.get_by_text("Cheapest:")).to_be_visible()
    screenshot(page, "plan")
    page.locator(".st-key-plan_load_0").get_by_role("button", name=re.compile("^#1 ")).click()
    wait_for_app_run(page)
    expect(page).to_have_url(re.compile(r"[?&]gpu="))
    expect(page.get_by_test_id("stException")).to_have_count(0)
