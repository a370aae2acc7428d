"""Issue 38's walk, in a real browser (Debian's Chromium, driven by selenium through Debian's chromedriver):
a TA signs in, goes from the staff page to a student, to a submission, reviews it with a rubric item and a
comment on a line, and releases the review; the student signs in, sees it with the comment beside its line,
and asks for a regrade; the TA answers from the inbox and changes the score; the gradebook and the audit
show it. Every step by the pages' links and forms (no script of the site's own), with a screenshot of each
page kept in the tests' artefacts: $GRADER_TEST_ARTEFACTS/review-walk/ (else the test's temporary folder)."""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.server.conftest import Served
from tests.server.test_reviews import PARTLY, with_rubric

CHROMIUM, CHROMEDRIVER = Path("/usr/bin/chromium"), Path("/usr/bin/chromedriver")


@pytest.fixture
def driver() -> Iterator[Any]:
    if not (CHROMIUM.exists() and CHROMEDRIVER.exists()):
        pytest.skip("Debian's chromium and chromium-driver are not installed: apt-get install chromium "
                    "chromium-driver (.ci/run does it)")
    pytest.importorskip("selenium", reason="the walk drives Chromium with selenium: pip install -e '.[test]'")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--window-size=1280,1000"):
        options.add_argument(flag)
    made = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    made.set_page_load_timeout(60)
    yield made
    made.quit()


@pytest.fixture
def shots(tmp_path: Path) -> Path:
    root = os.environ.get("GRADER_TEST_ARTEFACTS")
    folder = Path(root) / "review-walk" if root else tmp_path / "screenshots"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    return folder


class Walk:
    def __init__(self, driver: Any, served: Served, shots: Path) -> None:
        self.driver, self.served, self.shots, self.taken = driver, served, shots, 0

    def sign_in(self, token: str) -> None:
        from selenium.webdriver.common.by import By

        self.driver.delete_all_cookies()
        self.driver.get(self.served.url + "/")
        self.driver.find_element(By.NAME, "token").send_keys(token)
        self.click(By.ID, "sign-in")

    def click(self, how: str, what: str) -> None:
        """Follow a link or send a form: until the next page has loaded."""
        from selenium.common.exceptions import (
            StaleElementReferenceException,
            WebDriverException,
        )
        from selenium.webdriver.common.by import By

        old = self.driver.find_element(By.TAG_NAME, "html")
        self.driver.find_element(how, what).click()

        def gone() -> bool:
            try:
                old.tag_name  # noqa: B018 - raises once the page it was on is gone
                return False
            except StaleElementReferenceException:
                return True
            except WebDriverException as error:  # chromedriver's other word for it, caught mid-navigation
                if "does not belong to the document" in str(error.msg):
                    return True
                raise

        self.until(lambda: gone() and self.driver.execute_script("return document.readyState") == "complete")

    def text(self) -> str:
        from selenium.webdriver.common.by import By

        return str(self.driver.find_element(By.TAG_NAME, "body").text)

    def shot(self, name: str) -> None:
        self.taken += 1
        self.driver.save_screenshot(str(self.shots / f"{self.taken:02d}-{name}.png"))

    def until(self, check: Any, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while not check():
            assert time.monotonic() < deadline, f"the page never got there: {self.driver.current_url}"
            time.sleep(0.1)


def test_a_ta_reviews_releases_and_answers_a_regrade_request_and_the_gradebook_and_audit_show_it(
        served: Served, driver: Any, shots: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    with_rubric(served)
    ta, alice = served.token("ta", staff=True), served.token("alice")
    served.start("--workers", "1")
    number = served.submit(alice, "add", PARTLY).body["id"]
    served.wait(alice, number)
    walk = Walk(driver, served, shots)

    # The TA: the staff page, the student, the submission, its review.
    walk.sign_in(ta)
    assert driver.current_url.endswith("/staff")
    walk.shot("staff")
    walk.click(By.LINK_TEXT, "alice")
    assert "/staff/students/alice" in driver.current_url
    walk.shot("student")
    walk.click(By.LINK_TEXT, str(number))
    assert f"/submissions/{number}" in driver.current_url
    walk.click(By.ID, "review-link")
    assert driver.current_url.endswith(f"/submissions/{number}/review")
    driver.find_element(By.CSS_SELECTOR, "label[for=rubric-no-docstring]").click()  # by its label
    driver.find_element(By.ID, "line-1").send_keys("2")
    driver.find_element(By.ID, "comment-1").send_keys("Why is 2 special?")
    driver.find_element(By.ID, "summary-field").send_keys("Works, but for one case.")
    walk.click(By.ID, "save-review")
    walk.until(lambda: "pending: not released" in walk.text())
    assert "Comment on line 2: Why is 2 special?" in walk.text()
    walk.shot("review-pending")

    # Released for the exercise.
    driver.get(served.url + "/staff")
    walk.click(By.ID, "reviews-link")
    Select(driver.find_element(By.ID, "release-exercise")).select_by_visible_text("add")
    walk.click(By.ID, "release")
    walk.until(lambda: "released 1 review" in walk.text())
    walk.shot("released")

    # The student sees it, the comment beside line 2, and asks about a test.
    walk.sign_in(alice)
    assert driver.current_url.endswith("/me")
    walk.click(By.LINK_TEXT, str(number))
    walk.click(By.ID, "review-link")
    row = driver.find_element(By.ID, "L2").text
    assert "if a == 2:" in row and "Why is 2 special?" in row
    assert "The function has no docstring (-1" in walk.text() and "Works, but for one case." in walk.text()
    assert driver.find_element(By.ID, "counted").text == "2"  # 3 of 4, -1
    walk.shot("student-review")
    Select(driver.find_element(By.ID, "about")).select_by_value("test:add(2, 2)")
    driver.find_element(By.ID, "message").send_keys("add(2, 2) is 4 everywhere else in my code")
    walk.click(By.ID, "ask")
    assert "/regrade-requests/" in driver.current_url, walk.text()
    assert "open" in driver.find_element(By.ID, "request-status").text
    walk.shot("student-request")

    # The TA answers from the inbox and sets the score.
    walk.sign_in(ta)
    walk.click(By.ID, "requests-link")
    assert "open: waiting for staff" in walk.text()
    walk.shot("inbox")
    walk.click(By.CSS_SELECTOR, "#inbox a")
    driver.find_element(By.ID, "reply").send_keys("Fair: the rest is right. 3.5 of 4.")
    driver.find_element(By.ID, "new-score").send_keys("3.5")
    walk.click(By.ID, "send-reply")
    walk.until(lambda: f"The score of submission {number} is now 3.5" in walk.text())
    assert "answered" in driver.find_element(By.ID, "request-status").text
    walk.shot("answered")

    # The gradebook and the audit show it.
    driver.get(served.url + "/api/gradebook")
    book = json.loads(driver.find_element(By.TAG_NAME, "body").text)
    (cell,) = [a for a in book["applied"] if a["student"] == "alice"]
    # The answer set the score of the submission asked about (docs/ta.md: regrade answers), not an override.
    assert cell["score"] == 3.5 and cell["parts"]["from"] == "regrade" and cell["review"]["released"] is True
    driver.get(served.url + "/staff/students/alice")
    audit = driver.find_element(By.ID, "audit").text
    for what in ("review", "release", "request"):
        assert what in audit, audit
    assert "3.5" in audit and "regrade request" in audit
    walk.shot("audit")

    # The student reads the answer in the thread.
    walk.sign_in(alice)
    driver.get(served.url + "/regrade-requests")
    walk.click(By.CSS_SELECTOR, "#inbox a")
    assert "Fair: the rest is right." in walk.text() and f"The score of submission {number} is now 3.5" in walk.text()
    walk.shot("student-answer")
    assert len(list(shots.glob("*.png"))) == walk.taken == 10
