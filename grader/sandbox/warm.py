"""A backend that keeps a sandbox started ahead: `grader check --watch` starts the next one while it waits
for a save, so a re-check does not wait for a sandbox to boot. It wraps the real backend (or any other).

A session it hands out is closed late: its close is kept until the next start (or `start_ahead`, or
`close`), so the report of a re-check is printed before the sandbox behind it is killed and reaped. It is
always done before another sandbox starts: sandboxes of one grader share its uid, and a close may kill
every process of that uid."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

    from grader.model import Limits
    from grader.sandbox import Backend, Frame, Session


class WarmBackend:
    def __init__(self, backend: Backend) -> None:
        self.backend = backend
        self._last: tuple[Limits, tuple[Path, ...], float] | None = None  # what the last start asked for
        self._ready: Session | None = None  # started with those, waiting for its submission
        self._closing: list[Session] = []  # closed by their user, to be closed for real before a start

    def describe(self) -> str:
        return self.backend.describe()

    def prepare(self) -> None:
        self.backend.prepare()

    def start(self, limits: Limits, private_paths: tuple[Path, ...] = (), cpu_ceiling: float = 0.0) -> Session:
        self._close_kept()
        wanted = (limits, tuple(private_paths), cpu_ceiling)
        ready, self._ready = self._ready, None
        if ready is None or wanted != self._last:
            if ready is not None:
                ready.close()
            self._last = wanted
            ready = self.backend.start(limits, private_paths, cpu_ceiling)
        return _ClosedLate(ready, self._closing)

    def start_ahead(self) -> None:
        """Start a sandbox like the last one asked for, to hand to the next start that asks the same."""
        self._close_kept()
        if self._ready is None and self._last is not None:
            self._ready = self.backend.start(*self._last)

    def close(self) -> None:
        self._close_kept()
        if self._ready is not None:
            self._ready.close()
            self._ready = None

    def _close_kept(self) -> None:
        while self._closing:
            self._closing.pop().close()


class _ClosedLate:
    """A session whose close is kept by its backend, for the next start."""

    def __init__(self, session: Session, closing: list[Session]) -> None:
        self.session, self._closing = session, closing

    def load(self, setup: dict[str, object], wall_seconds: float) -> Frame:
        return self.session.load(setup, wall_seconds)

    def run(self, request: dict[str, object], wall_seconds: float) -> Frame:
        return self.session.run(request, wall_seconds)

    def close(self) -> None:
        if self.session not in self._closing:
            self._closing.append(self.session)
