# Every way out of a test: exits, interrupts, a closed stdout, killing the harness, importing the grader.
import os
import signal
import sys
import time


def exit0():
    sys.exit(0)


def os_exit():
    os._exit(0)


def interrupt():
    raise KeyboardInterrupt


def closed_stdout():
    sys.stdout.flush()
    os.close(1)
    sys.stdout.close()
    return 1


def kill_parent():
    os.kill(os.getppid(), signal.SIGKILL)
    time.sleep(2)
    return 0


def import_grader():
    import grader  # noqa: F401
    return 0


def huge_reply():
    return [[]] * 500_000  # 2 MB of reply that costs ast.literal_eval ~10 s and ~1 GB to read back


def square(n):
    return n * n
