"""A course's own checker: a function in a Python file beside the exercise specs, run here in the grader
(never in the sandbox, so nothing the submission does reaches it). It gets the test's input, the answer as
plain data and the reference's answer, and returns a bool, (bool, feedback) or a dict
{"passed": bool, "fraction": 0..1, "feedback": str}."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from grader.checkers.registry import CheckerError, checker
from grader.model import CheckResult

_loaded: dict[tuple[str, int], dict[str, object]] = {}  # (file, mtime) -> its namespace


@checker("custom")
def custom(expected: object, actual: object, *, file: str, function: str, input: object = None) -> CheckResult:  # noqa: A002
    label = f"{Path(file).name}:{function}"
    func = _function(file, function, label)
    try:
        returned = func(input=input, answer=actual, expected=expected)
    except Exception as error:  # noqa: BLE001 - the instructor's code failing is a grader error, said so
        raise CheckerError(f"checker {label} raised {type(error).__name__}: {error}") from None
    return _as_result(returned, label)


custom.takes_input = True  # type: ignore[attr-defined]


def _function(file: str, function: str, label: str) -> Callable[..., object]:
    try:
        key = (file, os.stat(file).st_mtime_ns)
        namespace = _loaded.get(key)
        if namespace is None:
            source = Path(file).read_text(encoding="utf-8")
            namespace = {"__name__": Path(file).stem, "__file__": file}
            exec(compile(source, file, "exec"), namespace)  # the instructor's own code, trusted
            _loaded[key] = namespace
    except Exception as error:  # noqa: BLE001
        raise CheckerError(f"checker {label} cannot be loaded: {type(error).__name__}: {error}") from None
    func = namespace.get(function)
    if not callable(func):
        raise CheckerError(f"checker {label}: {Path(file).name} defines no function {function}")
    return func


def _as_result(returned: object, label: str) -> CheckResult:
    if type(returned) is bool:
        return CheckResult(passed=returned)
    if isinstance(returned, tuple) and len(returned) == 2 and type(returned[0]) is bool \
            and isinstance(returned[1], str):
        return CheckResult(passed=returned[0], feedback=returned[1])
    if isinstance(returned, dict) and type(returned.get("passed")) is bool \
            and set(returned) <= {"passed", "fraction", "feedback", "reason"}:
        fraction = returned.get("fraction")
        feedback = returned.get("feedback", "")
        if fraction is not None and not (type(fraction) in (int, float) and 0 <= fraction <= 1):
            raise CheckerError(f"checker {label} returned the fraction {fraction!r}: it must be between 0 and 1")
        if not isinstance(feedback, str):
            raise CheckerError(f"checker {label} returned feedback that is not text: {feedback!r}")
        reason = returned.get("reason", "")
        if not isinstance(reason, str):
            raise CheckerError(f"checker {label} returned a reason that is not text: {reason!r}")
        return CheckResult(passed=returned["passed"], feedback=feedback, reason=reason,
                           fraction=float(fraction) if fraction is not None else None)
    raise CheckerError(f"checker {label} returned {returned!r:.80}: it must return a bool, (bool, feedback) "
                       f"or {{'passed': bool, 'fraction': 0..1, 'feedback': str, 'reason': str}}")
