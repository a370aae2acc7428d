"""`raises`: the call must raise a built-in exception class (a subclass counts), its message containing a
text if one is written. The class is judged on the names of the built-in classes the harness found the
exception to subclass, so a student class merely named ValueError is not one."""

from __future__ import annotations

import builtins
from dataclasses import replace
from typing import TYPE_CHECKING

from grader.checkers import show
from grader.forms.base import TestForm
from grader.model import CheckResult, Fault, RunResult, Test
from grader.records import record

if TYPE_CHECKING:
    import yaml

    from grader.spec_reader import SpecReader

BUILTIN_ERRORS = frozenset(name for name, value in vars(builtins).items()
                           if isinstance(value, type) and issubclass(value, BaseException))


@record
class ExpectedRaise:
    """`raises:` an exception of this built-in class (a subclass counts) whose message contains `message`."""

    cls: str
    message: str = ""


@record
class Raised:
    """A run's exception, as plain data: its class's name, the built-in classes it is, its message."""

    error_type: str
    bases: tuple[str, ...]
    message: str


def raised_of(result: RunResult) -> Raised | None:
    return Raised(result.error_type, result.error_bases, result.error_message) if result.fault is Fault.RAISED else None


def read_raises(reader: SpecReader, node: yaml.Node, where: str) -> ExpectedRaise | None:
    """`raises: ValueError` or `raises: {class: ValueError, message: "empty"}`."""
    import yaml

    message = ""
    class_node = node
    if isinstance(node, yaml.MappingNode):
        keys = reader.mapping(node, ("class", "message"), f"raises of {where}")  # type: ignore[attr-defined]
        if "class" not in keys:
            reader.problem(node, f"raises of {where} needs a class, e.g. {{class: ValueError, message: empty}}")
            return None
        class_node = keys["class"]
        message = reader.text(keys.get("message"), "raises: message")
    name = reader.text(class_node, f"raises of {where}")
    if name not in BUILTIN_ERRORS:
        reader.problem(class_node, f"raises of {where}: '{name}' is not a built-in exception class "
                                   f"(ValueError, TypeError, KeyError, IndexError...)")
        return None
    return ExpectedRaise(name, message)


def raise_problem(expected: ExpectedRaise, answer: object) -> str:
    """Why `answer` (a Raised, or a returned value) is not the expected exception; "" when it is."""
    wanted = expected.cls + (f" with a message containing {expected.message!r}" if expected.message else "")
    if not isinstance(answer, Raised):
        return f"expected {wanted} to be raised, but it returned {show(answer, 60)}"
    if expected.cls not in answer.bases:
        return f"expected {wanted}, but it raised {answer.error_type}: {show(answer.message, 60)}"
    if expected.message not in answer.message:
        return f"expected {wanted}, but its message is {show(answer.message, 60)}"
    return ""


class RaisesForm(TestForm):
    name = "raises"
    keys = ("raises",)
    kinds = ("function",)
    judges_raise = True

    def read(self, reader: SpecReader, keys: dict[str, yaml.Node], test: Test, where: str) -> Test:
        for key in ("expect", "expect_literal", "checker"):
            if key in keys:
                reader.problem(keys[key], f"{where} expects an exception: '{key}' has nothing to judge")
        expected = read_raises(reader, keys["raises"], where)
        return replace(test, raises=expected, expect=expected)  # written: the reference confirms it (validate)

    def needs_reference(self, test: Test) -> bool:
        return False

    def answer(self, result: RunResult, test: Test) -> object:
        return raised_of(result) or result.value

    def problem(self, result: RunResult) -> str:
        return "" if result.fault in (Fault.NONE, Fault.RAISED) else "raised"

    def check(self, test: Test, result: RunResult, expected: object) -> CheckResult:
        assert test.raises is not None
        problem = raise_problem(test.raises, self.answer(result, test))
        return CheckResult(passed=not problem, feedback=problem)

    def shown(self, test: Test, result: RunResult, expected: object) -> tuple[str | None, str | None]:
        assert test.raises is not None
        raised = raised_of(result)
        actual = f"{raised.error_type}: {raised.message}" if raised else show(result.value, 2000)
        return f"raises {test.raises.cls}" + (f" ({test.raises.message!r})" if test.raises.message else ""), actual

    def confirm(self, test: Test, produced: object) -> str:
        assert test.raises is not None
        return raise_problem(test.raises, produced)

    def spec_entry(self, test: Test, expected: object) -> dict[str, object] | None:
        assert test.raises is not None
        return {"raises": raises_entry(test.raises)}


def raises_entry(expected: ExpectedRaise) -> object:
    return {"class": expected.cls, "message": expected.message} if expected.message else expected.cls
