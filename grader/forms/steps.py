"""`steps`: statements and expressions run in turn on one object, in one scope. A statement must run (or
raise what it is written to raise); an expression's value or exception is compared with the written one,
else with the reference's, by the test's checker; a bare call the reference answers None (`- c.add()`) is
a command, run as a statement (unittest reads no value no assertion names), as is `{do: ..., ignore_value: true}`. The first failing step ends the test: the feedback names
it and the details show the steps before it."""

from __future__ import annotations

import ast
from dataclasses import replace
from typing import TYPE_CHECKING

from grader.checkers import run_checker, show
from grader.form_data import Step
from grader.forms.base import TestForm
from grader.forms.given import call_arguments
from grader.forms.raises import (ExpectedRaise, Raised, nameable, raise_problem, raise_reason, raised_from,
                                 raises_entry, read_raises)
from grader.model import MISSING, CheckResult, RunResult, Test
from grader.records import record

if TYPE_CHECKING:
    import yaml

    from grader.spec_reader import SpecReader


# Exceptions of a reference's step that mean the step is mistyped (a name, an attribute, a call's
# arguments), not an answer to expect: validate refuses them unless the step says `raises:`.
SPEC_MISTAKES = ("NameError", "AttributeError", "TypeError", "UnboundLocalError")


@record
class StepAnswer:
    """What one step did, as plain data: ran (a statement), a value, or an exception (a Raised)."""

    ran: bool = False
    value: object = None
    raised: Raised | None = None
    missing: bool = False  # it never ran: the test process left before it
    equal: bool | None = None  # an `equals` step: whether the sandbox found both sides ==
    sides: tuple[str, str] = ("", "")  # an `equals` step: the reprs of its value and of the expected one
    unread: str = ""  # a bare call whose value raised when read after the last step (a generator that raises)

    def shown(self) -> str:
        if self.missing:
            return "(it did not run)"
        if self.raised is not None:
            return f"raised {self.raised.error_type}: {show(self.raised.message, 60)}"
        if self.equal is not None:
            return self.sides[0]
        return "ran" if self.ran else show(self.value, 60)


def _command(step: Step, reference: StepAnswer) -> bool:
    """A bare call step (`- c.add()`) the reference answered None: a command, as in unittest, where a call
    no assertion reads has its value ignored. It must run without raising; what it returns is not read."""
    if reference.raised is not None or reference.missing or reference.equal is not None:
        return False
    return bare_call(step) and reference.value is None


def bare_call(step: Step) -> bool:
    """A call step with nothing written to compare (`- buf.write("1")`): the sandbox reads its value only
    once every step has run, so reading it (a generator's body) changes no step, and a value that raises
    when read fails no step unless the reference's value is compared with it."""
    if step.written or step.raises is not None or step.equals is not None or not step.expression:
        return False
    try:
        return isinstance(ast.parse(step.code, mode="eval").body, ast.Call)
    except SyntaxError:
        return False


def step_answers(result: RunResult, count: int) -> list[StepAnswer]:
    answers = []
    for data in result.steps[:count]:
        if "value" in data:
            answers.append(StepAnswer(value=data["value"]))
        elif "equal" in data:
            answers.append(StepAnswer(equal=data["equal"] is True,
                                      sides=(str(data.get("left", ""))[:2000], str(data.get("right", ""))[:2000])))
        elif data.get("error_type"):
            answers.append(StepAnswer(raised=raised_from(data)))
        elif data.get("done"):
            answers.append(StepAnswer(ran=True, unread=str(data.get("unread") or "")[:300]))
        else:
            answers.append(StepAnswer(missing=True))
    return answers + [StepAnswer(missing=True)] * (count - len(answers))


class StepsForm(TestForm):
    name = "steps"
    keys = ("steps",)
    kinds = ("function",)
    takes_call = False

    def read(self, reader: SpecReader, keys: dict[str, yaml.Node], test: Test, where: str) -> Test:
        import yaml

        for key in ("call", "expect", "expect_literal"):
            if key in keys:
                reader.problem(keys[key], f"{where} has steps: '{key}' belongs in a step")
        node = keys["steps"]
        if not isinstance(node, yaml.SequenceNode) or not node.value:
            reader.problem(node, f"steps of {where} must be a non-empty list of statements and expressions")
            return test
        steps = [step for item in node.value if (step := self._step(reader, item, where)) is not None]
        needs = any(s.expression and not s.written and s.raises is None and s.equals is None for s in steps)
        return replace(test, steps=tuple(steps), expect=MISSING if needs else None, call=None)

    def _step(self, reader: SpecReader, node: yaml.Node, where: str) -> Step | None:
        import yaml

        keys: dict[str, yaml.Node] = {}
        code_node = node
        if isinstance(node, yaml.MappingNode):
            keys = reader.mapping(node, ("do", "raises", "expect_literal", "equals", "ignore_value"),  # type: ignore[attr-defined]
                                  f"a step of {where}")
            if "do" not in keys:
                reader.problem(node, f"a step of {where} needs 'do': the statement or expression it runs")
                return None
            code_node = keys["do"]
        code = reader.text(code_node, f"a step of {where}").strip()
        try:
            ast.parse(code, mode="eval")
            expression = True
        except SyntaxError:
            try:
                ast.parse(code, mode="exec")
                expression = False
            except SyntaxError as error:
                reader.problem(code_node, f"step {code!r} of {where} is not Python: {error.msg}")
                return None
        written = [key for key in ("raises", "expect_literal", "equals") if key in keys]
        if len(written) > 1:
            reader.problem(keys[written[1]], f"step {code!r} of {where} has both '{written[0]}' and '{written[1]}'")
        for key in ("expect_literal", "equals"):
            if key in keys and not expression:
                reader.problem(keys[key], f"step {code!r} of {where} is a statement: it has no value to expect")
        if "ignore_value" in keys:
            flag = reader.value(keys["ignore_value"])  # type: ignore[attr-defined]
            if not isinstance(flag, bool) or len(keys) > 2:
                reader.problem(keys["ignore_value"], f"ignore_value of step {code!r} is true or false, beside 'do' alone")
            elif flag:
                expression = False  # run as a statement: it must not raise, its value is not read
        equals = reader.text(keys["equals"], "equals").strip() if "equals" in keys else None
        if equals is not None:
            try:
                ast.parse(equals, mode="eval")
            except SyntaxError as error:
                reader.problem(keys["equals"], f"equals of step {code!r} is not a Python expression: {error.msg}")
        expect: object = None
        if "expect_literal" in keys:
            text = reader.text(keys["expect_literal"], "expect_literal")
            try:
                expect = ast.literal_eval(text)
            except (ValueError, SyntaxError):
                reader.problem(keys["expect_literal"], f"expect_literal of step {code!r} is not a Python literal: {text!r}")
        raises = read_raises(reader, keys["raises"], f"step {code!r} of {where}") if "raises" in keys else None
        return Step(code, expression, expect, "expect_literal" in keys, raises, equals)

    def request(self, test: Test) -> dict[str, object]:
        return {"call": "", "steps": [(step.code, step.expression, step.equals, bare_call(step)) for step in test.steps]}

    def cache_part(self, test: Test) -> str:
        return repr([(step.code, step.expression) + ((step.equals,) if step.equals else ()) for step in test.steps])

    def answer(self, result: RunResult, test: Test) -> object:
        return step_answers(result, len(test.steps))

    def check(self, test: Test, result: RunResult, expected: object) -> CheckResult:
        failure = self._first_failure(test, result, expected)
        if failure is None:
            return CheckResult(True)
        number, check, _ = failure
        before = ", ".join(f"`{step.code}`" for step in test.steps[max(0, number - 6): number - 1])
        cut = "..., " if number > 6 else ""
        after = f"; the steps before it: {cut}{before}" if before else ""
        return CheckResult(False, f"step {number} `{test.steps[number - 1].code}`: {check.feedback}{after}",
                           reason=check.reason)

    def _first_failure(self, test: Test, result: RunResult,
                       expected: object) -> tuple[int, CheckResult, tuple[str, str]] | None:
        """(step number, its check, (expected, actual) as shown) of the first failing step; None: all pass."""
        answers = step_answers(result, len(test.steps))
        references = expected if isinstance(expected, list) else [None] * len(test.steps)
        for number, (step, got, reference) in enumerate(zip(test.steps, answers, references), start=1):
            check = self._step_check(test, step, got, reference)
            if not check.passed:
                want = (f"raises {step.raises.wanted()}" if step.raises else show(step.expect, 2000) if step.written
                        else got.sides[1] or step.equals if step.equals is not None
                        else reference.shown() if isinstance(reference, StepAnswer) and step.expression else "runs")
                return number, check, (want, got.shown())
        return None

    def _step_check(self, test: Test, step: Step, got: StepAnswer, reference: object) -> CheckResult:
        if got.missing:
            return CheckResult(False, "it did not run: the test process left before it")
        if step.raises is not None:
            problem = raise_problem(step.raises, got.raised or got.value)
            return CheckResult(not problem, problem, reason=raise_reason(step.raises, got.raised or got.value) if problem else "")
        if step.equals is not None:
            if got.raised is not None:
                return CheckResult(False, f"it raised {got.raised.error_type}: {show(got.raised.message, 60)}",
                                   reason="exception")
            if got.equal is None:
                return CheckResult(False, "it gave no answer to compare")
            return CheckResult(got.equal, "" if got.equal else f"expected {show(got.sides[1], 200)} "
                               f"(`{step.equals}`), got {show(got.sides[0], 200)} (compared with ==)",
                               reason="" if got.equal else "value")
        want = StepAnswer(value=step.expect) if step.written else reference
        if not step.expression or not isinstance(want, StepAnswer) or _command(step, want):  # it must run
            if got.raised is not None:
                return CheckResult(False, f"it raised {got.raised.error_type}: {show(got.raised.message, 60)}",
                                   reason="exception")
            return CheckResult(True)
        if want.raised is not None:
            if want.raised.error_type not in want.raised.bases and got.raised is not None:
                # The reference's own class (not built in): the student's must bear its name.
                same = got.raised.error_type == want.raised.error_type
                return CheckResult(same, "" if same else f"expected {want.raised.error_type}, but it raised "
                                                         f"{got.raised.error_type}: {show(got.raised.message, 60)}",
                                   reason="" if same else "exception")
            wanted = ExpectedRaise(want.raised.error_type)
            problem = raise_problem(wanted, got.raised or got.value)
            return CheckResult(not problem, problem, reason=raise_reason(wanted, got.raised or got.value) if problem else "")
        if got.raised is not None:
            return CheckResult(False, f"expected {show(want.value, 60)}, but it raised "
                                      f"{got.raised.error_type}: {show(got.raised.message, 60)}", reason="exception")
        if got.unread:
            return CheckResult(False, f"expected {show(want.value, 60)}, but reading its value raised {got.unread}",
                               reason="exception")
        return run_checker(test.checker, want.value, got.value, call_arguments(step.code, test))

    def shown(self, test: Test, result: RunResult, expected: object) -> tuple[str | None, str | None]:
        failure = self._first_failure(test, result, expected)
        return failure[2] if failure else (None, None)  # the failing step's expected and actual

    def shown_input(self, test: Test) -> str:
        from grader.forms.base import given_lines

        return "\n".join([*given_lines(test), *(step.code for step in test.steps)])

    def shown_expected(self, test: Test, expected: object) -> str:
        """One line per step, beside its code in the input: what it must do."""
        answers = expected if isinstance(expected, list) else [None] * len(test.steps)
        lines = [""] * len(test.given)  # the given names' lines of the input expect nothing
        for step, answer in zip(test.steps, answers):
            if step.raises is not None:
                lines.append(f"raises {step.raises.wanted()}")
            elif step.equals is not None:
                lines.append(f"== {step.equals}")
            elif step.written:
                lines.append(show(step.expect, 200))
            elif step.expression and isinstance(answer, StepAnswer) and not _command(step, answer):
                lines.append(answer.shown() if answer.raised is None else f"raises {answer.raised.error_type}")
            else:
                lines.append("runs")
        return "\n".join(lines)

    def spec_entry(self, test: Test, expected: object) -> dict[str, object] | None:
        answers = expected if isinstance(expected, list) else [None] * len(test.steps)
        steps: list[object] = []
        for step, answer in zip(test.steps, answers):
            if step.raises is not None:
                steps.append({"do": step.code, "raises": raises_entry(step.raises)})
            elif step.equals is not None:
                steps.append({"do": step.code, "equals": step.equals})
            elif step.written:
                steps.append({"do": step.code, "expect_literal": repr(step.expect)})
            elif step.expression and isinstance(answer, StepAnswer) and answer.raised is not None \
                    and nameable(answer.raised.error_type):
                steps.append({"do": step.code, "raises": answer.raised.error_type})  # a builtin, or the submission's
            elif step.expression and isinstance(answer, StepAnswer) and _command(step, answer):
                steps.append({"do": step.code, "ignore_value": True})
            elif step.expression and isinstance(answer, StepAnswer) and answer.raised is None:
                steps.append({"do": step.code, "expect_literal": repr(answer.value)})
            else:
                steps.append(step.code)  # a statement
        return {"steps": steps}

    def confirm(self, test: Test, produced: object) -> str:
        answers = produced if isinstance(produced, list) else []
        for number, (step, got) in enumerate(zip(test.steps, answers), start=1):
            if step.raises is None and got.raised is not None and got.raised.error_type in SPEC_MISTAKES:
                return (f"step {number} `{step.code}` raised {got.raised.error_type}: {show(got.raised.message, 80)}"
                        f" in the reference, a mistake in the spec more likely than an answer (a step that "
                        f"expects an exception says so: {{do: ..., raises: {got.raised.error_type}}})")
            if step.written or step.raises is not None or step.equals is not None or not step.expression:
                check = self._step_check(test, step, got, None)
                if not check.passed:
                    return f"step {number} `{step.code}`: {check.feedback}"
        return ""
