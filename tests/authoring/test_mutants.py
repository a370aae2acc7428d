"""`grader validate --mutants`: mutants of the references, graded by the real grader through the CLI.

One small exercise, count_below(xs, limit), whose reference copies its argument first (a copy it does not
need: leaving it out changes nothing, so those mutants are equivalent) and counts with `<` (`<=` is the
mistake a weak suite lets through)."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import jsonschema
import pytest

from grader.mutants.probes import probe_exercise
from grader.mutants.rules import RULES, make_mutants
from grader.schemas import load
from grader.spec import load_exercise
from tests.authoring.conftest import CourseFolder
from tests.conftest import Completed, run_cli

SCHEMA = load("mutants")

REFERENCE = '''\
def count_below(xs, limit):
    """How many items of xs are below limit."""
    xs = list(xs)  # a defensive copy: nothing changes xs, so leaving it out changes nothing
    count = 0
    for x in xs:
        if x < limit:
            count += 1
    return count
'''

SPEC = """\
title: Count below
kind: function
entry: count_below
statement: |
  Write `count_below(xs, limit)`: how many items of xs are below limit.
calibration: {floor: 0.3}
tests:
  - name: some below
    call: count_below([1, 5, 9], 4)
    expect: 1
  - name: none
    call: count_below([], 3)
    expect: 0
"""
LESS = "loop:comparison@6:11"  # `<` became `<=`
COPY = "loop:in-place@3:9"  # `list(xs)` became `xs`
HIDDEN_EQUAL = """\
  - name: equal to the limit
    call: count_below([4, 4], 4)
    expect: 0
    hidden: true
"""


def mutants(course: CourseFolder, *args: object) -> tuple[Completed, dict]:
    result = run_cli("validate", "--exercises", course.exercises, "--mutants", "--format", "json", *args,
                     timeout=900)
    report = json.loads(result.stdout)
    jsonschema.validate(report, SCHEMA)
    return result, report


def by_id(exercise: dict) -> dict[str, dict]:
    return {m["id"]: m for m in exercise["mutants"]}


# ------------------------------------------------------------------ the rules, without a sandbox


RULE_SAMPLE = '''\
import copy


def f(xs, n, seen=None):
    """doc"""
    out = []
    total = 0
    for i in range(n):
        if i < n - 1 and xs[i] in out:
            total += 1
        elif i == 3:
            total = max(total, i)
        else:
            out.append(xs[i])
    ys = sorted(xs)
    zs = xs[:]
    return total + 1
'''


def test_every_rule_makes_mutants_that_parse_differ_and_come_out_the_same_each_time() -> None:
    made = make_mutants(RULE_SAMPLE, "sample.py")
    assert {m.rule for m in made} == set(RULES)
    original = ast.dump(ast.parse(RULE_SAMPLE))
    dumps = [ast.dump(ast.parse(m.source)) for m in made]
    assert original not in dumps and len(set(dumps)) == len(dumps)  # parse, differ from it and each other
    assert len({m.id for m in made}) == len(made)
    assert [m.source for m in make_mutants(RULE_SAMPLE, "sample.py")] == [m.source for m in made]
    sources = {m.what: m.source for m in made}
    assert "    for i in range(n - 1):\n" in sources["`range(n)` became `range(n - 1)`"]
    assert "if i <= n - 1 and" in sources["`<` became `<=`"]  # no parentheses where none are needed
    shared = sources["`out = []` became a default argument of f(), shared between calls"]
    assert "def f(xs, n, seen=None, *, out=[]):\n" in shared and '    """doc"""' in shared
    assert "    ys = xs.sort() or xs\n" in sources["`sorted(xs)` sorts the argument xs in place"]
    assert "    zs = xs\n" in sources["`xs[:]` became `xs`: no copy, the caller's value is changed"]
    assert "        total += 1\n        else:" not in sources["the `elif` branch of `if i < n - 1 and xs[i] in out` left out"]


def test_probes_change_the_numbers_of_the_tests_and_show_the_arguments_after_the_call(course: CourseFolder) -> None:
    exercise = load_exercise(course.write("count-below", SPEC))
    course.reference("count-below", "loop.py", REFERENCE)
    probes = probe_exercise(exercise)
    assert probes is not None
    calls = [t.call for t in probes.tests]
    assert calls[0] == ("(lambda *a, **k: (count_below(*a, **k), a, k, count_below(*a, **k)))([1, 5, 9], 4)")
    assert "count_below([2, 5, 9], 4)" in calls and "count_below([1, 5, 9], 5)" in calls
    assert all(not t.hidden and not t.big for t in probes.tests) and len(calls) <= 8
    # Expected values from the reference, as a test's: the checker judges a probe as it judges the test.
    assert {t.call: t.expect for t in probes.tests}["count_below([1, 5, 9], 5)"] == 1


@pytest.mark.parametrize("mutants_key, problem", [
    ("{kill_at_least: 2}", "mutants.kill_at_least must be from 0 to 1"),
    ("{equivalent: [{id: x}]}", "an equivalent mutant needs 'reason'"),
    ("{kill_at_leest: 0.5}", "unknown key 'kill_at_leest' in mutants (did you mean 'kill_at_least'?)"),
])
def test_a_malformed_mutants_key_names_file_line_and_key(course: CourseFolder, mutants_key: str, problem: str) -> None:
    course.write("count-below", SPEC + f"mutants: {mutants_key}\n")
    course.reference("count-below", "loop.py", REFERENCE)
    result = run_cli("validate", "--exercises", course.exercises, "--mutants")
    assert result.returncode == 3 and problem in result.stderr and "count-below.yaml:" in result.stderr, result


# ------------------------------------------------------------------ through the real grader


def test_a_weak_suite_lets_a_mutant_survive_the_copies_are_equivalent_and_a_floor_fails(course: CourseFolder,
                                                                                       tmp_path: Path) -> None:
    course.write("count-below", SPEC + "mutants: {kill_at_least: 1.0}\n")
    course.reference("count-below", "loop.py", REFERENCE)
    result, report = mutants(course, "--html", tmp_path / "out")
    assert result.returncode == 1, result.stderr  # the floor: a survivor leaves the rate under 100%
    (exercise,) = report["exercises"]
    found = by_id(exercise)
    survivor = found[LESS]
    assert survivor["status"] == "survived" and survivor["passed"] == ["some below", "none"]
    assert "-        if x < limit:\n+        if x <= limit:\n" in survivor["diff"]
    assert "call: count_below([1, 5, 9], 5) tells it apart: it gets" in survivor["why"]  # the test to add
    # Leaving out the copy changes nothing: set apart as equivalent, not counted as a survivor.
    assert found[COPY]["status"] == "equivalent" and "answers all" in found[COPY]["why"]
    assert exercise["survived"] >= 1 and exercise["equivalent"] >= 1 and exercise["killed"] >= 5
    assert exercise["kill_rate"] == pytest.approx((exercise["killed"] + exercise["timed_out"]) / (
        exercise["graded"] - exercise["equivalent"] - exercise["error"]))
    assert exercise["ok"] is False and report["ok"] is False and exercise["kill_at_least"] == 1.0
    killed = {t["name"]: t["killed"] for t in exercise["tests"]}
    assert "loop:statement@8:4" in killed["some below"]  # `return count` left out
    assert LESS not in killed["some below"] + killed["none"]
    page = (tmp_path / "out" / "html" / "mutants.html").read_text()
    assert LESS in page and "below the floor" in page and "if x &lt;= limit:" in page
    text = run_cli("validate", "--exercises", course.exercises, "--mutants", timeout=900)
    assert text.returncode == 1
    assert "the kill rate" in text.stdout and "is below the spec's mutants.kill_at_least 100%" in text.stdout
    assert f"survived: {LESS}: `<` became `<=`" in text.stdout


def test_a_mutant_only_a_hidden_test_kills_is_flagged_and_a_mark_sets_a_mutant_apart(course: CourseFolder) -> None:
    marked = (f"mutants:\n  kill_at_least: 1.0\n  equivalent:\n"
              f"    - {{id: '{COPY}', reason: nothing changes xs}}\n")
    course.write("count-below", SPEC + HIDDEN_EQUAL + marked)
    course.reference("count-below", "loop.py", REFERENCE)
    result, report = mutants(course)
    (exercise,) = report["exercises"]
    found = by_id(exercise)
    assert found[LESS]["status"] == "killed" and found[LESS]["killed_by"] == ["equal to the limit"]
    assert found[LESS]["hidden_only"] is True
    assert found[COPY]["status"] == "equivalent" and found[COPY]["why"] == "marked: nothing changes xs"
    assert exercise["survived"] == 0 and result.returncode == 0, result.stderr  # every other mutant is killed
    text = run_cli("validate", "--exercises", course.exercises, "--mutants", timeout=900).stdout
    assert (f"only hidden tests catch {LESS} (`<` became `<=`): the visible tests alone would not catch it"
            in text), text
