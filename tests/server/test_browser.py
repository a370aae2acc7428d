"""The pages in a real browser: headless Chromium (Debian's package, installed by .ci/run), driven over the
DevTools protocol on a pipe (--remote-debugging-pipe: no port, no client library), signs in with a token,
submits a file through the page's form and sees its report appear; and staff see the class's progress."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from tests.server.conftest import ADD, Served


class Browser:
    """Chromium with the DevTools protocol on file descriptors 3 (commands in) and 4 (replies out)."""

    def __init__(self, profile: Path) -> None:
        program = shutil.which("chromium")
        if program is None:
            pytest.fail("chromium is not installed: apt-get install chromium (.ci/run does it)")
        to_browser, self._commands = os.pipe()
        self._replies, from_browser = os.pipe()
        os.set_inheritable(to_browser, True)
        os.set_inheritable(from_browser, True)

        def descriptors() -> None:  # in the child: the protocol's pipes on 3 and 4 (copies first: no clobbering)
            commands, replies = os.dup(to_browser), os.dup(from_browser)
            os.dup2(commands, 3)
            os.dup2(replies, 4)

        self.process = subprocess.Popen(
            [program, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             f"--user-data-dir={profile}", "--remote-debugging-pipe", "about:blank"],
            preexec_fn=descriptors, pass_fds=(3, 4), start_new_session=True,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_browser)
        os.close(from_browser)
        self._buffer, self._next, self.session = b"", 0, None
        target = next(t for t in self.call("Target.getTargets")["targetInfos"] if t["type"] == "page")
        self.session = self.call("Target.attachToTarget", targetId=target["targetId"], flatten=True)["sessionId"]
        self.call("Page.enable")

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        self._next += 1
        message: dict[str, Any] = {"id": self._next, "method": method, "params": params}
        if self.session and not method.startswith("Target."):
            message["sessionId"] = self.session
        os.write(self._commands, json.dumps(message).encode() + b"\0")
        while True:
            reply = self._read()
            if reply.get("id") == self._next:
                assert "error" not in reply, reply
                return reply.get("result", {})  # type: ignore[no-any-return]

    def _read(self) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            chunk = os.read(self._replies, 1 << 16)
            assert chunk, "the browser closed its pipe"
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)  # type: ignore[no-any-return]

    def go(self, url: str) -> None:
        self.call("Page.navigate", url=url)
        self.wait_for("document.readyState === 'complete' && location.href === " + json.dumps(url))

    def evaluate(self, expression: str) -> Any:
        return self.call("Runtime.evaluate", expression=expression, returnByValue=True)["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        while not self.evaluate(f"!!({expression})"):
            assert time.monotonic() < deadline, f"never true: {expression}; the page: {self.text()[:2000]}"
            time.sleep(0.1)

    def text(self) -> str:
        return str(self.evaluate("document.body ? document.body.innerText : ''"))

    def close(self) -> None:
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait()
        os.close(self._commands)
        os.close(self._replies)


@pytest.fixture
def browser(tmp_path: Path):  # type: ignore[no-untyped-def]
    made = Browser(tmp_path / "profile")
    yield made
    made.close()


def test_a_student_signs_in_with_a_token_submits_and_sees_the_report(served: Served, browser: Browser,
                                                                     tmp_path: Path) -> None:
    token = served.token('<i>zoë</i> & "co"')
    staff = served.token("prof", staff=True)
    served.start("--workers", "1")
    browser.go(served.url + "/")
    browser.evaluate(f"document.querySelector('input[name=token]').value = {json.dumps(token)}")
    browser.evaluate("document.querySelector('#sign-in').click()")
    browser.wait_for("location.pathname === '/me' && document.readyState === 'complete'")
    assert '<i>zoë</i> & "co"' in browser.text()  # escaped: shown as text, never as markup
    assert browser.evaluate("document.querySelectorAll('i').length") == 0

    hand_in = tmp_path / "add.py"
    hand_in.write_text(ADD)
    document = browser.call("DOM.getDocument")["root"]["nodeId"]
    file_input = browser.call("DOM.querySelector", nodeId=document, selector="input[type=file]")["nodeId"]
    browser.call("DOM.setFileInputFiles", files=[str(hand_in)], nodeId=file_input)
    browser.evaluate("document.querySelector('select[name=exercise]').value = 'add'")
    browser.evaluate("document.querySelector('#submit').click()")
    browser.wait_for("location.pathname.startsWith('/submissions/')")
    browser.wait_for("document.querySelector('#verdict') !== null")  # the page reloads itself until graded
    assert "Verdict: passed · Score 4.0/4.0" in browser.text()
    assert "add(5000, 1) (hidden)" in browser.text()

    browser.go(served.url + "/me")
    assert "passed" in browser.text()  # the history

    # A form posted without its CSRF token is refused.
    browser.evaluate("document.querySelector('input[name=csrf]').value = 'forged'")
    browser.evaluate("document.querySelector('header button').click()")  # sign out, forged
    browser.wait_for("document.title === 'Not allowed'")

    browser.call("Network.clearBrowserCookies")
    browser.go(served.url + "/")
    browser.evaluate(f"document.querySelector('input[name=token]').value = {json.dumps(staff)}")
    browser.evaluate("document.querySelector('#sign-in').click()")
    browser.wait_for("location.pathname === '/staff' && document.readyState === 'complete'")
    progress = str(browser.evaluate("document.querySelector('#progress').innerText"))
    assert "add\tpassed: 1\t1" in progress, progress


def screenshot(browser: Browser, path: Path, width: int = 1280, height: int = 1000) -> Path:
    """The page as a PNG, into the tests' artefacts: tmp_path's, and the folder GRADER_TEST_ARTEFACTS names when
    set (CI keeps it), so that a person can see what the pages look like."""
    import base64

    browser.call("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=False)
    data = base64.b64decode(browser.call("Page.captureScreenshot", format="png")["data"])
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    kept = os.environ.get("GRADER_TEST_ARTEFACTS")
    if kept:
        Path(kept).mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, Path(kept) / path.name)
    return path


def test_a_ta_walks_from_the_grid_to_a_student_and_a_submissions_code(served: Served, browser: Browser,
                                                                        tmp_path: Path) -> None:
    from tests.batch.png import read_png, where
    from tests.server.conftest import WRONG

    staff = served.token("prof", staff=True)
    served.start("--workers", "1")
    for student, text in (("alice", ADD), ("bob", WRONG), ("carol", WRONG), ("carol", ADD)):
        token = served.token(student)
        served.wait(token, served.submit(token, "add", text).body["id"])
    browser.go(served.url + "/")
    browser.evaluate(f"document.querySelector('input[name=token]').value = {json.dumps(staff)}")
    browser.evaluate("document.querySelector('#sign-in').click()")
    browser.wait_for("location.pathname === '/staff' && document.querySelector('#grid') !== null")
    shot = screenshot(browser, tmp_path / "artefacts" / "staff-grid.png")
    _, _, rows = read_png(shot)
    assert len(where(rows, (0xE6, 0x61, 0x01))) > 200, "the histogram's bars are not on screen"
    assert where(rows, (0xDC, 0xF1, 0xDC)), "no passed cell is on screen"

    # Sorted by a heading's link, no script: bob (0) last when add is sorted descending.
    browser.evaluate("Array.from(document.querySelectorAll('#grid thead a')).find(a => a.href.includes('sort=add')).click()")
    browser.wait_for("location.search === '?sort=add' && document.readyState === 'complete' && "
                     "document.querySelectorAll('#grid tbody th').length === 3")
    browser.evaluate("document.querySelector('#grid thead a[href*=\"sort=add\"]').click()")
    browser.wait_for("location.search === '?sort=add&order=desc' && document.readyState === 'complete' && "
                     "document.querySelectorAll('#grid tbody th').length === 3")
    names = browser.evaluate("Array.from(document.querySelectorAll('#grid tbody th')).map(th => th.innerText)")
    assert names == ["alice", "carol", "bob"], names

    browser.evaluate("Array.from(document.querySelectorAll('#grid tbody th a')).find(a => a.innerText === 'carol').click()")
    browser.wait_for("location.pathname === '/staff/students/carol' && document.readyState === 'complete'")
    assert "add(5000, 1) (hidden)" in browser.text()  # staff see the hidden tests
    screenshot(browser, tmp_path / "artefacts" / "staff-student.png")
    browser.evaluate("document.querySelector('details.submission-report p a').click()")
    browser.wait_for("location.pathname.startsWith('/submissions/') && document.querySelector('#L1') !== null")
    assert browser.evaluate("document.querySelector('#L2').innerText").endswith("return a + b")
    screenshot(browser, tmp_path / "artefacts" / "staff-submission.png")
    browser.evaluate("document.querySelector('#staff-links a[href^=\"/staff/analytics/\"]').click()")
    browser.wait_for("location.pathname === '/staff/analytics/add' && document.readyState === 'complete'")
    assert "3 students handed it in (4 submissions)" in browser.text()
    screenshot(browser, tmp_path / "artefacts" / "staff-analytics.png")


def test_the_live_grid_takes_new_hand_ins_in_place_without_reloading(served: Served, browser: Browser) -> None:
    staff, dana = served.token("prof", staff=True), served.token("dana")
    served.start("--workers", "1")
    browser.go(served.url + "/")
    browser.evaluate(f"document.querySelector('input[name=token]').value = {json.dumps(staff)}")
    browser.evaluate("document.querySelector('#sign-in').click()")
    browser.wait_for("location.pathname === '/staff' && document.readyState === 'complete'")
    browser.evaluate("document.querySelector('#live').click()")
    browser.wait_for("location.search === '?live=1' && document.readyState === 'complete'")
    danas_row = "Array.from(document.querySelectorAll('#grid tbody tr')).find(r => r.innerText.startsWith('dana')).innerText"
    assert "not handed in" in str(browser.evaluate(danas_row))
    browser.evaluate("window.stillThisPage = true")  # gone if the page reloaded itself

    served.wait(dana, served.submit(dana, "add", ADD).body["id"])
    browser.wait_for(f"{danas_row}.includes('passed')", timeout=120)
    assert browser.evaluate("window.stillThisPage") is True
    assert "done 1" in str(browser.evaluate("document.querySelector('#counts').innerText"))
