# Run by a grader that is not root: the sandbox shares the teacher's uid, so it reaches for what that gives.
import os
import signal


def killall():
    os.kill(-1, signal.SIGKILL)  # every process of this uid that it may signal
    return "still here"


def read_spec():
    try:
        return open("{spec}").read()[:20]
    except OSError:
        return "denied"


def square(n):
    return n * n
