"""The verdict table: what a run observed and what the checker decided, turned into one test's Outcome."""

from __future__ import annotations

from collections.abc import Callable

from grader.checkers import CheckerError
from grader.forms import form_of
from grader.model import Fault, Outcome, RunResult, Test, Timing, Verdict
from grader.text import bounded
from grader.replies import BUILTIN_EXCEPTIONS, OWN_CLASS

# How a fault the grader observed is named in feedback (a raised exception is named by its class).
FAULT_LABELS = {Fault.DIED: "ProcessDied", Fault.UNREADABLE: "UnreadableValue", Fault.EXITED: "SystemExit",
                Fault.OUT_OF_MEMORY: "MemoryError"}


def judge(test: Test, result: RunResult, expected: object) -> Outcome:
    """The verdict for one run: what went wrong in the run first, then the form's (and checker's) word."""
    form = form_of(test)
    verdict, feedback, details = verdict_for(test, result)
    score, reason = 0.0, ""
    if verdict is None:
        try:
            check = form.check(test, result, expected)
        except CheckerError as error:
            verdict, feedback = Verdict.GRADER_ERROR, str(error)
        else:
            verdict = Verdict.PASSED if check.passed else Verdict.WRONG_ANSWER
            feedback, details, score, reason = check.feedback, check.details, check.score, check.reason
    shown_expected = actual_text = shown_input = None
    if not test.hidden:
        hint = test.feedback_for(verdict, reason)
        if hint:
            feedback = f"{feedback} — {hint}" if feedback else hint
        shown_expected, actual_text = form.shown(test, result, expected)
        shown_input = form.shown_input(test) or None
    else:
        details = ""  # a hidden test shows its name and verdict, nothing it could leak
        hint = test.feedback_for(verdict, reason)
        feedback = hint or hidden_feedback(verdict, feedback, result, test)
    return bounded(Outcome(
        test=test.name,
        verdict=verdict,
        points=score * test.points,
        max_points=test.points,
        hidden=test.hidden,
        big=test.big,
        feedback=feedback,
        details=details,
        expected=shown_expected,
        actual=actual_text,
        # A hidden test's exact time could encode its input: a tenth of a second is all it shows.
        cpu_seconds=round(result.cpu_seconds, 1) if test.hidden else result.cpu_seconds,
        limit_seconds=test.limits.cpu,
        description=test.description,
        input=shown_input,
    ), test.limits.output)


LOOP_HINT = "a small test: this may be a loop that never ends"
BUSY_SHARE = 0.5  # of the CPU limit, used when the wall-clock backstop stopped a run: it was computing


def verdict_for(test: Test, result: RunResult) -> tuple[Verdict | None, str, str]:
    """(verdict, feedback, details) when the run itself went wrong; (None, ...) when the checker decides.
    A test's form may take a raised exception, or a non-zero exit status, as its answer."""
    limit, form = test.limits, form_of(test)
    if result.sandbox_error:
        return Verdict.GRADER_ERROR, result.sandbox_error, ""
    if result.fault is Fault.OUT_OF_MEMORY:  # first: at the limit, the kernel's reclaiming burns CPU time too
        return Verdict.MEMORY_LIMIT, f"ran out of memory (limit {limit.memory} MiB)", result.traceback
    if result.timing is not Timing.IN_TIME:
        where = f" {result.error_message}" if result.error_message else ""
        return Verdict.TIMEOUT, f"time limit exceeded{where}: {_time_used(test, result, not where)}", ""
    if result.output_truncated:
        return Verdict.OUTPUT_LIMIT, f"printed more than {limit.output} KiB", ""
    if result.fault is not Fault.NONE and not (form.judges_raise and result.fault is Fault.RAISED):
        label = result.error_type if result.fault is Fault.RAISED else FAULT_LABELS[result.fault]
        message = f"{label}: {result.error_message}" if result.error_message else label
        return Verdict.RUNTIME_ERROR, message, result.traceback
    if result.signal is not None:
        return Verdict.RUNTIME_ERROR, f"the process was killed by signal {result.signal}", ""
    if result.exit_code not in (0, None) and not form.judges_exit:
        return Verdict.RUNTIME_ERROR, f"exited with status {result.exit_code}", result.stderr[-2000:]
    return None, "", ""


def _time_used(test: Test, result: RunResult, in_a_test: bool = True) -> str:
    """The grader's own reading of the time a run took: its numbers and the limit, no word of the run's;
    and, for a small test stopped on its CPU time, the hint that it may never end."""
    limit = test.limits
    if result.timing is Timing.STOPPED_CPU and not test.big and in_a_test:
        # A small test is over in milliseconds: a whole second is rarely slowness.
        return f"stopped after {result.cpu_seconds:.2f} s of CPU; the limit is {limit.cpu:.2f} s ({LOOP_HINT})"
    if result.timing is Timing.STOPPED_WALL and result.cpu_seconds < limit.cpu:
        # Told by the CPU time: a run that used most of its CPU limit was computing, slowed by a busy machine;
        # only one that used little of it was waiting (input(), sleep, a lock).
        if result.cpu_seconds >= BUSY_SHARE * limit.cpu:
            hint = f" ({LOOP_HINT})" if not test.big and in_a_test else ""
            return (f"stopped after {result.cpu_seconds:.2f} s of CPU, near the limit of {limit.cpu:.2f} s, when "
                    f"the wall-clock backstop of {limit.wall_seconds:.2f} s ran out on a busy machine{hint}")
        return (f"stopped after {result.wall_seconds:.2f} s of wall-clock time with only "
                f"{result.cpu_seconds:.2f} s of CPU: it was waiting or sleeping; the limit is "
                f"{limit.wall_seconds:.2f} s")
    if result.timing is Timing.OVER_LIMIT:  # it finished, twice, past the limit
        return f"it took {result.cpu_seconds:.2f} s of CPU; the limit is {limit.cpu:.2f} s"
    return f"stopped after {result.cpu_seconds:.2f} s of CPU; the limit is {limit.cpu:.2f} s"


# The only words of a run a hidden test's feedback repeats: the grader's own, which a reply cannot extend.
LOADING = "while loading the file"


def hidden_feedback(verdict: Verdict, feedback: str, result: RunResult, test: Test) -> str:
    """Hidden tests say what kind of failure it was, never anything computed from the hidden input: not an
    exception's message, nor a class the submission made (its name is the submission's to choose), nor an
    exit status or signal number, nor the sandbox's words (a forged reply writes those too). Each verdict's
    words are built here from the grader's own readings, never from `feedback`, which may quote the run
    (a submission that raises just past the time limit)."""
    limit = test.limits
    if verdict == Verdict.PASSED:
        return ""
    if verdict == Verdict.TIMEOUT:
        where = f" {LOADING}" if result.error_message.startswith(LOADING) else ""
        return f"time limit exceeded{where}: {_time_used(test, result, not where)}"
    if verdict == Verdict.MEMORY_LIMIT:
        return f"ran out of memory (limit {limit.memory} MiB)"
    if verdict == Verdict.OUTPUT_LIMIT:
        return f"printed more than {limit.output} KiB"
    if verdict == Verdict.RUNTIME_ERROR:
        if result.fault is Fault.RAISED:
            return result.error_type if result.error_type in BUILTIN_EXCEPTIONS else OWN_CLASS
        if result.fault in FAULT_LABELS:
            return FAULT_LABELS[result.fault]
        return "killed by a signal" if result.signal is not None else "exited with a non-zero status"
    if verdict == Verdict.WRONG_ANSWER:
        return "wrong answer"
    if verdict == Verdict.GRADER_ERROR:
        return "the grader could not run this test"
    if verdict == Verdict.SKIPPED:
        return feedback  # the grader's reason (a smaller test failed): no run took place
    return str(verdict)


def run_once_more_if_borderline(test: Test, run: Callable[[Test], RunResult]) -> RunResult:
    """A run that finished past its CPU limit but within the margin may be the machine's noise, not the
    code: run it again and keep the faster of the two before calling it a timeout."""
    result = run(test)
    if result.timing is Timing.OVER_LIMIT:
        again = run(test)
        if again.cpu_seconds < result.cpu_seconds:
            return again
    return result
