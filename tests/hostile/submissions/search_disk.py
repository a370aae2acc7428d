# Searches the whole disk, /proc and its environment for the course's secret, and tries to write outside.
import os
import stat
import time

NEEDLE = ("HOSTILE" + "-" + "{token}").encode()
LOOKED_AT = 20000  # files read at most: the secrets are planted where it looks first
FIRST = ["/tmp", "/work", "/root", "/home", "/var", "/srv", "/opt", "/dev/shm", "{course}", "/"]


def search():
    hits, started, seen = [], time.monotonic(), 0
    for top in FIRST:
        for folder, dirs, files in os.walk(top):
            # not the pseudo-filesystems: a device such as /dev/kmsg blocks a reader
            dirs[:] = [d for d in dirs if os.path.join(folder, d) not in ("/proc", "/sys", "/dev")]
            if time.monotonic() - started > 3:
                dirs[:] = []
                continue
            for name in files:
                if time.monotonic() - started > 3:
                    break
                path = os.path.join(folder, name)
                seen += 1
                try:
                    # Regular files only, opened without blocking: a FIFO or a device on a big disk would
                    # hold the search past its wall time. Bounded by count too, whatever the disk's size.
                    if seen > LOOKED_AT or not stat.S_ISREG(os.lstat(path).st_mode):
                        continue
                    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW)
                    with open(fd, "rb") as file:
                        if NEEDLE in file.read(1 << 20):
                            hits.append(path)
                except OSError:
                    pass
    for name in ("environ", "cmdline"):  # the grader's process: its argv and environment
        for pid in (os.getppid(), 1):
            try:
                if NEEDLE in open(f"/proc/{pid}/{name}", "rb").read():
                    hits.append(f"/proc/{pid}/{name}")
            except OSError:
                pass
    if any(NEEDLE in value.encode() for value in os.environ.values()):
        hits.append("environment")
    return sorted(set(hits))[:20]


def write_outside():
    written = []
    for path in ("/tmp/{token}-w", "/dev/shm/{token}-w", "/var/tmp/{token}-w", "{course}/{token}-w",
                 "{course}/exercises/hostile.yaml", "/{token}-w", "../../../{token}-w"):
        try:
            with open(path, "a") as file:
                file.write("forged")
            written.append(path)
        except OSError:
            pass
    return written


def square(n):
    return n * n
