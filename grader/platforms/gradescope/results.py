"""Gradescope's results.json (gradescope/autograder_samples docs/specs.md) from reports: one exercise
(`grader check --format gradescope`), a whole bundle's (`grader gradescope-run`) or a student of a batch.

Hidden tests are `after_published`. Gradescope keeps a student's total from them while such tests are
hidden, so the student-visible `output` never states a total, nor any exercise's score, once a hidden
test counts; it says what the visible tests did."""

from __future__ import annotations

from grader.model import Outcome, Report, Verdict
from grader.text import headline, plain_body, points
from grader.records import record


@record
class Graded:
    """One exercise of one submission: the file graded (None when missing) and its report."""

    exercise: str
    file: str | None
    report: Report
    wall_seconds: float = 0.0


def results(graded: list[Graded], extra_data: dict[str, object] | None = None,
            note: str = "") -> dict[str, object]:
    tests: list[dict[str, object]] = []
    for number, item in enumerate(graded, start=1):
        for position, outcome in enumerate(item.report.outcomes, start=1):
            tests.append({
                "name": f"{item.exercise}: {outcome.test}",
                "number": f"{number}.{position}",
                "score": outcome.points,
                "max_score": outcome.max_points,
                "status": "passed" if outcome.verdict == Verdict.PASSED else "failed",
                "visibility": "after_published" if outcome.hidden else "visible",
                "output": test_output(outcome),
                "tags": [item.exercise],
            })
    summary = student_summary(graded)
    return {
        "score": sum(item.report.score for item in graded),
        "execution_time": round(sum(item.wall_seconds for item in graded)),
        "output": f"{note}\n\n{summary}" if note else summary,
        # Student names and output are text, never markup: "text" shows them as written.
        "output_format": "text",
        "test_output_format": "text",
        "test_name_format": "text",
        "stdout_visibility": "hidden",
        "tests": tests,
        "extra_data": {
            **(extra_data or {}),
            # The sandbox's layers as they were on Gradescope's machine (plain Docker: uid, seccomp, landlock).
            "isolation": sorted({item.report.isolation for item in graded if item.report.isolation}),
            "exercises": {item.exercise: {"file": item.file, "verdict": str(item.report.verdict),
                                          "score": item.report.score, "max_score": item.report.max_score,
                                          **({"variant": item.report.variant} if item.report.variant else {})}
                          for item in graded},
        },
    }


def student_summary(graded: list[Graded]) -> str:
    """What every student sees at once: per exercise, the visible tests; a total only when no test is hidden."""
    withheld = any(o.hidden for item in graded for o in item.report.outcomes)
    lines = []
    for item in graded:
        lines.append(_exercise_line(item, withheld))
    if withheld:
        lines.append("Hidden tests were run too: their results and your score appear when grades are published.")
    else:
        total = sum(item.report.score for item in graded)
        most = sum(item.report.max_score for item in graded)
        lines.insert(0, f"Score {points(total)}/{points(most)}")
    return "\n".join(lines)


def _exercise_line(item: Graded, withheld: bool) -> str:
    outcomes = item.report.outcomes
    if outcomes and all(o.verdict == Verdict.MISSING for o in outcomes):
        return f"{item.exercise}: not handed in. {outcomes[0].feedback}"
    name = f"{item.exercise} ({item.file})" if item.file else item.exercise
    if not withheld:
        return f"{name}: {points(item.report.score)}/{points(item.report.max_score)} ({item.report.verdict})"
    visible = [o for o in outcomes if not o.hidden]
    passed = sum(1 for o in visible if o.verdict == Verdict.PASSED)
    hidden = len(outcomes) - len(visible)
    return (f"{name}: {passed} of {len(visible)} visible tests passed"
            + (f"; {hidden} hidden test{'s' if hidden != 1 else ''}" if hidden else ""))


def test_output(outcome: Outcome) -> str:
    head = headline(outcome)
    body = plain_body(outcome)  # nothing of a hidden test: no input, expected value or output
    return f"{head}\n{body}" if body else head
