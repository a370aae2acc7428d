"""A few inputs the spec does not test, made from its tests: is a surviving mutant equivalent to its reference?

Each probe is a test of the exercise with its input changed: a number in its call (or its standard input)
one more or one less, and the call made twice (for a call of the entry function, wrapped so that its answer
also holds the arguments after the call): an argument changed in place, or a default shared between calls,
then shows. A probe's expected value is a placeholder: the mutant's answer is compared with
its own reference's answer to the same probe, so no reference has to be right about an input the statement
may not allow (n = 0, an empty board)."""

from __future__ import annotations

import ast
import re
from dataclasses import replace

from grader.model import CheckerSpec, Exercise, Outcome, Test, Verdict

MOST = 8  # probes per exercise: each surviving mutant and its reference run all of them
PLACEHOLDER = "\0 no expected value: compared with the reference's answer"
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
    probes = probes[:MOST]
    return replace(exercise, tests=tuple(probes)) if probes else None


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
    variants = []
    wrapped = _wrapped(tree.body, exercise.entry)
    variants.append(wrapped)
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
    return replace(test, name=f"probe {number}: {_short(variant)}", **changes, expect=PLACEHOLDER, hidden=False,
                   big=False, raises=None, form="call", feedback="", description="",
                   checker=CheckerSpec("output" if test.compare == "output" else "value"))


def _short(text: str) -> str:
    text = text.replace("\n", "\\n")
    return text if len(text) <= 60 else text[:57] + "..."


def same_answer(mutant: Outcome, reference: Outcome) -> bool:
    """Both answered a probe alike: the same verdict and, when the run gave an answer, the same answer."""
    if mutant.verdict != reference.verdict:
        return False
    if mutant.verdict in (Verdict.WRONG_ANSWER, Verdict.PASSED):
        return (mutant.actual, mutant.feedback) == (reference.actual, reference.feedback)
    return True  # a timeout or an error: the same kind of failure (its text holds times and line numbers)


def probe_input(test: Test) -> str:
    """What the author writes in a spec to make the probe a test."""
    return f"stdin: {test.stdin!r}" if test.stdin is not None else f"call: {test.call}"
