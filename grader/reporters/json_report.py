"""The versioned JSON report other tools read: fields fixed by contract, only ever extended."""

from __future__ import annotations

import json
from typing import TextIO

from grader.model import Outcome, Report

VERSION = 1


def test_entry(outcome: Outcome) -> dict[str, object]:
    entry: dict[str, object] = {
        "name": outcome.test,
        "hidden": outcome.hidden,
        "big": outcome.big,
        "verdict": str(outcome.verdict),
        "points": outcome.points,
        "max_points": outcome.max_points,
        "feedback": outcome.feedback,
        "cpu_seconds": round(outcome.cpu_seconds, 4),
        "limit_seconds": outcome.limit_seconds,
    }
    if not outcome.hidden:  # a hidden test never carries its input, expected value or the output
        entry.update(expected=outcome.expected, actual=outcome.actual, details=outcome.details)
    return entry


def as_json(report: Report) -> dict[str, object]:
    return {
        "version": VERSION,
        "exercise": report.exercise,
        "submission": report.submission,
        "verdict": str(report.verdict),
        "score": report.score,
        "max_score": report.max_score,
        "tests": [test_entry(o) for o in report.outcomes],
        "isolation": report.isolation,
        "visible_only": report.visible_only,
    }


class JsonReporter:
    def render(self, report: Report, out: TextIO) -> None:
        # ensure_ascii keeps escape sequences and odd bytes in student output as inert \u escapes.
        json.dump(as_json(report), out, indent=2, ensure_ascii=True)
        out.write("\n")
