"""PrairieLearn's external grader results.json (PrairieLearn docs/externalGrading.md), for an entrypoint
that runs `grader check ... --format prairielearn > /grade/results/results.json`: `score` is a fraction in
[0, 1]; a file that does not parse is `gradable: false` (no attempt is spent on it) with its format error."""

from __future__ import annotations

import json
from typing import TextIO

from grader.model import Report, Verdict
from grader.outputs import Output
from grader.text import headline, plain_body, points


def prairielearn_results(report: Report) -> dict[str, object]:
    if report.verdict == Verdict.SYNTAX_ERROR:
        error = report.outcomes[0].feedback
        return {"gradable": False, "format_errors": [f"{report.submission}: {error}"],
                "message": f"Your file does not parse ({error}); fix it and submit again."}
    fraction = report.score / report.max_score if report.max_score else 0.0
    return {
        "gradable": True,
        "score": min(1.0, max(0.0, fraction)),
        "message": f"{report.exercise}: {points(report.score)}/{points(report.max_score)} ({report.verdict})",
        "isolation": report.isolation,  # the sandbox's layers on the grader host, kept in the stored results
        **({"variant": report.variant} if report.variant else {}),  # the student's own (params:)
        "tests": [{
            "name": outcome.test,
            "points": outcome.points,
            "max_points": outcome.max_points,
            "message": headline(outcome),
            "output": plain_body(outcome),  # nothing of a hidden test
        } for outcome in report.outcomes],
    }


class PrairieLearnResults(Output):
    def render(self, report: Report, out: TextIO) -> None:
        json.dump(prairielearn_results(report), out, indent=2, ensure_ascii=True)
        out.write("\n")
