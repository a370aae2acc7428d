"""What a student reads, each a message they can act on: which course a check used, feedback only where it
applies, unittest's meaning of an exception's argument and of a bare call, hidden tests named without their
inputs, install hints that name what works, and validate's notes saying what YAML and the grader do."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import yaml

from tests.authoring.conftest import PLAIN, SQUARES, CourseFolder, flat
from tests.conftest import ROOT, run_cli


def test_a_check_outside_any_course_says_which_course_it_used(tmp_path: Path) -> None:
    mine = tmp_path / "word-stats.py"
    mine.write_text("def word_stats(text):\n    return {}\n")
    result = run_cli("check", "word-stats", mine, cwd=tmp_path, env={"GRADER_CACHE": str(tmp_path / "cache")})
    assert result.returncode == 2
    said = " ".join(result.stderr.split())
    assert f"no course in {tmp_path} or above it" in said
    assert "using the grader's bundled course at" in said and "--exercises DIR chooses one" in said


def test_a_student_bundle_is_a_course_a_check_run_in_it_uses(course: CourseFolder, tmp_path: Path) -> None:
    course.write("squares", SQUARES)
    course.reference("squares", "plain.py", PLAIN)
    bundle = tmp_path / "bundle"
    assert run_cli("export", "--student", bundle, "--exercises", course.exercises).returncode == 0
    (bundle / "work").mkdir()
    (bundle / "work" / "squares.py").write_text(PLAIN)
    checked = run_cli("check", "squares", "squares.py", cwd=bundle / "work")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "no course in" not in checked.stderr  # it found the bundle's own
    assert "All visible tests passed" in flat(checked.stdout)


PLAIN_FEEDBACK = """\
title: Squares
kind: function
entry: square
statement: Write `square(n)`.
limits: {cpu: 0.3}
tests:
  - name: a small square
    call: square(3)
    expect: 9
    feedback: "Multiply n by itself."
  - name: a negative square
    call: square(-2)
    expect: 4
    feedback: "Multiply n by itself."
"""


def test_a_plain_feedback_is_shown_for_a_wrong_answer_and_never_for_a_timeout(course: CourseFolder) -> None:
    course.write("squares", PLAIN_FEEDBACK)
    course.reference("squares", "plain.py", PLAIN)
    endless_on_negatives = "def square(n):\n    while n < 0:\n        pass\n    return n + n\n"
    report = run_cli("check", "squares", course.submission("mine.py", endless_on_negatives), "--all",
                     "--format", "json", "--exercises", course.exercises).json()
    wrong, timeout = report["tests"]
    assert wrong["verdict"] == "wrong_answer" and wrong["feedback"].endswith("Multiply n by itself.")
    assert timeout["verdict"] == "timeout" and "Multiply" not in timeout["feedback"]
    assert "of CPU" in timeout["feedback"]


KEYS = """\
title: Keys
kind: function
entry: Store
statement: A store.
tests:
  - name: a missing key is named
    steps:
      - store = Store()
      - do: store.get("x")
        raises: {class: KeyError, first_arg: x}
  - name: its message is the key's repr
    steps:
      - store = Store()
      - do: store.get("x")
        raises: {class: KeyError, message_equals: "'x'"}
  - name: adding returns nothing a test reads
    steps:
      - store = Store()
      - store.add("y")
      - len(store)
"""
STORE = """\
class Store:
    def __init__(self):
        self.items = []

    def get(self, key):
        raise KeyError(key)

    def add(self, item):
        self.items.append(item)
        return self  # chaining: a unittest of store.add("y") never reads it

    def __len__(self):
        return len(self.items)
"""


def test_first_arg_is_unittests_args0_and_a_bare_call_is_a_command(course: CourseFolder) -> None:
    course.write("keys", KEYS)
    # The reference's add() returns None, the student's returns the store: unittest reads neither.
    course.reference("keys", "plain.py", STORE.replace("        return self  # chaining: a unittest of "
                                                       "store.add(\"y\") never reads it\n", ""))
    validated = run_cli("validate", "--exercises", course.exercises, "keys")
    assert validated.returncode == 0, validated.stdout + validated.stderr
    report = run_cli("check", "keys", course.submission("store.py", STORE), "--format", "json",
                     "--exercises", course.exercises).json()
    assert [t["verdict"] for t in report["tests"]] == ["passed"] * 3, report["tests"]
    wrong = STORE.replace("raise KeyError(key)", "raise KeyError('no ' + key)")
    failed = run_cli("check", "keys", course.submission("wrong.py", wrong), "--format", "json", "--all",
                     "--exercises", course.exercises).json()["tests"][0]
    assert failed["verdict"] == "wrong_answer"
    assert "expected the argument 'x', but args[0] is 'no x'" in failed["feedback"]
    raising = STORE.replace("        self.items.append(item)\n", "        raise ValueError('full')\n")
    stopped = run_cli("check", "keys", course.submission("raising.py", raising), "--format", "json", "--all",
                      "--exercises", course.exercises).json()["tests"][2]
    assert stopped["verdict"] == "wrong_answer" and "ValueError" in stopped["feedback"]  # a command must run


def test_grader_new_and_the_bundled_course_name_hidden_tests_without_their_inputs(tmp_path: Path) -> None:
    for kind in ("function", "program"):
        assert run_cli("new", f"my-{kind}", "--kind", kind, cwd=tmp_path).returncode == 0
        spec = yaml.safe_load((tmp_path / "exercises" / f"my-{kind}.yaml").read_text())
        for test in spec["tests"]:
            if test.get("hidden"):
                assert not re.search(r"\d", test["name"]), test["name"]
    for path in sorted((ROOT / "exercises").glob("*.yaml")):
        for test in yaml.safe_load(path.read_text()).get("tests", []):
            if test.get("hidden"):
                call = str(test.get("call") or "")
                assert not call or call not in test["name"], (path.name, test["name"])
                assert not re.search(r"\(\d+\)|n = \d", test["name"]), (path.name, test["name"])


NOTES = """\
title: Notes
kind: function
entry: when
statement: s
tests:
  - name: a time
    call: when()
    expect: 08:00
  - name: close enough
    call: third()
    checker: {name: close, args: {rel: 1e-6}}
"""


def test_validate_notes_say_what_yaml_reads_and_what_the_grader_does(course: CourseFolder) -> None:
    path = course.write("notes", NOTES)
    course.reference("notes", "plain.py", "def when():\n    return '08:00'\n\n\ndef third():\n    return 1 / 3\n")
    result = run_cli("validate", "--exercises", course.exercises, "notes")
    assert result.returncode == 0, result.stdout + result.stderr
    out = flat(result.stdout)
    assert (f"{path}:8:13: YAML 1.1 reads 08:00 as the text '08:00', but 18:00 unquoted is the base-60 number "
            f"1080: quote times (\"08:00\") so that every one reads as text") in out
    assert (f"{path}:11:40: YAML 1.1 reads 1e-6 as the text '1e-6'; as the checker arg 'rel' the grader applies "
            f"it as the number 1e-06 (write 1.0e-6 to make it a number in YAML too)") in out


def test_serve_without_its_extras_names_the_install_that_works_from_here(tmp_path: Path) -> None:
    import subprocess

    without_uvicorn = ("import sys; sys.modules['uvicorn'] = None; from grader.cli import main; "
                       f"sys.exit(main(['serve', '--state', {str(tmp_path / 'state')!r}]))")
    result = subprocess.run([sys.executable, "-c", without_uvicorn], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert f"pip install -e '{ROOT}[server]'" in result.stderr
    assert "yaml-grader[" not in result.stderr
    readme = (ROOT / "README.md").read_text()
    assert "pip install 'yaml-grader" not in readme and "pip install 'grader[" not in readme
