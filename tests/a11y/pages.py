"""Every page the grader draws, in one list: each is checked by axe-core, walked with the keyboard and
looked at for verdicts told by colour alone (test_axe.py, test_keyboard.py).

To add a page, add one line to PAGES:

    Page("the grid", "/staff/grid", "prof", shows="alice"),

`where` is a path on the class's server (`{right}`, `{wrong}`, `{hidden_wrong}`, `{late}`, `{carol_late}` are
the numbers of those submissions), or `batch:PATH` / `mutants:PATH`, a file of the batch's or the mutants'
report folder, or a function (site, driver) that gets the browser to the page (a form's answer, an LTI
launch). `role` is who is signed in: alice, bob, carol (students), prof (staff), or None. `shows`: a text the
page must show, so that a redirect to the sign-in page cannot pass for the page."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode, urlsplit

from selenium.common.exceptions import WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

from tests.a11y.conftest import Site
from tests.lti.platform import INSTRUCTOR, LEARNER

Driver = Any


@dataclass(frozen=True)
class Page:
    name: str
    where: str | Callable[[Site, Driver], None]
    role: str | None = None
    shows: str = ""

    def __str__(self) -> str:
        return self.name


# ---------------------------------------------------------------- pages reached by a form or a launch
def _loaded(driver: Driver) -> None:
    """Wait for the next page: the document marked before leaving is replaced, and the new one loaded."""
    WebDriverWait(driver, 120, ignored_exceptions=(WebDriverException,)).until(lambda d: d.execute_script(
        "return document.readyState === 'complete' && !window.__a11y_old"))


def _submit(driver: Driver, button: str) -> None:
    """Click a form's button and wait for the page the form's answer is."""
    driver.execute_script("window.__a11y_old = true")
    driver.find_element(By.CSS_SELECTOR, button).click()
    _loaded(driver)


def refused_sign_in(site: Site, driver: Driver) -> None:
    driver.get(site.served.url + "/")
    driver.find_element(By.NAME, "token").send_keys("not-a-token")
    _submit(driver, "#sign-in")


def refused_submission(site: Site, driver: Driver) -> None:
    """A hand-in after the exercise's late cut-off, sent through the student's page's own form."""
    hand_in = site.root / "guess.txt"
    hand_in.write_text("42\n")
    driver.get(site.served.url + "/me")
    Select(driver.find_element(By.NAME, "exercise")).select_by_visible_text("guess")
    driver.find_element(By.CSS_SELECTOR, "input[type=file]").send_keys(str(hand_in))
    _submit(driver, "#submit")


def ran_visible_tests(site: Site, driver: Driver) -> None:
    """The page to work in, its visible tests run from the editor (work.js brings the result in place)."""
    driver.get(site.served.url + "/exercises/add")
    WebDriverWait(driver, 60).until(lambda d: d.execute_script("return !!document.querySelector('.CodeMirror')"))
    driver.find_element(By.ID, "run").click()
    WebDriverWait(driver, 120).until(lambda d: d.execute_script("return !!document.getElementById('run-verdict')"))


def refused_override(site: Site, driver: Driver) -> None:
    """An override whose score is no number, through the staff's form."""
    driver.get(site.served.url + "/staff/students/bob")
    driver.find_element(By.NAME, "score").send_keys("lots")
    _submit(driver, "form[action='/staff/override'] button")


def lti_launch(site: Site, driver: Driver, message: str, sub: str, roles: tuple[str, ...]) -> None:
    """A launch as the LMS makes it, in the browser: the tool's OIDC login sends it to the platform's
    authorisation, whose page posts the signed id_token (for `sub`, `roles`, `message`) to the tool's launch."""
    platform, tool = site.platform, site.served.url
    driver.execute_cdp_cmd("Network.clearBrowserCookies", {})
    site.role = "an LTI launch"
    platform.launch_as = {"sub": sub, "roles": roles, "message": message}
    driver.execute_script("window.__a11y_old = true")
    driver.get(f"{tool}/lti/login?" + urlencode({
        "iss": platform.issuer, "login_hint": "hint-1", "client_id": platform.client_id,
        "target_link_uri": f"{tool}/lti/launch", "lti_message_hint": "m-1"}))
    WebDriverWait(driver, 120, ignored_exceptions=(WebDriverException,)).until(
        lambda d: d.current_url.startswith(tool) and "/lti/login" not in d.current_url and
        d.execute_script("return document.readyState === 'complete'"))


def lti_picker(site: Site, driver: Driver) -> None:
    lti_launch(site, driver, "LtiDeepLinkingRequest", "user-grace", (INSTRUCTOR,))


def lti_picked(site: Site, driver: Driver) -> None:
    lti_picker(site, driver)
    _submit(driver, "button[value=add]")


def lti_exercise(site: Site, driver: Driver) -> None:
    lti_launch(site, driver, "LtiResourceLinkRequest", "user-alice", (LEARNER,))


def lti_refused(site: Site, driver: Driver) -> None:
    driver.execute_cdp_cmd("Network.clearBrowserCookies", {})
    site.role = None
    driver.get(site.served.url + "/lti/exercises/add")


PAGES = [
    # signed out
    Page("sign-in", "/", None, shows="Your token"),
    Page("sign-in with a wrong token", refused_sign_in, None, shows="not valid"),
    # a student
    Page("a student's page", "/me", "alice", shows="Your submissions"),
    Page("an exercise's page", "/exercises/add", "alice", shows="Hand-in"),
    Page("an exercise past its late cut-off", "/exercises/guess", "alice", shows="cut-off has passed"),
    Page("the page to work in, after a run of the visible tests", ran_visible_tests, "alice",
         shows="The visible tests on your code"),
    Page("a passed submission", "/submissions/{right}", "alice", shows="Verdict: passed"),
    Page("a late submission", "/submissions/{late}", "alice", shows="late"),
    Page("a wrong submission", "/submissions/{wrong}", "bob", shows="wrong"),
    Page("a submission failing a hidden test", "/submissions/{hidden_wrong}", "carol", shows="(hidden)"),
    Page("a refused hand-in", refused_submission, "alice", shows="cut-off"),
    Page("a staff page refused to a student", "/staff", "alice", shows="for staff"),
    Page("no such submission", "/submissions/999999", "alice", shows="No such submission"),
    # staff
    Page("the staff overview: the class grid", "/staff", "prof", shows="Verdicts per exercise"),
    Page("the class grid, sorted and filtered", "/staff?sort=total&order=desc&name=o&live=1", "prof",
         shows="Stop updating"),
    Page("what students get wrong in an exercise", "/staff/analytics/add", "prof", shows="Per test"),
    Page("a student as staff see them, with the override form", "/staff/students/bob", "prof", shows="Overrides"),
    Page("a submission as staff see it", "/submissions/{hidden_wrong}", "prof", shows="staff only"),
    Page("an exercise as staff see it", "/exercises/shout", "prof", shows="no limit"),
    Page("an override refused", refused_override, "prof", shows="Not stored"),
    Page("the similarity report", "/staff/similarity", "prof", shows="Similarity across the class"),
    # reviews, regrade requests, the audit
    Page("a review's form, as staff", "/submissions/{wrong}/review", "prof", shows="Review of submission"),
    Page("a released review, as its student", "/submissions/{wrong}/review", "bob", shows="Read the task again"),
    Page("a student's regrade requests", "/regrade-requests", "bob", shows="test:add(1, 2)"),
    Page("a regrade request's thread, as its student", "/regrade-requests/{request}", "bob", shows="My sum is right"),
    Page("the staff's inbox of regrade requests", "/regrade-requests", "prof", shows="waiting for staff"),
    Page("the reviews, to release", "/staff/reviews", "prof", shows="Reviews"),
    Page("a student's audit", "/staff/audit?student=bob", "prof", shows="Every score change of bob"),
    # LTI 1.3: what an LMS frames
    Page("LTI: the deep-linking picker", lti_picker, shows="Add an exercise"),
    Page("LTI: the picked exercise, ready to go back", lti_picked, shows="ready to be added"),
    Page("LTI: an exercise opened from the LMS", lti_exercise, shows="Signed in as alice"),
    Page("LTI: a refused page", lti_refused, shows="refused"),
    # `grader batch --outputs html,similarity` and `grader validate --mutants --html`
    Page("batch: the class", "batch:html/index.html", shows="Gradebook"),
    Page("batch: a student's page", "batch:html/students/s000.html", shows="s000"),
    Page("batch: another student's page", "batch:html/students/s001.html", shows="s001"),
    Page("batch: a third student's page", "batch:html/students/s002.html", shows="s002"),
    Page("batch: a fourth student's page", "batch:html/students/s003.html", shows="s003"),
    Page("batch: a student's staff page", "batch:html/staff/s001.html", shows="staff view"),
    Page("batch: the similarity report", "batch:similarity/index.html", shows="Similarity across the class"),
    Page("batch: a similar pair side by side", "batch:similarity/pairs/1.html", shows="alike"),
    Page("mutants: the report", "mutants:html/mutants.html", shows="Mutants"),
]


def sign_in(site: Site, driver: Driver, role: str | None) -> None:
    """Sign in as `role` through the sign-in page (None: signed out), unless already so."""
    if site.role == role:
        return
    served = site.served
    driver.execute_cdp_cmd("Network.clearBrowserCookies", {})
    site.role = None
    if role is None:
        return
    driver.get(served.url + "/")
    driver.find_element(By.NAME, "token").send_keys(site.tokens[role])
    _submit(driver, "#sign-in")
    assert urlsplit(driver.current_url).path in ("/me", "/staff"), driver.current_url
    site.role = role


def open_page(site: Site, driver: Driver, page: Page) -> None:
    """Bring the browser to `page`, signed in as its role, and check it is the page meant."""
    where = page.where
    if isinstance(where, str) and re.match(r"(batch|mutants):", where):
        kind, path = where.split(":", 1)
        folder = site.batch if kind == "batch" else site.mutants
        file = folder / path
        assert file.is_file(), f"{file} was not written; the folder has {sorted(p.name for p in file.parent.iterdir())}"
        driver.get(file.as_uri())
    else:
        sign_in(site, driver, page.role)
        if callable(where):
            where(site, driver)
        else:
            driver.get(site.served.url + where.format(**site.facts))
    WebDriverWait(driver, 60).until(lambda d: d.execute_script("return document.readyState") == "complete")
    text = driver.execute_script("return document.body ? document.body.innerText : ''")
    assert page.shows in text, f"{page.name}: not the page meant ({driver.current_url}): {text[:1500]}"
