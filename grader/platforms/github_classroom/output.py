"""GitHub Classroom's runner result (classroom-resources/autograding-grading-reporter reads it base64-encoded from
the `<ID>_RESULTS` variable of each runner step; autograding-command-grader writes the same shape): one
test per test of the exercise, each with its points, so the classroom gets partial credit."""

from __future__ import annotations

import json
from typing import TextIO

from grader.model import Outcome, Report, Verdict
from grader.outputs import Output
from grader.text import headline, plain_body

VERSION = 1  # of the reporter's format


def classroom_results(report: Report) -> dict[str, object]:
    tests = [{
        "name": outcome.test,
        "status": _status(outcome.verdict),
        "score": outcome.points,
        "message": _message(outcome),
        # The reporter prints `message` only for an error, but `test_code` for every test: the feedback.
        "test_code": "" if outcome.verdict == Verdict.PASSED else _message(outcome),
        "filename": report.submission,
        "line_no": 0,
        "duration": round(outcome.cpu_seconds * 1000),  # milliseconds, as the command grader measures
    } for outcome in report.outcomes]
    statuses = {test["status"] for test in tests}
    status = "error" if "error" in statuses else "fail" if "fail" in statuses or not tests else "pass"
    return {"version": VERSION, "status": status, "max_score": report.max_score, "tests": tests}


def _status(verdict: Verdict) -> str:
    if verdict == Verdict.PASSED:
        return "pass"
    return "error" if verdict == Verdict.GRADER_ERROR else "fail"


def _message(outcome: Outcome) -> str:
    head = headline(outcome)
    body = plain_body(outcome)  # nothing of a hidden test
    return f"{head}\n{body}" if body else head


class GitHubClassroomResults(Output):
    def render(self, report: Report, out: TextIO) -> None:
        json.dump(classroom_results(report), out, ensure_ascii=True)  # one line: it is base64-encoded next
        out.write("\n")
