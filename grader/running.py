"""Run one submission's tests in a sandbox and turn what it reports into RunResults (plain data, no verdicts)."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from types import TracebackType

from grader.environment import environment_of_exercise
from grader.forms import request_fields
from grader.handins.base import Module
from grader.kinds import kind_of
from grader.model import Exercise, Limits, RunResult, Test, Timing
from grader.replies import load_failure_from, result_from
from grader.sandbox import Backend, Frame, Session, default_backend
from grader.submission_imports import module_name, split_imports

STARTUP_SECONDS = 1.0  # interpreter start and harness set-up, on top of the load's own limit
BORDERLINE_MARGIN = 1.2  # a run may use this much of its CPU limit before it is stopped (see grading)


class SubmissionRun:
    """The tests of one submission, run one at a time in a sandbox that is started on first use (or ahead,
    with `launch`) and started again after a test that killed it (a timeout, a crash)."""

    def __init__(self, exercise: Exercise, source: str = "", private_paths: tuple[Path, ...] = (),
                 backend: Backend | None = None, modules: tuple[Module, ...] = (), file_name: str = "") -> None:
        self.exercise = exercise
        self.file_name = file_name  # the student's own name for the file, in tracebacks
        self.source = source
        self.modules = modules  # the hand-in's other files, importable by name in the sandbox
        self.private_paths = private_paths
        self.backend = backend or default_backend()
        self.session: Session | None = None  # loaded, ready for tests
        self.launched: Session | None = None  # started, waiting for the submission
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
        """Start the sandbox without waiting for it: it boots while the caller reads and checks the
        submission (which may be handed in later, with `submit`); the first test hands it the file."""
        if self.session is None and self.launched is None and self.load_failure is None:
            self.launched = self.backend.start(self._limits(), self.private_paths, self._cpu_ceiling())

    def submit(self, source: str, modules: tuple[Module, ...] = ()) -> None:
        """The submission to run, once it is read (a sandbox may be launched before)."""
        self.source, self.modules = source, modules

    def run(self, test: Test) -> RunResult:
        frame = self._send_and_receive(test)
        if frame is None:
            return self.load_failure or RunResult(sandbox_error="the sandbox did not start")
        result = result_from(frame, test.limits, kind_of(self.exercise.kind))
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
            **request_fields(test),  # the test form's own fields (steps, given values, files...)
        }

    def _start(self) -> None:
        environment = environment_of_exercise(self.exercise.path)
        if environment is not None and not environment.built:  # never built during a check: say how
            self.load_failure = RunResult(sandbox_error=environment.not_built_message())
            return
        self.launch()
        if self.launched is not None:
            # If it raises, close() still has the session.
            frame = self.launched.load(self._setup(), self.exercise.limits.wall_seconds + STARTUP_SECONDS)
            session, self.launched = self.launched, None
            self._loaded(session, frame)

    def _limits(self) -> Limits:
        # The sandbox's limits are the loosest of any test's; each test child tightens them to its own.
        memory = max([self.exercise.limits.memory, *(t.limits.memory for t in self.exercise.tests)])
        return replace(self.exercise.limits, memory=memory)

    def _cpu_ceiling(self) -> float:
        return max([self.exercise.limits.cpu, *(t.limits.cpu for t in self.exercise.tests)])

    def _setup(self) -> dict[str, object]:
        environment = environment_of_exercise(self.exercise.path)
        return {
            **(environment.sandbox_setup() if environment is not None else {}),
            "mode": kind_of(self.exercise.kind).harness_mode,
            "source": self.source,
            "prelude": self.exercise.prelude,
            **self._test_setup(),
            "entry": self.exercise.entry,
            "forbid": [[rule.name, rule.message] for rule in self.exercise.forbid],  # denied at run time too
            "modules": [(m.name, m.path, m.source, m.package) for m in self.modules],
            "name": self.file_name,
            # Loading (all the file's top-level code) is charged to the exercise's CPU limit, not to a test.
            "load_cpu": self.exercise.limits.cpu,
            "margin": BORDERLINE_MARGIN,
        }

    def _test_setup(self) -> dict[str, object]:
        """test_setup, its imports of the submission (`from grains import square`) bound after it loads."""
        module = module_name(self.exercise.id)
        text, bindings = split_imports(self.exercise.test_setup, module)
        return {"test_setup": text, "test_module": module, "test_imports": [list(binding) for binding in bindings]}

    def _loaded(self, session: Session, frame: Frame) -> None:
        """Keep a sandbox that loaded the submission; otherwise close it and remember why it failed."""
        self.load_failure = load_failure_from(frame)
        if self.load_failure is not None and self.load_failure.timing is not Timing.IN_TIME:
            limit = self.exercise.limits.cpu
            self.load_failure = replace(self.load_failure,
                                        error_message=f"while loading the file (its limit: {limit:.2f} s CPU)")
        if self.load_failure is None:
            self.session = session
        else:
            session.close()
