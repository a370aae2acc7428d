"""One rule for what each reader sees of a hidden test (grader.readers), on a real server: staff read its input
(the call), expected value and output on the submission's page, the student's staff page, the API and the
analytics; the student never reads any of them, released or not, on a page, in the API or in the JSON
report `grader submit --format json` prints."""

from __future__ import annotations

import html
import json
import re

import pytest

from tests.conftest import run_cli
from tests.server.conftest import Served, signed_in

SECRET = "add(-7, 3)"
SPEC = f"""\
title: Add, with a secret
kind: function
entry: add
statement: Return `a + b`.
tests:
  - name: small
    call: add(1, 2)
    expect: 3
  - name: negatives
    call: {SECRET}
    expect: -4
    hidden: true
"""
CODE = "def add(a, b):\n    return a + b if a >= 0 else 0\n"


@pytest.mark.parametrize("hidden", ["always", "never"])
def test_staff_read_a_hidden_tests_input_everywhere_and_a_student_nowhere(served: Served, hidden: str) -> None:
    (served.exercises / "secret.yaml").write_text(SPEC)
    (served.root / "grader-course.yaml").write_text(f"rules:\n  hidden: {hidden}\n")
    ta, alice = served.token("ta", staff=True), served.token("alice")
    served.start("--workers", "1")
    path = served.root / "secret.py"
    path.write_text(CODE)
    printed = run_cli("submit", "secret", path, "--server", served.url, "--token", alice, "--format", "json",
                      env={"GRADER_SERVER": "", "GRADER_TOKEN": ""})
    # The hidden test fails: the student's verdict says so only once the rules show hidden tests.
    assert printed.returncode == (1 if hidden == "always" else 0), printed.stderr
    number = json.loads(printed.stdout)["id"]

    as_staff = served.call("GET", f"/api/submissions/{number}", ta).body
    assert as_staff["report"]["staff_details"] == [
        {"test": "negatives", "input": SECRET, "expected": "-4", "actual": "0", "traceback": ""}]
    page = html.unescape(served.call("GET", f"/submissions/{number}", headers=signed_in(ta)).body)
    assert SECRET in page and "negatives" in page
    assert SECRET in html.unescape(served.call("GET", "/staff/students/alice", headers=signed_in(ta)).body)
    analytics = served.call("GET", "/api/analytics?exercise=secret", ta).body
    tests = {t["name"]: t for t in analytics["tests"]}
    assert tests["negatives"]["input"] == SECRET
    page = html.unescape(re.sub(r"<[^>]+>", "", served.call("GET", "/staff/analytics/secret",
                                                            headers=signed_in(ta)).body))
    assert f"(hidden: staff only): {SECRET}" in page

    student = {
        "grader submit --format json": printed.stdout,
        "/api/submissions/ID": json.dumps(served.call("GET", f"/api/submissions/{number}", alice).body),
        "/api/submissions": json.dumps(served.call("GET", "/api/submissions", alice).body),
        "/submissions/ID": html.unescape(served.call("GET", f"/submissions/{number}", headers=signed_in(alice)).body),
        "/me": html.unescape(served.call("GET", "/me", headers=signed_in(alice)).body),
        "/exercises/secret": html.unescape(served.call("GET", "/exercises/secret", headers=signed_in(alice)).body),
        "review page": html.unescape(served.call("GET", f"/submissions/{number}/review",
                                                 headers=signed_in(alice)).body),
    }
    leaks = {where: text for where, text in student.items() if SECRET in text or "-7" in text}
    assert not leaks, f"a student reads the hidden input on {sorted(leaks)}"
    seen = json.loads(student["/api/submissions/ID"])["report"]
    assert "staff_details" not in seen
    assert ("negatives" in {t["name"] for t in seen["tests"]}) == (hidden == "always")
    assert served.call("GET", "/api/analytics?exercise=secret", alice).status == 403
