"""The wrong-variant detector: a hand-in that fails its own variant but passes every test of a classmate's
is flagged with the classmate whose variant it solves (copied, or written for the wrong statement).

Its cost is bounded: only hand-ins whose own grading is a wrong answer are tried (a copied solution answers
another variant's question: it gives wrong answers, not timeouts or crashes), only against the variants the
class holds, cheapest first (the smallest total CPU limit, then the variant most classmates hold), each
graded fail-fast (the first failing test ends it) and the search stops at the first variant it passes."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from grader.grading import GradingRequest, Pace, grade
from grader.handins.base import Handin
from grader.model import Exercise, Verdict


@dataclass
class Candidate:
    """One variant the class holds: its exercise, its expected answers and the students who hold it."""

    exercise: Exercise
    expected: dict[str, object]
    students: list[str] = field(default_factory=list)

    @property
    def cost(self) -> tuple[float, int, str]:
        return sum(t.limits.cpu for t in self.exercise.tests), -len(self.students), self.exercise.variant


def worth_trying(verdict: Verdict) -> bool:
    return verdict == Verdict.WRONG_ANSWER


def solved_variant(handin: Handin, path: Path, own: str, candidates: list[Candidate], student: str,
                   private_paths: tuple[Path, ...] = ()) -> str:
    """The first classmate (by name) holding a variant other than `own` that `handin` passes, or ""."""
    for candidate in sorted(candidates, key=lambda c: c.cost):
        others = sorted(s for s in candidate.students if s != student)
        if candidate.exercise.variant == own or not others:
            continue
        request = GradingRequest(Pace.FAIL_FAST, private_paths=private_paths, label=str(path))
        report = grade(candidate.exercise, path, request, handin=handin, expected=candidate.expected)
        if all(o.verdict == Verdict.PASSED for o in report.outcomes):
            return others[0]
    return ""
