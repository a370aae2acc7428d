"""One test per spec error message: the messages are the spec of the spec format."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.errors import SpecError
from grader.model import MISSING
from grader.spec import load_exercise

GOOD = """\
title: Add
kind: function
entry: add
statement: Add two numbers.
tests:
  - name: add(1, 2)
    call: add(1, 2)
    expect: 3
"""


def problems(tmp_path: Path, text: str, name: str = "add") -> list[str]:
    path = tmp_path / f"{name}.yaml"
    path.write_text(text)
    with pytest.raises(SpecError) as caught:
        load_exercise(path)
    return [str(p).replace(str(tmp_path) + "/", "") for p in caught.value.problems]


def test_a_good_spec_loads_into_the_model(tmp_path: Path) -> None:
    path = tmp_path / "add.yaml"
    path.write_text(GOOD)
    exercise = load_exercise(path)
    assert exercise.id == "add" and exercise.kind == "function" and exercise.entry == "add"
    (test,) = exercise.tests
    assert (test.call, test.expect, test.compare, test.checker.name, test.hidden) == ("add(1, 2)", 3, "value", "value", False)


def test_unknown_key_reports_line_column_and_suggestion(tmp_path: Path) -> None:
    text = GOOD.replace("    expect: 3", "    expcet: 3")
    assert problems(tmp_path, text) == [
        "add.yaml:8:5: unknown key 'expcet' in a test (did you mean 'expect'?)"]


def test_unknown_exercise_key_lists_known_keys_when_nothing_is_close(tmp_path: Path) -> None:
    (message,) = problems(tmp_path, GOOD + "zzz: 1\n")
    assert message.startswith("add.yaml:9:1: unknown key 'zzz' in the exercise; known keys: title, kind")


def test_all_errors_of_a_file_are_reported_at_once(tmp_path: Path) -> None:
    text = GOOD.replace("kind: function", "kind: functon").replace("    expect: 3", "    expect: 3\n    hiden: true")
    found = problems(tmp_path, text)
    assert len(found) == 2
    assert "unknown kind 'functon'; known kinds: function, program, predict" in found[0]
    assert "did you mean 'hidden'?" in found[1]


def test_missing_required_key(tmp_path: Path) -> None:
    assert problems(tmp_path, GOOD.replace("title: Add\n", "")) == [
        "add.yaml:1:1: missing key 'title': every exercise needs title"]


def test_function_exercise_needs_an_entry(tmp_path: Path) -> None:
    assert problems(tmp_path, GOOD.replace("entry: add\n", "")) == [
        "add.yaml:1:1: missing key 'entry': a function exercise names the function or class to define"]


def test_invalid_yaml_names_the_position(tmp_path: Path) -> None:
    (message,) = problems(tmp_path, GOOD + "  - name: [unclosed\n")
    assert message.startswith("add.yaml:10:") and "invalid YAML" in message


def test_unknown_checker_lists_the_known_ones(tmp_path: Path) -> None:
    text = GOOD.replace("    expect: 3", "    expect: 3\n    checker: unorderd")
    assert problems(tmp_path, text) == [
        "add.yaml:9:14: unknown checker 'unorderd' (did you mean 'unordered'?); known checkers: allclose, array, close, equal, frame, output, same_items, unordered, value"]


def test_checker_args_are_checked_against_the_checker(tmp_path: Path) -> None:
    text = GOOD.replace("    expect: 3", "    expect: 3\n    checker: {name: value, args: {tolerance: 1}}")
    (message,) = problems(tmp_path, text)
    assert message.startswith("add.yaml:9:") and "checker 'value' does not take these args" in message


def test_a_call_that_prints_must_compare_output(tmp_path: Path) -> None:
    text = GOOD.replace("call: add(1, 2)", "call: print(add(1, 2))")
    assert problems(tmp_path, text) == [
        "add.yaml:7:11: test 'add(1, 2)' prints and returns None: add 'compare: output'"]


def test_a_call_must_be_an_expression(tmp_path: Path) -> None:
    text = GOOD.replace("call: add(1, 2)", "call: add(1, 2")
    (message,) = problems(tmp_path, text)
    assert message.startswith("add.yaml:7:11: the call of test 'add(1, 2)' is not a Python expression")


def test_limits_must_be_positive_numbers(tmp_path: Path) -> None:
    found = problems(tmp_path, GOOD + "limits: {cpu: -1, memroy: 5}\n")
    assert found == [
        "add.yaml:9:15: limits: cpu must be a number of seconds of CPU more than 0 and at most 3600, not -1.0",
        "add.yaml:9:19: unknown key 'memroy' in limits (did you mean 'memory'?)",
    ]


@pytest.mark.parametrize("written, message", [
    ("cpu: .nan", "limits: cpu must be a number of seconds of CPU more than 0 and at most 3600, not nan"),
    ("cpu: .inf", "limits: cpu must be a number of seconds of CPU more than 0 and at most 3600, not inf"),
    ("wall: 1.0e+308", "limits: wall must be a number of seconds more than 0 and at most 14400, not 1e+308"),
    ("memory: 99999999999999999999", "limits: memory must be a whole number of MiB more than 0 and at most 1048576"),
    ("processes: 0", "limits: processes must be a whole number of processes more than 0 and at most 4096, not 0"),
    ("output: true", "limits: output must be a whole number of KiB more than 0 and at most 1048576, not 'true'"),
], ids=["nan", "infinity", "huge-wall", "huge-memory", "zero-processes", "boolean"])
def test_a_limit_that_is_no_finite_number_in_its_bound_is_refused_at_its_line(
        tmp_path: Path, written: str, message: str) -> None:
    (found,) = problems(tmp_path, GOOD + f"limits: {{{written}}}\n")
    assert found.startswith(f"add.yaml:9:") and message in found, found


def test_booleans_are_checked(tmp_path: Path) -> None:
    text = GOOD.replace("    expect: 3", "    expect: 3\n    hidden: maybe")
    assert problems(tmp_path, text) == ["add.yaml:9:13: hidden must be true or false, not 'maybe'"]


def test_test_names_are_unique(tmp_path: Path) -> None:
    text = GOOD + "  - name: add(1, 2)\n    call: add(2, 1)\n"
    assert problems(tmp_path, text) == ["add.yaml:9:5: two tests are named 'add(1, 2)': names must be unique"]


def test_stdin_belongs_to_programs(tmp_path: Path) -> None:
    text = GOOD.replace("    expect: 3", "    expect: 3\n    stdin: '1 2'")
    assert problems(tmp_path, text) == [
        "add.yaml:9:12: 'stdin' is for program exercises; this is a function exercise"]


def test_expect_literal_must_be_a_literal(tmp_path: Path) -> None:
    text = GOOD.replace("    expect: 3", "    expect_literal: 'f(x)'")
    assert problems(tmp_path, text) == [
        "add.yaml:8:21: expect_literal of test 'add(1, 2)' is not a Python literal: 'f(x)'"]


def test_expect_literal_gives_tuples(tmp_path: Path) -> None:
    path = tmp_path / "add.yaml"
    path.write_text(GOOD.replace("    expect: 3", "    expect_literal: '(1, 2)'"))
    assert load_exercise(path).tests[0].expect == (1, 2)


def test_expect_may_be_left_to_the_reference(tmp_path: Path) -> None:
    path = tmp_path / "add.yaml"
    path.write_text(GOOD.replace("    expect: 3\n", ""))
    assert load_exercise(path).tests[0].expect is MISSING


def test_output_expectations_keep_the_text_as_written(tmp_path: Path) -> None:
    path = tmp_path / "add.yaml"
    path.write_text(GOOD.replace("call: add(1, 2)", "call: print(add(1, 2))\n    compare: output").replace("expect: 3", "expect: 3.0"))
    assert load_exercise(path).tests[0].expect == "3.0"


def test_predict_needs_a_snippet(tmp_path: Path) -> None:
    text = "title: P\nkind: predict\nstatement: s\ntests:\n  - name: Output\n    expect: '1'\n"
    assert problems(tmp_path, text, "p") == [
        "p.yaml:1:1: missing key 'snippet': a predict exercise needs the code whose output is predicted"]


def test_rules_must_be_python_names(tmp_path: Path) -> None:
    text = GOOD + "forbid: ['import os']\n"
    assert problems(tmp_path, text) == [
        "add.yaml:9:10: forbid rule 'import os' is not a Python name (write e.g. itertools or permutations)"]


def test_code_fields_must_parse(tmp_path: Path) -> None:
    (message,) = problems(tmp_path, GOOD + "starter: 'def add(:'\n")
    assert message.startswith("add.yaml:9:10: starter is not valid Python")


def test_file_name_is_the_id(tmp_path: Path) -> None:
    (message,) = problems(tmp_path, GOOD, "Add_Numbers")
    assert "the file name 'Add_Numbers' is the exercise id" in message


def test_empty_file(tmp_path: Path) -> None:
    assert problems(tmp_path, "") == [
        "add.yaml:1:1: the file is empty; an exercise needs title, kind, statement and tests"]


# ---------------------------------------------------------------- the test forms of issue 14
PROGRAM = """\
title: Copy
kind: program
statement: Copy.
tests:
  - name: one
"""
STEPS = GOOD.replace("    call: add(1, 2)\n    expect: 3\n", "")  # a test with a name only: steps follow


def _with(extra: str) -> str:
    return GOOD.replace("    expect: 3\n", extra)


FORM_PROBLEMS = [
    (_with("    raises: ValueErorr\n"), {}, "add.yaml:8:13: raises of test 'add(1, 2)': 'ValueErorr' is no built-in "
     "exception class; did you mean ValueError? (a class the submission defines must not look like a built-in one)"),
    (_with("    raises: 3 apples\n"), {}, "add.yaml:8:13: raises of test 'add(1, 2)': '3 apples' is not a class "
     "name (ValueError, TypeError, KeyError, or a class the submission defines)"),
    (_with("    raises: {class: ValueError, match: '('}\n"), {}, "add.yaml:8:40: raises of test 'add(1, 2)': match "
     "is not a regular expression: missing ), unterminated subpattern at position 0"),
    (_with("    raises: {message: empty}\n"), {},
     "add.yaml:8:13: raises of test 'add(1, 2)' needs a class, e.g. {class: ValueError, message: empty}"),
    (_with("    raises: {class: ValueError, text: empty}\n"), {},
     "add.yaml:8:33: unknown key 'text' in raises of test 'add(1, 2)'; known keys: class, message, message_equals, first_arg, match, subclass, bases"),
    (_with("    expect: 3\n    raises: ValueError\n"), {},
     "add.yaml:8:13: test 'add(1, 2)' expects an exception: 'expect' has nothing to judge"),
    (PROGRAM + "    raises: ValueError\n", {},
     "add.yaml:6:13: 'raises' is for function exercises; test 'one' is in a program exercise"),
    (_with("    raises: ValueError\n    steps: [x = 1]\n"), {},
     "add.yaml:9:12: test 'add(1, 2)' has both 'raises' and 'steps': a test is one of them"),
    (STEPS + "    steps: []\n", {},
     "add.yaml:7:12: steps of test 'add(1, 2)' must be a non-empty list of statements and expressions"),
    (_with("    steps: [x = 1]\n"), {}, "add.yaml:7:11: test 'add(1, 2)' has steps: 'call' belongs in a step"),
    (STEPS + "    steps: ['x = = 1']\n", {},
     "add.yaml:7:13: step 'x = = 1' of test 'add(1, 2)' is not Python: invalid syntax"),
    (STEPS + "    steps: [{raises: ValueError}]\n", {},
     "add.yaml:7:13: a step of test 'add(1, 2)' needs 'do': the statement or expression it runs"),
    (STEPS + "    steps: [{do: x = 1, expect_literal: '1'}]\n", {},
     "add.yaml:7:41: step 'x = 1' of test 'add(1, 2)' is a statement: it has no value to expect"),
    (STEPS + "    steps: [{do: 'add(1, 2)', expect_literal: 'nope('}]\n", {},
     "add.yaml:7:47: expect_literal of step 'add(1, 2)' is not a Python literal: 'nope('"),
    (STEPS + "    steps: [{do: 'add(1, 2)', expect_literal: '3', raises: ValueError}]\n", {},
     "add.yaml:7:47: step 'add(1, 2)' of test 'add(1, 2)' has both 'raises' and 'expect_literal'"),
    (_with("    given: [1, 2]\n"), {}, "add.yaml:8:12: given of test 'add(1, 2)' must be a mapping of names to values"),
    (_with("    given: {2x: 1}\n"), {}, "add.yaml:8:13: given of test 'add(1, 2)': '2x' is not a Python name"),
    (_with("    given: {xs: {generator: floats}}\n"), {},
     "add.yaml:8:29: given 'xs' of test 'add(1, 2)' names generator 'floats' but there is no generators.py"),
    (_with("    given: {xs: {generator: floats}}\n"), {"generators.py": "def words():\n    pass\n"},
     "add.yaml:8:29: given 'xs' of test 'add(1, 2)': generators.py defines no function 'floats'; it defines words"),
    (_with("    given: {xs: {generator: floats, args: [1]}}\n"), {"generators.py": "def floats():\n    pass\n"},
     "add.yaml:8:43: the args of given 'xs' of test 'add(1, 2)' must be a mapping of names to values"),
    (_with("    given: {xs: {generator: floats, seed: 1}}\n"), {"generators.py": "def floats():\n    pass\n"},
     "add.yaml:8:37: unknown key 'seed' in given 'xs' of test 'add(1, 2)'; known keys: generator, args, inside"),
    (_with("    given: {xs: {generator: floats}}\n"), {"generators.py": "def floats(:\n"},
     "add.yaml:8:29: given 'xs' of test 'add(1, 2)': generators.py is not valid Python (invalid syntax "
     "(generators.py, line 1))"),
    (_with("    given: {when: 2024-01-01}\n"), {},
     "add.yaml:8:19: given 'when' of test 'add(1, 2)' is a date: the sandbox takes lists, dicts, text and numbers"),
    (PROGRAM + "    given: {x: 1}\n", {}, "add.yaml:6:12: 'given' binds names for a call: test 'one' is not a function test"),
    (_with("    args: [a]\n"), {},
     "add.yaml:8:11: 'args' is for program exercises; test 'add(1, 2)' is in a function exercise"),
    (PROGRAM + "    args: a b\n", {}, "add.yaml:6:11: args of test 'one' must be a list of strings"),
    (PROGRAM + "    files: [a.txt]\n", {}, "add.yaml:6:12: files of test 'one' must be a mapping of file names to their text"),
    (PROGRAM + "    files: {../a.txt: x}\n", {},
     "add.yaml:6:13: files of test 'one': '../a.txt' must be a plain file name in the working folder (no folders)"),
    (PROGRAM + "    output_files: out.txt\n", {}, "add.yaml:6:19: output_files of test 'one' must be a list of file names"),
    (PROGRAM + "    output_files: [out.txt]\n    expect_files: {other.txt: x}\n", {},
     "add.yaml:7:20: expect_files of test 'one' names 'other.txt', which is not in output_files"),
    (PROGRAM + "    exit_status: one\n", {},
     "add.yaml:6:18: exit_status of test 'one' must be a whole number from 0 to 255, not 'one'"),
    (PROGRAM + "    exit_status: 300\n", {}, "add.yaml:6:18: exit_status of test 'one' must be from 0 to 255, not 300"),
    (PROGRAM + "    stderr: ''\n", {}, "add.yaml:6:13: stderr of test 'one' must be 'nonempty' or a text it must contain"),
    (_with("    checker: custom\n"), {},
     "add.yaml:8:14: a course's own checker is written {file: my_check.py, function: check}"),
    (_with("    checker: {file: check.py}\n"), {"check.py": "def check():\n    pass\n"},
     "add.yaml:8:14: a checker file needs 'function': the name of the function to call"),
    (_with("    checker: {file: check.py, function: judge}\n"), {"check.py": "def check():\n    pass\n"},
     "add.yaml:8:41: checker file 'check.py' defines no function 'judge'"),
    (_with("    checker: {file: check.py, function: check}\n"), {"check.py": "def check(:\n"},
     "add.yaml:8:21: checker file 'check.py' is not valid Python: invalid syntax (check.py, line 1)"),
    (_with("    checker: {name: close, args: {tolerance: 1}}\n"), {},
     "add.yaml:8:34: checker 'close' does not take these args: got an unexpected keyword argument 'tolerance'"),
    (_with("    feedback: [a]\n"), {}, "add.yaml:8:15: feedback of test 'add(1, 2)' must be text"),
    (_with("    description: {a: 1}\n"), {}, "add.yaml:8:18: description of test 'add(1, 2)' must be text"),
    (PROGRAM.replace("statement: Copy.\n", "statement: Copy.\nprelude: import os\n"), {},
     "add.yaml:4:10: 'prelude' is for function exercises; a program exercise runs none"),
]


@pytest.mark.parametrize("text, files, message", FORM_PROBLEMS, ids=[m.split(": ", 1)[1][:60] for _, _, m in FORM_PROBLEMS])
def test_each_form_error_names_its_place(tmp_path: Path, text: str, files: dict[str, str], message: str) -> None:
    for name, content in files.items():
        (tmp_path / name).write_text(content)
    assert problems(tmp_path, text) == [message]


def test_a_missing_checker_file_names_the_exercises_folder(tmp_path: Path) -> None:
    (message,) = problems(tmp_path, _with("    checker: {file: check.py, function: check}\n"))
    assert message == f"add.yaml:8:21: checker file 'check.py' not found: it must be in {tmp_path}".replace(
        str(tmp_path) + "/", "")


def test_the_forms_load_into_the_model(tmp_path: Path) -> None:
    (tmp_path / "generators.py").write_text("def floats(count):\n    return [0.5] * count\n")
    path = tmp_path / "add.yaml"
    path.write_text(_with("    checker: close\n    feedback: Add them.\n    description: two numbers\n"
                          "    given: {xs: {generator: floats, args: {count: 3}}, n: 2}\n")
                    + "  - name: raises\n    call: add(None, 1)\n    raises: TypeError\n"
                    + "  - name: steps\n    steps:\n      - x = add(1, 2)\n      - x + 1\n"
                    + "      - {do: 'add(x, [])', raises: TypeError}\n")
    first, raises, steps = load_exercise(path).tests
    assert (first.form, first.checker.name, first.description) == ("call", "close", "two numbers")
    # A plain feedback text is about the answer: a wrong answer's or a runtime error's, never a timeout's.
    assert [first.feedback_for(v) for v in ("wrong_answer", "runtime_error", "timeout")] == ["Add them.", "Add them.", ""]
    assert first.given[1] == ("n", 2) and first.given[0][1].generator == "floats"
    assert (raises.form, raises.raises.cls, raises.raises.message) == ("raises", "TypeError", "")
    assert steps.form == "steps" and [s.expression for s in steps.steps] == [False, True, True]
    assert steps.expect is MISSING  # `x + 1` has no written value: the reference gives it


def test_a_tolerance_written_1e_9_is_a_number_and_a_word_is_a_spec_error(tmp_path: Path) -> None:
    # YAML 1.1 (PyYAML) reads 1e-9 as text, not a float: it must still mean the number.
    spec = tmp_path / "close.yaml"
    spec.write_text("title: t\nkind: function\nentry: f\nstatement: s\n"
                    "checker: {name: close, args: {rel: 1e-9}}\ntests:\n  - name: a\n    call: f()\n    expect: 1.0\n")
    assert load_exercise(spec).tests[0].checker.args == (("rel", 1e-9),)
    spec.write_text(spec.read_text().replace("rel: 1e-9", "rel: tiny"))
    with pytest.raises(SpecError) as error:
        load_exercise(spec)
    assert "close.yaml:5:" in str(error.value) and "checker arg 'rel' must be a number, not 'tiny'" in str(error.value)
