"""A few inputs the spec does not test, made from its tests: is a surviving mutant equivalent to its reference?

Each probe is a test of the exercise with its input changed: a number in its call (or its standard input)
one more or one less, and the call made twice (for a call of the entry function, wrapped so that its answer
also holds the arguments after the call): an argument changed in place, or a default shared between calls,
then shows. A probe keeps its test's checker, and its expected value comes from the first accepted
reference as a test's does (a probe the reference cannot answer, n = -1 say, is dropped): a checker that
takes any valid answer takes the mutant's too. A mutant is equivalent when it gets its own reference's
verdict on every probe."""

from __future__ import annotations

import ast
import re
from dataclasses import replace

from grader.expected import ExpectationError, expected_values
from grader.model import MISSING, Exercise, Outcome, Test, Verdict

MOST = 8  # probes per exercise: each surviving mutant and its reference run all of them
_NUMBER = re.compile(r"(?<![\w.])\d{1,3}(?![\w.])")


def probe_exercise(exercise: Exercise) -> Exercise | None:
    """The exercise with only probes for tests; None when its tests give nothing to change."""
    probes: list[Test] = []
    seen = {t.call or t.stdin for t in exercise.tests}
    for test in exercise.tests:
        if test.big or test.given or test.steps or test.io is not None:
            continue
        for variant in _variants(exercise, test):
            if variant not in seen:
                seen.add(variant)
                probes.append(_probe(test, variant, len(probes) + 1, exercise.kind == "program"))
    answered = _answered(exercise, probes)
    return replace(exercise, tests=tuple(answered[:MOST])) if answered else None


def _answered(exercise: Exercise, probes: list[Test]) -> list[Test]:
    """The probes with their expected values, as the first accepted reference answers them (cached as any
    test's are); one at a time when some probe is one it cannot answer, which is dropped."""
    def values(tests: list[Test]) -> dict[str, object]:
        return expected_values(replace(exercise, tests=tuple(tests)))

    try:
        found = values(probes[:MOST])
        return [replace(t, expect=found[t.name]) for t in probes[:MOST]]
    except ExpectationError:
        pass
    answered = []
    for probe in probes:
        try:
            answered.append(replace(probe, expect=values([probe])[probe.name]))
        except ExpectationError:
            continue
        if len(answered) == MOST:
            break
    return answered


def _variants(exercise: Exercise, test: Test) -> list[str]:
    if test.stdin is not None:
        return [test.stdin[:m.start()] + str(int(m.group()) + delta) + test.stdin[m.end():]
                for m in list(_NUMBER.finditer(test.stdin))[:2] for delta in (1, -1) if int(m.group()) + delta >= 0]
    if not test.call:
        return []
    try:
        tree = ast.parse(test.call, mode="eval")
    except SyntaxError:
        return []
    # A course's own checker judges the answer of one call of the entry, with that call's arguments: the
    # answer of two calls (and the arguments) is not one, and another expression's input is unknown to it.
    twice = test.checker.name != "custom"
    if not twice and not isinstance(tree.body, ast.Call):
        return []
    variants = [_wrapped(tree.body, exercise.entry)] if twice else []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and type(node.value) is int and abs(node.value) <= 100:
            for delta in (1, -1):
                if node.value + delta < 0:
                    continue
                original = node.value
                node.value = original + delta
                changed = ast.unparse(tree)
                node.value = original
                variants.append(changed)
                if twice:
                    variants.append(_wrapped(ast.parse(changed, mode="eval").body, exercise.entry))
    return variants


def _wrapped(call: ast.expr, entry: str | None) -> str:
    """`f(x)` as `(lambda *a, **k: (f(*a, **k), a, k, f(*a, **k)))(x)`: the answer, the arguments after
    the call, and a second call's answer; any other expression `e` as `(e, e)`."""
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == entry):
        return f"({ast.unparse(call)}, {ast.unparse(call)})"  # twice: what a first call leaves behind shows
    arguments = ", ".join(ast.unparse(a) for a in (*call.args, *call.keywords))
    return f"(lambda *a, **k: ({entry}(*a, **k), a, k, {entry}(*a, **k)))({arguments})"


def _probe(test: Test, variant: str, number: int, program: bool) -> Test:
    changes = {"stdin": variant} if program else {"call": variant}
    return replace(test, name=f"probe {number}: {_short(variant)}", **changes, expect=MISSING, hidden=False,
                   big=False, raises=None, form="call", feedback="", description="")


def _short(text: str) -> str:
    text = text.replace("\n", "\\n")
    return text if len(text) <= 60 else text[:57] + "..."


def same_answer(mutant: Outcome, reference: Outcome) -> bool:
    """Both answered a probe alike: the same verdict and, when both answers are wrong, the same answer (a
    reference other than the first may answer an input the statement does not allow in its own way)."""
    if mutant.verdict != reference.verdict:
        return False
    if mutant.verdict == Verdict.WRONG_ANSWER:
        return (mutant.actual, mutant.feedback) == (reference.actual, reference.feedback)
    return True  # passed both, or the same kind of failure (its text holds times and line numbers)


def probe_input(test: Test) -> str:
    """What the author writes in a spec to make the probe a test."""
    return f"stdin: {test.stdin!r}" if test.stdin is not None else f"call: {test.call}"
