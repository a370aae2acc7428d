"""What students get wrong, from the grades a class produced: per exercise and per test, the share of
students failing it (by their first, latest and best submission), the commonest wrong answers grouped with
an example each, the time and attempts to a first pass, and the mutants of `grader validate --mutants`
that fail the same tests as a group of students.

Its input is a plain sequence of hand-ins, (student, exercise, submitted_at, report), the report a JSON
dict as `grader check --format json` writes it (grader/schemas/report.schema.json), with the staff's
`staff_details` beside it as the server's staff view has it: so a batch's store (`from_store`) and the
server's stored reports feed the one engine (`analyse`). Staff only: hidden tests' answers are in it."""

from grader.analytics.engine import analyse, exercise_analytics
from grader.analytics.handins import Handin

__all__ = ["Handin", "analyse", "exercise_analytics"]
