"""`python -m grader`, and the `grader` command (pyproject's script is this module's `run`)."""

import gc
import os
import sys
from typing import NoReturn

# The command's process is short and nearly all it builds lives until it exits, so two things Python does for
# a long life are wasted CPU on every `grader check`: collecting garbage every 700 new objects while the
# imports build tens of thousands that stay (raised here before them; a long batch still collects and keeps
# its memory bounded), and tearing down every module and object at exit (run() skips it: main() has closed
# all it opened: sandboxes, database, workers). benchmarks/check.py --against a checkout without them shows
# what they save.
gc.set_threshold(50_000, 10, 10)

from grader.cli import main  # noqa: E402 - after the threshold: these imports make most of those objects


def run() -> NoReturn:
    code = main()
    if "grader.sandbox" in sys.modules or "grader.batch" in sys.modules:  # only they fork
        from grader.sandbox.reaping import end_every_child

        end_every_child()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe: nothing more can reach it
            pass
    os._exit(code)


if __name__ == "__main__":
    run()
