"""Who a caller is: the roles of a course, as data. A token (and an LMS user) is stored with its role's level,
the tokens table's `staff` column: 0 a student, 1 an instructor (every staff token issued before TAs were
told apart: `--staff` still issues one), 2 a TA. What each role may call is declared on the routes
(access.py); docs/ta.md's table is generated from there."""

from __future__ import annotations

from grader.compat import StrEnum

from grader.records import record


class Role(StrEnum):
    INSTRUCTOR = "instructor"  # runs the course: its rules, regrades, releases, tokens, the LMS link
    TA = "ta"  # grades: reads everything staff read, reviews, answers regrade requests, overrides a score
    STUDENT = "student"  # hands in, reads their own


LEVELS = {0: Role.STUDENT, 1: Role.INSTRUCTOR, 2: Role.TA}  # the tokens table's `staff` column
STAFF = frozenset({Role.INSTRUCTOR, Role.TA})


def level_of(role: Role) -> int:
    return next(level for level, named in LEVELS.items() if named is role)


@record
class Caller:
    student: str  # for staff: the staff member's name
    role: Role

    @property
    def staff(self) -> bool:
        """Staff read every student's things, hidden tests included (what a reader sees: views.shown)."""
        return self.role in STAFF

    def reach(self, asked: str | None) -> str | None:
        """Whose things a listing covers: staff whoever they ask for (None: everyone's), a student their own."""
        return asked if self.staff else self.student
