"""Issue 11 in a browser: the goal leads, impossible figures are dashes, nothing is cut on a projector."""

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import open_app, screenshot

CUT_TEXT = """() => {
  const cut = [];
  const selectors = ["[data-testid='stMetricLabel']", "[data-testid='stMetricValue']", "[data-testid='stMetricDelta']"];
  for (const selector of selectors) {
    for (const element of document.querySelectorAll(selector)) {
      const nodes = [element, ...element.querySelectorAll('*')];
      if (nodes.some(node => node.scrollWidth > node.clientWidth + 1)) cut.push(element.innerText.slice(0, 60));
    }
  }
  return cut;
}"""
"""Every metric label, value and delta whose text is wider than its box (an ellipsis on screen)."""
PROJECTOR = {"width": 1280, "height": 720}
SMALL_CHART_TEXT = """() => [...document.querySelectorAll("[data-testid='stVegaLiteChart'] svg text")]
  .filter(node => node.textContent.trim() && parseFloat(getComputedStyle(node).fontSize) < 14)
  .map(node => node.textContent.trim().slice(0, 30))"""
"""Chart text smaller than 14 px: unreadable on a projector (16 px in presentation mode: test_present.py)."""
SCENARIOS = {
    "overview": "/?model=llama-3.1-70b&gpu=rtx-4090&cards=2&precision=int4",
    "vram": "/vram?goal=finetune&finetune=qlora&model=llama-3.1-8b&gpu=rtx-4090&cards=1",
    "tokens": "/tokens?model=deepseek-r1&gpu=h20&cards=8&precision=fp8",
    "costs": "/costs?model=deepseek-r1&gpu=h20&cards=8&precision=fp8&price=2",
    "costs-trained": "/costs?goal=pretrain&model=qwen3-30b-a3b&gpu=b200&cards=64&precision=fp8&tokens=1e12",
    "vram-moe-training": "/vram?goal=pretrain&model=qwen3-30b-a3b&gpu=b200&cards=64&precision=fp8&tokens=1e12",
    "costs-months-zh": "/costs?lang=zh&goal=pretrain&model=llama-3.1-70b&gpu=h100-sxm&cards=64&tokens=2e12",
}


def test_a_qlora_link_leads_with_fits(page, app_url):
    open_app(page, f"{app_url}/?goal=finetune&finetune=qlora&model=llama-3.1-8b&gpu=rtx-4090&cards=1")
    first = page.get_by_test_id("stAlert").first
    expect(first).to_contain_text("Fine-tuning fits")


def test_deepseek_on_h20_at_a_typed_price_shows_serving_costs_as_numbers(page, app_url):
    open_app(page, f"{app_url}/?model=deepseek-r1&gpu=h20&cards=8&precision=fp8&price=2")
    cost = page.get_by_test_id("stMetric").filter(has_text="$ per M output tokens")
    expect(cost.get_by_test_id("stMetricValue")).to_contain_text("$")
    open_app(page, f"{app_url}/costs?model=deepseek-r1&gpu=h20&cards=8&precision=fp8&price=2")
    for label in ("Serving / month", "API / month"):
        metric = page.get_by_test_id("stMetric").filter(has_text=label)
        expect(metric.get_by_test_id("stMetricValue")).to_contain_text("$")


def test_405b_on_one_t4_shows_no_speed_and_names_the_reason(page, app_url):
    open_app(page, f"{app_url}/?model=llama-3.1-405b&gpu=t4&cards=1")
    expect(page.get_by_test_id("stAlert").first).to_contain_text("Serving does not fit")
    expect(page.get_by_test_id("stAlert").first).to_contain_text("cards")
    for label in ("Tokens/s, 1 user", "Tokens/s, full load"):
        metric = page.get_by_test_id("stMetric").filter(has_text=label).first
        expect(metric.get_by_test_id("stMetricValue")).to_have_text("—")


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_nothing_is_cut_on_a_projector(browser, app_url, name):
    context = browser.new_context(viewport=PROJECTOR)
    page = context.new_page()
    try:
        open_app(page, app_url + SCENARIOS[name])
        shot = screenshot(page, f"projector-{name}")
        assert page.evaluate(CUT_TEXT) == []
        assert page.evaluate(SMALL_CHART_TEXT) == []
        assert shot.stat().st_size > 10_000
    finally:
        context.close()


@pytest.mark.parametrize(
    ("key", "typed", "first"), [("gpu", "H20", "NVIDIA H20 96GB"), ("model", "70B", "Llama 3.1 70B")]
)
def test_the_pickers_list_the_exact_name_first(page, app_url, key, typed, first):
    open_app(page, f"{app_url}/")
    box = page.locator(f".st-key-{key} input[role='combobox']")
    box.click()
    box.fill(typed)
    expect(page.get_by_role("option").first).to_contain_text(first)
    page.keyboard.press("Escape")


WIDE_FORMULAS = """() => [...document.querySelectorAll('.katex-display')]
  .filter(node => node.scrollWidth > node.clientWidth + 1)
  .map(node => node.textContent.slice(0, 60))"""
"""Every displayed formula wider than its column (KaTeX clips it; the rest scrolls out of sight)."""


@pytest.mark.parametrize("language", ["en", "zh"])
def test_every_formula_fits_its_column_on_a_projector(browser, app_url, language):
    context = browser.new_context(viewport=PROJECTOR)
    page = context.new_page()
    try:
        open_app(page, f"{app_url}/method?method_view=formulas&lang={language}")
        groups = page.locator("[data-testid='stExpander'] summary")
        expect(groups.first).to_be_visible()
        for index in range(1, groups.count()):  # the first group is open already
            groups.nth(index).click()
        expect(page.locator(".katex-display")).not_to_have_count(0)
        page.wait_for_timeout(500)  # KaTeX lays out each opened group as it renders
        assert page.evaluate(WIDE_FORMULAS) == []
    finally:
        context.close()
