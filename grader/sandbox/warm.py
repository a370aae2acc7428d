"""A backend that keeps a sandbox started ahead: `grader check --watch` starts the next one while it waits
for a save, so a re-check does not wait for a sandbox to boot. It wraps the real backend (or any other)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

    from grader.model import Limits
    from grader.sandbox import Backend, Session


class WarmBackend:
    def __init__(self, backend: Backend) -> None:
        self.backend = backend
        self._last: tuple[Limits, tuple[Path, ...], float] | None = None  # what the last start asked for
        self._ready: Session | None = None  # started with those, waiting for its submission

    def describe(self) -> str:
        return self.backend.describe()

    def prepare(self) -> None:
        self.backend.prepare()

    def start(self, limits: Limits, private_paths: tuple[Path, ...] = (), cpu_ceiling: float = 0.0) -> Session:
        wanted = (limits, tuple(private_paths), cpu_ceiling)
        ready, self._ready = self._ready, None
        if ready is not None and wanted == self._last:
            return ready
        if ready is not None:
            ready.close()
        self._last = wanted
        return self.backend.start(limits, private_paths, cpu_ceiling)

    def start_ahead(self) -> None:
        """Start a sandbox like the last one asked for, to hand to the next start that asks the same."""
        if self._ready is None and self._last is not None:
            self._ready = self.backend.start(*self._last)

    def close(self) -> None:
        if self._ready is not None:
            self._ready.close()
            self._ready = None
