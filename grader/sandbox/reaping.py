"""What is left of a sandbox once it is killed: orphans re-parented to the grader, processes and files of its
dedicated uid."""

from __future__ import annotations

import os
import signal

from grader.sandbox import linux
from grader.sandbox.isolation import helper_pids

WORLD_WRITABLE = ("/tmp", "/var/tmp", "/dev/shm")  # swept for the slot uid's files when nothing hides them


def become_subreaper() -> None:
    """Orphans of the sandbox come back to us instead of pid 1, so close() can find and kill them."""
    linux.prctl(linux.PR_SET_CHILD_SUBREAPER, 1)


def reap_orphans(keep: set[int]) -> None:
    """Kill and reap children re-parented to us (escapees that left the sandbox's process group); the
    children we had before the sandbox started (`keep`) and our helpers are left alone."""
    keep = keep | helper_pids()
    for _ in range(100):
        orphans = [pid for pid in children() if pid not in keep]
        if not orphans:
            return
        for pid in orphans:
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass


def end_every_child() -> None:
    """Kill and reap every child left, and every orphan that comes back to us meanwhile (we are a subreaper
    once anything was forked): nothing the grader started outlives it. A helper that dies with us (its
    PR_SET_PDEATHSIG) would still be alive for a moment after we return, and a process a worker left would
    be re-parented to init and live on."""
    for _ in range(100):
        left = children()
        if not left:
            return
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass


def children() -> list[int]:
    pids: list[int] = []
    for task in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{task}/children") as listed:
                pids += [int(pid) for pid in listed.read().split()]
        except OSError:
            continue
    return pids


def kill_all_of(uid: int) -> None:
    """SIGKILL every process `uid` owns: a helper takes the uid and calls kill(-1)."""
    pid = os.fork()
    if pid == 0:
        try:
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)
            os.kill(-1, signal.SIGKILL)
        except OSError:
            pass
        finally:
            os._exit(0)
    os.waitpid(pid, 0)


def remove_files_of(uid: int, folders: tuple[str, ...] = WORLD_WRITABLE) -> None:
    """Without a mount namespace or Landlock the submission could write in world-writable folders: remove
    what its uid owns there (only a dedicated uid makes this safe)."""
    for folder in folders:
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.stat(follow_symlinks=False).st_uid != uid:
                    continue
                if entry.is_dir(follow_symlinks=False):
                    import shutil

                    shutil.rmtree(entry.path, ignore_errors=True)
                else:
                    os.unlink(entry.path)
            except OSError:
                pass


def tasks_of(uid: int) -> int:
    """How many tasks (threads included: RLIMIT_NPROC counts them) the uid runs now."""
    count = 0
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                if os.stat(f"/proc/{name}").st_uid == uid:
                    count += len(os.listdir(f"/proc/{name}/task"))
            except OSError:
                continue
    return count
