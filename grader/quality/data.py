"""The records of a spec's `quality:` and of what it found in a hand-in: plain data below the model, so that
Exercise and Report can carry them without importing what runs ruff (which imports the model)."""

from __future__ import annotations

from grader.compat import StrEnum
from grader.records import record


class Mode(StrEnum):
    """What a category's issues do."""

    OFF = "off"  # not looked for, never shown
    FEEDBACK = "feedback"  # shown to the student, no points taken
    GRADED = "graded"  # shown, and `penalty` points taken for each one the student introduced, up to `cap`


@record
class Category:
    """One category of the spec: the ruff rules it holds (codes or their prefixes, e.g. N8, E501, B)."""

    name: str
    rules: tuple[str, ...]
    mode: Mode = Mode.FEEDBACK
    penalty: float = 0.0  # points per issue (graded)
    cap: float | None = None  # the most this category takes (graded); None: no cap of its own


@record
class QualitySpec:
    """The spec's `quality:`: categories, and the most the whole exercise may lose to them."""

    categories: tuple[Category, ...]
    cap: float | None = None  # points; None: the categories' caps alone
    cap_percent: float | None = None  # `cap: 10%`: of the exercise's points


@record
class Issue:
    """One thing ruff found, as the student reads it."""

    code: str  # ruff's rule code: N802
    message: str
    line: int  # 1-based, in the hand-in's source as graded (a notebook's code cells joined)
    column: int
    category: str
    text: str  # the line's code (bounded), for the reader and to match it against the starter's
    in_starter: bool = False  # the starter code has the same issue on the same line's code: never counted
    url: str = ""


@record
class CategoryResult:
    name: str
    mode: Mode
    counted: int  # issues the student introduced
    deduction: float  # after the category's cap
    capped: bool = False  # the cap held the deduction back


@record
class QualityResult:
    """What the quality check found and took: the issues (ordered by line), each category's part, the total."""

    tool: str  # "ruff 0.17.5": a regrade under the same version gives the same section
    issues: tuple[Issue, ...] = ()
    categories: tuple[CategoryResult, ...] = ()
    deduction: float = 0.0  # points off the tests' score, after every cap
    capped: bool = False  # the exercise's cap held the deduction back
    not_checked: str = ""  # why ruff could not judge the file (too large, too slow, failed): nothing taken
    note: str = ""  # a bound that was met: ruff's output cut, so only the issues read are counted
    unlisted: int = 0  # issues counted in the categories but beyond what a report lists
