# An endless loop that ignores every signal it can.
import signal


def attack():
    for name in ("SIGTERM", "SIGINT", "SIGPROF", "SIGXCPU", "SIGHUP", "SIGALRM"):
        signal.signal(getattr(signal, name), signal.SIG_IGN)
    while True:
        pass


def square(n):
    return n * n
