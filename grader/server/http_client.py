"""The one HTTP client of the student's commands (`grader submit`, `grader login`): to whom a token goes, and
what of a reply is believed. The standard library's urllib under it: a student's command needs nothing more.

- The token goes to the server's own origin (scheme, host, port) and nowhere else: a redirect to another
  origin is refused, never followed with the token.
- Plain http:// carries the token only to a loopback host, unless the student says --insecure.
- A reply is read up to MAX_REPLY bytes and before the command's deadline, and is checked against the shape
  the API documents; anything else is a plain message and exit status BAD_REPLY, never "internal error".
docs/security-inputs.md says these rules to a reader."""

from __future__ import annotations

import ipaddress
import json
import re
import time
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import urlsplit

from grader.errors import UsageError
from grader.exit_codes import ExitCode
from grader.text import escape_controls

MAX_REPLY = 16 << 20  # bytes: a report is bounded by its tests' output limits, far below this
MAX_ERROR = 64 << 10  # bytes of a refusal's body: a sentence
REPLY_SECONDS = 90.0  # one reply at most (a waiting poll is answered within the 20 s it asks for)
TOKEN = re.compile(r"[A-Za-z0-9._~+/=-]{1,200}")  # RFC 6750's b64token; the server reads at most 200


class Refused(Exception):
    """The server refused, or answered what cannot be used, for a reason the student can act on."""

    def __init__(self, status: ExitCode, message: str) -> None:
        super().__init__(message)
        self.status = status


def bad_reply(message: str) -> Refused:
    return Refused(ExitCode.BAD_REPLY, f"the server's reply cannot be used: {message}")


# ---------------------------------------------------------------- where a token may go
def origin(url: str) -> tuple[str, str, int]:
    parts = urlsplit(url)
    return parts.scheme.lower(), (parts.hostname or "").lower(), parts.port or (443 if parts.scheme == "https" else 80)


def is_loopback(host: str) -> bool:
    """True for localhost and a loopback address (127.0.0.0/8, ::1); never asks a name server."""
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def checked_server(server: str, insecure: bool = False) -> str:
    """The server's address, without a trailing /, or UsageError: http or https, a host, no user:password,
    no query; plain http only to a loopback host unless `insecure`. Nothing is sent to check it."""
    shown = escape_controls(server)
    try:
        parts = urlsplit(server.strip())
        parts.port  # noqa: B018 - raises ValueError for a port that is no number
    except ValueError:
        raise UsageError(f"{shown!r} is not a server address: write it as https://HOST or http://127.0.0.1:PORT") \
            from None
    if "@" in parts.netloc:  # said without the address: it holds a password
        raise UsageError("the server's address holds a user name or password: give the address alone")
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.query or parts.fragment \
            or any(ord(c) < 33 or ord(c) == 127 for c in server.strip()):
        raise UsageError(f"{shown!r} is not a server address: write it as https://HOST or http://127.0.0.1:PORT")
    if parts.scheme == "http" and not is_loopback(parts.hostname) and not insecure:
        raise UsageError(f"refusing to send your token to {escape_controls(parts.hostname)} over plain http://: "
                         f"anyone on the network between could read it and submit as you. Use https://, or add "
                         f"--insecure if you accept that")
    return server.strip().rstrip("/")


def checked_token(token: str, where: str = "the token") -> str:
    """The token with the blanks around it cut (a trailing \\r or \\n from a pasted CSV line), or UsageError
    when what is left cannot be a token. The message never repeats the token: it is a secret."""
    stripped = token.strip()
    if TOKEN.fullmatch(stripped):
        return stripped
    if not stripped:
        raise UsageError(f"{where} is empty")
    if len(stripped) > 200:
        raise UsageError(f"{where} is {len(stripped)} characters long; a token has at most 200: paste the token alone")
    odd = next(c for c in stripped if not TOKEN.fullmatch(c))
    raise UsageError(f"{where} holds {escape_controls(repr(odd))}, which no token holds: paste the token alone, "
                     f"as `grader serve token` printed it (its second column in the tokens CSV)")


# ---------------------------------------------------------------- calls
class _SameOrigin(urllib.request.HTTPRedirectHandler):
    """Follows a redirect within the server's origin; refuses one to anywhere else (urllib would carry the
    Authorization header along)."""

    def __init__(self, home: tuple[str, str, int]) -> None:
        self.home = home

    def redirect_request(self, req: urllib.request.Request, fp: Any, code: int, msg: str, headers: Any,
                         newurl: str) -> urllib.request.Request | None:
        if origin(newurl) != self.home:
            fp.close()
            raise Refused(ExitCode.BAD_REPLY, f"the server sent the request on to another address "
                                              f"({escape_controls(newurl[:200])}): not followed, your token goes to "
                                              f"{self.home[0]}://{self.home[1]}:{self.home[2]} alone")
        return super().redirect_request(req, fp, code, msg, headers, newurl)


class Client:
    """Calls to one server with one token, each reply bounded in size and in time (until `deadline`, a
    time.monotonic() instant)."""

    def __init__(self, server: str, token: str, *, insecure: bool = False, deadline: float | None = None) -> None:
        self.base = checked_server(server, insecure)
        self.token = checked_token(token)
        self.deadline = deadline
        self._opener = urllib.request.build_opener(_SameOrigin(origin(self.base)))

    def call(self, method: str, path: str, body: bytes | None = None,
             content_type: str | None = None) -> dict[str, Any]:
        """The JSON object the server answers; Refused or UsageError with a plain message otherwise. A GET
        is tried again while the server restarts (its queue survives it)."""
        url = self.base + path
        request = urllib.request.Request(url, data=body, method=method,
                                         headers={"Authorization": f"Bearer {self.token}"})
        if content_type:
            request.add_header("Content-Type", content_type)
        for attempt in range(5):
            try:
                with self._opener.open(request, timeout=self._seconds_left()) as response:
                    return json_object(self._read(response, MAX_REPLY))
            except urllib.error.HTTPError as error:
                refusal = self._refusal(error)
                if error.code >= 500 and attempt < 4 and method == "GET":
                    time.sleep(0.5)
                    continue
                raise refusal from None
            except (urllib.error.URLError, OSError) as error:
                if method == "GET" and attempt < 4 and self._seconds_left() > 1:
                    time.sleep(1)  # a server restarting: wait for it
                    continue
                reason = escape_controls(str(getattr(error, "reason", error)))
                raise UsageError(f"cannot reach the server at {escape_controls(url)}: {reason}") from None
        raise UsageError(f"cannot reach the server at {escape_controls(url)}")

    def _seconds_left(self) -> float:
        if self.deadline is None:
            return REPLY_SECONDS
        return max(0.1, min(REPLY_SECONDS, self.deadline - time.monotonic()))

    def _read(self, response: Any, most: int) -> bytes:
        """The body, refused past `most` bytes (before reading it when Content-Length says so) or once the
        reply's time is spent, whatever pace the server sends it at."""
        length = (response.headers.get("Content-Length") or "").strip()
        if length.isdigit() and int(length) > most:
            raise bad_reply(f"it is {int(length)} bytes long; a reply has at most {most}")
        ends = time.monotonic() + self._seconds_left()
        chunks: list[bytes] = []
        size = 0
        try:
            while chunk := response.read1(1 << 16):
                size += len(chunk)
                if size > most:
                    raise bad_reply(f"it is longer than {most} bytes, the most a reply may be")
                if time.monotonic() > ends:
                    raise bad_reply("it was still arriving when its time was spent")
                chunks.append(chunk)
        except OSError as error:  # a timeout too
            raise bad_reply(f"it stopped arriving ({escape_controls(str(error)) or 'timed out'})") from None
        return b"".join(chunks)

    def _refusal(self, error: urllib.error.HTTPError) -> Refused | UsageError:
        try:
            body = json.loads(self._read(error, MAX_ERROR))
            said = body.get("error") if isinstance(body, dict) else None
        except (Refused, ValueError, RecursionError, AttributeError):  # AttributeError: no body at all
            said = None
        message = escape_controls(said[:500] if isinstance(said, str) else str(error.reason)[:200])
        if error.code == 429:
            wait = (error.headers.get("Retry-After") or "").strip()
            after = f"; submit again in {wait} s" if wait.isdigit() and len(wait) < 9 and f"in {wait} s" not in message \
                else ""
            return Refused(ExitCode.TRY_LATER, f"not taken, too many submissions: {message}{after}")
        if error.code == 403 and ("cut-off" in message or "deadline" in message):
            return Refused(ExitCode.CLOSED, f"not taken, the deadline is past: {message}")
        return UsageError(f"the server refused it ({error.code}): {message}")


def json_object(data: bytes) -> dict[str, Any]:
    try:
        value = json.loads(data)
    except (ValueError, RecursionError):
        raise bad_reply("it is not JSON") from None
    if not isinstance(value, dict):
        raise bad_reply(f"it is a JSON {type(value).__name__}, not an object")
    return value
