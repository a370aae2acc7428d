"""`grader submit`: a hand-in sent to a `grader serve` server, its grading waited for with a progress line,
its report printed as `grader check` prints it, with the score that counts after the late rule. The server
and token come from the command line, $GRADER_SERVER and $GRADER_TOKEN, or what `grader login` stored
(a file of the user's alone, mode 0600). Every call goes through server/http_client.py, the one client that
decides where a token may go and what of a reply is believed."""

from __future__ import annotations

import json
import os
import secrets
import sys
import time
from pathlib import Path
from typing import Any

from grader.errors import UsageError
from grader.exit_codes import ExitCode
from grader.model import Outcome, Report, Verdict
from grader.server.http_client import Client, Refused, bad_reply, checked_server, checked_token
from grader.text import escape_controls

POLL = (0.0, 0.05, 0.1, 0.2, 0.5)  # seconds between two waits, then the last one (a server that answers at once)
SERVER_VARIABLE = "GRADER_SERVER"
TOKEN_VARIABLE = "GRADER_TOKEN"
__all__ = ["Refused", "counted_score", "multipart", "report_from_json", "save_login", "server_and_token", "submit"]


# ---------------------------------------------------------------- where the server is, and who the student is
def login_file() -> Path:
    root = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(root) / "grader" / "login.json"


def save_login(server: str, token: str, insecure: bool = False) -> Path:
    """Store the server and the token for the next `grader submit`: readable by the user alone (0600),
    written whole, never with a moment where another user could read it. Both are checked first: a token
    pasted with a line's end is stored without it; plain http to another host needs `insecure`, kept."""
    server = checked_server(server, insecure)
    token = checked_token(token)
    path = login_file()
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as file:
            json.dump({"server": server, "token": token, **({"insecure": True} if insecure else {})}, file)
        os.chmod(temporary, 0o600)
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return path


def stored_login() -> dict[str, Any]:
    """What `grader login` stored ({} when nothing, or something unreadable, is there)."""
    try:
        data = json.loads(login_file().read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return {}
    if not isinstance(data, dict):
        return {}
    kept: dict[str, Any] = {key: value for key, value in data.items() if key in ("server", "token")
                            and isinstance(value, str)}
    return {**kept, "insecure": data.get("insecure") is True}


def server_and_token(server: str | None, token: str | None, insecure: bool = False) -> tuple[str, str, bool]:
    """The server and token a submission goes with (given, else from the environment, else stored), and
    whether plain http to another host was accepted (on the command line, or at `grader login`)."""
    stored = stored_login()
    server = server or os.environ.get(SERVER_VARIABLE) or stored.get("server")
    token = token or os.environ.get(TOKEN_VARIABLE) or stored.get("token")
    if not server:
        raise UsageError(f"which server? --server URL, ${SERVER_VARIABLE}, or once: grader login --server URL")
    if not token:
        raise UsageError(f"a token is needed: --token TOKEN, ${TOKEN_VARIABLE}, or once: grader login --server URL")
    insecure = insecure or (bool(stored.get("insecure")) and server == stored.get("server"))
    return checked_server(server, insecure), checked_token(token), insecure


def counted_score(found: dict[str, Any], report: Report) -> float:
    """The score the gradebook keeps for this hand-in: the server's (grader.counting, as this student sees
    it) when it says; from a server too old to say, the same rule on what its reply carries."""
    from grader.counting import Attempt, submission_score

    counted = found.get("counted_score")
    if isinstance(counted, (int, float)) and not isinstance(counted, bool):
        return float(counted)
    penalty = found.get("late_penalty") if found.get("late") else 0
    penalty = penalty if isinstance(penalty, (int, float)) and not isinstance(penalty, bool) else 0
    score = submission_score(Attempt(0, report.score, report.max_score, penalty=min(max(float(penalty), 0.0), 100.0)))
    return round(score or 0.0, 2)


def submit(server: str, token: str, exercise: str, file: Path, format_: str, timeout: float,
           insecure: bool = False) -> ExitCode:
    try:
        client = Client(server, token, insecure=insecure, deadline=time.monotonic() + timeout)
        return _submit(client, exercise, file, format_, timeout)
    except Refused as refusal:
        print(f"error: {escape_controls(str(refusal))}", file=sys.stderr)  # it may quote the server
        return refusal.status


def _submit(client: Client, exercise: str, file: Path, format_: str, timeout: float) -> ExitCode:
    body, content_type = multipart({"exercise": exercise}, "file", file.name, file.read_bytes())
    sent = client.call("POST", "/api/submissions", body, content_type)
    number, status = sent.get("id"), sent.get("status")
    if not isinstance(number, int) or isinstance(number, bool) or number < 1 or not isinstance(status, str):
        raise bad_reply("a submission's reply has a whole number 'id' and a text 'status'")
    progress = _Progress()
    shown = escape_controls(exercise)
    progress.show(f"submission {number} of {shown}: {escape_controls(status[:80])}")
    deadline = time.monotonic() + timeout
    polls = 0
    while True:
        found = client.call("GET", f"/api/submissions/{number}?wait=20")  # answers when it changes
        status, report_data = found.get("status"), found.get("report")
        if not isinstance(status, str) or not isinstance(report_data, (dict, type(None))):
            raise bad_reply("a submission has a text 'status' and a 'report' that is an object or null")
        if status in ("done", "error") and report_data is not None:
            break
        progress.show(f"submission {number} of {shown}: {escape_controls(status[:80])}")
        if time.monotonic() > deadline:
            progress.end()
            print(f"error: submission {number} is still {escape_controls(status[:80])} after {timeout:g} s; "
                  f"`grader submit` again later shows nothing new: ask staff", file=sys.stderr)
            return ExitCode.TESTS_FAILED
        time.sleep(POLL[min(polls, len(POLL) - 1)])
        polls += 1
    progress.end()
    report = report_from_json(report_data)
    counted = counted_score(found, report)
    if format_ == "json":
        json.dump({**found, "counted_score": counted}, sys.stdout, indent=2, ensure_ascii=True)
        sys.stdout.write("\n")
    else:
        from grader.outputs import output

        output("terminal").render(report, sys.stdout)
        if found.get("late"):
            penalty = found.get("late_penalty", 0)
            penalty = penalty if isinstance(penalty, (int, float)) and not isinstance(penalty, bool) else 0
            # The number the gradebook keeps, said where the student reads the score.
            print(f"Submitted late: {penalty:g} % off. The score that counts: "
                  f"{counted:g}/{report.max_score:g} (graded {report.score:g}/{report.max_score:g}).")
    return ExitCode.OK if report.verdict == Verdict.PASSED else ExitCode.TESTS_FAILED


_TEXT, _NUMBER, _FLAG = (str,), (int, float), (bool,)
_TEST_FIELDS = {"name": _TEXT, "verdict": _TEXT, "points": _NUMBER, "max_points": _NUMBER, "hidden": _FLAG,
                "big": _FLAG, "feedback": _TEXT, "cpu_seconds": _NUMBER, "limit_seconds": _NUMBER,
                "limit_source": _TEXT}
_MAYBE_TEXT = ("details", "expected", "actual", "description", "input", "stdout", "stderr")
_REPORT_FIELDS = {"exercise": _TEXT, "submission": _TEXT, "tests": (list,), "isolation": _TEXT,
                  "visible_only": _FLAG, "notes": (list,)}


def report_from_json(data: dict[str, Any]) -> Report:
    """A Report back from the JSON of `grader check --format json` (what the server answers), each field
    checked for its documented type first: a reply of another shape is the server's fault, said plainly."""
    _check_fields(data, _REPORT_FIELDS, "the report")
    if not all(isinstance(note, str) for note in data["notes"]):
        raise bad_reply("the report's notes are texts")
    for test in data["tests"]:
        if not isinstance(test, dict):
            raise bad_reply("each test of the report is an object")
        _check_fields(test, _TEST_FIELDS, "a test of the report")
        if test["verdict"] not in {str(v) for v in Verdict}:
            raise bad_reply(f"a test's verdict is one of the grader's, not {escape_controls(test['verdict'][:40])!r}")
        if any(not isinstance(test.get(key), (str, type(None))) for key in _MAYBE_TEXT):
            raise bad_reply(f"a test's {', '.join(_MAYBE_TEXT)} are texts or null")
    outcomes = tuple(Outcome(
        test=t["name"], verdict=Verdict(t["verdict"]), points=t["points"], max_points=t["max_points"],
        hidden=t["hidden"], big=t["big"], feedback=t["feedback"], details=t.get("details") or "",
        expected=t.get("expected"), actual=t.get("actual"), cpu_seconds=t["cpu_seconds"],
        limit_seconds=t["limit_seconds"], description=t.get("description") or "", limit_source=t["limit_source"],
        input=t.get("input"), stdout=t.get("stdout") or "", stderr=t.get("stderr") or "")
        for t in data["tests"])
    quality = data.get("quality")
    if quality is not None:  # its deduction is in the server's score: the report read back must take it too
        from grader.quality.shown import quality_from_json

        quality = quality_from_json(quality)
    return Report(data["exercise"], data["submission"], outcomes, data["isolation"], data["visible_only"],
                  tuple(data["notes"]), quality=quality)


def _check_fields(data: dict[str, Any], fields: dict[str, tuple[type, ...]], what: str) -> None:
    for key, types in fields.items():
        value = data.get(key)
        if not isinstance(value, types) or (bool not in types and isinstance(value, bool)):
            kinds = " or ".join(t.__name__ for t in types)
            raise bad_reply(f"{what} has no {key!r} of type {kinds}")


def multipart(fields: dict[str, str], file_field: str, file_name: str, data: bytes) -> tuple[bytes, str]:
    boundary = "grader-" + secrets.token_hex(16)
    parts = [f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode()
             for name, value in fields.items()]
    safe_name = file_name.replace('"', "_").replace("\r", "_").replace("\n", "_")
    parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{file_field}"; filename="{safe_name}"\r\n'
                 f"Content-Type: application/octet-stream\r\n\r\n".encode() + data + b"\r\n")
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


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
