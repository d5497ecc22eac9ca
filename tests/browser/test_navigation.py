"""The top bar at a projector's 1280 x 720: every page reachable, nothing folded, cut or overlapping.

Ten page links do not fit beside the sidebar, and Streamlit folds the last ones into its own
"N more" item, in English whatever the visit's language. ui/navigation.py groups them: four links
and two drop-downs, whose titles are the app's own, in English and 中文. Screenshots go to
test-results/screenshots/nav-*.png.
"""

import itertools
import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import open_app, screenshot, wait_for_app_run
from tests.browser.test_meeting import PROJECTOR
from ui.i18n import tr, use_language
from ui.navigation import LINKS, PAGES

TOP_ITEMS = """() => {
  const menu = document.querySelector("[data-testid='stMainMenu']").getBoundingClientRect();
  const items = "[data-testid='stTopNav'] :is([data-testid='stTopNavLink'], [data-testid='stTopNavSection'])";
  return [...document.querySelectorAll(items)]
    .map(node => ({node, box: node.getBoundingClientRect()}))
    .filter(({node, box}) => box.width > 0 && box.height > 0 && !node.closest("[aria-hidden='true']"))
    .map(({node, box}) => ({
      text: (node.querySelector("[data-testid='stMarkdownContainer']") || node).innerText.trim(),
      section: node.dataset.testid === 'stTopNavSection',
      href: node.href ? new URL(node.href).pathname : null,
      left: box.left, right: box.right, top: box.top, bottom: box.bottom, menuLeft: menu.left,
      cut: [node, ...node.querySelectorAll('*')].some(n => n.scrollWidth > n.clientWidth + 1),
    }));
}"""
"""The links and drop-down buttons the top bar shows, left to right, with their boxes."""
MENU_ITEMS = """() => [...document.querySelectorAll("[data-testid='stTopNavDropdownLink']")]
  .map(node => {
    const box = node.getBoundingClientRect();
    return {
      text: node.querySelector("[data-testid='stMarkdownContainer']").innerText.trim(),
      href: new URL(node.href).pathname, right: box.right, bottom: box.bottom,
      cut: [node, ...node.querySelectorAll('*')].some(n => n.scrollWidth > n.clientWidth + 1),
    };
  })"""
"""The pages an open drop-down lists, with their boxes."""


def top_bar(language: str) -> list[tuple[str, bool, list[tuple[str, str]]]]:
    """Return what the top bar must show in ``language``, left to right.

    Each item is (its text, whether it is a drop-down, the (title, address) of each page it opens).
    """
    with use_language(language):
        links = [(tr(spec.title), False, [(tr(spec.title), f"/{spec.url_path}")]) for spec in PAGES if not spec.section]
        sections: dict[str, list[tuple[str, str]]] = {}
        for spec in PAGES:
            if spec.section != LINKS:
                sections.setdefault(tr(spec.section), []).append((tr(spec.title), f"/{spec.url_path}"))
    return links + [(name, True, pages) for name, pages in sections.items()]


@pytest.mark.parametrize("present", [False, True], ids=["", "present"])
@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_top_bar_names_every_page_at_1280_px(browser, app_url, language, present):
    context = browser.new_context(viewport=PROJECTOR)
    page = context.new_page()
    try:
        open_app(page, f"{app_url}/?lang={language}" + ("&present=1" if present else ""))
        expected = top_bar(language)
        nav = page.get_by_test_id("stTopNav")
        expect(nav.get_by_test_id("stTopNavSection").filter(has_text=re.compile(r"\d+ more"))).to_have_count(0)
        shown = page.evaluate(TOP_ITEMS)
        assert [(item["text"], item["section"]) for item in shown] == [(name, drop) for name, drop, _ in expected]
        for item, (name, drop, pages) in zip(shown, expected, strict=True):
            assert not item["cut"], name
            assert item["left"] >= 0 and item["right"] <= item["menuLeft"] <= PROJECTOR["width"], item
            if not drop:
                assert item["href"] == pages[0][1], name
        assert all(a["right"] <= b["left"] for a, b in itertools.pairwise(shown)), "top-bar items overlap"
        assert len({round(item["top"]) for item in shown}) == 1, "the top bar wraps"
        screenshot(page, f"nav-{language}{'-present' if present else ''}")
        for name, drop, pages in expected:
            if not drop:
                continue
            nav.get_by_test_id("stTopNavSection").filter(has_text=name).click()
            expect(page.get_by_test_id("stTopNavPopover")).to_be_visible()
            listed = page.evaluate(MENU_ITEMS)
            assert [(item["text"], item["href"]) for item in listed] == pages
            assert all(not item["cut"] and item["right"] <= PROJECTOR["width"] for item in listed), listed
            assert all(item["bottom"] <= PROJECTOR["height"] for item in listed), listed
            page.keyboard.press("Escape")
            expect(page.get_by_test_id("stTopNavPopover")).to_have_count(0)
    finally:
        context.close()


def test_a_page_in_a_drop_down_opens_with_the_scenario(page, app_url):
    open_app(page, f"{app_url}/?lang=zh&model=llama-3.1-70b&cards=64")
    with use_language("zh"):
        section, title = tr(PAGES[5].section), tr(PAGES[5].title)
    page.get_by_test_id("stTopNav").get_by_test_id("stTopNavSection").filter(has_text=section).click()
    page.get_by_test_id("stTopNavPopover").get_by_role("menuitem", name=title).click()
    wait_for_app_run(page)
    expect(page).to_have_url(re.compile(rf"/{PAGES[5].url_path}\?.*model=llama-3.1-70b"))
    expect(page).to_have_url(re.compile(r"cards=64"))
    expect(page).to_have_url(re.compile(r"lang=zh"))
    expect(page.get_by_test_id("stException")).to_have_count(0)
