# Starts a daemon, then waits long enough for the grader to be killed under it.
import os
import sys
import time

MARKER = "{marker}"


def attack():
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            os.execv(sys.executable, [sys.executable, "-c", "import time\nwhile True: time.sleep(1)", MARKER])
        os._exit(0)
    time.sleep(30)
    return 0


def square(n):
    return n * n
