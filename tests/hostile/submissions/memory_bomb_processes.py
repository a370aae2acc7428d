# Twelve helpers of 150 MiB each: every one under the per-process limit, 1.8 GB together.
import os
import time


def attack():
    children = []
    for _ in range(12):
        pid = os.fork()
        if pid == 0:
            hoard = b"x" * (150 << 20)
            time.sleep(3)
            os._exit(0 if hoard else 1)
        children.append(pid)
    survivors = 0
    for pid in children:
        _, status = os.waitpid(pid, 0)
        survivors += os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
    if survivors < len(children):
        os._exit(3)  # no value: only the grader can say what happened
    return survivors


def square(n):
    return n * n
