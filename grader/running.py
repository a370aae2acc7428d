"""Run one submission's tests in a sandbox and turn what it reports into RunResults (plain data, no verdicts)."""

from __future__ import annotations

import os
import signal
from dataclasses import replace
from pathlib import Path
from types import TracebackType

from grader.model import Exercise, Kind, Limits, RunResult, Test
from grader.sandbox import Backend, Frame, Session, default_backend
from grader.sandbox.wire import decode

STARTUP_SECONDS = 1.0  # interpreter start and harness set-up, on top of the load's own limit
BORDERLINE_MARGIN = 1.2  # a run may use this much of its CPU limit before it is stopped (see grading)


class SubmissionRun:
    """The tests of one submission, run one at a time in a sandbox that is started on first use and
    started again after a test that killed it (a timeout, a crash)."""

    def __init__(self, exercise: Exercise, source: str, private_paths: tuple[Path, ...] = (),
                 backend: Backend | None = None) -> None:
        self.exercise = exercise
        self.source = source
        self.private_paths = private_paths
        self.backend = backend or default_backend()
        self.session: Session | None = None  # loaded, ready for tests
        self.launched: Session | None = None  # started, the submission still loading
        self.load_failure: RunResult | None = None
        self.saw_hidden = False  # the running sandbox has been sent a hidden test

    def __enter__(self) -> SubmissionRun:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        for session in (self.session, self.launched):
            if session is not None:
                session.close()
        self.session = self.launched = None
        self.saw_hidden = False

    def launch(self) -> None:
        """Start the sandbox and let it load the file, without waiting: the first test waits for it."""
        if self.session is None and self.launched is None and self.load_failure is None:
            self.launched = self.backend.start(*self._setup())

    def run(self, test: Test) -> RunResult:
        frame = self._send_and_receive(test)
        if frame is None:
            return self.load_failure or RunResult(sandbox_error="the sandbox did not start")
        result = result_from(frame, test.limits, self.exercise.kind)
        if frame.failure:
            self.close()  # a fresh sandbox for the tests that remain
        return result

    def _send_and_receive(self, test: Test) -> Frame | None:
        if self.saw_hidden and not test.hidden:
            # A sandbox that was handed a hidden test's input never serves a visible test, whose output the
            # student sees: the input could come back in it (a file left in the working folder, a harness
            # rewritten at load time that keeps every request).
            self.close()
        if self.load_failure is None and self.session is None:
            self._start()
        if self.load_failure is not None or self.session is None:
            return None
        self.saw_hidden = self.saw_hidden or test.hidden
        return self.session.run(self._request(test), test.limits.wall_seconds)

    @staticmethod
    def _request(test: Test) -> dict[str, object]:
        return {
            # Unguessable: a reply forged in advance for the next test cannot match it. os.urandom is what
            # `secrets` calls, without its imports (hmac, base64, random: ~3.5 ms of every `grader check`).
            "seq": int.from_bytes(os.urandom(7), "big") >> 3,  # 53 bits: exact as a JSON number
            "call": test.call,
            "stdin": test.stdin,
            "compare": test.compare,
            "cpu": test.limits.cpu,
            "margin": BORDERLINE_MARGIN,
            "memory": test.limits.memory << 20,
            "output": test.limits.output << 10,
        }

    def _start(self) -> None:
        self.launch()
        if self.launched is not None:
            # If it raises, close() still has the session.
            frame = self.launched.load(self.exercise.limits.wall_seconds + STARTUP_SECONDS)
            session, self.launched = self.launched, None
            self._loaded(session, frame)

    def _setup(self) -> tuple[dict[str, object], Limits, tuple[Path, ...]]:
        # The sandbox's limits are the loosest of any test's; each test child tightens them to its own.
        tests = self.exercise.tests
        limits = replace(self.exercise.limits, memory=max([self.exercise.limits.memory, *(t.limits.memory for t in tests)]))
        setup: dict[str, object] = {
            "kind": str(self.exercise.kind),
            "source": self.source,
            "prelude": self.exercise.prelude,
            "entry": self.exercise.entry,
            "cpu_ceiling": max([limits.cpu, *(t.limits.cpu for t in tests)]),
        }
        return setup, limits, self.private_paths

    def _loaded(self, session: Session, frame: Frame) -> None:
        """Keep a sandbox that loaded the submission; otherwise close it and remember why it failed."""
        data = frame.data or {}
        if data.get("loaded") is True:
            self.session = session
            return
        session.close()
        if frame.failure == "timeout":
            self.load_failure = RunResult(timed_out=True, wall_timeout=True, wall_seconds=frame.wall_seconds,
                                          cpu_seconds=frame.cpu_seconds, error_message="while loading the file")
        elif "sandbox_error" in data:
            self.load_failure = RunResult(sandbox_error=str(data["sandbox_error"]))
        elif frame.failure:
            self.load_failure = RunResult(error_type="ProcessDied", exit_code=None,
                                          error_message="the process ended while loading the file")
        else:
            self.load_failure = RunResult(
                error_type=str(data.get("error_type", "")),
                error_message=str(data.get("message", "")),
                traceback=str(data.get("traceback", "")),
                exit_code=1,
            )


def result_from(frame: Frame, limits: Limits, kind: Kind) -> RunResult:
    """Translate a reply frame (or its absence) into what happened, trusting nothing in it but plain data."""
    if frame.failure == "timeout":
        return RunResult(timed_out=True, wall_timeout=True, wall_seconds=frame.wall_seconds,
                         cpu_seconds=frame.cpu_seconds)
    data = frame.data or {}
    if "sandbox_error" in data:
        return RunResult(sandbox_error=str(data["sandbox_error"]))
    if frame.failure:
        return RunResult(error_type="ProcessDied", exit_code=None, wall_seconds=frame.wall_seconds,
                         error_message={"died": "the test process was killed or broke the grader's channel",
                                        "garbled": "the test process sent an unreadable reply",
                                        "oversized": "the test process sent a reply that is far too large",
                                        }.get(frame.failure, frame.failure))
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
    if frame.oom_killed and "value" not in outcome and not outcome.get("done"):
        outcome = {"error_type": "MemoryError", "message": "the memory cgroup killed a process of the test"}
    killed_by_cpu = signal_number in (signal.SIGPROF, signal.SIGXCPU, signal.SIGKILL) and cpu >= limits.cpu * 0.9
    if "exit_code" in outcome:
        exit_code = _int(outcome["exit_code"])
        if kind == Kind.FUNCTION:  # a function's test ends by returning; leaving early is no answer
            outcome = {"error_type": "SystemExit", "message": f"the code called sys.exit({exit_code})"}
    elif not outcome and exit_code == 0 and kind != Kind.PROGRAM:
        outcome = {"error_type": "ProcessDied", "message": "the test process exited before returning a value"}
    elif not outcome and signal_number is None and exit_code not in (0, None):
        outcome = {"error_type": "ProcessDied", "message": f"the test process exited with status {exit_code}"}
    value, has_value = outcome.get("value"), "value" in outcome
    return RunResult(
        stdout=stdout,
        stderr=str(data.get("stderr", "")),
        value=value,
        has_value=has_value,
        error_type=str(outcome.get("error_type", "")),
        error_message=str(outcome.get("message", "")),
        traceback=str(outcome.get("traceback", "")),
        exit_code=exit_code,
        signal=signal_number,
        cpu_seconds=cpu,
        wall_seconds=frame.wall_seconds,
        timed_out=killed_by_cpu or cpu > limits.cpu,
        cpu_killed=killed_by_cpu,
        output_truncated=truncated,
    )


def _decode_result(text: str) -> dict[str, object]:
    """The test child's own report (JSON, its value tagged); never evaluated, only parsed."""
    if not text:
        return {}
    decoded = decode(text.encode("utf-8", "surrogatepass"))
    if not isinstance(decoded, dict):
        return {"error_type": "UnreadableValue", "message": "the test process wrote an unreadable result"}
    return decoded


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _float(value: object) -> float:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0
