"""An optional resource group per sandbox: total memory and process count of the submission (root included),
CPU of every process it started (helpers it never reaped too), and a kill that misses no one.

An implementation is one module (a `ResourceGroup` class, `present`, `unavailable`, `remove_stale`) plus
one line in KINDS; the first kind whose hierarchy is present on this machine is used. `files.py` holds what
the versions share: writing a value, counters read again and again, the members of a group."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from grader.sandbox.groups import v1, v2


class ResourceGroup(Protocol):
    def create(self, memory_bytes: int, processes: int) -> None:
        """Make the group with these limits; OSError when it cannot be made."""

    def add(self, pid: int) -> None:
        """Move a process in (the sandbox's, before it is sent anything to run)."""

    def cpu_seconds(self) -> float:
        """CPU used by every process that was ever a member."""

    def oom_kills(self) -> int:
        """How many members the memory limit has killed."""

    def signal_members(self) -> bool:
        """SIGKILL every member once; False when there was none."""

    def kill(self) -> bool:
        """SIGKILL every member until none is left; True once the group is seen empty."""

    def remove(self) -> None:
        """Remove the group; safe to call again, and on a group never created."""


@dataclass(frozen=True)
class GroupKind:
    present: Callable[[], bool]  # its hierarchy is mounted here (cheap: no group is made)
    unavailable: Callable[[], str]  # why it cannot be used here, '' when it can (makes a probe group)
    new: Callable[[], ResourceGroup]
    remove_stale: Callable[[], None]  # the groups of a grader that died without removing them


KINDS: dict[str, GroupKind] = {
    "v1": GroupKind(v1.present, v1.unavailable, v1.Group, v1.remove_stale),  # hybrid hosts: v1 has the controllers
    "v2": GroupKind(v2.present, v2.unavailable, v2.Group, v2.remove_stale),
}


@functools.cache
def _kind() -> GroupKind:
    """The first kind present here; with none, the first one, which says why it cannot be used."""
    return next((kind for kind in KINDS.values() if kind.present()), next(iter(KINDS.values())))


def unavailable() -> str:
    return _kind().unavailable()


def new_group() -> ResourceGroup:
    return _kind().new()


def remove_stale() -> None:
    _kind().remove_stale()
