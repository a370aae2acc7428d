# 200 threads that sleep (daemons, 20 s at most).
import threading
import time


def attack():
    threads = [threading.Thread(target=time.sleep, args=(20,), daemon=True) for _ in range(200)]
    for thread in threads:
        thread.start()
    return len(threads)


def square(n):
    return n * n
