"""An optional resource group per sandbox: total memory and process count of the submission (root included),
CPU of every process it started (helpers it never reaped too), and a kill that misses no one.

An implementation is one module (a `ResourceGroup` class, `present`, `unavailable`, `remove_stale`) plus
one line in KINDS (a grader.registry); the first kind whose hierarchy is present on this machine is used.
`files.py` holds what the versions share: writing a value, counters read again and again, the members of a
group."""

from __future__ import annotations

import functools
from typing import Protocol

from grader.registry import Registry


class ResourceGroup(Protocol):
    def create(self, memory_bytes: int, processes: int) -> None:
        """Make the group with these limits; OSError when it cannot be made."""

    def add(self, pid: int) -> None:
        """Move a process in (the sandbox's, before it is sent anything to run)."""

    def cpu_seconds(self) -> float:
        """CPU used by every process that was ever a member."""

    def memory_hits(self) -> int:
        """How often the group reached its memory limit (an allocation refused, a member OOM-killed): a run
        stopped for its CPU time while the kernel reclaimed at the limit ran out of memory, not time."""

    def signal_members(self) -> bool:
        """SIGKILL every member once; False when there was none."""

    def kill(self) -> bool:
        """SIGKILL every member until none is left; True once the group is seen empty."""

    def remove(self) -> None:
        """Remove the group; safe to call again, and on a group never created."""


class GroupKind(Protocol):
    """What a kind's module offers."""

    def present(self) -> bool:
        """Its hierarchy is mounted here (cheap: no group is made)."""

    def unavailable(self) -> str:
        """Why it cannot be used here, '' when it can (makes a probe group)."""

    def Group(self, name: str | None = None) -> ResourceGroup:  # noqa: N802 - the module's class
        """A new group (not yet created)."""

    def remove_stale(self) -> None:
        """Remove the groups of a grader that died without removing them."""


# Each kind is a module, imported in this order until one is present: a machine pays for one.
KINDS: Registry[GroupKind] = Registry({
    "v1": "grader.sandbox.groups.v1",  # hybrid hosts: v1 has the controllers
    "v2": "grader.sandbox.groups.v2",
}, what="resource group")


@functools.cache
def _kind() -> GroupKind:
    """The first kind present here; with none, the first one, which says why it cannot be used."""
    for kind in KINDS.values():
        if kind.present():
            return kind
    return next(iter(KINDS.values()))


def new_group() -> ResourceGroup:
    return _kind().Group()


def unavailable() -> str:
    return _kind().unavailable()


def remove_stale() -> None:
    _kind().remove_stale()
