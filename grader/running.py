"""Run one submission's tests in a sandbox and turn what it reports into RunResults (plain data, no verdicts)."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from types import TracebackType

from grader.forms import request_fields
from grader.kinds import kind_of
from grader.model import Exercise, RunResult, Test
from grader.replies import load_failure_from, result_from
from grader.sandbox import linux
from grader.sandbox.isolation import Isolation, detect
from grader.sandbox.process import Frame, Sandbox, become_subreaper

STARTUP_SECONDS = 1.0  # interpreter start and harness set-up, on top of the load's own limit
BORDERLINE_MARGIN = 1.2  # a run may use this much of its CPU limit before it is stopped (see grading)


class SubmissionRun:
    """The tests of one submission, run one at a time in a sandbox that is started on first use and
    started again after a test that killed it (a timeout, a crash)."""

    def __init__(self, exercise: Exercise, source: str, private_paths: tuple[Path, ...] = (),
                 isolation: Isolation | None = None) -> None:
        self.exercise = exercise
        self.source = source
        self.private_paths = private_paths
        self.isolation = isolation or detect()
        self.sandbox: Sandbox | None = None  # loaded, ready for tests
        self.launched: Sandbox | None = None  # started, the submission still loading
        self.load_failure: RunResult | None = None
        self.saw_hidden = False  # the running sandbox has been sent a hidden test
        self.ahead: dict[str, int] = {}  # test name -> seq, for tests run ahead whose replies are not yet taken
        become_subreaper()
        # Not dumpable: a sandbox running as our own uid (no root) cannot read /proc/<grader>/mem or environ.
        linux.prctl(linux.PR_SET_DUMPABLE, 0)

    def __enter__(self) -> SubmissionRun:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        for sandbox in (self.sandbox, self.launched):
            if sandbox is not None:
                sandbox.close()
        self.sandbox = self.launched = None
        self.saw_hidden = False
        self.ahead = {}

    def launch(self, background: bool = False, ahead: tuple[Test, ...] = ()) -> None:
        """Start the sandbox now and let it load the file; the first test waits for it. `background`: the
        caller does something else meanwhile (`grader check` imports its report's modules), and `ahead`
        are tests to run in turn on another core while it does: the first tests that `run` will be asked
        for, in that order (a visible one after a hidden one ends them)."""
        if self.sandbox is None and self.launched is None and self.load_failure is None:
            self.launched = self._new_sandbox()
            requests = self._ahead_requests(ahead) if background else ()
            failed = self.launched.launch(background, self._load_seconds(), requests)
            if requests and not self.launched.ran_ahead():  # no thread to run them: run() sends each
                self.ahead, self.saw_hidden = {}, False
            if failed is not None:
                self._loaded(self.launched, failed)
                self.launched = None

    def _ahead_requests(self, tests: tuple[Test, ...]) -> tuple[tuple[dict[str, object], float], ...]:
        requests: list[tuple[dict[str, object], float]] = []
        for test in tests:
            if self.saw_hidden and not test.hidden:  # no visible test after a hidden one: see run
                break
            request = self._request(test)
            self.saw_hidden = self.saw_hidden or test.hidden
            self.ahead[test.name] = int(request["seq"])  # type: ignore[call-overload]
            requests.append((request, test.limits.wall_seconds))
        return tuple(requests)

    def run(self, test: Test) -> RunResult:
        frame = self._taken_ahead(test)
        if frame is None:
            frame = self._send_and_receive(test)
        if frame is None:
            return self.load_failure or RunResult(sandbox_error="the sandbox did not start")
        result = result_from(frame, test.limits, kind_of(self.exercise.kind))
        if frame.failure:
            self.close()  # a fresh sandbox for the tests that remain
        return result

    def _taken_ahead(self, test: Test) -> Frame | None:
        """The reply of a test run ahead (waiting for it if need be), or None: not run ahead after all."""
        seq = self.ahead.pop(test.name, None)
        if seq is None:
            return None
        if self.sandbox is None and self.launched is not None:
            self._start()  # the first one: its reply follows the load's
        return self.sandbox.take(seq) if self.sandbox is not None else None

    def _send_and_receive(self, test: Test) -> Frame | None:
        if self.saw_hidden and not test.hidden:
            # A sandbox that was handed a hidden test's input never serves a visible test, whose output the
            # student sees: the input could come back in it (a file left in the working folder, a harness
            # rewritten at load time that keeps every request).
            self.close()
        if self.load_failure is None and self.sandbox is None:
            self._start()
        if self.sandbox is not None and self.sandbox.ran_ahead():
            # Out of turn (a re-run): the tests run ahead may still be running, or one may have broken the
            # sandbox. A fresh one, rather than a wait or a dead end.
            self.close()
            self._start()
        if self.load_failure is not None or self.sandbox is None:
            return None
        self.sandbox.settle()  # the thread that read the load's reply has ended
        request = self._request(test)
        self.saw_hidden = self.saw_hidden or test.hidden
        self.sandbox.send(request)
        return self.sandbox.receive(test.limits.wall_seconds, seq=int(request["seq"]))  # type: ignore[call-overload]

    @staticmethod
    def _request(test: Test) -> dict[str, object]:
        return {
            # Unguessable: a reply sent ahead for the next test cannot match it. os.urandom is what `secrets`
            # calls, without its imports (hmac, base64, random: ~3.5 ms of every `grader check`).
            "seq": int.from_bytes(os.urandom(7), "big") >> 3,  # 53 bits: exact as a JSON number
            "call": test.call,
            "stdin": test.stdin,
            "compare": test.compare,
            "cpu": test.limits.cpu,
            "margin": BORDERLINE_MARGIN,
            "memory": test.limits.memory << 20,
            "output": test.limits.output << 10,
            **request_fields(test),  # the test form's own fields (steps, given values, files...)
        }

    def _start(self) -> None:
        self.launch()
        if self.launched is not None:
            frame = self.launched.loaded(self._load_seconds())  # if it raises, close() still has the sandbox
            sandbox, self.launched = self.launched, None
            self._loaded(sandbox, frame)

    def _new_sandbox(self) -> Sandbox:
        # The sandbox's limits are the loosest of any test's; each test child tightens them to its own.
        tests = self.exercise.tests
        limits = replace(self.exercise.limits, memory=max([self.exercise.limits.memory, *(t.limits.memory for t in tests)]))
        ceiling = max([limits.cpu, *(t.limits.cpu for t in tests)])
        return Sandbox(
            {
                "mode": kind_of(self.exercise.kind).harness_mode,
                "source": self.source,
                "prelude": self.exercise.prelude,
                "entry": self.exercise.entry,
                "sweep": self.isolation.signals_confined,
                "cpu_ceiling": ceiling,
            },
            limits,
            self.isolation,
            self.private_paths,
        )

    def _load_seconds(self) -> float:
        return self.exercise.limits.wall_seconds + STARTUP_SECONDS

    def _loaded(self, sandbox: Sandbox, frame: Frame) -> None:
        """Keep a sandbox that loaded the submission; otherwise close it and remember why it failed."""
        self.load_failure = load_failure_from(frame)
        if self.load_failure is None:
            self.sandbox = sandbox
        else:
            sandbox.close()
