"""The sandbox as the rest of the grader sees it: a Backend starts a Session for one submission, which loads
it once and then runs one request (a test) at a time, each in a fresh copy of the loaded state.

The real backend is `ProcessBackend` (process.py: forked processes under the layers that `detect` finds);
a test passes a fake one. Imported lazily: the package is imported by each of its modules, and `grader`
commands that start no sandbox should not pay for the process machinery."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from pathlib import Path

    from grader.model import Limits
    from grader.sandbox.isolation import Isolation, detect
    from grader.sandbox.process import ProcessBackend
    from grader.sandbox.wire import Frame

__all__ = ["Backend", "Frame", "Isolation", "ProcessBackend", "Session", "default_backend", "detect"]


class Session(Protocol):
    def load(self, setup: dict[str, object], wall_seconds: float) -> Frame:
        """Hand it the submission (`setup`: what the harness loads) and wait for the reply (data
        {"loaded": True} when it loaded), within the wall time counted from the hand-over."""

    def run(self, request: dict[str, object], wall_seconds: float) -> Frame:
        """One test's request sent, its reply read (data["seq"] is the request's), within the wall time."""

    def close(self) -> None:
        """End every process of the submission and remove its files; safe to call again."""


class Backend(Protocol):
    def describe(self) -> str:
        """The isolation line of the report."""

    def prepare(self) -> None:
        """Get ready for a start soon (a submission is being read and checked meanwhile); may do nothing."""

    def start(self, limits: Limits, private_paths: tuple[Path, ...] = (), cpu_ceiling: float = 0.0) -> Session:
        """Start a sandbox that waits for its submission (`Session.load`): it boots while the caller
        reads and checks the hand-in. `limits` bound the whole sandbox, `cpu_ceiling` its CPU (default:
        limits.cpu); `private_paths` are folders it must not see."""


def default_backend() -> Backend:
    """The real backend, under the layers detected on this machine."""
    from grader.sandbox.isolation import detect
    from grader.sandbox.process import ProcessBackend

    return ProcessBackend(detect())


_LAZY = {"Frame": "wire", "Isolation": "isolation", "detect": "isolation", "ProcessBackend": "process"}


def __getattr__(name: str) -> object:
    """The names above from their modules, on first use: a module of the package imports only what it needs."""
    if name in _LAZY:
        from importlib import import_module

        return getattr(import_module(f"grader.sandbox.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
