"""What the accessibility tests walk: a real `grader serve` with a class that has submissions (right, wrong,
failing a hidden test, late, overridden) and an LTI platform registered; a real `grader batch` report and a
`grader validate --mutants` report on disk; and Debian's Chromium, driven by selenium through Debian's
chromedriver, with axe-core injected into each page. Each part is made when a test first needs it."""

from __future__ import annotations

import datetime as dt
import functools
import json
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.a11y.axe import VERSION, axe_source
from tests.batch.classroom import write_class, write_course
from tests.conftest import run_cli
from tests.lti.platform import Platform
from tests.server.conftest import ADD, WRONG, Served

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
# WCAG 2.1 A and AA, as axe-core tags its rules.
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
DAY = 86400
# Right on the visible tests, wrong on a hidden one.
HIDDEN_WRONG = "def add(a, b):\n    return a + b if a < 1000 else 0\n"
SHOUT = "print(input().upper())\n"
# A count_below whose mutants `grader validate --mutants` grades (tests/authoring/test_mutants.py's).
COUNT_BELOW = """\
title: Count below
kind: function
entry: count_below
statement: |
  Write `count_below(xs, limit)`: how many items of xs are below limit.
calibration: {floor: 0.3}
mutants: {kill_at_least: 1.0}
tests:
  - name: some below
    call: count_below([1, 5, 9], 4)
    expect: 1
  - name: none
    call: count_below([], 3)
    expect: 0
  - name: equal to the limit
    call: count_below([4, 4], 5)
    expect: 2
    hidden: true
"""
COUNT_BELOW_REFERENCE = """\
def count_below(xs, limit):
    xs = list(xs)
    count = 0
    for x in xs:
        if x < limit:
            count += 1
    return count
"""


def stamp(seconds: float) -> str:
    return dt.datetime.fromtimestamp(seconds, dt.timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


class Site:
    """Everything the pages are drawn from, each part made on first use (a `-k` run pays only for its own)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.facts: dict[str, Any] = {}
        self.role: str | None = "none yet"

    # ------------------------------------------------------------ the server and its class
    @functools.cached_property
    def platform(self) -> Platform:
        return Platform().start()

    @functools.cached_property
    def served(self) -> Served:
        root = self.root / "server"
        root.mkdir()
        served = Served(root, root / "state", write_course(root))
        now = time.time()
        (root / "grader-course.yaml").write_text(f"""\
rules:
  exercises:
    shout:
      deadline: {stamp(now - 1.5 * DAY)}
      late: {{penalty: 10, per: day, cutoff: {stamp(now + 2 * DAY)}}}
    guess:
      deadline: {stamp(now - 3 * DAY)}
      late: {{penalty: 10, per: day, cutoff: {stamp(now - DAY)}}}
""")
        registered = run_cli("serve", "lti", "add-platform", "--state", served.state,
                             *self.platform.registration())
        assert registered.returncode == 0, registered.stderr
        tokens = {name: served.token(name) for name in ("alice", "bob", "carol")}
        tokens["prof"] = served.token("prof", staff=True)
        served.start("--workers", "1", "--insecure-cookies")
        self.platform.tool_url = served.url
        handed = {"right": ("alice", "add", ADD), "wrong": ("bob", "add", WRONG),
                  "hidden_wrong": ("carol", "add", HIDDEN_WRONG), "late": ("alice", "shout", SHOUT),
                  "carol_late": ("carol", "shout", "print(input())\n")}
        for key, (student, exercise, code) in handed.items():
            answer = served.submit(tokens[student], exercise, code)
            assert answer.status == 202, answer.body
            self.facts[key] = answer.body["id"]
        for key, (student, _, _) in handed.items():
            served.wait(tokens[student], self.facts[key])
        override = served.call("POST", "/api/overrides", tokens["prof"], json.dumps(
            {"student": "bob", "exercise": "add", "score": 3, "reason": "a typo in the spec"}).encode(),
            "application/json")
        assert override.status in (200, 201), override.body
        # A review with a line comment, released, and bob's regrade request on it: the reviews' pages.
        review = served.call("POST", "/api/reviews", tokens["prof"], json.dumps(
            {"submission": self.facts["wrong"], "comments": [{"line": 1, "text": "Read the task again: a sum."}],
             "summary": "Close."}).encode(), "application/json")
        assert review.status == 200, review.body
        released = served.call("POST", "/api/reviews/release", tokens["prof"], json.dumps(
            {"student": "bob"}).encode(), "application/json")
        assert released.status == 200, released.body
        asked = served.call("POST", "/api/regrade-requests", tokens["bob"], json.dumps(
            {"submission": self.facts["wrong"], "test": "add(1, 2)", "message": "My sum is right, isn't it?"}).encode(),
            "application/json")
        assert asked.status == 201, asked.body
        self.facts["request"] = asked.body["id"]
        self.tokens = tokens
        return served

    # ------------------------------------------------------------ reports on disk
    @functools.cached_property
    def batch(self) -> Path:
        """A `grader batch` of a class answering every way the batch tests know (passed, wrong, timeout,
        crash, syntax error, missing, hostile names), with its HTML pages and similarity report."""
        root = self.root / "batch"
        class_folder = root / "class"
        write_class(class_folder, count=8)
        out = root / "out"
        result = run_cli("batch", class_folder, "--exercises", write_course(root), "--out", out, "--workers", "2",
                         "--outputs", "html,similarity", timeout=600)
        assert result.returncode in (0, 1), result.stderr
        return out

    @functools.cached_property
    def mutants(self) -> Path:
        """`grader validate --mutants --html`: a suite with a survivor, below its floor."""
        root = self.root / "mutants"
        (root / "exercises").mkdir(parents=True)
        (root / "exercises" / "count-below.yaml").write_text(COUNT_BELOW)
        (root / "reference" / "count-below" / "accepted").mkdir(parents=True)
        (root / "reference" / "count-below" / "accepted" / "loop.py").write_text(COUNT_BELOW_REFERENCE)
        out = root / "out"
        result = run_cli("validate", "--exercises", root / "exercises", "--mutants", "--most", "12",
                         "--html", out, timeout=900)
        assert (out / "html" / "mutants.html").is_file(), result.stderr
        return out


class Script(str):
    """axe.min.js, shown by its name in a failing test's report rather than as 650 kB of script."""

    def __repr__(self) -> str:
        return f"<axe-core {VERSION}'s axe.min.js>"


@pytest.fixture(scope="session")
def axe() -> str:
    try:
        return Script(axe_source())
    except RuntimeError as problem:
        pytest.fail(str(problem))


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    made = Site(tmp_path_factory.mktemp("a11y"))
    yield made
    if "served" in made.__dict__:
        made.served.stop()
    if "platform" in made.__dict__:
        made.platform.stop()


@pytest.fixture(scope="session")
def chrome(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """Headless Chromium under chromedriver (Debian's chromium and chromium-driver, installed by .ci/run)."""
    for program, package in ((CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")):
        if shutil.which(program) is None:
            pytest.fail(f"{program} is not installed: apt-get install {package} (.ci/run does it)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-sync",
                     "--disable-background-networking", "--disable-component-update", "--window-size=1280,900",
                     f"--user-data-dir={tmp_path_factory.mktemp('chromium')}"):
        options.add_argument(argument)
    driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
    driver.set_script_timeout(120)
    driver.set_page_load_timeout(120)
    yield driver
    driver.quit()


def audit(driver: Any, axe: str, rules: list[str] | None = None) -> list[dict[str, Any]]:
    """axe-core's violations of the page the browser shows: of WCAG 2.1 A and AA, or of the `rules` named."""
    if not driver.execute_script("return typeof window.axe === 'object'"):
        driver.execute_script(axe)
    only = {"type": "rule", "values": rules} if rules else {"type": "tag", "values": TAGS}
    return driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        axe.run(document, {runOnly: arguments[0], resultTypes: ['violations']})
           .then(r => done(r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help, url: v.helpUrl,
                 nodes: v.nodes.map(n => ({target: n.target.join(' '), summary: n.failureSummary}))}))))
           .catch(e => done([{id: 'axe-error', help: String(e), nodes: []}]));
    """, only)


def described(violations: list[dict[str, Any]]) -> str:
    """What to fix, one violation after another: its rule, what it asks, and where it fails."""
    lines = [f"axe-core {VERSION}: {len(violations)} WCAG 2.1 AA violation(s)"]
    for violation in violations:
        lines.append(f"- {violation['id']} ({violation.get('impact')}): {violation['help']} <{violation.get('url')}>")
        for node in violation["nodes"]:
            summary = " ".join(str(node.get("summary") or "").split())
            lines.append(f"    at {node['target']}: {summary[:300]}")
    return "\n".join(lines)
