"""The launch inside the LMS's iframe, across sites, in a real browser (headless Chromium): the course page is
served from http://localhost:P (the LMS), the tool from http://127.0.0.1:T, which a browser counts as another
site. The LMS's page posts the OIDC login inside its iframe, its authorisation answers with the signed launch
posted back (tests/lti/platform.py, as Moodle does), and the tool signs the person in there.

What Chromium does, seen here: a cookie the tool sets inside the frame is a third-party cookie. Chromium 156
blocks those by default ("UserPreferences"); allowed, it keeps the tool's SameSite=None; Secure cookies (it
counts http://127.0.0.1 as a secure context, so Secure cookies work on loopback), and never a SameSite=Lax one
set from the frame ("SchemefulSameSiteLax": why `--insecure-cookies` serves only an LMS on the tool's own
site). Where the cookie is blocked, the launch cannot be tied to the browser in the frame: the tool says so
and offers the same login in a new window, where its cookies are first-party.

Skipped without selenium (pip install selenium) or Chromium (/usr/bin/chromium, /usr/bin/chromedriver)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.batch.classroom import write_course
from tests.conftest import run_cli
from tests.lti.platform import Platform
from tests.server.conftest import ADD, Served

CHROMIUM, DRIVER = Path("/usr/bin/chromium"), Path("/usr/bin/chromedriver")
pytestmark = pytest.mark.skipif(not (CHROMIUM.exists() and DRIVER.exists()), reason="no Chromium here")
ALLOW, BLOCK = 0, 1  # Chromium's cookie controls: third-party cookies allowed, blocked


@pytest.fixture(scope="module")
def lms() -> Iterator[Platform]:
    made = Platform(page_host="localhost").start()  # its pages on localhost: another site than the tool's
    yield made
    made.stop()


@pytest.fixture(scope="module")
def tool(tmp_path_factory: pytest.TempPathFactory, lms: Platform) -> Iterator[Served]:
    root = tmp_path_factory.mktemp("framed")
    served = Served(root, root / "state", write_course(root))
    registered = run_cli("serve", "lti", "add-platform", "--state", served.state, *lms.registration())
    assert registered.returncode == 0, registered.stderr
    served.start("--workers", "1")  # Secure cookies (no --insecure-cookies), as behind HTTPS
    lms.tool_url = served.url
    yield served
    served.stop()


def chromium(cookies: int) -> Any:
    pytest.importorskip("selenium", reason="a real browser through selenium: pip install selenium")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"):
        options.add_argument(flag)
    options.add_experimental_option("prefs", {"profile.cookie_controls_mode": cookies,
                                              "profile.block_third_party_cookies": cookies == BLOCK})
    driver = webdriver.Chrome(service=Service(str(DRIVER)), options=options)
    driver.set_page_load_timeout(60)
    return driver


@pytest.fixture()
def allowing() -> Iterator[Any]:
    driver = chromium(ALLOW)
    yield driver
    driver.quit()


@pytest.fixture()
def blocking() -> Iterator[Any]:
    driver = chromium(BLOCK)
    yield driver
    driver.quit()


def wait_for(what: str, check: Any, timeout: float = 60) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        try:
            found = check()
        except Exception:  # noqa: BLE001 - a page between two loads: look again
            found = None
        if found:
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.2)


def hand_in(driver: Any, tmp_path: Path) -> list[str]:
    """A hand-in from the tool's page, where the driver is: the page's form, its CSRF value, its cookies."""
    from selenium.webdriver.common.by import By

    path = tmp_path / "add.py"
    path.write_text(ADD)
    driver.find_element(By.NAME, "file").send_keys(str(path))
    driver.find_element(By.ID, "submit").click()
    wait_for("the hand-in graded", lambda: [e.text for e in driver.find_elements(By.CSS_SELECTOR, "td.status")]
             == ["done"], timeout=120)
    return [e.text for e in driver.find_elements(By.CSS_SELECTOR, "td.score")]


def test_the_launch_signs_in_inside_the_iframe_of_an_lms_on_another_site_and_a_hand_in_works_there(
        tool: Served, lms: Platform, allowing: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    allowing.get(f"{lms.pages}/course?user=user-zoe")
    assert urlsplit(allowing.current_url).hostname == "localhost"  # the page the browser shows: the LMS's
    allowing.switch_to.frame(allowing.find_element(By.ID, "tool"))
    wait_for("the exercise in the frame", lambda: "Signed in as zoe." in allowing.page_source)
    where = urlsplit(allowing.execute_script("return location.href"))
    assert (where.hostname, where.path) == ("127.0.0.1", "/lti/exercises/add")
    assert allowing.execute_script("return window.top !== window")  # framed, by another site's page
    assert "gt_" not in allowing.page_source  # the session's token never reaches a page
    assert hand_in(allowing, tmp_path) == ["4.0 / 4.0"]
    session = next(c for c in allowing.get_cookies() if c["name"] == "grader_session")
    assert session["sameSite"] == "None" and session["secure"] and session["httpOnly"]


def test_where_the_browser_blocks_third_party_cookies_the_launch_opens_in_a_new_window_and_signs_in_there(
        tool: Served, lms: Platform, blocking: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    logins = len(lms.auth_requests)
    blocking.get(f"{lms.pages}/course?user=user-yan")
    blocking.switch_to.frame(blocking.find_element(By.ID, "tool"))
    link = wait_for("the new-window link", lambda: blocking.find_element(By.ID, "new-window"))
    assert "Signed in" not in blocking.page_source and "cookie" in blocking.page_source
    href = link.get_attribute("href")
    assert urlsplit(href).path == "/lti/login" and "id_token" not in href and "gt_" not in href
    link.click()
    window = wait_for("a new window", lambda: [h for h in blocking.window_handles
                                               if h != blocking.current_window_handle])
    blocking.switch_to.window(window[0])
    wait_for("the exercise in its own window", lambda: "Signed in as yan." in blocking.page_source)
    assert urlsplit(blocking.current_url).hostname == "127.0.0.1"
    assert len(lms.auth_requests) == logins + 2  # the framed login, then the new window's
    assert "gt_" not in blocking.page_source
    assert hand_in(blocking, tmp_path) == ["4.0 / 4.0"]
