"""`grader submit`: a hand-in sent to a `grader serve` server, its grading waited for with a progress line,
its report printed as `grader check` prints it. The standard library's HTTP client: a student's command
needs nothing more installed."""

from __future__ import annotations

import json
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


def submit(server: str, token: str, exercise: str, file: Path, format_: str, timeout: float) -> ExitCode:
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
    if format_ == "json":
        json.dump(found, sys.stdout, indent=2, ensure_ascii=True)
        sys.stdout.write("\n")
    else:
        from grader.outputs import output

        if found.get("late"):
            print(f"Submitted late: {found.get('late_penalty', 0):g} % off.")
        output("terminal").render(report, sys.stdout)
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
    return Report(data["exercise"], data["submission"], outcomes, data["isolation"], data["visible_only"],
                  tuple(data["notes"]))


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
                raise UsageError(f"the server refused it (429): {message} (Retry-After: "
                                 f"{error.headers.get('Retry-After', '?')} s)") from None
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
