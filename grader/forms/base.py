"""The interface of a test form: which spec keys choose it, what it sends the sandbox, what a run's answer
is, and how that answer is judged against the expected one. Judging happens here, in the grader, on plain
data the harness reported: nothing the submission does changes how its answer is judged."""

from __future__ import annotations

from typing import TYPE_CHECKING

from grader.checkers import run_checker, show, show_pair, takes_input
from grader.model import MISSING, CheckResult, Fault, RunResult, Test

if TYPE_CHECKING:
    import yaml

    from grader.spec_reader import SpecReader


class TestForm:
    """The default behaviour: one call (or one run of a program), its value or output compared."""

    name = "call"
    keys: tuple[str, ...] = ()  # the test keys that choose this form (and only it reads)
    kinds: tuple[str, ...] = ()  # the kinds whose tests may take it (none named: any kind)
    judges_raise = False  # a raised exception is the answer, not a runtime error
    judges_exit = False  # a non-zero exit status is the answer, not a runtime error
    takes_call = True  # its input is the kind's (a call, stdin); False: the form reads its own

    # ------------------------------------------------------------ the spec
    def read(self, reader: SpecReader, keys: dict[str, yaml.Node], test: Test, where: str) -> Test:
        """The test with this form's keys read in."""
        return test

    # ------------------------------------------------------------ running
    def request(self, test: Test) -> dict[str, object]:
        """What the harness needs beyond the call, stdin and limits."""
        return {}

    def needs_reference(self, test: Test) -> bool:
        """Whether the expected answer comes from the reference."""
        return test.expect is MISSING

    def cache_part(self, test: Test) -> str:
        """What of the test, besides its call, stdin and compare, decides the reference's answer."""
        return ""

    def answer(self, result: RunResult, test: Test) -> object:
        """The answer a run gave (the reference's, stored as the expected one)."""
        return result.stdout if test.compare == "output" else result.value

    def problem(self, result: RunResult) -> str:
        """Why a reference's run is no answer ("" when it is one); besides timeouts and sandbox errors."""
        return "raised" if result.fault is not Fault.NONE else ""

    # ------------------------------------------------------------ judging
    def check(self, test: Test, result: RunResult, expected: object) -> CheckResult:
        return run_checker(test.checker, expected, self.answer(result, test), checker_input(test))

    def shown(self, test: Test, result: RunResult, expected: object) -> tuple[str | None, str | None]:
        """(expected, actual) as a visible test's report shows them."""
        if test.compare == "output":
            return str(expected), result.stdout
        if result.has_value:  # a long value cut around its first difference: where it differs shows
            return show_pair(expected, result.value)
        return show(expected, 2000), None

    def shown_input(self, test: Test) -> str:
        """The test's input as a student may reproduce it: the call (or stdin) and its `given` names, a
        generated one as the generator and arguments (its seed among them) that make it."""
        text = test.call if test.call is not None else (test.stdin or "")
        return "\n".join([text, *given_lines(test)]) if test.given else text

    def shown_expected(self, test: Test, expected: object) -> str:
        """The expected answer as the spec or a student writes it: a value's repr, or the text printed."""
        if expected is MISSING:
            return "?"
        return expected if isinstance(expected, str) and test.compare == "output" else repr(expected)

    def spec_entry(self, test: Test, expected: object) -> dict[str, object] | None:
        """The form's keys as a student bundle writes them, its expected answers written out (`expected`:
        the test's expected value, MISSING when there is none); None: the default `expect` is written."""
        return None

    def confirm(self, test: Test, produced: object) -> str:
        """Why the reference's answer contradicts the test's written expectation ("" when it agrees)."""
        check = run_checker(test.checker, test.expect, produced, checker_input(test))
        return "" if check.passed else check.feedback


def given_lines(test: Test) -> list[str]:
    """'xs = [3, 1]', or 'xs = floats(count=2000, seed=3) from generators.py' for a generated one."""
    from grader.forms.given import Generated

    lines = []
    for name, value in test.given:
        if isinstance(value, Generated):
            args = ", ".join(f"{key}={arg!r}" for key, arg in value.args)
            lines.append(f"{name} = {value.generator}({args}) from {value.source.name}")
        else:
            lines.append(f"{name} = {show(value, 200)}")
    return lines


def checker_input(test: Test) -> object:
    """The test's input as a custom checker gets it: a program's stdin, or the call's argument values."""
    if not takes_input(test.checker):
        return None  # made only for a checker that reads it: it parses the call
    if test.call is None:
        return test.stdin
    from grader.forms.given import call_arguments

    return call_arguments(test.call, test)
