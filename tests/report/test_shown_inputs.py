"""What a student reads of each test: its input (calls, generated inputs with their seed, steps, argv,
files, stdin) and its expected answer written as the spec would write it, never an internal record."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import run_cli
from tests.forms.test_forms_cli import BOARD, BOARD_REFERENCE, FILES, FILES_REFERENCE, GENERATORS, MEAN, MEAN_REFERENCE

INTERNAL = ("StepAnswer(", "ProgramAnswer(", "ExpectedRaise(", "Raised(", "Generated(")


def flat(text: str) -> str:
    return " ".join(text.replace("│", " ").split())


def forms(course) -> None:  # noqa: ANN001
    visible_mean = MEAN.replace("    hidden: true\n", "")
    for exercise_id, spec, reference in (("mean", visible_mean, MEAN_REFERENCE), ("board", BOARD, BOARD_REFERENCE),
                                         ("upper", FILES, FILES_REFERENCE)):
        course.write(exercise_id, spec)
        course.reference(exercise_id, "plain.py", reference)
    (course.exercises / "generators.py").write_text(GENERATORS)


def test_show_writes_every_form_as_the_spec_would(course) -> None:  # noqa: ANN001
    forms(course)
    shown = {e: run_cli("show", "--exercises", course.exercises, e, env={"COLUMNS": "200"}) for e in ("mean", "board", "upper")}
    for result in shown.values():
        assert result.returncode == 0, result.stderr
        assert not any(word in result.stdout for word in INTERNAL), result.stdout
    mean = flat(shown["mean"].stdout)
    assert "mean([]) raises ValueError with a message containing 'empty'" in mean
    assert "xs = floats(count=2000, seed=3) from generators.py" in mean  # a generated input, its seed
    board = flat(shown["board"].stdout)
    assert "board = Board(4)" in board and "board.place(1, 2)" in board and "raises ValueError" in board
    assert "[(0, 1)]" in board
    upper = shown["upper"].stdout  # a table: its cells are lines of their own
    for cell in ("args: in.txt out.txt", "file in.txt:", "  hello", "file out.txt:", "  HELLO",
                 "file out.txt: not written", "exit status 1", "standard error: something"):
        assert f"│ {cell}" in upper, cell


def test_a_failing_tests_panel_shows_its_generated_input_and_a_wrong_files_diff(course) -> None:  # noqa: ANN001
    forms(course)
    wrong = course.submission("mean.py", "def mean(xs):\n    if not xs:\n        raise ValueError('empty')\n"
                                         "    return 0.5\n")
    text = flat(run_cli("check", "--exercises", course.exercises, "mean", wrong, env={"COLUMNS": "200"}).stdout)
    assert "input: mean(xs) xs = floats(count=2000, seed=3) from generators.py" in text
    lower = course.submission("upper.py", FILES_REFERENCE.replace("text.upper()", "text"))
    text = flat(run_cli("check", "--exercises", course.exercises, "upper", lower, env={"COLUMNS": "200"}).stdout)
    assert "out.txt: line 1 differs" in text
    assert "line 1 expected HELLO got hello" in text  # the file's difference, not standard output's


def test_a_student_bundle_counts_the_hidden_tests_it_leaves_out(course, tmp_path: Path) -> None:  # noqa: ANN001
    forms(course)
    course.write("mean", MEAN)  # one hidden test
    bundle = tmp_path / "bundle"
    assert run_cli("export", "--student", bundle, "--exercises", course.exercises).returncode == 0
    shown = run_cli("show", "--exercises", bundle / "exercises", "mean")
    assert "1 hidden test run too" in flat(shown.stdout)
    assert "No hidden tests" in flat(run_cli("show", "--exercises", bundle / "exercises", "board").stdout)


def test_the_hidden_summary_is_one_sentence(course) -> None:  # noqa: ANN001
    spec = """title: Two
kind: function
entry: f
statement: s
tests:
  - {name: a, call: f(1), expect: 1, hidden: true, feedback: Make the board's sets in __init__.}
  - {name: b, call: f(2), expect: 2, hidden: true, feedback: Return a tuple.}
  - {name: c, call: f(3), expect: 3, hidden: true}
  - {name: d, call: f(4), expect: 4, hidden: true}
"""
    course.write("two", spec)
    text = flat(run_cli("check", "--exercises", course.exercises, "two",
                        course.submission("two.py", "def f(x):\n    return 0\n")).stdout)
    assert "4 hidden tests did not pass: wrong answer (2); Make the board's sets in __init__; Return a tuple" in text


def test_validate_refuses_a_call_argument_a_custom_checker_would_get_as_none(course) -> None:  # noqa: ANN001
    course.write("q", "title: Q\nkind: function\nentry: f\nstatement: s\n"
                      "checker: {file: check.py, function: check}\ntests:\n"
                      "  - {name: made, call: 'f(list(range(3)), 2)'}\n  - {name: plain, call: 'f([0, 1], 2)'}\n")
    (course.exercises / "check.py").write_text("def check(input, answer, expected):\n    return answer == expected\n")
    course.reference("q", "plain.py", "def f(xs, n):\n    return len(xs) * n\n")
    result = run_cli("validate", "--exercises", course.exercises, "q")
    assert result.returncode != 0
    out = flat(result.stdout)
    assert "test 'made' (line 7): checker 'check.py:check' reads the call's arguments, but `list(range(3))`" in out
    assert "test 'plain'" not in out


def test_every_visible_tests_input_is_in_the_json_report_the_gradebook_and_the_students_page(
        course, tmp_path: Path) -> None:  # noqa: ANN001
    forms(course)
    course.write("mean", MEAN.replace("    hidden: true\n", "").replace("  - name: three numbers\n",
                                                                       "  - name: secret\n    call: mean([7])\n"
                                                                       "    hidden: true\n  - name: three numbers\n"))
    wrong = "def mean(xs):\n    if not xs:\n        raise ValueError('empty')\n    return 0.5\n"
    report = run_cli("check", "--exercises", course.exercises, "mean", course.submission("mean.py", wrong),
                     "--format", "json").json()
    tests = {test["name"]: test for test in report["tests"]}
    assert tests["three numbers"]["input"] == "mean([1, 2, 4])"
    assert tests["many floats"]["input"] == "mean(xs)\nxs = floats(count=2000, seed=3) from generators.py"
    assert "input" not in tests["secret"]  # a hidden test never carries it
    platform = run_cli("check", "--exercises", course.exercises, "mean", course.submission("mean.py", wrong),
                       "--format", "gradescope").json()
    outputs = {t["name"].split(": ", 1)[1]: t.get("output", "") for t in platform["tests"]}
    assert "input:\nmean([1, 2, 4])" in outputs["three numbers"] and "mean([7])" not in outputs["secret"]
    lower = course.submission("upper.py", FILES_REFERENCE.replace("text.upper()", "text"))
    upper = run_cli("check", "--exercises", course.exercises, "upper", lower, "--format", "json").json()
    shown = upper["tests"][0]["input"]
    assert "args: in.txt out.txt" in shown and "file in.txt:" in shown
    # A batch of the same file: its grades.json carries the same inputs, and the student's page shows them.
    class_dir = tmp_path / "class" / "ada"
    class_dir.mkdir(parents=True)
    (class_dir / "mean.py").write_text(wrong)
    out = tmp_path / "out"
    done = run_cli("batch", class_dir.parent, "--exercises", course.exercises, "--only", "mean", "--out", out)
    assert done.returncode in (0, 1), done.stderr
    import json

    book = json.loads((out / "grades.json").read_text())
    graded = {t["name"]: t for t in book["students"][0]["exercises"]["mean"]["tests"]}
    assert graded["many floats"]["input"] == tests["many floats"]["input"]
    assert "input" not in graded["secret"]
    page = (out / "html" / "students" / "ada.html").read_text()
    assert "xs = floats(count=2000, seed=3) from generators.py" in page
    assert "mean([7])" not in page
