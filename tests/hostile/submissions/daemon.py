# Test 1 starts a daemon (double fork + setsid, SIGTERM ignored, holding stdout) that keeps writing a
# heartbeat file; test 2, in a fresh folder, waits and looks for a new heartbeat.
import os
import signal
import sys
import time

MARKER = "{marker}"
BEAT = "import os, time\nwhile True:\n    open('{folder}/heartbeat', 'w').close()\n    time.sleep(0.05)\n"


def attack():
    folder = os.path.dirname(os.getcwd())  # the sandbox's folder, above this test's own
    pid = os.fork()
    if pid == 0:
        os.setsid()
        if os.fork() == 0:
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            os.execv(sys.executable, [sys.executable, "-c", BEAT.replace("{folder}", folder), MARKER])
        os._exit(0)
    os.waitpid(pid, 0)
    time.sleep(0.3)
    return "started" if os.path.exists(os.path.join(folder, "heartbeat")) else "no heartbeat"


def look():
    time.sleep(0.5)
    return "alive" if os.path.exists("../heartbeat") else "gone"


def square(n):
    return n * n
