# Test 1 starts a daemon (double fork + setsid, SIGTERM ignored, holding stdout) and leaves; test 2 looks for it.
import os
import signal
import sys
import time

MARKER = "{marker}"


def attack():
    pid = os.fork()
    if pid == 0:
        os.setsid()
        if os.fork() == 0:
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            with open("../daemon.pid", "w") as file:  # the sandbox's folder, shared by its tests
                file.write(str(os.getpid()))
            os.execv(sys.executable, [sys.executable, "-c", "import time\nwhile True: time.sleep(1)", MARKER])
        os._exit(0)
    os.waitpid(pid, 0)
    time.sleep(0.3)
    return "started"


def look():
    try:
        pid = int(open("../daemon.pid").read())
    except (OSError, ValueError):
        return "no pid file"
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return "gone"
    except PermissionError:
        return "alive, another uid"
    return "alive"


def square(n):
    return n * n
