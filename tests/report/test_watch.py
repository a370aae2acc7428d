"""`grader check --watch`: a report at start, another after each save, the next sandbox started ahead."""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path

from grader.model import Limits
from grader.sandbox.warm import WarmBackend
from tests.conftest import REFERENCE, ROOT

READY = "Watching "


def lines_of(process: subprocess.Popen[str]) -> queue.Queue[str]:
    lines: queue.Queue[str] = queue.Queue()

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.put(line)
        lines.put("")

    threading.Thread(target=read, daemon=True).start()
    return lines


def next_report(lines: queue.Queue[str], timeout: float = 60.0) -> str:
    """What the watcher printed up to its next 'Watching' line."""
    deadline, seen = time.monotonic() + timeout, []
    while True:
        line = lines.get(timeout=max(deadline - time.monotonic(), 0.01))
        assert line, "the watcher ended: " + "".join(seen)
        seen.append(line)
        if line.startswith(READY):
            return "".join(seen)


def test_each_save_is_graded_again_and_ctrl_c_ends_the_watch(tmp_path: Path) -> None:
    good = sorted((REFERENCE / "count-queens" / "accepted").glob("*.py"))[0].read_text()
    submission = tmp_path / "mine.py"
    submission.write_text(good)
    process = subprocess.Popen([sys.executable, "-m", "grader", "check", "count-queens", str(submission), "--watch"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                               env={**os.environ, "COLUMNS": "100"})
    try:
        lines = lines_of(process)
        assert "All 6 tests passed" in next_report(lines)
        submission.write_text("def count_queens(n):\n    return 0\n")
        wrong = next_report(lines)
        assert "wrong answer" in wrong.lower() or "FAIL" in wrong, wrong
        submission.write_text(good)
        assert "All 6 tests passed" in next_report(lines)
    finally:
        process.send_signal(2)  # Ctrl-C
        _, stderr = process.communicate(timeout=30)
    assert process.returncode == 0, stderr  # the last check passed
    assert "Traceback" not in stderr


class Counting:
    """A backend whose sessions only record that they were started and closed."""

    def __init__(self) -> None:
        self.started: list[tuple[object, ...]] = []
        self.closed = 0

    def describe(self) -> str:
        return "counting"

    def prepare(self) -> None:
        pass

    def start(self, limits: Limits, private_paths: tuple[Path, ...] = (), cpu_ceiling: float = 0.0) -> object:
        self.started.append((limits, private_paths, cpu_ceiling))
        backend = self

        class Session:
            def close(self) -> None:
                backend.closed += 1

        return Session()


def test_a_sandbox_started_ahead_serves_the_next_start_that_asks_the_same() -> None:
    inner = Counting()
    warm = WarmBackend(inner)  # type: ignore[arg-type]
    warm.start_ahead()
    assert inner.started == []  # nothing asked for yet: nothing to start ahead
    first = warm.start(Limits(), (), 1.0)
    warm.start_ahead()
    assert len(inner.started) == 2
    ahead = warm.start(Limits(), (), 1.0)
    assert ahead is not first and len(inner.started) == 2  # the one started ahead, no new start
    warm.start_ahead()
    other = warm.start(replace(Limits(), memory=Limits().memory * 2), (), 1.0)  # other limits: a fresh one, the ready one closed
    assert len(inner.started) == 4 and inner.closed == 1 and other is not ahead
    warm.start_ahead()
    warm.close()
    assert inner.closed == 2


def test_a_closed_session_is_closed_for_real_before_any_other_sandbox_starts() -> None:
    events: list[str] = []

    class Logged(Counting):
        def start(self, limits: Limits, private_paths: tuple[Path, ...] = (), cpu_ceiling: float = 0.0) -> object:
            number = len(self.started) + 1
            session = super().start(limits, private_paths, cpu_ceiling)
            events.append(f"start {number}")
            close = session.close  # type: ignore[attr-defined]

            def logged_close() -> None:
                events.append(f"close {number}")
                close()

            session.close = logged_close  # type: ignore[attr-defined]
            return session

    warm = WarmBackend(Logged())  # type: ignore[arg-type]
    session = warm.start(Limits(), (), 1.0)
    session.close()
    session.close()  # twice, as SubmissionRun may
    assert events == ["start 1"]  # kept: the report is printed first
    warm.start_ahead()
    assert events == ["start 1", "close 1", "start 2"]  # closed before another sandbox started
    warm.start(Limits(), (), 1.0).close()
    warm.close()
    assert events == ["start 1", "close 1", "start 2", "close 2"]
