"""Every test form end to end through the CLI, on small exercises written here: good submissions pass,
wrong ones and forging ones (shadowed builtins, globals() tricks, a lying float, a fake ValueError) fail."""

from __future__ import annotations

import pytest

from tests.conftest import run_cli

MEAN = """title: Mean
kind: function
entry: mean
statement: The mean of a non-empty list.
checker: close
tests:
  - name: three numbers
    call: mean([1, 2, 4])
  - name: empty list
    call: mean([])
    raises: {class: ValueError, message: empty}
    feedback: "An empty list has no mean: raise ValueError."
  - name: many floats
    description: 2000 seeded floats
    call: mean(xs)
    hidden: true
    given:
      xs: {generator: floats, args: {count: 2000, seed: 3}}
"""
GENERATORS = """import random

def floats(count, seed):
    rng = random.Random(seed)
    return [rng.uniform(-1, 1) for _ in range(count)]
"""
MEAN_REFERENCE = """def mean(xs):
    if not xs:
        raise ValueError("mean of an empty list")
    return sum(xs) / len(xs)
"""
BOARD = """title: Board
kind: function
entry: Board
statement: A board of queens.
tests:
  - name: a queen attacks its diagonal
    steps:
      - board = Board(4)
      - board.place(0, 1)
      - board.is_free(1, 2)
      - len(board)
      - {do: "board.place(1, 2)", raises: ValueError}
      - {do: board.queens(), expect_literal: "[(0, 1)]"}
"""
BOARD_REFERENCE = """class Board:
    def __init__(self, n):
        self.queens_at = []

    def attacked(self, row, col):
        return any(row == r or col == c or abs(row - r) == abs(col - c) for r, c in self.queens_at)

    def place(self, row, col):
        if self.attacked(row, col):
            raise ValueError("attacked")
        self.queens_at.append((row, col))

    def is_free(self, row, col):
        return not self.attacked(row, col)

    def queens(self):
        return sorted(self.queens_at)

    def __len__(self):
        return len(self.queens_at)
"""
FILES = """title: Upper
kind: program
statement: Copy the file named first into the second, upper-cased; print its length.
tests:
  - name: a file
    args: [in.txt, out.txt]
    files: {in.txt: "hello\\n"}
    output_files: [out.txt]
  - name: no such file
    args: [nope.txt, out.txt]
    output_files: [out.txt]
    exit_status: 1
    stderr: nonempty
"""
FILES_REFERENCE = """import sys
try:
    text = open(sys.argv[1]).read()
except OSError:
    sys.exit("cannot read " + sys.argv[1])
open(sys.argv[2], "w").write(text.upper())
print(len(text))
"""
QUEENS = """title: Any queens
kind: function
entry: any_queens
statement: Any placement of n queens, or None.
checker: {file: queens_check.py, function: check}
tests:
  - name: four
    call: any_queens(4)
  - name: two
    call: any_queens(2)
"""
QUEENS_CHECK = """def check(input, answer, expected):
    (n,) = input
    if expected is None:
        return answer is None, "there is no placement"
    if type(answer) is not list or len(answer) != n or any(type(c) is not int for c in answer):
        return False, "expected a list of n column numbers"
    if sorted(answer) != list(range(n)):
        return {"passed": False, "fraction": 0.5, "feedback": "two queens share a column"}
    ok = all(abs(answer[i] - answer[j]) != j - i for i in range(n) for j in range(i + 1, n))
    return ok, "" if ok else "two queens share a diagonal"
"""
QUEENS_REFERENCE = """from itertools import permutations


def any_queens(n):
    for p in permutations(range(n)):
        if all(abs(p[i] - p[j]) != j - i for i in range(n) for j in range(i + 1, n)):
            return list(p)
    return None
"""


@pytest.fixture
def forms_course(course):  # noqa: ANN001, ANN201
    for exercise_id, spec, reference in (("mean", MEAN, MEAN_REFERENCE), ("board", BOARD, BOARD_REFERENCE),
                                         ("upper", FILES, FILES_REFERENCE), ("queens", QUEENS, QUEENS_REFERENCE)):
        course.write(exercise_id, spec)
        course.reference(exercise_id, "plain.py", reference)
    (course.exercises / "generators.py").write_text(GENERATORS)
    (course.exercises / "queens_check.py").write_text(QUEENS_CHECK)
    return course


def check(course, exercise_id: str, code: str) -> dict:  # noqa: ANN001
    result = run_cli("check", "--exercises", course.exercises, exercise_id,
                     course.submission(f"{exercise_id}.py", code), "--format", "json")
    return result.json()


def verdicts(report: dict) -> dict[str, str]:
    return {test["name"]: test["verdict"] for test in report["tests"]}


def test_validate_accepts_every_form(forms_course) -> None:  # noqa: ANN001
    result = run_cli("validate", "--exercises", forms_course.exercises, "mean", "board", "upper", "queens")
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("exercise_id, code", [
    ("mean", "def mean(xs):\n    if len(xs) == 0:\n        raise ValueError('empty list')\n    return sum(x for x in xs) / len(xs)\n"),
    ("board", BOARD_REFERENCE),
    ("upper", FILES_REFERENCE.replace("text.upper()", "''.join(c.upper() for c in text)")),
    ("queens", "def any_queens(n):\n    return {4: [2, 0, 3, 1]}.get(n)\n"),
])
def test_a_correct_submission_passes(forms_course, exercise_id: str, code: str) -> None:  # noqa: ANN001
    report = check(forms_course, exercise_id, code)
    assert report["verdict"] == "passed", report
    assert report["score"] == report["max_score"]


def test_a_hidden_generated_test_shows_its_description_never_its_input(forms_course) -> None:  # noqa: ANN001
    report = check(forms_course, "mean", "def mean(xs):\n    raise ValueError('empty')\n")
    (many,) = [t for t in report["tests"] if t["name"] == "many floats"]
    assert many["description"] == "2000 seeded floats"
    assert many["feedback"] == "ValueError" and "expected" not in many and "actual" not in many


def test_a_student_class_named_value_error_is_not_one(forms_course) -> None:  # noqa: ANN001
    code = ("class ValueError(Exception):\n    pass\n\n\ndef mean(xs):\n    if not xs:\n"
            "        raise ValueError('empty')\n    return sum(xs) / len(xs)\n")
    report = check(forms_course, "mean", code)
    (empty,) = [t for t in report["tests"] if t["name"] == "empty list"]
    assert empty["verdict"] == "wrong_answer"
    assert "expected ValueError" in empty["feedback"] and "An empty list has no mean" in empty["feedback"]


def test_a_subclass_of_value_error_counts(forms_course) -> None:  # noqa: ANN001
    code = ("class EmptyError(ValueError):\n    pass\n\n\ndef mean(xs):\n    if not xs:\n"
            "        raise EmptyError('empty')\n    return sum(xs) / len(xs)\n")
    assert check(forms_course, "mean", code)["verdict"] == "passed"


@pytest.mark.parametrize("forgery", [
    # a float subclass whose __eq__ says yes: never plain data
    "class F(float):\n    def __eq__(self, other):\n        return True\n\n\ndef mean(xs):\n"
    "    if not xs:\n        raise ValueError('empty')\n    return F(0)\n",
    # shadowing round, abs and isinstance changes nothing the grader calls
    "round = abs = isinstance = lambda *a, **k: True\n\n\ndef mean(xs):\n    if not xs:\n"
    "        raise ValueError('empty')\n    return 0.0\n",
    # a globals() trick: rebinding the names a checker might use
    "globals()['close'] = globals()['check'] = lambda *a, **k: True\n__builtins__.__dict__['abs'] = lambda x: 0\n\n\n"
    "def mean(xs):\n    if not xs:\n        raise ValueError('empty')\n    return 0.0\n",
])
def test_forging_a_mean_fails(forms_course, forgery: str) -> None:  # noqa: ANN001
    report = check(forms_course, "mean", forgery)
    assert verdicts(report)["three numbers"] != "passed"
    assert report["score"] < report["max_score"]


def test_a_wrong_step_is_named_with_the_steps_before_it(forms_course) -> None:  # noqa: ANN001
    code = BOARD_REFERENCE.replace("return not self.attacked(row, col)", "return True")
    report = check(forms_course, "board", code)
    (test,) = report["tests"]
    assert test["verdict"] == "wrong_answer"
    assert test["feedback"] == ("step 3 `board.is_free(1, 2)`: expected False, got True; "
                                "the steps before it: `board = Board(4)`, `board.place(0, 1)`")
    assert (test["expected"], test["actual"]) == ("False", "True")


def test_a_step_that_does_not_raise_fails(forms_course) -> None:  # noqa: ANN001
    code = BOARD_REFERENCE.replace('raise ValueError("attacked")', "pass")
    report = check(forms_course, "board", code)
    assert report["verdict"] == "wrong_answer"


def test_a_program_is_judged_on_its_files_exit_status_and_stderr(forms_course) -> None:  # noqa: ANN001
    lower = FILES_REFERENCE.replace("text.upper()", "text")
    assert verdicts(check(forms_course, "upper", lower))["a file"] == "wrong_answer"
    silent = FILES_REFERENCE.replace('sys.exit("cannot read " + sys.argv[1])', "sys.exit(1)")
    report = check(forms_course, "upper", silent)
    assert verdicts(report)["no such file"] == "wrong_answer"
    quits_well = FILES_REFERENCE.replace('sys.exit("cannot read " + sys.argv[1])', "sys.exit(0)")
    (missing,) = [t for t in check(forms_course, "upper", quits_well)["tests"] if t["name"] == "no such file"]
    assert missing["feedback"] == "exited with status 0; expected status 1"


def test_a_custom_checker_gives_partial_credit_and_cannot_be_forged(forms_course) -> None:  # noqa: ANN001
    code = ("def check(input, answer, expected):\n    return True\n\n\nglobals()['check'] = check\n\n\n"
            "def any_queens(n):\n    return None if n < 4 else [0, 1, 2, 3]\n")
    report = check(forms_course, "queens", code)
    four = report["tests"][0]
    assert four["verdict"] == "wrong_answer" and four["feedback"] == "two queens share a diagonal"
    half = check(forms_course, "queens", "def any_queens(n):\n    return None if n < 4 else [0, 0, 0, 0]\n")
    assert half["tests"][0]["points"] == 0.5 and half["score"] == 1.5


def test_a_checker_that_raises_is_a_grader_error_naming_it(forms_course) -> None:  # noqa: ANN001
    (forms_course.exercises / "queens_check.py").write_text("def check(input, answer, expected):\n    return 1 / 0\n")
    report = check(forms_course, "queens", QUEENS_REFERENCE)
    assert report["tests"][0]["verdict"] == "grader_error"
    assert "queens_check.py:check raised ZeroDivisionError" in report["tests"][0]["feedback"]


def test_validate_throws_junk_at_a_custom_checker(forms_course) -> None:  # noqa: ANN001
    (forms_course.exercises / "queens_check.py").write_text(
        "def check(input, answer, expected):\n    return len(str(answer)) > 0\n")
    result = run_cli("validate", "--exercises", forms_course.exercises, "queens")
    assert result.returncode != 0
    assert "checker 'queens_check.py:check' accepts None" in result.stdout


def test_validate_checks_the_reference_raises_the_expected_class(forms_course) -> None:  # noqa: ANN001
    forms_course.reference("mean", "plain.py", MEAN_REFERENCE.replace("raise ValueError", "raise TypeError"))
    result = run_cli("validate", "--exercises", forms_course.exercises, "mean")
    assert result.returncode != 0
    assert "test 'empty list'" in result.stdout and "expected ValueError" in result.stdout


def test_a_student_bundle_writes_every_form_out_and_checks_without_references(forms_course, tmp_path) -> None:  # noqa: ANN001
    forms_course.write("mean", MEAN.replace("    hidden: true\n", ""))  # the generated test visible: it is exported
    bundle = tmp_path / "bundle"
    assert run_cli("export", "--student", bundle, "--exercises", forms_course.exercises).returncode == 0
    assert (bundle / "exercises" / "queens_check.py").is_file() and (bundle / "exercises" / "generators.py").is_file()
    for exercise_id, reference in (("mean", MEAN_REFERENCE), ("board", BOARD_REFERENCE), ("upper", FILES_REFERENCE),
                                   ("queens", QUEENS_REFERENCE)):
        submission = forms_course.submission(f"{exercise_id}-bundle.py", reference)
        report = run_cli("check", "--exercises", bundle / "exercises", exercise_id, submission, "--format", "json").json()
        assert report["verdict"] == "passed", report
    wrong = forms_course.submission("board-wrong.py", BOARD_REFERENCE.replace("return not self.attacked(row, col)",
                                                                            "return True"))
    report = run_cli("check", "--exercises", bundle / "exercises", "board", wrong, "--format", "json").json()
    assert report["verdict"] == "wrong_answer"


def test_a_custom_checker_judges_without_a_reference(course) -> None:  # noqa: ANN001
    course.write("queens", QUEENS)
    (course.exercises / "queens_check.py").write_text(QUEENS_CHECK.replace(
        "    if expected is None:\n", "    if n < 4:\n"))
    report = check(course, "queens", QUEENS_REFERENCE)
    assert report["verdict"] == "passed", report


def test_nan_reaches_the_checker_and_equals_nothing_unless_the_spec_says_so(course) -> None:  # noqa: ANN001
    spec = ("title: Nan\nkind: function\nentry: f\nstatement: s\nchecker: close\ntests:\n"
            "  - name: nan\n    call: f()\n")  # the reference's nan is the expected value
    course.write("nan", spec)
    course.reference("nan", "plain.py", "def f():\n    return float('nan')\n")
    assert check(course, "nan", "def f():\n    return float('nan')\n")["verdict"] == "wrong_answer"
    course.write("nan", spec.replace("checker: close", "checker: {name: close, args: {nan_equal: true}}"))
    assert check(course, "nan", "def f():\n    return float('nan')\n")["verdict"] == "passed"
    assert check(course, "nan", "def f():\n    return 0.0\n")["verdict"] == "wrong_answer"


@pytest.mark.parametrize(("answer", "verdict"), [("10**400", "wrong_answer"), ("[10**400]", "wrong_answer"),
                                                 ("float('inf')", "wrong_answer"), ("2.5", "passed")])
def test_a_huge_int_answer_to_close_is_a_verdict_not_a_crash(course, answer: str, verdict: str) -> None:  # noqa: ANN001
    spec = ("title: Big\nkind: function\nentry: f\nstatement: s\nchecker: close\ntests:\n"
            "  - name: big\n    call: f()\n    expect: 2.5\n")
    course.write("big", spec)
    course.reference("big", "plain.py", "def f():\n    return 2.5\n")
    result = run_cli("check", "--exercises", course.exercises, "big", course.submission("big.py", f"def f():\n    return {answer}\n"),
                     "--format", "json")
    assert result.returncode in (0, 1), result.stderr
    assert result.json()["tests"][0]["verdict"] == verdict
