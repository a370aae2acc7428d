"""The data the grader passes around: exercises, tests, limits, sandbox observations, outcomes, reports."""

from __future__ import annotations

from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from grader.compat import StrEnum
from grader.params_data import Params  # noqa: F401 - named from here
from grader.records import record
from grader.search_data import Strategy

if TYPE_CHECKING:  # a test form's data, kept below the model (the forms import the model)
    from grader.form_data import ExpectedRaise, ProgramIO, Step
    from grader.quality.data import QualityResult, QualitySpec


class Verdict(StrEnum):
    """How one test ended, worst first: the summary verdict is the worst one seen."""

    GRADER_ERROR = "grader_error"  # our fault or the spec's, never the student's
    MISSING = "missing"  # batch grading: the student handed in no file for this exercise
    SYNTAX_ERROR = "syntax_error"
    RULE_VIOLATION = "rule_violation"  # a require/forbid rule of the spec refused the code
    TIMEOUT = "timeout"
    MEMORY_LIMIT = "memory_limit"
    OUTPUT_LIMIT = "output_limit"
    RUNTIME_ERROR = "runtime_error"
    WRONG_ANSWER = "wrong_answer"
    SKIPPED = "skipped"
    PASSED = "passed"

    @property
    def severity(self) -> int:
        return _SEVERITY[self]


_SEVERITY = {verdict: rank for rank, verdict in enumerate(Verdict)}  # declaration order is severity


class Timing(StrEnum):
    """How a run ended in time."""

    IN_TIME = "in_time"
    OVER_LIMIT = "over_limit"  # finished past its CPU limit, within the margin: maybe the machine's noise
    STOPPED_CPU = "stopped_cpu"  # stopped at the margin: clearly too slow
    STOPPED_WALL = "stopped_wall"  # the wall-clock backstop stopped it (it waited or slept)


class Fault(StrEnum):
    """What went wrong in a run besides its timing, as the grader observed it."""

    NONE = "none"
    RAISED = "raised"  # the submission raised `error_type`
    OUT_OF_MEMORY = "out_of_memory"  # a MemoryError, or the memory cgroup killed a process
    DIED = "died"  # it ended without an answer: killed, broke the grader's channel, left early
    UNREADABLE = "unreadable"  # its answer could not be read back
    EXITED = "exited"  # a function's test called sys.exit: leaving early is no answer


Compare = Literal["value", "output"]


@record
class Limits:
    """Resource limits of one test run; `wall` is a backstop for code that sleeps or blocks."""

    cpu: float = 2.0  # seconds of CPU time
    wall: float | None = None  # seconds; None means derived from cpu (see wall_seconds)
    memory: int = 512  # MiB of address space
    output: int = 64  # KiB of stdout + stderr
    processes: int = 32
    open_files: int = 64
    file_size: int = 16  # MiB, the largest file the submission may write
    cpu_written: bool = False  # the spec wrote `cpu` (on the test or its exercise): calibration leaves it alone
    cpu_source: str = ""  # where `cpu` came from, when calibration set it: "calibrated on this machine at ..."

    @property
    def cpu_origin(self) -> str:
        """Where the CPU limit in force came from, as reports say it."""
        if self.cpu_written:
            return "written in the spec"
        return self.cpu_source or "the default"

    @property
    def wall_seconds(self) -> float:
        # Wall time inflates 2-3x on a loaded machine (research/sandbox.md 2.9): keep generous headroom.
        return self.wall if self.wall is not None else 3 * self.cpu + 2.0


@record
class CheckerSpec:
    name: str  # a name in grader.checkers.CHECKERS ("custom": the course's own, in args file and function)
    args: tuple[tuple[str, object], ...] = ()

    @property
    def label(self) -> str:
        """How messages name it: 'close', or 'any_queens_check.py:check' for a course's own."""
        args = dict(self.args)
        return f"{Path(str(args['file'])).name}:{args['function']}" if self.name == "custom" else self.name


@record
class Test:
    """One case of an exercise."""

    name: str
    call: str | None  # a Python expression evaluated in the submission's namespace (function kind)
    stdin: str | None  # what a program reads (program kind)
    compare: Compare  # what is compared: the returned value or the printed output
    expect: object  # the expected value or output; MISSING when a reference supplies it
    hidden: bool
    big: bool
    points: float
    checker: CheckerSpec
    limits: Limits
    line: int = 0  # where the test starts in the spec, for messages
    form: str = "call"  # a name in grader.forms.FORMS: how the test is run and judged
    given: tuple[tuple[str, object], ...] = ()  # names bound for the call: plain values or Generated
    raises: ExpectedRaise | None = None
    steps: tuple[Step, ...] = ()
    io: ProgramIO | None = None
    feedback: str = ""  # shown when the test fails (a hidden test's only text)
    description: str = ""  # what the student sees of the test besides its name
    # (verdict name, or "wrong_answer.<check reason>", text): shown only when it ended so
    feedback_by: tuple[tuple[str, str], ...] = ()

    def feedback_for(self, verdict: str, reason: str = "") -> str:
        """The spec's hint for a test that ended with `verdict` ("" for none): `feedback` written for that
        verdict and what its check found (`reason`), else for the verdict, else the plain `feedback`
        string, which is for any failure."""
        if verdict in ("passed", "grader_error"):
            return ""
        written = dict(self.feedback_by)
        for key in (f"{verdict}.{reason}" if reason else "", verdict):
            if key in written:
                return written[key]
        return self.feedback


# What a failed check found, named by the checkers and test forms: a spec's `feedback: {wrong_answer: {...}}`
# keys. A course's own checker may name its own.
CHECK_REASONS = {
    "type": "the answer (or its items) has another type than the expected one",
    "value": "the answer has the expected type but another value",
    "items": "a collection compared in any order has items missing or extra",
    "output": "the printed output differs",
    "status": "the program exited with another status",
    "file": "an output file is missing, unexpected or differs",
    "stderr": "standard error does not say what it must",
    "no_exception": "an exception was expected, and none was raised",
    "exception": "an exception of another class was raised",
    "message": "the expected exception was raised with another message",
}


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"

    def __reduce__(self) -> str:
        return "MISSING"  # unpickles as the module's own MISSING: a singleton across processes


MISSING: object = _Missing()


@record
class Rule:
    """A require/forbid rule, checked on the submission's syntax tree."""

    name: str  # a module, function, attribute or name, e.g. "itertools" or "permutations"
    message: str = ""


@record
class CalibrationRule:
    """How calibration turns the accepted references' CPU times into limits (the spec's `calibration:`):
    max(floor, multiplier x the slowest)."""

    floor: float = 1.0  # no test gets less: fork, set-up and a busy machine's tail cost a few hundred ms
    multiplier: float = 3.0  # research/sandbox.md 2.9: the same run's CPU time varied up to 1.65x here


@record
class MutantsRule:
    """The spec's `mutants:`: the share of mutants its tests must kill, and mutants known to be equivalent."""

    kill_at_least: float | None = None  # None: `grader validate --mutants` reports the rate, enforces nothing
    equivalent: tuple[tuple[str, str], ...] = ()  # (mutant id, why no test can tell it from the reference)


@record
class RubricItem:
    """One item of the spec's `rubric:`: what a TA ticks when reviewing a hand-in by hand."""

    id: str
    points: float  # added to the tests' score when ticked: negative takes points off
    description: str


@record
class Search:
    """The spec's `search:`: inputs generated for the entry, each run by the submission and the reference,
    until one disagrees by the checker (then shrunk); one outcome in the report, named `name`."""

    name: str
    args: tuple[tuple[str, Strategy], ...]  # the entry's arguments, in order, each with its values
    examples: int  # inputs tried before the submission is taken to agree
    seconds: float  # the whole search's wall-clock budget, shrinking included
    hidden: bool
    points: float
    checker: CheckerSpec
    limits: Limits  # each input's run
    line: int = 0
    shrinks: int = 200  # runs spent shrinking a found input, at most
    description: str = ""


@record
class Exercise:
    id: str
    title: str
    kind: str  # a name in grader.kinds.KINDS
    statement: str
    tests: tuple[Test, ...]
    path: Path
    entry: str | None = None  # the name a function-kind submission must define
    starter: str = ""
    hints: tuple[str, ...] = ()
    prelude: str = ""  # code run in the submission's namespace first (e.g. typing names, as LeetCode)
    test_setup: str = ""  # the tests' own imports and helpers, run after the submission in a scope of their own
    handin_files: tuple[str, ...] = ()  # files a folder (or zip) hand-in must hold beside its entry file
    hidden_tests: int = 0  # a student bundle's spec: the hidden tests it leaves out, run at grading time
    snippet: str = ""  # predict kind: the code whose output the student predicts
    limits: Limits = field(default_factory=Limits)
    require: tuple[Rule, ...] = ()
    forbid: tuple[Rule, ...] = ()
    calibration: CalibrationRule = field(default_factory=CalibrationRule)
    mutants: MutantsRule = field(default_factory=MutantsRule)
    rubric: tuple[RubricItem, ...] = ()  # a TA's review ticks these (grader serve)
    quality: QualitySpec | None = None  # the spec's `quality:`: ruff's issues in categories (grader/quality/)
    params: Params | None = None  # `params:`: a variant per student (grader.variants)
    variant: str = ""  # the short id of the variant this exercise was rendered for; "" before rendering
    reference_text: str = ""  # a variant's accepted reference, rendered for it: its expected answers' source
    search: Search | None = None  # inputs generated and compared with the reference's (grader/search)

    @property
    def reference_dir(self) -> Path:
        """reference/<id>/ beside the exercises folder."""
        return self.path.parent.parent / "reference" / self.id

    @property
    def max_score(self) -> float:
        return sum(test.points for test in self.tests) + (self.search.points if self.search is not None else 0.0)


@record
class Opaque:
    """A part of a returned value that is not plain data (a map, a generator, an instance): only its type
    name comes back, and it equals nothing the spec can expect."""

    type_name: str

    def __repr__(self) -> str:
        return f"<{self.type_name} object>"


@record
class RunResult:
    """What the sandbox observed for one test: plain data, no verdict."""

    stdout: str = ""
    stderr: str = ""
    value: object = None  # the decoded return value (compare == "value")
    has_value: bool = False
    fault: Fault = Fault.NONE
    error_type: str = ""  # the exception class the submission raised (fault RAISED or OUT_OF_MEMORY)
    error_message: str = ""
    error_bases: tuple[str, ...] = ()  # the built-in exception classes `error_type` is (or subclasses)
    error_classes: tuple[str, ...] = ()  # the names of `error_type` and all its bases (the submission's too)
    error_first_arg: tuple[object, ...] = ()  # (args[0],) of the exception as data; () when it had no arguments
    traceback: str = ""  # the submission's own frames only
    exit_code: int | None = 0
    signal: int | None = None
    cpu_seconds: float = 0.0
    wall_seconds: float = 0.0
    timing: Timing = Timing.IN_TIME
    output_truncated: bool = False
    sandbox_error: str = ""  # the sandbox itself failed: a grader error
    steps: tuple[dict[str, object], ...] = ()  # a steps test: each step's {"value": v} or its exception
    files: tuple[tuple[str, str | None], ...] = ()  # a program's output files as read back (None: not written)

    @property
    def timed_out(self) -> bool:
        return self.timing is not Timing.IN_TIME


@record
class CheckResult:
    passed: bool
    feedback: str = ""  # one line: "expected 3, got 4"
    details: str = ""  # a structural difference, longer
    fraction: float | None = None  # of the test's points; None: all when passed, none otherwise
    reason: str = ""  # what a failed check found, for a spec's feedback by check: one of CHECK_REASONS

    @property
    def score(self) -> float:
        return self.fraction if self.fraction is not None else (1.0 if self.passed else 0.0)


@record
class Outcome:
    """Verdict and feedback for one test, as the student sees it."""

    test: str
    verdict: Verdict
    points: float
    max_points: float
    hidden: bool = False
    big: bool = False
    feedback: str = ""
    details: str = ""  # diff or trimmed traceback (never for hidden tests)
    expected: str | None = None  # shown for visible tests only
    actual: str | None = None
    cpu_seconds: float = 0.0
    limit_seconds: float = 0.0
    description: str = ""  # the test's `description`, shown hidden or not
    limit_source: str = ""  # where limit_seconds came from: written in the spec, calibrated (when), the default
    input: str | None = None  # a visible test's input as the student may rerun it (call, given values, stdin)
    stdout: str = ""  # what a visible test printed when its output is not what is compared (bounded); never hidden
    stderr: str = ""  # what a visible test wrote to stderr (bounded); never for a hidden test


@record
class StaffDetail:
    """What a hidden test expected and got, for staff answering a regrade request: never in a student's report."""

    test: str
    expected: str
    actual: str  # the returned value or the printed output
    traceback: str = ""
    input: str = ""  # the test's call, given values, argv, files or stdin, as a visible test's report shows it


@record
class Report:
    exercise: str
    submission: str
    outcomes: tuple[Outcome, ...]
    isolation: str = ""
    visible_only: bool = False  # a student bundle: hidden tests run at grading time
    notes: tuple[str, ...] = ()  # about the hand-in itself: magics not run, the file a folder was graded from
    staff: tuple[StaffDetail, ...] = ()  # hidden tests' details: stored for staff, never rendered for students
    quality: QualityResult | None = None  # the spec's `quality:` on this hand-in; its deduction is in `score`
    variant: str = ""  # the short id of the student's variant it was graded against (params:); "" for none

    @property
    def limits_source(self) -> str:
        """Where the CPU limits in force came from, each with the tests it applied to."""
        sources: dict[str, list[str]] = {}
        for number, outcome in enumerate(self.outcomes, start=1):
            if outcome.limit_source:
                sources.setdefault(outcome.limit_source, []).append(str(number))
        if len(sources) == 1:
            return next(iter(sources))
        return "; ".join(f"{source} (tests {', '.join(numbers)})" for source, numbers in sources.items())

    @property
    def verdict(self) -> Verdict:
        if not self.outcomes:
            return Verdict.GRADER_ERROR
        return min((o.verdict for o in self.outcomes), key=lambda v: v.severity)

    @property
    def tests_score(self) -> float:
        return sum(o.points for o in self.outcomes)

    @property
    def score(self) -> float:
        """The tests' points less the code quality's deduction, never below 0."""
        tests = self.tests_score
        return max(tests - self.quality.deduction, 0.0) if self.quality and self.quality.deduction else tests

    @property
    def quality_taken(self) -> float:
        """What code quality took off the tests' score: its deduction, or less when the tests had less."""
        return round(self.tests_score - self.score, 6)

    @property
    def max_score(self) -> float:
        return sum(o.max_points for o in self.outcomes)
