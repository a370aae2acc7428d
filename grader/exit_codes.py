"""The exit statuses of the `grader` command: a contract (scripts and CI read them), extended, never renumbered."""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0
    TESTS_FAILED = 1  # the command ran and not all it checked passed: tests, validations, calibrations, gradings
    USAGE_ERROR = 2
    SPEC_ERROR = 3
    INTERNAL_ERROR = 4
    TRY_LATER = 5  # `grader submit`: the server took no hand-in over its rate limit (429); later it will
    CLOSED = 6  # `grader submit`: the server takes no more hand-ins of the exercise (past its deadline)
    BAD_REPLY = 7  # `grader submit`: the server's reply cannot be used (too big, too slow, wrong shape, redirected away)
    INTERRUPTED = 130  # Ctrl-C or SIGTERM: 128 + SIGINT, as a shell reports it
