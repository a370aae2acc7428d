"""unittest's semantics under their names, through `grader check`: `first_arg` is assertEqual on args[0] as
data, a bare call step never iterates its value, `same_items` is assertCountEqual, `equal` is assertEqual
(a generator equals only itself), and test_setup imports the submission as a test file does."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import run_cli

SPEC = """\
title: As unittest
kind: function
entry: fail
statement: s
test_setup: |
  from as_unittest import fail, Lazy as Buffer, letters


  def via_import(text):
      import as_unittest
      return as_unittest.letters(text)
tests:
  - {name: two arguments, call: fail("two"), raises: {class: ValueError, first_arg: bad}}
  - {name: no arguments, call: fail("none"), raises: {class: ValueError, first_arg: bad}}
  - {name: nested exception, call: fail("nested"), raises: {class: ValueError, first_arg: bad}}
  - {name: own str, call: fail("own"), raises: {class: Own, first_arg: bad}}
  - {name: key error, call: fail("key"), raises: {class: KeyError, first_arg: bad}}
  - {name: a number, call: fail("number"), raises: {class: ValueError, first_arg: 3}}
  - name: a bare call's generator is never run
    steps:
      - b = Buffer()
      - b.write(1)
      - {do: b.size, expect_literal: "1"}
  - {name: text has the items of a list, call: letters(""), checker: same_items, expect: []}
  - {name: text's characters in any order, call: letters("ba"), checker: same_items, expect: [a, b]}
  - {name: a helper imports it too, call: via_import("ab"), checker: same_items, expect: [b, a]}
  - {name: a generator equals only itself, call: "(x for x in [1])", checker: equal, expect: [1]}
  - {name: dict values equal only themselves, call: "{1: 2}.values()", checker: equal, expect: [2]}
"""

SUBMISSION = """\
class Own(ValueError):
    def __str__(self):
        return "something else"


def fail(how):
    if how == "two":
        raise ValueError("bad", 2)
    if how == "none":
        raise ValueError()
    if how == "nested":
        raise ValueError(ValueError("bad"))
    if how == "own":
        raise Own("bad")
    if how == "key":
        raise KeyError("bad")
    raise ValueError(3.0)


class Lazy:
    size = 0

    def write(self, item):
        self.size += 1
        return self._confirm()

    def _confirm(self):
        raise RuntimeError("iterated")
        yield


def letters(text):
    return text
"""

EXPECTED = {
    "two arguments": "passed", "no arguments": "wrong_answer", "nested exception": "wrong_answer",
    "own str": "passed", "key error": "passed", "a number": "passed",
    "a bare call's generator is never run": "passed", "text has the items of a list": "passed",
    "text's characters in any order": "passed", "a helper imports it too": "passed", "a generator equals only itself": "wrong_answer",
    "dict values equal only themselves": "wrong_answer",
}


def test_each_assertion_judges_as_unittest_does(tmp_path: Path) -> None:
    (tmp_path / "exercises").mkdir()
    (tmp_path / "exercises" / "as-unittest.yaml").write_text(SPEC)
    (tmp_path / "reference" / "as-unittest" / "accepted").mkdir(parents=True)
    (tmp_path / "reference" / "as-unittest" / "accepted" / "plain.py").write_text(SUBMISSION)  # its bare call too
    (tmp_path / "mine.py").write_text(SUBMISSION)
    report = run_cli("check", "--exercises", tmp_path / "exercises", "as-unittest", tmp_path / "mine.py",
                     "--format", "json").json()
    verdicts = {t["name"]: t["verdict"] for t in report["tests"]}
    assert verdicts == EXPECTED, report
    feedback = {t["name"]: t.get("feedback", "") for t in report["tests"]}
    assert "raised with no arguments" in feedback["no arguments"]
    assert "args[0] is <ValueError object>" in feedback["nested exception"]
    assert "equals only itself" in feedback["a generator equals only itself"]


def test_a_test_setup_that_calls_the_submission_too_early_is_a_grader_error_naming_it(tmp_path: Path) -> None:
    (tmp_path / "exercises").mkdir()
    (tmp_path / "exercises" / "early.yaml").write_text(
        "title: Early\nkind: function\nentry: f\nstatement: s\ntest_setup: |\n  WANT = f()\n"
        "tests:\n  - {name: one, call: f(), expect: 1}\n")
    (tmp_path / "mine.py").write_text("def f():\n    return 1\n")
    report = run_cli("check", "--exercises", tmp_path / "exercises", "early", tmp_path / "mine.py",
                     "--format", "json").json()
    assert [t["verdict"] for t in report["tests"]] == ["grader_error"], report
    text = str(report)
    assert "test_setup raised NameError" in text and "from early import f" in text


def test_an_imported_name_the_file_lacks_fails_its_load_as_an_import_error(tmp_path: Path) -> None:
    (tmp_path / "exercises").mkdir()
    (tmp_path / "exercises" / "grains.yaml").write_text(
        "title: G\nkind: function\nentry: square\nstatement: s\ntest_setup: |\n  from grains import square, total\n"
        "tests:\n  - {name: one, call: total(), expect: 1}\n")
    (tmp_path / "mine.py").write_text("def square(n):\n    return 1\n")
    result = run_cli("check", "--exercises", tmp_path / "exercises", "grains", tmp_path / "mine.py")
    assert result.returncode == 1
    assert "cannot import name 'total' from 'grains'" in " ".join(result.stdout.split())


def test_a_helper_imports_the_submission_and_reads_its_globals_as_they_are(tmp_path: Path) -> None:
    (tmp_path / "exercises").mkdir()
    (tmp_path / "exercises" / "counter.yaml").write_text(
        "title: C\nkind: function\nentry: bump\nstatement: s\ntest_setup: |\n  def bumped_twice():\n"
        "      import counter\n      counter.bump()\n      counter.bump()\n      return counter.count\n"
        "tests:\n  - {name: twice, call: bumped_twice(), expect: 2}\n")
    (tmp_path / "mine.py").write_text("count = 0\n\n\ndef bump():\n    global count\n    count += 1\n")
    report = run_cli("check", "--exercises", tmp_path / "exercises", "counter", tmp_path / "mine.py",
                     "--format", "json").json()
    assert [t["verdict"] for t in report["tests"]] == ["passed"], report
