# A helper started while the file loads: it holds the harness's request and reply pipes and forges replies.
import os
import signal
import sys

MARKER = "{marker}"

if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        for fd in (3, 4):  # the harness's channels, if they leaked into us
            try:
                os.set_inheritable(fd, True)
            except OSError:
                pass
        os.execv(sys.executable, [sys.executable, "-c",
                 "import os,time\n"
                 "frame = b'{\"seq\": 1, \"status\": 0, \"result\": \"{\\\\\"value\\\\\": 9}\"}'\n"
                 "while True:\n"
                 "    try: os.write(4, len(frame).to_bytes(4, 'big') + frame)\n"
                 "    except OSError: pass\n"
                 "    time.sleep(0.05)\n", MARKER])
    os._exit(0)


def attack():
    return "loaded"


def square(n):
    return n * n
