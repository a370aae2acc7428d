# Computes at import time, the way a slow solution could precompute every answer.
import signal
import time

HOW = "{how}"

if HOW != "plain":  # no SIGPROF, no SIGXCPU: only the sandbox's hard limit or the grader is left
    signal.setitimer(signal.ITIMER_PROF, 0)
    signal.signal(signal.SIGPROF, signal.SIG_IGN)
    signal.signal(signal.SIGXCPU, signal.SIG_IGN)
end = time.process_time() + (5.0 if HOW == "finish" else 1e9)  # 10x the load's 0.5 s, or forever
while time.process_time() < end:
    pass


def square(n):
    return n * n
