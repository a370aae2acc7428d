"""How `grader serve` holds its connections, so that clients who send slowly, or never finish, cannot starve
the honest ones of time or of open files.

uvicorn brings the HTTP parser (h11: a request head of 16 KiB at most), the keep-alive timeout, the listen
backlog. It lacks the rest, added here as a subclass of its h11 protocol:

- a deadline for each request's head (from the connection, or from the last response on a kept-alive one),
  and one for its body (a grace, then at least BODY_RATE bytes a second on average): uvicorn starts no timer
  until a first response;
- a cap on the connections open at once, overall and per client address, fitted under the open-file limit;
  a new connection over a cap closes the oldest one still waiting on its request head (a slow client, or an
  idle keep-alive), and is refused with a 503 only when every one is busy with a request. uvicorn's
  `limit_concurrency` is not used: it counts idle sockets too, so a few hundred of them would make it
  answer 503 to every honest request;
- a log that stays bounded: the same message at most a few times a minute (uvicorn's per-request warnings,
  asyncio's "out of system resource" from its accept loop), the connections closed summed once a minute.
"""

from __future__ import annotations

import asyncio
import logging
import resource
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

BODY_RATE = 4096  # bytes a second: a 2 MiB hand-in over a 32 kbit/s line still arrives
UVICORN_BACKLOG = 2048  # uvicorn's default listen backlog
RESERVE = 256  # open files kept for the rest of the server: its database, hand-ins, workers' pipes, threads
DEFAULT_CONNECTIONS = 4096
DEFAULT_PER_ADDRESS = 128  # a class behind one NAT address, each with a browser's few connections
logger = logging.getLogger("uvicorn.error.connections")


@dataclass(frozen=True)
class Limits:
    connections: int  # open at once, from every address
    per_address: int  # open at once from one address; 0: no cap (behind a reverse proxy on this host)
    read_timeout: float = 20.0  # a request's head within it; its body within it plus BODY_RATE
    backlog: int = UVICORN_BACKLOG  # connections the kernel queues, and asyncio accepts in one go


def raise_open_files() -> int:
    """The open-file limit raised to the hard one (the soft one is often 1024): the limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        soft = hard
    return soft


def fitted(open_files: int, connections: int | None, per_address: int | None, read_timeout: float) -> Limits:
    """Limits under `open_files`. asyncio accepts up to `backlog` sockets at a time before any is looked at,
    and a socket closed to make room is gone three turns of its loop later: the connections kept, plus four
    such bursts, plus RESERVE, never run out of files."""
    backlog = max(16, min(UVICORN_BACKLOG, open_files // 16))
    room = max(16, open_files - 4 * backlog - min(RESERVE, open_files // 4))
    return Limits(min(connections or DEFAULT_CONNECTIONS, room),
                  DEFAULT_PER_ADDRESS if per_address is None else per_address, read_timeout, backlog)


@dataclass
class Registry:
    """The connections of one server: counted per address, those waiting on a request head in age order."""

    limits: Limits
    open: Counter[str] = field(default_factory=Counter)
    total: int = 0
    waiting: dict[str, dict[GuardedH11Protocol, None]] = field(default_factory=dict)  # per address, oldest first
    queue: dict[GuardedH11Protocol, None] = field(default_factory=dict)  # every address's, oldest first
    closed: Counter[str] = field(default_factory=Counter)  # why, since the last summary in the log
    next_summary: float = 0.0

    def admit(self, new: GuardedH11Protocol) -> bool:
        """Room for `new`, made by closing the oldest connection waiting on its head if a cap is reached."""
        cap = self.limits.per_address
        if cap and self.open[new.address] >= cap:
            return self._shed(self.waiting.get(new.address, {}), "over the per-address cap")
        if self.total >= self.limits.connections:
            return self._shed(self.queue, "over the cap")
        return True

    def _shed(self, candidates: dict[GuardedH11Protocol, None], why: str) -> bool:
        victim = next(iter(candidates), None)
        self.note(f"closed a connection waiting on its request head, {why}" if victim else f"refused, {why}")
        if victim is None:
            return False
        victim.drop()
        return True

    def enter(self, protocol: GuardedH11Protocol) -> None:
        self.open[protocol.address] += 1
        self.total += 1

    def leave(self, protocol: GuardedH11Protocol) -> None:
        self.stop_waiting(protocol)
        self.total -= 1
        self.open[protocol.address] -= 1
        if self.open[protocol.address] <= 0:
            del self.open[protocol.address]

    def start_waiting(self, protocol: GuardedH11Protocol) -> None:
        self.waiting.setdefault(protocol.address, {})[protocol] = None  # the newest: last
        self.queue[protocol] = None

    def stop_waiting(self, protocol: GuardedH11Protocol) -> None:
        self.queue.pop(protocol, None)
        mine = self.waiting.get(protocol.address)
        if mine is not None:
            mine.pop(protocol, None)
            if not mine:
                del self.waiting[protocol.address]

    def note(self, why: str) -> None:
        """Counted; written to the log once a minute at most, summed."""
        self.closed[why] += 1
        now = time.monotonic()
        if now >= self.next_summary:
            logger.warning("connections: %s (open now: %d, from %d addresses)",
                           "; ".join(f"{n} {what}" for what, n in sorted(self.closed.items())),
                           self.total, len(self.open))
            self.closed.clear()
            self.next_summary = now + 60


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with read deadlines and the registry's caps. Subclassed by `protocol_for`."""

    registry: ClassVar[Registry]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.address = ""
        self.counted = False
        self.deadline: asyncio.TimerHandle | None = None
        self.phase = "head"
        self.body_started = 0.0
        self.body_received = 0
        self.head_begun = False

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.address = self.client[0] if self.client else ""
        if not self.registry.admit(self):
            self._answer_and_close(503, b'{"error":"the server is full: try again in a few seconds"}',
                                   b"Retry-After: 5\r\n")
            return
        self.registry.enter(self)
        self.counted = True
        self._await_head()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel()
        if self.counted:
            self.counted = False
            self.registry.leave(self)
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self.phase == "body":
            self.body_received += len(data)
        self.head_begun = True
        super().data_received(data)
        self._follow()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._follow()

    def _follow(self) -> None:
        """The deadline of the phase the client is in now: sending a head, a body, or waiting on us."""
        if self.transport.is_closing():
            return
        state = self.conn.their_state
        if state is h11.IDLE:
            if self.phase != "head":
                self._await_head()
        elif state is h11.SEND_BODY:
            if self.phase != "body":
                self.registry.stop_waiting(self)
                self.phase, self.body_started, self.body_received = "body", time.monotonic(), 0
                self._arm(self.registry.limits.read_timeout)
        elif self.phase != "served":
            self.registry.stop_waiting(self)
            self.phase = "served"  # the request is read: the app's time (a ?wait= may last a minute)
            self._cancel()

    def _await_head(self) -> None:
        self.phase, self.head_begun = "head", False
        self.registry.stop_waiting(self)
        self.registry.start_waiting(self)
        self._arm(self.registry.limits.read_timeout)

    def _arm(self, seconds: float) -> None:
        self._cancel()
        self.deadline = self.loop.call_later(seconds, self._expired)

    def _cancel(self) -> None:
        if self.deadline is not None:
            self.deadline.cancel()
            self.deadline = None

    def _expired(self) -> None:
        self.deadline = None
        if self.transport.is_closing() or self.phase == "served":
            return
        if self.phase == "body":
            allowed = self.registry.limits.read_timeout + self.body_received / BODY_RATE
            left = self.body_started + allowed - time.monotonic()
            if left > 0:
                self._arm(left)
                return
        self.registry.stop_waiting(self)
        if self.phase == "head" and not self.head_begun:
            self.transport.close()  # an idle connection: closed as a kept-alive one is, without a word
            return
        self.registry.note("closed a request whose body came too slowly" if self.phase == "body" else
                           "closed a connection whose request head did not come in time")
        if self.phase == "head" or self.cycle is None or not self.cycle.response_started:
            self._answer_and_close(408, b'{"error":"the request came too slowly"}')
        else:
            self.transport.close()

    def drop(self) -> None:
        """Closed to make room: counted out now, so the newcomer's count is right before the close lands."""
        self._cancel()
        if self.counted:
            self.counted = False
            self.registry.leave(self)
        self.transport.abort()  # at once, whatever of an answer a client that does not read left unsent

    def _answer_and_close(self, status: int, body: bytes, extra: bytes = b"") -> None:
        reason = {408: b"Request Timeout", 503: b"Service Unavailable"}[status]
        self.transport.write(b"HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n%s"
                             b"Connection: close\r\n\r\n%s" % (status, reason, len(body), extra, body))
        if self.transport.get_write_buffer_size():
            self.transport.abort()  # a client that does not read keeps no file of ours
        else:
            self.transport.close()


def protocol_for(limits: Limits) -> type[GuardedH11Protocol]:
    """The protocol class for uvicorn's `Config(http=...)`, its connections counted in a registry of its own."""
    return type("GuardedH11Protocol", (GuardedH11Protocol,), {"registry": Registry(limits)})


class Bounded(logging.Filter):
    """Lets through a message (by its template) `burst` times a minute; the next one after a quiet spell says
    how many were left out. An attacker then cannot fill the disk through the log."""

    def __init__(self, burst: int = 5, window: float = 60.0) -> None:
        super().__init__()
        self.burst, self.window = burst, window
        self.seen: dict[str, tuple[float, int, int]] = {}  # template: window's start, shown, left out

    def filter(self, record: logging.LogRecord) -> bool:
        key = str(record.msg).split("\n", 1)[0][:200]
        now = time.monotonic()
        start, shown, left_out = self.seen.get(key, (now, 0, 0))
        if now - start >= self.window:
            start, shown = now, 0
        if shown >= self.burst:
            self.seen[key] = (start, shown, left_out + 1)
            return False
        if left_out:
            record.msg = f"{record.msg} (and {left_out} more like it left out of the log)"
        self.seen[key] = (start, shown + 1, 0)
        if len(self.seen) > 1000:  # templates are few; messages built with their values inline are not
            self.seen.clear()
        return True


def quiet_when_gone(app: Callable[..., Awaitable[None]]) -> Callable[..., Awaitable[None]]:
    """The app, with a client that left while its request was read (or was closed for its slowness) taken
    as what it is: no one to answer, not an error with a traceback in the log."""
    from starlette.requests import ClientDisconnect

    async def guarded(scope: Any, receive: Any, send: Any) -> None:
        try:
            await app(scope, receive, send)
        except ClientDisconnect:
            pass

    return guarded


def bound_the_log() -> None:
    for name in ("uvicorn.error", "uvicorn.access", "asyncio", logger.name):
        logging.getLogger(name).addFilter(Bounded())
