"""The proof against a real LMS: Moodle, run from its source tree with PHP and a private PostgreSQL, and a
real browser (headless Chromium) driving it. Opt-in: GRADER_TEST_MOODLE names the folder of Moodle's source
tree (README: how to get it); without it, this module is skipped. The site is set up once
(tests/lti/moodle/site.py) and reused; each run makes its own tool registration, course and people.

Proven here, in order: the grader registered in Moodle as an LTI 1.3 tool; the teacher adds an exercise by
deep linking (Moodle's "Select content", the tool's list, the signed answer back); a student launches it in
Moodle's iframe, signed in with no token, and submits a wrong then a right answer; the score lands in
Moodle's gradebook through AGS; a TA's override moves it there; the course's roster comes back by NRPS."""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.batch.classroom import write_course
from tests.conftest import run_cli
from tests.lti.moodle.site import Site, default_home
from tests.server.conftest import ADD, WRONG, Served

SOURCE = os.environ.get("GRADER_TEST_MOODLE")
pytestmark = pytest.mark.skipif(not SOURCE, reason="GRADER_TEST_MOODLE (a folder holding Moodle's source tree) "
                                                   "is not set: see README, 'Inside the LMS, by LTI 1.3'")
# The Moodle this was proven with: alonsoarias/Moodle_Dev's root commit, Moodle 4.5.5+ (Build: 20250613).
MOODLE_COMMIT = "1047f18f458effd00d3ac1525d4e1895e6048d0f"
PASSWORD = "Grader-test-1!"
TIMES: dict[str, float] = {}


@pytest.fixture(scope="module")
def site() -> Iterator[Site]:
    source = Path(str(SOURCE)).resolve()
    made = Site(source, Path(os.environ.get("GRADER_TEST_MOODLE_HOME") or default_home(source)).resolve())
    TIMES["set-up"] = made.set_up()
    yield made
    made.stop()
    print(f"\nMoodle set-up {TIMES['set-up']:.1f} s; the walk {TIMES.get('walk', 0):.1f} s")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    pytest.importorskip("selenium", reason="the Moodle test drives Chromium with selenium: pip install selenium")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--window-size=1400,1100"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.set_page_load_timeout(120)
    yield driver
    driver.quit()


def wait_for(what: str, check: Any, timeout: float = 120) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        try:
            found = check()
            if found:
                return found
        except Exception as error:  # noqa: BLE001 - a page still loading: look again
            last = error
        else:
            last = None
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what} ({last!r})")
        time.sleep(0.3)


def sign_in(driver: Any, site: Site, username: str) -> None:
    from selenium.webdriver.common.by import By

    driver.delete_all_cookies()  # Moodle's and the tool's (both on 127.0.0.1): a new person

    def signed_in() -> bool:
        driver.get(f"{site.wwwroot}/login/index.php")
        for field, value in (("username", username), ("password", PASSWORD)):
            element = driver.find_element(By.ID, field)
            element.clear()
            element.send_keys(value)
        if driver.find_element(By.ID, "password").get_attribute("value") != PASSWORD:
            return False
        driver.find_element(By.ID, "loginbtn").click()
        deadline = time.monotonic() + 30
        while "login/index.php" in driver.current_url and time.monotonic() < deadline:
            time.sleep(0.2)
        return "login/index.php" not in driver.current_url

    wait_for(f"{username} signed in", signed_in, timeout=240)


def screenshot_on_failure(driver: Any, folder: Path) -> None:
    try:
        (folder / "frame.html").write_text(driver.page_source)
        driver.switch_to.default_content()
        driver.save_screenshot(str(folder / "moodle.png"))
        (folder / "moodle.html").write_text(driver.page_source)
    except Exception:  # noqa: BLE001 - a help to read a failure, never one itself
        pass


def moodle_grade(site: Site, course: int, user: int) -> float | None:
    rows = site.sql("SELECT g.finalgrade FROM mdl_grade_grades g JOIN mdl_grade_items i ON i.id = g.itemid "
                    f"WHERE i.courseid = {course} AND i.itemmodule = 'lti' AND g.userid = {user}")
    return float(rows[0][0]) if rows and rows[0][0] else None


def test_a_teacher_places_an_exercise_a_student_is_graded_and_moodle_holds_the_score(
        site: Site, browser: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    began = time.monotonic()
    tool = Served(tmp_path, tmp_path / "state", write_course(tmp_path))
    tool.start("--insecure-cookies", "--workers", "1")  # plain HTTP on loopback, as Moodle is here
    try:
        tag = f"t{int(time.time())}"
        made = json.loads(site.php(Path(__file__).parent / "moodle" / "course.php", tool.url, tag,
                                   PASSWORD).splitlines()[-1])
        www = site.wwwroot
        registered = run_cli("serve", "lti", "add-platform", "--state", tool.state, "--issuer", www,
                             "--client-id", made["clientid"], "--login-url", f"{www}/mod/lti/auth.php",
                             "--token-url", f"{www}/mod/lti/token.php", "--keys-url", f"{www}/mod/lti/certs.php",
                             "--deployment", str(made["typeid"]))
        assert registered.returncode == 0, registered.stderr
        people = made["people"]
        staff = tool.token("ta", staff=True)

        # The teacher adds the exercise by deep linking: Moodle's "Select content" opens the tool's list.
        sign_in(browser, site, people["teacher"]["username"])
        browser.get(f"{www}/course/modedit.php?add=lti&course={made['course']}&section=0&return=0"
                    f"&typeid={made['typeid']}")
        wait_for("Select content", lambda: browser.find_element(By.ID, "id_selectcontent").is_enabled())
        browser.find_element(By.ID, "id_selectcontent").click()
        frame = wait_for("the tool's list", lambda: browser.find_element(By.ID, "contentitem-page-iframe"))
        browser.switch_to.frame(frame)
        wait_for("the add exercise", lambda: browser.find_element(By.CSS_SELECTOR, "button[value=add]")).click()
        wait_for("the return button", lambda: browser.find_element(By.ID, "return")).click()
        browser.switch_to.default_content()
        wait_for("the form filled by the deep link",
                 lambda: browser.find_element(By.ID, "id_name").get_attribute("value") == "Add two numbers")
        browser.find_element(By.ID, "id_submitbutton2").click()
        cmid = wait_for("the activity", lambda: site.sql(
            "SELECT cm.id FROM mdl_course_modules cm JOIN mdl_modules m ON m.id = cm.module "
            f"WHERE m.name = 'lti' AND cm.course = {made['course']}"))[0][0]
        assert site.sql(f"SELECT grademax FROM mdl_grade_items WHERE courseid = {made['course']} AND "
                        "itemmodule = 'lti'")[0][0].startswith("4")  # the deep link's line item: 4 points
        TIMES["deep linking"] = time.monotonic() - began

        # A student opens it in Moodle's iframe, signed in by the launch, and hands in twice.
        student = people["student1"]
        sign_in(browser, site, student["username"])
        browser.get(f"{www}/mod/lti/view.php?id={cmid}")
        frame = wait_for("the tool's iframe", lambda: browser.find_element(By.ID, "contentframe"))
        browser.switch_to.frame(frame)
        wait_for("the exercise page", lambda: browser.find_element(By.ID, "submit"))
        assert f"Signed in as {student['username']}." in browser.page_source
        assert "gt_" not in browser.page_source  # no token to copy, none shown
        for code, name in ((WRONG, "wrong.py"), (ADD, "right.py")):
            path = tmp_path / name
            path.write_text(code)
            count = len(browser.find_elements(By.CSS_SELECTOR, "td.status"))
            browser.find_element(By.NAME, "file").send_keys(str(path))
            browser.find_element(By.ID, "submit").click()
            wait_for(f"{name} graded", lambda: len(browser.find_elements(By.CSS_SELECTOR, "td.status")) == count + 1
                     and all(e.text in ("done", "error") for e in browser.find_elements(By.CSS_SELECTOR, "td.status")))
        scores = [e.text for e in browser.find_elements(By.CSS_SELECTOR, "td.score")]
        assert scores == ["4.0 / 4.0", "0.0 / 4.0"]
        browser.switch_to.default_content()
        TIMES["launch and hand-ins"] = time.monotonic() - began

        # The score that counts reaches Moodle's gradebook by AGS (the tool's own round, not a call of ours).
        assert wait_for("the score in Moodle", lambda: moodle_grade(site, made["course"], student["id"]) == 4.0)
        # A TA's override moves it there.
        override = tool.call("POST", "/api/overrides", staff, json.dumps(
            {"student": student["username"], "exercise": "add", "score": 2.5, "reason": "late by agreement"}
        ).encode(), "application/json")
        assert override.status == 200, override.body
        assert wait_for("the override in Moodle", lambda: moodle_grade(site, made["course"], student["id"]) == 2.5)
        # The roster comes back from Moodle by NRPS: the teacher and both students, the one who never
        # launched among them.
        synced = tool.call("POST", "/api/lti/sync", staff)
        assert synced.status == 200 and synced.body["rosters"][0].get("members", 0) >= 3, synced.body
        roster = {m["email"]: m for m in tool.call("GET", "/api/lti/status", staff).body["roster"]}
        for who in ("teacher", "student1", "student2"):
            assert people[who]["email"] in roster
        assert roster[people["student2"]["email"]]["student"] is None  # in the LMS, never launched
        assert tool.call("GET", "/api/lti/status", staff).body["failed"] == []
        TIMES["walk"] = time.monotonic() - began
        print(f"\nMoodle {MOODLE_COMMIT[:12]}: " + ", ".join(f"{k} {v:.1f} s" for k, v in TIMES.items()))
    except BaseException:
        screenshot_on_failure(browser, Path(os.environ.get("GRADER_TEST_MOODLE_SHOTS", tmp_path)))
        raise
    finally:
        tool.stop()
