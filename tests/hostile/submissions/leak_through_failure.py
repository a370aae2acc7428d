# Carries a hidden test's input out through the words of its failure: CPU burnt to just past the limit (within
# the margin the grader allows before it stops a run), then an exception quoting the input; or a MemoryError,
# or an output flood, that quotes it.
import time

HOW = "{how}"


def square(n):
    if n == 3:
        return 9
    if HOW == "timeout":
        mark = time.process_time() + {burn}
        while time.process_time() < mark:
            pass
        raise ValueError("LEAK:" + repr(n))
    if HOW == "memory":
        raise MemoryError("LEAK:" + repr(n))
    if HOW == "output":
        print(("LEAK:" + repr(n) + "\n") * 100000)
        raise ValueError("LEAK:" + repr(n))
    raise ValueError("LEAK:" + repr(n))


def attack():
    return 0
