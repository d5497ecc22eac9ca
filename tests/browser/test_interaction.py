"""Moving controls in a real browser updates the charts; switching pages keeps the scenario."""

import re

from playwright.sync_api import expect

from tests.browser.conftest import mark_labels, open_app, screenshot, selected, wait_for_app_run


def test_moving_the_cards_slider_updates_the_memory_chart_and_the_url(page, app_url):
    open_app(page, f"{app_url}/?goal=pretrain")  # training memory: it moves with the cards
    charts = page.get_by_test_id("stVegaLiteChart")
    expect(charts.first.locator("svg.marks")).to_have_count(1)
    before = mark_labels(page)
    assert any("weights" in label for label in before)
    slider = page.get_by_test_id("stSidebar").get_by_role("slider", name="Cards")
    slider.focus()
    page.keyboard.press("ArrowRight")  # 8 -> 16 cards: ZeRO shards the optimizer further
    wait_for_app_run(page)
    expect(page).to_have_url(re.compile(r"[?&]cards=16"))
    expect(page).to_have_url(re.compile(r"[?&]goal=pretrain"))
    page.wait_for_function(
        "before => { const now = [...document.querySelectorAll(\"[data-testid='stVegaLiteChart'] svg [aria-label]\")]"
        ".map(n => n.getAttribute('aria-label')); return JSON.stringify(now) !== JSON.stringify(before); }",
        arg=before,
        timeout=10_000,
    )
    assert mark_labels(page) != before
    expect(page.get_by_test_id("stException")).to_have_count(0)


def test_switching_pages_keeps_the_scenario(page, app_url):
    open_app(page, f"{app_url}/?model=llama-3.1-70b&cards=64&precision=fp8")
    page.get_by_test_id("stTopNav").get_by_role("link", name="Tokens per second").click()
    wait_for_app_run(page)
    expect(page).to_have_url(re.compile(r"/tokens\?.*model=llama-3.1-70b"))
    expect(page).to_have_url(re.compile(r"cards=64"))
    assert selected(page, "model").startswith("Llama 3.1 70B")
    expect(page.get_by_test_id("stException")).to_have_count(0)
    page.get_by_test_id("stTopNav").get_by_role("link", name="Overview").click()
    wait_for_app_run(page)
    expect(page.locator("h1")).to_contain_text("64 ×")
    screenshot(page, "after-page-switch")


def test_a_quick_click_on_a_slow_machine_keeps_the_linked_scenario(page, app_url):
    """A page switch sent before every sidebar widget has mounted must not reset the scenario.

    A 6x CPU throttle makes the browser slow to mount the lazily loaded widgets, as a busy laptop
    or a phone is; before ui/remount.py this link became 1 card of the first model, no precision.
    """
    page.context.new_cdp_session(page).send("Emulation.setCPUThrottlingRate", {"rate": 6})
    page.goto(f"{app_url}/?model=llama-3.1-70b&cards=64&precision=fp8")
    # Click as soon as the first run has finished on the server, not once the widgets are drawn.
    page.locator("[data-testid='stApp'][data-test-script-state='notRunning']").wait_for(state="attached")
    page.get_by_test_id("stTopNav").get_by_role("link", name="Tokens per second").click()
    wait_for_app_run(page)
    page.get_by_test_id("stTopNav").get_by_role("link", name="Overview").click()
    wait_for_app_run(page)
    expect(page.locator("h1")).to_contain_text("Llama 3.1 70B on 64 ×")
    expect(page).to_have_url(re.compile(r"precision=fp8"))
    assert selected(page, "model").startswith("Llama 3.1 70B")
