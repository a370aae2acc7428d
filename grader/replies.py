"""What a run observed, from the sandbox's reply frames: RunResults of plain data, no verdicts. Nothing in a
reply is trusted but plain data; the grader's own readings (CPU from /proc and the cgroup) decide."""

from __future__ import annotations

import builtins
import os
import signal
from dataclasses import replace

from grader.kinds import SubmissionKind
from grader.model import Fault, Limits, Outcome, RunResult, Test, Timing
from grader.sandbox.wire import REPLY_CAP, Attached, Frame, decode

# Why a frame never came, in the words a student reads.
_NO_REPLY = {"died": "the test process was killed or broke the grader's channel",
             "garbled": "the test process sent an unreadable reply",
             "oversized": "the test process sent a reply that is far too large"}


# Exceptions a reply may name to a hidden test: the builtins' own, never a class the submission made.
BUILTIN_EXCEPTIONS = frozenset(name for name, value in vars(builtins).items()
                               if isinstance(value, type) and issubclass(value, BaseException))
OWN_CLASS = "an exception of the submission's own class"
VALUE_DEPTH = 256  # the harness sends nothing nested deeper than 200: a deeper value is forged
# Bounds on what a reply's texts may carry into a report (stdout has the test's own output limit).
ERROR_TYPE_CAP, MESSAGE_CAP, TRACEBACK_CAP, STDERR_CAP, SANDBOX_ERROR_CAP = 100, 1000, 16384, 16384, 1000


def load_failure_from(frame: Frame) -> RunResult | None:
    """Why the submission did not load (None: it did)."""
    data = frame.data or {}
    if data.get("loaded") is True:
        return None
    if frame.failure == "timeout":
        return RunResult(timing=Timing.STOPPED_WALL, wall_seconds=frame.wall_seconds,
                         cpu_seconds=frame.cpu_seconds, error_message="while loading the file")
    if "sandbox_error" in data:
        return RunResult(sandbox_error=_text(data["sandbox_error"], SANDBOX_ERROR_CAP) or "the sandbox failed")
    if frame.failure:
        return RunResult(fault=Fault.DIED, exit_code=None, error_message="the process ended while loading the file")
    return RunResult(fault=Fault.RAISED, error_type=error_class(data),
                     error_message=_text(data.get("message"), MESSAGE_CAP),
                     traceback=_text(data.get("traceback"), TRACEBACK_CAP), exit_code=1)


def result_from(frame: Frame, limits: Limits, kind: SubmissionKind) -> RunResult:
    """Translate a test's reply frame (or its absence) into what happened. Every field is checked for its
    type and range; CPU time is the grader's own reading, whatever the reply says."""
    if frame.oom_killed and frame.failure in ("timeout", "died"):  # the sandbox's memory ran out, whatever stopped it
        return RunResult(fault=Fault.OUT_OF_MEMORY, exit_code=None, wall_seconds=frame.wall_seconds,
                         cpu_seconds=frame.cpu_seconds, error_message="the sandbox reached its memory limit")
    if frame.failure == "timeout":
        return RunResult(timing=Timing.STOPPED_WALL, wall_seconds=frame.wall_seconds, cpu_seconds=frame.cpu_seconds)
    data = frame.data or {}
    if "sandbox_error" in data:
        return RunResult(sandbox_error=_text(data["sandbox_error"], SANDBOX_ERROR_CAP) or "the sandbox failed")
    if frame.failure:
        return RunResult(fault=Fault.DIED, exit_code=None, wall_seconds=frame.wall_seconds,
                         error_message=_NO_REPLY.get(frame.failure, frame.failure))
    status = _int(data.get("status"), 0, 0xFFFF)
    cpu = frame.cpu_seconds
    signal_number = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
    exit_code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else None
    output_cap = limits.output << 10
    stdout = _text(data.get("stdout"), output_cap + 1)
    truncated = _int(data.get("stdout_size"), 0, 1 << 62) > output_cap or len(stdout) > output_cap
    stdout = stdout[:output_cap]
    outcome = _decode_result(data.get("result"))
    if "sandbox_error" in outcome:
        return RunResult(sandbox_error=_text(outcome["sandbox_error"], SANDBOX_ERROR_CAP) or "the sandbox failed")
    raised = error_class(outcome) if outcome.get("error_type") else ""
    fault = Fault.RAISED if raised else Fault.NONE
    message = _text(outcome.get("message"), MESSAGE_CAP)
    if frame.oom_killed and "value" not in outcome and not outcome.get("done"):
        fault, outcome, message = Fault.OUT_OF_MEMORY, {}, "the test reached the sandbox's memory limit"
    elif raised == "MemoryError":
        fault = Fault.OUT_OF_MEMORY
    elif outcome.get("unreadable"):
        fault = Fault.UNREADABLE
    # The test's CPU timer (SIGPROF at the limit and its margin, RLIMIT_CPU behind it) counts CPU in sampled
    # clock ticks; our reading is the kernel's exact count. On a loaded machine the ticks ran ahead of the
    # exact count by a third (0.6 s of ticks, 0.4 s exact), so a timer's kill is a CPU stop from half the
    # limit up; below it, the run sent itself the signal.
    killed_by_cpu = signal_number in (signal.SIGPROF, signal.SIGXCPU, signal.SIGKILL) and cpu >= limits.cpu * 0.5
    if "exit_code" in outcome:
        exit_code = _int(outcome["exit_code"], -(1 << 31), 1 << 31, default=1)
        if kind.returns:
            fault, message = Fault.EXITED, f"the code called sys.exit({exit_code})"
    elif fault is Fault.OUT_OF_MEMORY:
        pass  # the cgroup's kill explains the exit
    elif not outcome and exit_code == 0 and kind.returns:
        fault, message = Fault.DIED, "the test process exited before returning a value"
    elif not outcome and signal_number is None and exit_code not in (0, None):
        fault, message = Fault.DIED, f"the test process exited with status {exit_code}"
    timing = (Timing.STOPPED_CPU if killed_by_cpu else Timing.OVER_LIMIT if cpu > limits.cpu else Timing.IN_TIME)
    return RunResult(
        stdout=stdout,
        stderr=_text(data.get("stderr"), STDERR_CAP),
        value=outcome.get("value"),
        has_value="value" in outcome,
        fault=fault,
        error_type=raised if fault in (Fault.RAISED, Fault.OUT_OF_MEMORY) else "",
        error_message=message,
        traceback=_text(outcome.get("traceback"), TRACEBACK_CAP),
        exit_code=exit_code,
        signal=signal_number,
        cpu_seconds=cpu,
        wall_seconds=frame.wall_seconds,
        timing=timing,
        output_truncated=truncated,
        error_bases=_names(outcome.get("error_bases")),
        error_classes=_names(outcome.get("error_classes"))[:50],
        error_first_arg=tuple(_list(outcome.get("first_arg"))[:1]),
        steps=tuple(step if isinstance(step, dict) else {"unreadable": True} for step in _list(outcome.get("steps"))),
        files=tuple((str(name), text if isinstance(text, str) else None)
                    for name, text in _dict(outcome.get("files")).items()),
    )


def _names(value: object) -> tuple[str, ...]:
    return tuple(str(name) for name in _list(value))


def _list(value: object) -> list[object]:
    return value if isinstance(value, list) else []


def _dict(value: object) -> dict[object, object]:
    return value if isinstance(value, dict) else {}


def error_class(reply: dict[str, object]) -> str:
    """The raised class's name as feedback may show it: a builtin's name only when it is one and the harness
    saw the builtin class itself; a class of the submission's that borrows a builtin's name says so."""
    name = _text(reply.get("error_type"), ERROR_TYPE_CAP) or "an exception"
    if name in BUILTIN_EXCEPTIONS and reply.get("builtin") is not True:
        return f"{name} (the submission's own class)"
    return name


def _decode_result(result: object) -> dict[str, object]:
    """The test child's own report (JSON, its value tagged, then its raw numbers: Attached), never evaluated,
    only parsed; a str from a reply that carries it in its text reads the same way."""
    why: list[str] = []
    flat: set[int] = set()  # the lists made from raw numbers: numbers only, nothing nested to walk
    if isinstance(result, Attached):
        if result.start >= len(result.buffer):
            return {}
        decoded = decode(result.buffer, result.start, why=why, flat=flat)
    elif type(result) is str and result:
        decoded = decode(result[:REPLY_CAP].encode("utf-8", "surrogatepass"), why=why)
    else:
        return {}
    if not isinstance(decoded, dict):
        because = f": {why[0]}" if why else ""
        return {"unreadable": True, "message": f"the test process wrote an unreadable result{because}"}
    if "value" in decoded and _depth(decoded["value"], flat) > VALUE_DEPTH:
        return {"unreadable": True, "message": f"the returned value is nested more than {VALUE_DEPTH} deep"}
    return decoded


def _depth(value: object, flat: set[int] | frozenset[int] = frozenset()) -> int:
    """How deeply `value` nests (a scalar is 0), level by level without recursion; stops past VALUE_DEPTH.
    The lists whose ids are in `flat` hold numbers only: their items are not walked."""
    depth, level = 0, [value]
    while depth <= VALUE_DEPTH:
        if _NESTING.isdisjoint(set(map(type, level))):  # a flat level (a million floats): no comprehension over it
            return depth
        containers = [item for item in level if type(item) in _NESTING]
        if not containers:
            return depth
        depth += 1
        level = []
        for container in containers:
            if id(container) in flat:
                continue
            if type(container) is dict:
                level += container.keys()  # type: ignore[attr-defined]
                level += container.values()  # type: ignore[attr-defined]
            else:
                level += container  # type: ignore[operator]
    return depth


_NESTING = {list, tuple, set, dict}


def _text(value: object, cap: int) -> str:
    """A reply's text field: a str (anything else reads as empty), at most `cap` characters."""
    return value[:cap] if type(value) is str else ""


def _int(value: object, low: int, high: int, default: int = 0) -> int:
    """A reply's integer field: an int within [low, high], else `default` (floats, NaN, bools, 2**40 ...)."""
    return value if type(value) is int and low <= value <= high else default


CAPTURE_CAP = 4000  # characters of each stream a report shows per test: the first ones, as pytest does


def captured(outcome: Outcome, test: Test, result: RunResult) -> Outcome:
    """`outcome` with what its test printed (stdout, unless the printed output is the answer compared) and
    wrote to stderr, each bounded; nothing for a hidden test, whose output could carry its input."""
    if test.hidden:
        return outcome
    printed = result.stdout if test.compare != "output" and test.io is None else ""
    return replace(outcome, stdout=_capped(printed, result.output_truncated), stderr=_capped(result.stderr, False))


def _capped(text: str, truncated: bool) -> str:
    if len(text) > CAPTURE_CAP:
        return text[:CAPTURE_CAP] + f"\n... ({len(text) - CAPTURE_CAP} more characters)"
    return text + ("\n... (cut at the output limit)" if truncated and text else "")
