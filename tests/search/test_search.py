"""`search:` in a spec, through the real CLI and a real server: the smallest failing input, the same on every
run; a hidden search that says its verdict only; a hang that is a timeout within the budget; `validate`
proving the search finds a wrong reference."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import run_cli

SPEC = """\
title: Largest sum of a run
kind: function
entry: max_subarray
statement: Return the largest sum of a non-empty run of consecutive items of `xs`.
tests:
  - name: a run in the middle
    call: max_subarray([2, -5, 3, 4])
search:
  args:
    xs: {{lists: {{of: {{integers: {{min: -1000, max: 1000}}}}, min_size: 1, max_size: 8}}}}
  examples: 60
  seconds: 60
  limits: {{cpu: 0.25}}
  hidden: {hidden}
"""
KADANE = """\
def max_subarray(xs):
    best = current = xs[0]
    for x in xs[1:]:
        current = max(x, current + x)
        best = max(best, current)
    return best
"""
BEST_ZERO = KADANE.replace("best = current = xs[0]\n    for x in xs[1:]:", "best = current = 0\n    for x in xs:")
HANGS_ON_ONE_NEGATIVE = KADANE.replace("    best = current", "    while len(xs) == 1 and xs[0] < 0:\n        pass\n    best = current")


def write_course(root: Path, hidden: bool = False) -> Path:
    (root / "exercises").mkdir(parents=True)
    (root / "exercises" / "max-subarray.yaml").write_text(SPEC.format(hidden=str(hidden).lower()))
    for folder, name, code in (("accepted", "kadane.py", KADANE), ("wrong_answer", "best_zero.py", BEST_ZERO)):
        (root / "reference" / "max-subarray" / folder).mkdir(parents=True, exist_ok=True)
        (root / "reference" / "max-subarray" / folder / name).write_text(code)
    (root / "submission.py").write_text(BEST_ZERO)
    return root / "exercises"


def check(root: Path, *extra: str) -> dict:
    result = run_cli("check", "max-subarray", root / "submission.py", "--exercises", root / "exercises",
                     "--format", "json", *extra, cwd=root)  # no .hypothesis folder may appear there
    assert result.returncode == 1, result.stderr
    return json.loads(result.stdout)


def search_entry(report: dict) -> dict:
    found = next(test for test in report["tests"] if test["name"] == "generated inputs")
    return {key: value for key, value in found.items() if key != "cpu_seconds"}  # the machine's, not the input's


def test_best_zero_shrinks_to_minus_one_the_same_on_every_check_and_becomes_a_test(tmp_path: Path) -> None:
    write_course(tmp_path)
    first = check(tmp_path)
    found = search_entry(first)
    assert (found["verdict"], found["input"], found["expected"], found["actual"]) == \
        ("wrong_answer", "max_subarray([-1])", "-1", "0")
    assert found["feedback"].startswith("found by the search: max_subarray([-1]), the smallest failing input")
    terminal = run_cli("check", "max-subarray", tmp_path / "submission.py", "--exercises", tmp_path / "exercises")
    assert "found by the search: max_subarray([-1])" in terminal.stdout
    second = check(tmp_path)  # the same input again, and the one found before is a test of its own
    assert search_entry(second) == found
    earlier = next(test for test in second["tests"] if test["name"] == "found earlier: max_subarray([-1])")
    assert (earlier["verdict"], earlier["expected"], earlier["actual"], earlier["max_points"]) == \
        ("wrong_answer", "-1", "0", 0.0)
    assert not list(tmp_path.rglob(".hypothesis"))  # Hypothesis keeps no database anywhere


def test_a_hidden_search_says_its_verdict_and_no_input_in_any_format(tmp_path: Path) -> None:
    write_course(tmp_path, hidden=True)
    report = check(tmp_path)
    found = search_entry(report)
    assert (found["verdict"], found["feedback"]) == ("wrong_answer", "wrong answer on a generated input")
    assert search_entry.__name__ and report["tests"][-1]["cpu_seconds"] == 0.0
    assert found.get("input") is None and found.get("expected") is None and found.get("actual") is None
    outputs = [json.dumps(report)]
    for form in ("terminal", "html"):
        result = run_cli("check", "max-subarray", tmp_path / "submission.py", "--exercises", tmp_path / "exercises",
                         "--format", form)
        outputs.append(result.stdout)
    for text in outputs:
        assert "[-1]" not in text and "found earlier" not in text


def test_an_input_that_hangs_is_a_timeout_and_the_search_ends(tmp_path: Path) -> None:
    write_course(tmp_path)
    (tmp_path / "submission.py").write_text(HANGS_ON_ONE_NEGATIVE)
    found = search_entry(check(tmp_path))
    assert (found["verdict"], found["input"]) == ("timeout", "max_subarray([-1])")
    assert "time limit exceeded" in found["feedback"]


def test_validate_proves_the_search_finds_a_wrong_reference_and_passes_the_accepted_one(tmp_path: Path) -> None:
    write_course(tmp_path)
    # Wrong only on runs longer than the search makes: a written test would have to catch it.
    long_only = KADANE.replace("    return best", "    return best if len(xs) < 20 else 0")
    (tmp_path / "reference" / "max-subarray" / "wrong_answer" / "long_only.py").write_text(long_only)
    result = run_cli("validate", "max-subarray", "--exercises", tmp_path / "exercises")
    assert result.returncode == 1, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert any("kadane.py" in line and "accepted" in line and line.rstrip().endswith("ok") for line in lines)
    assert any("best_zero.py" in line and line.rstrip().endswith("ok") for line in lines)
    assert any(line.startswith("✗ wrong_answer/long_only.py: the search 'generated inputs' finds no input")
               for line in lines), result.stdout


@pytest.mark.parametrize("text, message", [
    ("xs: {lits: {of: integers}}", "unknown strategy 'lits' (did you mean 'lists'?)"),
    ("xs: {integers: {min: 5, max: 1}}", "min (5) is more than max (1)"),
    ("xs: {lists: {max_size: 3}}", "needs 'of'"),
    ("xs: {sampled: []}", "takes a non-empty list of values"),
    ("xs: {lists: {of: integers, max_size: 1000000000}}", "max_size must be a whole number from 0 to 1000"),
    ("xs: {integers: {min: true}}", "min must be a whole number"),
    ("xs: {floats: {min: .nan}}", "min must be a number"),
    ("xs: \"integers\\u202e\\x00\"", "unknown strategy 'integers\u202e\x00'"),
    ("xs: [integers, text]", "must be a strategy"),
    ("xs: {floats: {max: 1, infinity: true}}", "nan and infinity are outside any min and max"),
    ("xs: {dicts: {keys: {lists: {of: integers}}, values: integers}}", "keys must be hashable"),
    ("\"x y\": integers", "'x y' is not a plain Python name"),
])
def test_a_bad_strategy_is_a_spec_error_at_its_line(tmp_path: Path, text: str, message: str) -> None:
    from grader.errors import SpecError
    from grader.spec import load_exercise

    spec = SPEC.format(hidden="false").replace(
        "    xs: {lists: {of: {integers: {min: -1000, max: 1000}}, min_size: 1, max_size: 8}}", f"    {text}")
    path = tmp_path / "max-subarray.yaml"
    path.write_text(spec)
    with pytest.raises(SpecError) as raised:
        load_exercise(path)
    assert message in str(raised.value) and ":10:" in str(raised.value)


def test_a_found_input_is_written_as_python_that_makes_it_again() -> None:
    from grader.search.literal import call_text

    values = ([float("nan"), -float("inf"), 0.5], {"a": (1,)}, {3, 1, 2}, "x'y")
    text = call_text("f", values)
    assert text == "f([float('nan'), -float('inf'), 0.5], {'a': (1,)}, {1, 2, 3}, \"x'y\")"


def test_a_server_grading_finds_the_same_input_as_grader_check(tmp_path: Path) -> None:
    from tests.server.conftest import Served

    served = Served(tmp_path, tmp_path / "state", write_course(tmp_path))
    try:
        alice = served.token("alice")
        served.start("--workers", "1")
        sent = served.submit(alice, "max-subarray", BEST_ZERO)
        assert sent.status == 202, sent.body
        graded = served.wait(alice, sent.body["id"])
    finally:
        served.stop()
    assert search_entry(graded["report"]) == search_entry(check(tmp_path))


def test_a_forged_found_file_runs_only_calls_of_the_entry(tmp_path: Path) -> None:
    from grader.cache import cache_dir
    from grader.search.found import _path, found_tests
    from grader.spec import load_exercise

    exercises = write_course(tmp_path)
    exercise = load_exercise(exercises / "max-subarray.yaml")
    forged = ["max_subarray([5])", "__import__('os').system('x')", "max_subarray(", 3, "print(1)"]
    cache_dir().mkdir(parents=True, exist_ok=True)
    _path(exercise, tmp_path / "submission.py").write_text(json.dumps(forged))
    assert [test.call for test in found_tests(exercise, tmp_path / "submission.py")] == ["max_subarray([5])"]
    _path(exercise, tmp_path / "submission.py").write_text("{not json")
    assert found_tests(exercise, tmp_path / "submission.py") == ()
