"""Every page works from the keyboard: each control takes the focus by Tab, in turn, and shows it; the page's
content sits in landmarks with one `main`, for a screen reader to jump to. The pages are pages.py's list."""

from __future__ import annotations

from typing import Any

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

from tests.a11y.conftest import Site, audit, described
from tests.a11y.pages import PAGES, Page, open_page

# What a keyboard can reach, as the HTML standard has it (less what is disabled or taken out of the order).
FOCUSABLE = ("a[href], button:not([disabled]), input:not([type=hidden]):not([disabled]), select:not([disabled]), "
             "textarea:not([disabled]), summary, [tabindex]:not([tabindex='-1'])")

MARK = """
    // Number every control a person can see (not one folded in a closed <details>), and say what each is.
    const controls = Array.from(document.querySelectorAll(arguments[0])).filter(element =>
        element.checkVisibility({visibilityProperty: true}) && element.tabIndex >= 0);
    return controls.map((element, index) => {
        element.dataset.a11yControl = index;
        return element.outerHTML.slice(0, 160);
    });
"""
FOCUSED = """
    // The control that has the focus now, and whether a person sees that it has: an outline or a shadow.
    const element = document.activeElement;
    if (!element || element === document.body) return null;
    const style = getComputedStyle(element);
    const outlined = style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0;
    const shadowed = style.boxShadow !== '' && style.boxShadow !== 'none';
    return {index: element.dataset.a11yControl === undefined ? -1 : Number(element.dataset.a11yControl),
            shown: outlined || shadowed, what: element.outerHTML.slice(0, 160)};
"""


def tab(driver: Any) -> dict[str, Any] | None:
    ActionChains(driver).send_keys(Keys.TAB).perform()
    return driver.execute_script(FOCUSED)  # type: ignore[no-any-return]


@pytest.mark.parametrize("page", PAGES, ids=str)
def test_every_control_takes_the_focus_by_tab_and_shows_it(page: Page, site: Site, chrome: Any) -> None:
    open_page(site, chrome, page)
    controls = chrome.execute_script(MARK, FOCUSABLE)
    reached: set[int] = set()
    unseen: list[str] = []
    for _ in range(2 * len(controls) + 4):  # once round the page and past its end, whatever the start
        focused = tab(chrome)
        if focused is None or focused["index"] in reached:
            continue
        reached.add(focused["index"])
        if not focused["shown"]:
            unseen.append(focused["what"])
        if reached >= set(range(len(controls))):
            break
    missing = [controls[i] for i in range(len(controls)) if i not in reached]
    assert not missing, f"{page.name}: never reached by Tab:\n" + "\n".join(missing)
    assert not unseen, f"{page.name}: focused with no visible sign of it:\n" + "\n".join(unseen)


@pytest.mark.parametrize("page", PAGES, ids=str)
def test_the_content_sits_in_landmarks_with_one_main(page: Page, site: Site, chrome: Any, axe: str) -> None:
    open_page(site, chrome, page)
    violations = audit(chrome, axe, ["landmark-one-main", "region", "bypass", "landmark-no-duplicate-main"])
    assert not violations, f"{page.name} ({chrome.current_url}):\n{described(violations)}"


def test_the_batch_gradebook_sorts_from_the_keyboard(site: Site, chrome: Any) -> None:
    open_page(site, chrome, next(p for p in PAGES if p.where == "batch:html/index.html"))
    for _ in range(200):
        focused = tab(chrome)
        if focused is not None and focused["what"].startswith("<th") and ">total<" in focused["what"]:
            break
    else:
        raise AssertionError("the gradebook's total header never took the focus")
    ActionChains(chrome).send_keys(Keys.ENTER).perform()
    header = "document.activeElement.getAttribute('aria-sort')"
    assert chrome.execute_script(f"return {header}") == "ascending"
    ActionChains(chrome).send_keys(Keys.SPACE).perform()
    assert chrome.execute_script(f"return {header}") == "descending"
    totals = chrome.execute_script(
        "return Array.from(document.querySelectorAll('#gradebook tbody td.total')).map(c => Number(c.dataset.value))")
    assert totals == sorted(totals, reverse=True) and len(totals) == 8
