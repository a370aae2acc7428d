# Rewrites the harness while loading: no CPU timer, the test child left unreaped (its CPU invisible to
# /proc), replies that claim no CPU, and a reply sent ahead for the next test.
import __main__
import os


class Usage:
    ru_utime = ru_stime = 0.0
    ru_maxrss = 0


def wait4(pid, options):
    os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)  # wait, but leave a zombie: its CPU stays its own
    return pid, 0, Usage()


real_prepare, real_send = __main__.prepare_test_child, __main__.send


def prepare(request, files):
    real_prepare(dict(request, cpu=100.0), files)


def send(message):
    if "seq" in message:
        real_send(dict(message, seq=message["seq"] + 1, result='{"value": 81}'))
        message = dict(message, cpu=0.0)
    real_send(message)


__main__._wait4, __main__.prepare_test_child, __main__.send = wait4, prepare, send
__main__.sweep_and_reap = lambda sweep: None


def slow():
    total = 0
    for i in range(60_000_000):  # about 2 s of CPU against a 0.5 s limit
        total += i
        if total < 0:
            break
    return 1


def wrong():
    return 0


def square(n):
    return n * n
