"""`raises`: the call must raise an exception class (a subclass counts unless `subclass: false`), its
message containing a text (`message`), equal to one (`message_equals`: `str(error)`, as pytest's
`str(excinfo.value) == ...`), its first argument equal to a value (`first_arg`: unittest's
`assertEqual(err.exception.args[0], ...)`, args[0] brought out of the sandbox as data) or matching a
regular expression (`match`: searched in `str(error)`, as unittest's assertRaisesRegex and pytest.raises). A built-in class is judged on the names of the built-in
classes the harness found the exception to subclass, so a student class merely named ValueError is not one;
a class the submission defines (`class: BufferFullException`) is judged by the names of its class and
its bases, the only thing the grader can know of a class it never saw."""

from __future__ import annotations

import difflib
import re
from dataclasses import replace
from typing import TYPE_CHECKING

from grader.checkers import show
from grader.checkers.equality import equal
from grader.form_data import BUILTIN_ERRORS, ExpectedRaise
from grader.forms.base import TestForm
from grader.model import CheckResult, Fault, RunResult, Test
from grader.records import record

if TYPE_CHECKING:
    import yaml

    from grader.spec_reader import SpecReader

RAISES_KEYS = ("class", "message", "message_equals", "first_arg", "match", "subclass", "bases")


@record
class Raised:
    """A run's exception, as plain data: its class's name, the built-in classes it is, its message, and the
    names of every class in its method resolution order (the submission's own classes among them)."""

    error_type: str
    bases: tuple[str, ...]
    message: str
    classes: tuple[str, ...] = ()
    first_arg: tuple[object, ...] = ()  # (args[0],) as data; () when raised with no arguments


def raised_from(data: dict[str, object]) -> Raised:
    """A step's exception, from its reply (bounded: it is the submission's)."""
    bases, classes, first = data.get("error_bases"), data.get("error_classes"), data.get("first_arg")
    return Raised(str(data["error_type"]), tuple(map(str, bases)) if isinstance(bases, list) else (),
                  str(data.get("message", "")), tuple(map(str, classes))[:50] if isinstance(classes, list) else (),
                  tuple(first[:1]) if isinstance(first, list) else ())


def raised_of(result: RunResult) -> Raised | None:
    if result.fault is not Fault.RAISED:
        return None
    return Raised(result.error_type, result.error_bases, result.error_message, result.error_classes,
                  result.error_first_arg)


def read_raises(reader: SpecReader, node: yaml.Node, where: str) -> ExpectedRaise | None:
    """`raises: ValueError`, `raises: {class: ValueError, message: "empty"}` (contains), `message_equals:`
    (exactly), `match:` (a regular expression, searched), `subclass: false` (that class itself)."""
    import yaml

    class_node = node
    found: dict[str, object] = {}
    if isinstance(node, yaml.MappingNode):
        keys = reader.mapping(node, RAISES_KEYS, f"raises of {where}")  # type: ignore[attr-defined]
        if "class" not in keys:
            reader.problem(node, f"raises of {where} needs a class, e.g. {{class: ValueError, message: empty}}")
            return None
        class_node = keys["class"]
        found["message"] = reader.text(keys.get("message"), "raises: message")
        for key in ("message_equals", "match"):
            if key in keys:
                found[key] = reader.text(keys[key], f"raises: {key}")
        if "first_arg" in keys:  # any data, as assertEqual(cm.exception.args[0], x) compares it
            found["first_arg"] = reader.value(keys["first_arg"])  # type: ignore[attr-defined]
            if found["first_arg"] is None:
                reader.problem(keys["first_arg"], f"raises of {where}: first_arg is the value args[0] must "
                                                  f"equal; null cannot be told from no check")
        if "match" in found:
            try:
                re.compile(str(found["match"]))
            except re.error as error:
                reader.problem(keys["match"], f"raises of {where}: match is not a regular expression: {error}")
        if "bases" in keys:
            bases = tuple(reader.text_list(keys["bases"], "raises: bases"))  # type: ignore[attr-defined]
            found["bases"] = tuple(base for base in bases if base.isidentifier())
        if "subclass" in keys:
            flag = reader.value(keys["subclass"])  # type: ignore[attr-defined]
            if not isinstance(flag, bool):
                reader.problem(keys["subclass"], f"raises of {where}: subclass must be true or false")
            found["subclass"] = flag is not False
    name = reader.text(class_node, f"raises of {where}")
    if not name.isidentifier():
        reader.problem(class_node, f"raises of {where}: '{name}' is not a class name "
                                   f"(ValueError, TypeError, KeyError, or a class the submission defines)")
        return None
    close = _like_a_builtin(name)
    if close:
        reader.problem(class_node, f"raises of {where}: '{name}' is no built-in exception class; did you mean "
                                   f"{close}? (a class the submission defines must not look like a built-in one)")
        return None
    return ExpectedRaise(name, **found)  # type: ignore[arg-type]


def _like_a_builtin(name: str) -> str:
    """The built-in class a name that is not one looks like a misspelling of ("" when none)."""
    if name in BUILTIN_ERRORS:
        return ""
    close = difflib.get_close_matches(name, BUILTIN_ERRORS, n=1, cutoff=0.85)
    return close[0] if close else ""


def nameable(name: str) -> bool:
    """Whether a spec's `raises:` may name this class (a student bundle writes a reference's class out)."""
    return name.isidentifier() and not _like_a_builtin(name)


def _is_class(expected: ExpectedRaise, answer: Raised) -> bool:
    for base in expected.bases:
        if base not in (answer.bases if base in BUILTIN_ERRORS else answer.classes):
            return False
    if not expected.subclass:
        return answer.error_type == expected.cls and (not expected.builtin or expected.cls in answer.bases)
    if expected.builtin:
        return expected.cls in answer.bases
    return expected.cls in (answer.classes or (answer.error_type,))


def raise_reason(expected: ExpectedRaise, answer: object) -> str:
    """What is wrong with an answer that `raise_problem` refuses (a check reason): nothing raised, another
    class, or the expected class with another message."""
    if not isinstance(answer, Raised):
        return "no_exception"
    return "message" if _is_class(expected, answer) else "exception"


def first_arg_problem(expected: object, answer: Raised) -> str:
    """Why the exception's args[0] is not `expected`, as `assertEqual(cm.exception.args[0], expected)` would
    fail; "" when it is equal. args[0] came out of the sandbox as data: an exception or an object of the
    submission's (a class with its own __str__) is its type's name only, equal to no text."""
    if not answer.first_arg:
        return f"expected the argument {expected!r}, but it was raised with no arguments (args is empty)"
    check = equal(expected, answer.first_arg[0])
    return "" if check.passed else f"expected the argument {expected!r}, but args[0] is {show(answer.first_arg[0], 200)}"


def raise_problem(expected: ExpectedRaise, answer: object) -> str:
    """Why `answer` (a Raised, or a returned value) is not the expected exception; "" when it is."""
    wanted = expected.wanted()
    if not isinstance(answer, Raised):
        return f"expected {wanted} to be raised, but it returned {show(answer, 60)}"
    if not _is_class(expected, answer):
        return f"expected {wanted}, but it raised {answer.error_type}: {show(answer.message, 60)}"
    if expected.message not in answer.message:
        return f"expected {wanted}, but its message is {show(answer.message, 60)}"
    if expected.message_equals is not None and answer.message != expected.message_equals:
        return f"expected the message {expected.message_equals!r}, but it is {show(answer.message, 200)}"
    if expected.first_arg is not None and first_arg_problem(expected.first_arg, answer):
        return first_arg_problem(expected.first_arg, answer)
    if expected.match is not None and not re.search(expected.match, answer.message):
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
        answer = self.answer(result, test)
        problem = raise_problem(test.raises, answer)
        return CheckResult(passed=not problem, feedback=problem, reason=raise_reason(test.raises, answer) if problem else "")

    def shown(self, test: Test, result: RunResult, expected: object) -> tuple[str | None, str | None]:
        assert test.raises is not None
        raised = raised_of(result)
        actual = f"{raised.error_type}: {raised.message}" if raised else show(result.value, 2000)
        return f"raises {test.raises.wanted()}", actual

    def confirm(self, test: Test, produced: object) -> str:
        assert test.raises is not None
        return raise_problem(test.raises, produced)

    def shown_expected(self, test: Test, expected: object) -> str:
        assert test.raises is not None
        return f"raises {test.raises.wanted()}"

    def spec_entry(self, test: Test, expected: object) -> dict[str, object] | None:
        assert test.raises is not None
        return {"raises": raises_entry(test.raises)}


def raises_entry(expected: ExpectedRaise) -> object:
    """The `raises:` value as the spec writes it: the class alone when nothing else is checked."""
    entry: dict[str, object] = {"class": expected.cls}
    if expected.message:
        entry["message"] = expected.message
    if expected.message_equals is not None:
        entry["message_equals"] = expected.message_equals
    if expected.first_arg is not None:
        entry["first_arg"] = expected.first_arg
    if expected.match is not None:
        entry["match"] = expected.match
    if not expected.subclass:
        entry["subclass"] = False
    if expected.bases:
        entry["bases"] = list(expected.bases)
    return entry if len(entry) > 1 else expected.cls
