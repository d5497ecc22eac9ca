"""Presentation mode at a projector's 1280 x 720 (issue 31): what the back of the room must be able to read.

On the Overview, VRAM, Tokens per second and Costs pages, in English and 中文, with ``present=1``: no
chart text under 16 px, no metric label or value cut, a one-line title, the first chart starting on
the first screen, and the sidebar's goal, model, GPU and cards visible without scrolling. The
screenshots are kept as test artifacts (test-results/screenshots/present-*.png).
"""

import pytest

from tests.browser.conftest import open_app, screenshot
from tests.browser.test_meeting import CUT_TEXT, PROJECTOR

LEAST_PX = 16
PAGES = {
    "overview": "/?present=1&model=llama-3.1-70b&gpu=h100-sxm&cards=8",
    "vram": "/vram?present=1&goal=finetune&finetune=qlora&model=llama-3.1-70b&gpu=rtx-4090&cards=2",
    "tokens": "/tokens?present=1&model=deepseek-r1&gpu=h20&cards=8&precision=fp8",
    "costs": "/costs?present=1&goal=pretrain&model=llama-3.1-70b&gpu=h100-sxm&cards=64&tokens=2e12",
}
SMALL_TEXT = f"""() => [...document.querySelectorAll("[data-testid='stVegaLiteChart'] svg text")]
  .filter(node => node.textContent.trim() && parseFloat(getComputedStyle(node).fontSize) < {LEAST_PX})
  .map(node => node.textContent.trim().slice(0, 30) + ' (' + getComputedStyle(node).fontSize + ')')"""
TITLE_LINES = """() => {
  const title = document.querySelector("[data-testid='stMain'] [data-testid='stHeading'] :is(h1, h2)");
  if (!title) return 0;
  const style = getComputedStyle(title);
  const line = parseFloat(style.lineHeight) || parseFloat(style.fontSize) * 1.2;
  const box = title.getBoundingClientRect();
  return Math.round((box.height - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom)) / line);
}"""
FIRST_CHART_TOP = """() => {
  const chart = document.querySelector("[data-testid='stMain'] [data-testid='stVegaLiteChart']");
  return chart ? chart.getBoundingClientRect().top + window.scrollY : null;
}"""
SIDEBAR_BOTTOMS = """keys => Object.fromEntries(keys.map(key => {
  const box = document.querySelector(`[data-testid='stSidebar'] .st-key-${key}`);
  return [key, box ? box.getBoundingClientRect().bottom : null];
}))"""


@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize("name", list(PAGES))
def test_presentation_mode_reads_from_the_back_of_the_room(browser, app_url, name, language):
    context = browser.new_context(viewport=PROJECTOR)
    page = context.new_page()
    try:
        open_app(page, f"{app_url}{PAGES[name]}&lang={language}")
        shot = screenshot(page, f"present-{name}-{language}")
        page.evaluate("window.scrollTo(0, 0)")
        assert page.evaluate(SMALL_TEXT) == []
        assert page.evaluate(CUT_TEXT) == []
        assert page.evaluate(TITLE_LINES) == 1
        top = page.evaluate(FIRST_CHART_TOP)
        assert top is not None and top < PROJECTOR["height"], top
        bottoms = page.evaluate(SIDEBAR_BOTTOMS, ["goal", "model", "gpu", "cards"])
        assert all(bottom is not None and bottom <= PROJECTOR["height"] for bottom in bottoms.values()), bottoms
        assert shot.stat().st_size > 10_000
    finally:
        context.close()
