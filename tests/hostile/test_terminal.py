"""Terminal safety: what the submission prints, returns or raises is shown literally in every format."""

from __future__ import annotations

import json

import pytest

from tests.hostile.host import Course, submission

TESTS = """
  - name: shout
    call: shout()
    compare: output
    expect: hello
  - name: value
    call: value()
    expect: hello
  - name: crash
    call: crash()
    expect: hello
"""


@pytest.mark.parametrize("format_", ["terminal", "json"])
def test_escapes_markup_and_bad_bytes_are_shown_literally(hostile: Course, format_: str) -> None:
    hostile.exercise(TESTS)
    path = hostile.root / "class" / "alice" / "hostile.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(submission("terminal.py"))
    from tests.conftest import run_cli

    result = run_cli("check", "hostile", path, "--format", format_, "--exercises", hostile.root / "exercises",
                     env={"TMPDIR": str(hostile.scratch), "COLUMNS": "200"})
    out = result.stdout
    assert "\x1b" not in out and "\x07" not in out and "\x08" not in out and "\r" not in out
    assert result.returncode == 1
    if format_ == "json":
        report = json.loads(out)
        outcomes = {t["name"]: t for t in report["tests"]}
        assert "\x1b[2J" in outcomes["shout"]["actual"]  # inert: \u001b in the JSON text
        assert "\\xff\\xfe" in outcomes["shout"]["actual"]  # invalid UTF-8 as visible escapes
        assert "[bold red]markup[/bold red]" in outcomes["value"]["actual"]
    else:
        assert "\\x1b[2J" in out and "\\x1b]0;pwned\\x07" in out
        assert "[bold red]markup[/bold red]" in out  # rich markup printed, not interpreted
        assert "\\xff\\xfe" in out
        assert "ValueError" in out
