"""`grader submit`: a hand-in sent to a `grader serve` server, its grading waited for with a progress line,
its report printed as `grader check` prints it, with the score that counts after the late rule. The server
and token come from the command line, $GRADER_SERVER and $GRADER_TOKEN, or what `grader login` stored
(a file of the user's alone, mode 0600). The standard library's HTTP client: a student's command needs
nothing more installed."""

from __future__ import annotations

import json
import os
import secrets
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from grader.errors import UsageError
from grader.exit_codes import ExitCode
from grader.model import Outcome, Report, Verdict

POLL = (0.0, 0.05, 0.1, 0.2, 0.5)  # seconds between two waits, then the last one (a server that answers at once)
SERVER_VARIABLE = "GRADER_SERVER"
TOKEN_VARIABLE = "GRADER_TOKEN"


class Refused(Exception):
    """The server refused the hand-in for a reason the student can act on: not a bad command line."""

    def __init__(self, status: ExitCode, message: str) -> None:
        super().__init__(message)
        self.status = status


# ---------------------------------------------------------------- where the server is, and who the student is
def login_file() -> Path:
    root = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(root) / "grader" / "login.json"


def save_login(server: str, token: str) -> Path:
    """Store the server and the token for the next `grader submit`: readable by the user alone (0600),
    written whole, never with a moment where another user could read it."""
    if not server.startswith(("http://", "https://")):
        raise UsageError(f"{server!r} is not a server address: write it as http://HOST:PORT or https://HOST")
    path = login_file()
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as file:
            json.dump({"server": server.rstrip("/"), "token": token}, file)
        os.chmod(temporary, 0o600)
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return path


def stored_login() -> dict[str, str]:
    """What `grader login` stored ({} when nothing, or something unreadable, is there)."""
    try:
        data = json.loads(login_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {key: value for key, value in data.items() if key in ("server", "token") and isinstance(value, str)} \
        if isinstance(data, dict) else {}


def server_and_token(server: str | None, token: str | None) -> tuple[str, str]:
    """The server and token a submission goes with: given, else from the environment, else stored."""
    stored = stored_login()
    server = server or os.environ.get(SERVER_VARIABLE) or stored.get("server")
    token = token or os.environ.get(TOKEN_VARIABLE) or stored.get("token")
    if not server:
        raise UsageError(f"which server? --server URL, ${SERVER_VARIABLE}, or once: grader login --server URL")
    if not token:
        raise UsageError(f"a token is needed: --token TOKEN, ${TOKEN_VARIABLE}, or once: grader login --server URL")
    return server, token


def counted_score(found: dict[str, Any], report: Report) -> float:
    """The score the gradebook keeps for this hand-in: the server's when it says, else the report's with
    the late penalty taken off, as the server's rules take it."""
    counted = found.get("counted_score")
    if isinstance(counted, (int, float)) and not isinstance(counted, bool):
        return float(counted)
    penalty = found.get("late_penalty") if found.get("late") else 0
    penalty = penalty if isinstance(penalty, (int, float)) and not isinstance(penalty, bool) else 0
    return round(report.score * (1 - penalty / 100), 2)


def submit(server: str, token: str, exercise: str, file: Path, format_: str, timeout: float) -> ExitCode:
    try:
        return _submit(server, token, exercise, file, format_, timeout)
    except Refused as refusal:
        print(f"error: {refusal}", file=sys.stderr)
        return refusal.status


def _submit(server: str, token: str, exercise: str, file: Path, format_: str, timeout: float) -> ExitCode:
    base = server.rstrip("/")
    body, content_type = multipart({"exercise": exercise}, "file", file.name, file.read_bytes())
    sent = _call("POST", f"{base}/api/submissions", token, body, content_type)
    number = sent["id"]
    progress = _Progress()
    progress.show(f"submission {number} of {exercise}: {sent['status']}")
    deadline = time.monotonic() + timeout
    polls = 0
    while True:
        found = _call("GET", f"{base}/api/submissions/{number}?wait=20", token)  # answers when it changes
        if found["status"] in ("done", "error") and found.get("report") is not None:
            break
        progress.show(f"submission {number} of {exercise}: {found['status']}")
        if time.monotonic() > deadline:
            progress.end()
            print(f"error: submission {number} is still {found['status']} after {timeout:g} s; "
                  f"`grader submit` again later shows nothing new: ask staff", file=sys.stderr)
            return ExitCode.TESTS_FAILED
        time.sleep(POLL[min(polls, len(POLL) - 1)])
        polls += 1
    progress.end()
    report = report_from_json(found["report"])
    counted = counted_score(found, report)
    if format_ == "json":
        json.dump({**found, "counted_score": counted}, sys.stdout, indent=2, ensure_ascii=True)
        sys.stdout.write("\n")
    else:
        from grader.outputs import output

        output("terminal").render(report, sys.stdout)
        if found.get("late"):
            # The number the gradebook keeps, said where the student reads the score.
            print(f"Submitted late: {found.get('late_penalty', 0):g} % off. The score that counts: "
                  f"{counted:g}/{report.max_score:g} (graded {report.score:g}/{report.max_score:g}).")
    return ExitCode.OK if report.verdict == Verdict.PASSED else ExitCode.TESTS_FAILED


def report_from_json(data: dict[str, Any]) -> Report:
    """A Report back from the JSON of `grader check --format json` (what the server answers)."""
    outcomes = tuple(Outcome(
        test=t["name"], verdict=Verdict(t["verdict"]), points=t["points"], max_points=t["max_points"],
        hidden=t["hidden"], big=t["big"], feedback=t["feedback"], details=t.get("details") or "",
        expected=t.get("expected"), actual=t.get("actual"), cpu_seconds=t["cpu_seconds"],
        limit_seconds=t["limit_seconds"], description=t.get("description", ""), limit_source=t["limit_source"],
        input=t.get("input"))
        for t in data["tests"])
    quality = data.get("quality")
    if quality is not None:  # its deduction is in the server's score: the report read back must take it too
        from grader.quality.shown import quality_from_json

        quality = quality_from_json(quality)
    return Report(data["exercise"], data["submission"], outcomes, data["isolation"], data["visible_only"],
                  tuple(data["notes"]), quality=quality)


def multipart(fields: dict[str, str], file_field: str, file_name: str, data: bytes) -> tuple[bytes, str]:
    boundary = "grader-" + secrets.token_hex(16)
    parts = [f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode()
             for name, value in fields.items()]
    safe_name = file_name.replace('"', "_").replace("\r", "_").replace("\n", "_")
    parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{file_field}"; filename="{safe_name}"\r\n'
                 f"Content-Type: application/octet-stream\r\n\r\n".encode() + data + b"\r\n")
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


def _call(method: str, url: str, token: str, body: bytes | None = None,
          content_type: str | None = None) -> dict[str, Any]:
    request = urllib.request.Request(url, data=body, method=method, headers={"Authorization": f"Bearer {token}"})
    if content_type:
        request.add_header("Content-Type", content_type)
    for attempt in range(5):
        try:
            with urllib.request.urlopen(request, timeout=60) as response:  # noqa: S310 - the URL is the user's
                return json.loads(response.read())  # type: ignore[no-any-return]
        except urllib.error.HTTPError as error:
            try:
                message = json.loads(error.read()).get("error", error.reason)
            except ValueError:
                message = error.reason
            if error.code == 429:
                wait = error.headers.get("Retry-After", "")
                after = f"; submit again in {wait} s" if wait.isdigit() and f"in {wait} s" not in str(message) else ""
                raise Refused(ExitCode.TRY_LATER, f"not taken, too many submissions: {message}{after}") from None
            if error.code == 403 and ("cut-off" in str(message) or "deadline" in str(message)):
                raise Refused(ExitCode.CLOSED, f"not taken, the deadline is past: {message}") from None
            if error.code >= 500 and attempt < 4 and method == "GET":
                time.sleep(0.5)
                continue
            raise UsageError(f"the server refused it ({error.code}): {message}") from None
        except (urllib.error.URLError, OSError) as error:
            if method == "GET" and attempt < 4:  # a server restarting: its queue survives, so wait for it
                time.sleep(1)
                continue
            reason = getattr(error, "reason", error)
            raise UsageError(f"cannot reach the server at {url}: {reason}") from None
    raise UsageError(f"cannot reach the server at {url}")


class _Progress:
    """One line on standard error, rewritten in place on a terminal, written once per state otherwise."""

    def __init__(self) -> None:
        self.last = ""
        self.live = sys.stderr.isatty()

    def show(self, text: str) -> None:
        if text == self.last:
            return
        self.last = text
        if self.live:
            sys.stderr.write(f"\r\x1b[2K{text}")
        else:
            sys.stderr.write(text + "\n")
        sys.stderr.flush()

    def end(self) -> None:
        if self.live and self.last:
            sys.stderr.write("\r\x1b[2K")
            sys.stderr.flush()
