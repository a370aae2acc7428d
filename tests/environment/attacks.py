# Loaded with the data course's environment: numpy's compiled modules, then the usual ways out, reached
# through the packages' own imports (ctypes, subprocess) and through numpy's loaded libraries.
import ctypes
import os
import subprocess

import numpy as np


def inet_socket():
    """A raw socket(AF_INET, SOCK_STREAM) through libc, as a package's C code would make it."""
    libc = ctypes.CDLL(None, use_errno=True)
    fd = libc.socket(2, 1, 0)
    return "blocked" if fd < 0 else "made"


def read_secret():
    """The course's secret, with a program of the system (cat) started by subprocess."""
    done = subprocess.run(["/bin/cat", "{secret}"], capture_output=True, text=True)
    return "read" if "{needle}" in done.stdout else "blocked"


def write_environment():
    """Change the environment for later submissions: numpy's own __init__.py, and a new module beside it."""
    results = []
    for path in (np.__file__, os.path.join(os.path.dirname(np.__file__), "..", "planted.py")):
        try:
            with open(path, "a") as file:
                file.write("# planted\n")
            results.append("written")
        except OSError:
            results.append("blocked")
    return results


def blas_threads():
    """The threads numpy's OpenBLAS uses, asked of the library itself after a product big enough to want them
    (this process's /proc/self is not its own to read: the sandbox is not dumpable)."""
    a = np.ones((300, 300))
    (a @ a).sum()
    folder = os.path.join(os.path.dirname(np.__file__), "..", "numpy.libs")
    name = next(n for n in os.listdir(folder) if n.startswith("libscipy_openblas"))
    return ctypes.CDLL(os.path.join(folder, name)).scipy_openblas_get_num_threads64_()


def fork_bomb():
    """Processes started from the environment's subprocess, past the `processes` limit."""
    started = []
    try:
        for _ in range(64):
            started.append(subprocess.Popen(["/bin/sleep", "5"]))
    except OSError:
        return "limited"
    finally:
        for process in started:
            process.kill()
    return "unlimited"


def square(n):
    return int(np.int64(n) * n)
