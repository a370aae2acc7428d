# A fork bomb, bounded by its own loop (300 children that sleep 20 s) in case the sandbox failed.
import os
import time


def attack():
    children = []
    for _ in range(300):
        pid = os.fork()
        if pid == 0:
            time.sleep(20)
            os._exit(0)
        children.append(pid)
    return len(children)


def square(n):
    return n * n
