"""The page to work in, in a real Chromium: code typed into the editor from the keyboard alone, its visible
tests run in place, the work saved as it is typed (a receipt shown, and there after a reload), a second tab's
save making the first tab's stale (said, and the saved version offered, never written over), a hand-in whose
graded report appears; and the same page with script turned off hands in from its textarea."""

from __future__ import annotations

import time
from typing import Any

from selenium.common.exceptions import WebDriverException
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from tests.server.conftest import ADD
from tests.work.conftest import Site

EDITOR = "document.querySelector('.CodeMirror').CodeMirror"
CSP_WATCH = ("window.__csp = []; document.addEventListener('securitypolicyviolation', "
             "event => window.__csp.push(event.violatedDirective + ' ' + event.blockedURI))")


def until(driver: Any, script: str, seconds: float = 120) -> Any:
    """Wait for a script's answer to be truthy (the page's own pace: no time is asserted)."""
    return WebDriverWait(driver, seconds, ignored_exceptions=(WebDriverException,)).until(
        lambda d: d.execute_script(f"return {script}"))


def sign_in(site: Site, driver: Any, who: str) -> None:
    driver.execute_cdp_cmd("Network.clearBrowserCookies", {})
    driver.get(site.url + "/")
    driver.find_element(By.NAME, "token").send_keys(site.tokens[who])
    driver.find_element(By.ID, "sign-in").click()
    until(driver, "location.pathname === '/me'")


def open_editor(site: Site, driver: Any, exercise: str) -> None:
    driver.get(f"{site.url}/exercises/{exercise}")
    until(driver, "!!document.querySelector('.CodeMirror') && document.readyState === 'complete'")


def keys(driver: Any, *sent: str) -> None:
    ActionChains(driver).send_keys(*sent).perform()


def focused(driver: Any) -> str:
    return str(driver.execute_script("return document.activeElement && document.activeElement.id"))


def test_keyboard_only_typing_running_saving_a_stale_tab_and_a_hand_in(site: Site, chrome: Any) -> None:
    chrome.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": CSP_WATCH})
    sign_in(site, chrome, "alice")
    open_editor(site, chrome, "add")
    for _ in range(40):  # Tab from the top of the page to the editor
        keys(chrome, Keys.TAB)
        if focused(chrome) == "editor":
            break
    assert focused(chrome) == "editor", "the editor never took the focus by Tab"
    ActionChains(chrome).key_down(Keys.CONTROL).send_keys("a").key_up(Keys.CONTROL).perform()  # all of it, replaced
    keys(chrome, "def add(a, b):", Keys.ENTER, "return a + b")
    assert chrome.execute_script(f"return {EDITOR}.getValue()") == ADD.rstrip("\n")  # Enter kept the indentation

    ActionChains(chrome).key_down(Keys.CONTROL).send_keys("m").key_up(Keys.CONTROL).perform()
    keys(chrome, Keys.TAB)  # after Ctrl+M, Tab indents
    assert chrome.execute_script(f"return {EDITOR}.getValue()") == ADD.rstrip("\n") + "    "
    keys(chrome, Keys.BACKSPACE * 4, Keys.ESCAPE)  # and after Esc it moves on again
    keys(chrome, Keys.TAB)  # Tab leaves the editor: no keyboard trap
    assert focused(chrome) == "run"
    keys(chrome, Keys.ENTER)
    verdict = until(chrome, "document.getElementById('run-verdict') && document.getElementById('run-verdict').textContent")
    assert verdict.startswith("Verdict: passed")
    assert focused(chrome) == "run-heading"  # a screen reader is taken to the result

    saved = until(chrome, "document.getElementById('saved').textContent.startsWith('Saved: revision') && "
                          "document.getElementById('saved').textContent")
    revision = int(saved.split("revision ")[1].split(",")[0])
    chrome.refresh()
    until(chrome, "!!document.querySelector('.CodeMirror')")
    assert chrome.execute_script(f"return {EDITOR}.getValue()") == ADD.rstrip("\n")
    assert f"revision {revision}," in chrome.find_element(By.ID, "saved").text

    # Another tab saves; this one's next save is stale: said, and either version kept as the student picks.
    def conflict_with_a_second_tab(text: str) -> int:
        first = chrome.current_window_handle
        chrome.switch_to.new_window("tab")
        open_editor(site, chrome, "add")
        chrome.execute_script(f"{EDITOR}.setValue(arguments[0]); {EDITOR}.getInputField().blur()", text)
        saved = until(chrome, "document.getElementById('saved').textContent.startsWith('Saved: revision') && "
                              "document.getElementById('saved').textContent")
        chrome.close()
        chrome.switch_to.window(first)
        chrome.execute_script(f"{EDITOR}.replaceRange('# the first tab\\n', {{line: 0, ch: 0}}); "
                              f"{EDITOR}.getInputField().blur()")
        said = until(chrome, "!document.getElementById('conflict').hidden && "
                             "document.getElementById('conflict-text').textContent")
        theirs = int(saved.split("revision ")[1].split(",")[0])
        assert f"Another page saved this exercise meanwhile (revision {theirs}" in said
        assert chrome.find_element(By.ID, "saved").text == "Not saved: another page saved meanwhile."
        return theirs

    theirs = conflict_with_a_second_tab("# from the second tab\n")
    assert theirs == revision + 1
    chrome.find_element(By.ID, "keep-mine").send_keys(Keys.ENTER)
    until(chrome, f"document.getElementById('saved').textContent.startsWith('Saved: revision {theirs + 1},')")
    assert chrome.execute_script(f"return {EDITOR}.getValue()").startswith("# the first tab\n")

    theirs = conflict_with_a_second_tab("# from the second tab, again\n")
    chrome.find_element(By.ID, "load-saved").send_keys(Keys.ENTER)
    assert chrome.execute_script(f"return {EDITOR}.getValue()") == "# from the second tab, again\n"
    assert f"revision {theirs}" in chrome.find_element(By.ID, "saved").text
    assert chrome.execute_script("return window.__csp") == []  # the editor ran under the CSP as it is

    chrome.execute_script(f"{EDITOR}.setValue(arguments[0])", ADD)
    chrome.find_element(By.ID, "hand-in").send_keys(Keys.ENTER)
    until(chrome, "location.pathname.startsWith('/submissions/')")
    until(chrome, "document.body.innerText.includes('Verdict: passed')")  # live.js brings the report in


def test_without_script_the_page_hands_in_from_its_textarea(site: Site, chrome: Any) -> None:
    sign_in(site, chrome, "bob")
    chrome.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": True})
    try:
        chrome.get(f"{site.url}/exercises/add")
        area = chrome.find_element(By.ID, "code")
        assert area.is_displayed() and not chrome.find_elements(By.CSS_SELECTOR, ".CodeMirror")
        area.clear()
        area.send_keys("def add(a, b):", Keys.ENTER, "    return a + b", Keys.ENTER)
        chrome.find_element(By.ID, "hand-in").click()
        WebDriverWait(chrome, 60).until(lambda d: "/submissions/" in d.current_url)
        for _ in range(600):  # no script: the student reloads until graded
            if "Verdict: passed" in chrome.find_element(By.TAG_NAME, "body").text:
                break
            time.sleep(0.2)
            chrome.refresh()
        assert "Verdict: passed" in chrome.find_element(By.TAG_NAME, "body").text
    finally:
        chrome.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": False})
