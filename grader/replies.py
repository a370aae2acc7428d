"""What a run observed, from the sandbox's reply frames: RunResults of plain data, no verdicts. Nothing in a
reply is trusted but plain data; the grader's own readings (CPU from /proc and the cgroup) decide."""

from __future__ import annotations

import os
import signal

from grader.kinds import SubmissionKind
from grader.model import Fault, Limits, RunResult, Timing
from grader.sandbox.wire import Frame, decode

# Why a frame never came, in the words a student reads.
_NO_REPLY = {"died": "the test process was killed or broke the grader's channel",
             "garbled": "the test process sent an unreadable reply",
             "oversized": "the test process sent a reply that is far too large"}


def load_failure_from(frame: Frame) -> RunResult | None:
    """Why the submission did not load (None: it did)."""
    data = frame.data or {}
    if data.get("loaded") is True:
        return None
    if frame.failure == "timeout":
        return RunResult(timing=Timing.STOPPED_WALL, wall_seconds=frame.wall_seconds,
                         cpu_seconds=frame.cpu_seconds, error_message="while loading the file")
    if "sandbox_error" in data:
        return RunResult(sandbox_error=str(data["sandbox_error"]))
    if frame.failure:
        return RunResult(fault=Fault.DIED, exit_code=None, error_message="the process ended while loading the file")
    return RunResult(fault=Fault.RAISED, error_type=str(data.get("error_type", "")),
                     error_message=str(data.get("message", "")), traceback=str(data.get("traceback", "")),
                     exit_code=1)


def result_from(frame: Frame, limits: Limits, kind: SubmissionKind) -> RunResult:
    """Translate a test's reply frame (or its absence) into what happened."""
    if frame.failure == "timeout":
        return RunResult(timing=Timing.STOPPED_WALL, wall_seconds=frame.wall_seconds, cpu_seconds=frame.cpu_seconds)
    data = frame.data or {}
    if "sandbox_error" in data:
        return RunResult(sandbox_error=str(data["sandbox_error"]))
    if frame.failure:
        return RunResult(fault=Fault.DIED, exit_code=None, wall_seconds=frame.wall_seconds,
                         error_message=_NO_REPLY.get(frame.failure, frame.failure))
    status = _int(data.get("status"))
    cpu = max(_float(data.get("cpu")), frame.cpu_seconds)
    signal_number = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
    exit_code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else None
    stdout = str(data.get("stdout", ""))
    output_cap = limits.output << 10
    truncated = _int(data.get("stdout_size")) > output_cap
    if truncated:
        stdout = stdout[:output_cap]
    outcome = _decode_result(str(data.get("result", "")))
    if "sandbox_error" in outcome:
        return RunResult(sandbox_error=str(outcome["sandbox_error"]))
    fault = Fault.RAISED if outcome.get("error_type") else Fault.NONE
    message = str(outcome.get("message", ""))
    if frame.oom_killed and "value" not in outcome and not outcome.get("done"):
        fault, outcome, message = Fault.OUT_OF_MEMORY, {}, "the memory cgroup killed a process of the test"
    elif outcome.get("error_type") == "MemoryError":
        fault = Fault.OUT_OF_MEMORY
    elif outcome.get("unreadable"):
        fault = Fault.UNREADABLE
    killed_by_cpu = signal_number in (signal.SIGPROF, signal.SIGXCPU, signal.SIGKILL) and cpu >= limits.cpu * 0.9
    if "exit_code" in outcome:
        exit_code = _int(outcome["exit_code"])
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
        stderr=str(data.get("stderr", "")),
        value=outcome.get("value"),
        has_value="value" in outcome,
        fault=fault,
        error_type=str(outcome.get("error_type", "")) if fault in (Fault.RAISED, Fault.OUT_OF_MEMORY) else "",
        error_message=message,
        traceback=str(outcome.get("traceback", "")),
        exit_code=exit_code,
        signal=signal_number,
        cpu_seconds=cpu,
        wall_seconds=frame.wall_seconds,
        timing=timing,
        output_truncated=truncated,
        error_bases=_names(outcome.get("error_bases")),
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


def _decode_result(text: str) -> dict[str, object]:
    """The test child's own report (JSON, its value tagged); never evaluated, only parsed."""
    if not text:
        return {}
    decoded = decode(text.encode("utf-8", "surrogatepass"))
    if not isinstance(decoded, dict):
        return {"unreadable": True, "message": "the test process wrote an unreadable result"}
    return decoded


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _float(value: object) -> float:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0
