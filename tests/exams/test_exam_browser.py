"""The exam page in a real Chromium whose clock is 7 minutes fast: it shows the server's time left, within
2 seconds, and saves what is typed with the server's receipt (the page's own save, under its CSP)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.exams.conftest import json_call
from tests.server.conftest import Served
from tests.server.test_browser import Browser

SKEW_MS = 7 * 60 * 1000
# Every Date the page makes is 7 minutes ahead: Date.now(), new Date(), Date() (what a fast clock does).
SKEWED_DATE = """
(() => {
  const Real = Date, skew = SKEW;
  function Skewed(...args) {
    if (!new.target) { return new Real(Real.now() + skew).toString(); }
    return args.length ? new Real(...args) : new Real(Real.now() + skew);
  }
  Skewed.prototype = Real.prototype;
  Skewed.now = () => Real.now() + skew;
  Skewed.parse = Real.parse;
  Skewed.UTC = Real.UTC;
  window.Date = Skewed;
})();
""".replace("SKEW", str(SKEW_MS))


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Browser]:
    made = Browser(tmp_path / "profile")
    yield made
    made.close()


def test_a_browser_whose_clock_is_7_minutes_fast_shows_the_server_s_time_left(course: Served,
                                                                              browser: Browser) -> None:
    token = course.token("eli")
    browser.call("Page.addScriptToEvaluateOnNewDocument", source=SKEWED_DATE)
    browser.go(course.url + "/")
    skew = browser.evaluate("Date.now() - performance.timeOrigin - performance.now()")
    assert abs(skew - SKEW_MS) < 5000, skew  # the page's Date is 7 minutes fast
    browser.evaluate(f"document.querySelector('input[name=token]').value = {json.dumps(token)}")
    browser.evaluate("document.querySelector('#sign-in').click()")
    browser.wait_for("location.pathname === '/me' && document.readyState === 'complete'")
    browser.go(course.url + "/exams/tabs")
    browser.evaluate("document.querySelector('#start').click()")  # the form: no script needed to start
    browser.wait_for("document.querySelector('#time-left[data-seconds]') !== null")
    time.sleep(1)  # the page's first call to the server has come back
    for _ in range(3):
        before = time.monotonic()
        status, exam = json_call(course, "GET", "/api/exams/tabs", token)
        asked = (before + time.monotonic()) / 2
        shown = float(browser.evaluate("document.querySelector('#time-left').dataset.seconds"))
        expected = exam["seconds_left"] - (time.monotonic() - asked)
        assert status == 200 and abs(shown - expected) <= 2, (shown, expected)
        assert 3500 < shown < 3601
    assert "Time left: 59 min" in browser.text() or "Time left: 58 min" in browser.text()

    browser.evaluate("""(() => { const box = document.querySelector('#code-shout');
        box.value = 'print(input().upper())\\n'; box.dispatchEvent(new Event('input')); })()""")
    browser.wait_for("document.querySelector('#receipt-shout').innerText.includes('revision')")
    status, draft = json_call(course, "GET", "/api/drafts/shout", token)
    assert draft["code"] == "print(input().upper())\n"
    assert f"revision {draft['revision']}" in browser.evaluate("document.querySelector('#receipt-shout').innerText")

    # The exam's pages pass axe-core's WCAG 2.1 A and AA rules, as the other pages do: running, not started,
    # and the list of exams.
    assert violations(browser) == []
    for path, shows in (("/exams/factor", "Start the exam"), ("/exams", "A short one")):
        browser.go(course.url + path)
        assert shows in browser.text()
        assert violations(browser) == [], path


def violations(browser: Browser) -> list[str]:
    from tests.a11y.axe import axe_source
    from tests.a11y.conftest import TAGS

    if not browser.evaluate("typeof window.axe === 'object'"):
        browser.evaluate(axe_source())
    return browser.call("Runtime.evaluate", awaitPromise=True, returnByValue=True, expression=(  # type: ignore[no-any-return]
        "axe.run(document, {runOnly: {type: 'tag', values: " + json.dumps(TAGS) + "}, resultTypes: ['violations']})"
        ".then(r => r.violations.map(v => v.id + ': ' + v.nodes.map(n => n.target.join(' ')).join(', ')))"
    ))["result"]["value"]
