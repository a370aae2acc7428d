"""A local grading worker, `python -m grader.workers.worker FD PARENT`: reads jobs from the connection on FD,
answers with their gradings, one at a time, until the connection closes.

A fresh interpreter that imports only what grading needs, not the whole command line: the sandbox forks
this process for every submission, and a smaller process forks faster."""

from __future__ import annotations

import os
import signal
import sys
from dataclasses import replace
from multiprocessing.connection import Connection

from grader.sandbox import linux
from grader.workers.run import grade_job
from grader.workers.sandboxes import WorkerSandboxes


def main(argv: list[str]) -> None:
    fd, parent = int(argv[1]), int(argv[2])
    # Die with the pool's process, even when it is killed with SIGKILL; then the sandbox dies with us in turn.
    linux.prctl(linux.PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:
        return
    if "--data-values" in argv:  # a course's numpy and pandas answers: loaded before the first job comes
        for name in ("numpy", "pandas"):
            try:
                __import__(name)
            except ImportError:  # the grader without its data extra: such values are shown as unreadable
                pass
    conn = Connection(fd)
    sandboxes = WorkerSandboxes()
    exercises: dict[tuple[int, int], bytes] = {}  # the pool's token -> a packed exercise, sent with its first job only
    try:
        while True:
            try:
                message = conn.recv()
            except (EOFError, OSError):
                return
            if message is None:
                return
            job, token, packed = message
            if packed is not None:
                exercises[token] = packed
            conn.send(grade_job(replace(job, packed_exercise=exercises[token]), sandboxes))
    finally:
        sandboxes.close()


if __name__ == "__main__":
    main(sys.argv)
    from grader.sandbox.reaping import end_every_child  # its sandbox's helpers end before it does

    end_every_child()
